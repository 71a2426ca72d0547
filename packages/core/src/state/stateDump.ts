/**
 * The whole state as one blob (anvil_dumpState / anvil_loadState). The trie is keyed by hashed
 * addresses and slots, so the blob carries the hashed keys as they are, with each account's code
 * and storage: loading it into an empty node rebuilds exactly the same tries, so the state root matches;
 * loading it into a node with state of its own merges the two (as Anvil).
 *
 *   RLP([ [hashedAddress, accountRLP, code, [[hashedSlot, valueRLP], ...]], ... ])
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import type { LeafMPTNode } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import {
  concatBytes,
  createAccountFromRLP,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  setLengthLeft,
  ValueEncoding,
} from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';

import { InvalidGenesisError } from '../errors';
import { preimageKey } from './flatState';
import type { StateDB } from './stateDb';

function rawTrie(db: StateDB, common: Common, root?: Uint8Array): MerklePatriciaTrie {
  // Keys are already hashed in the dump: no key hashing here.
  return new MerklePatriciaTrie({ db, root, useKeyHashing: false, valueEncoding: ValueEncoding.Bytes, common });
}

/** A full key's nibbles (an even number of them) as bytes. */
function packNibbles(nibbles: number[]): Uint8Array {
  const out = new Uint8Array(nibbles.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = (nibbles[2 * i] << 4) | nibbles[2 * i + 1];
  return out;
}

async function leaves(trie: MerklePatriciaTrie): Promise<[Uint8Array, Uint8Array][]> {
  const out: [Uint8Array, Uint8Array][] = [];
  await trie.walkAllValueNodes(async (node, key) => {
    const leaf = node as LeafMPTNode;
    out.push([packNibbles(key.concat(leaf.key())), leaf.value() as Uint8Array]);
  });
  return out;
}

/** An account listed by its address, its storage by slot (Anvil's state dump). */
export interface ListedAccount {
  address: Uint8Array;
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  /** Slot and value, 32 bytes each. */
  storage: [slot: Uint8Array, value: Uint8Array][];
}

/** An account a state file or Anvil's dump gives: the fields it names. */
export type LoadedAccount = Partial<ListedAccount> & { address: Uint8Array };

/**
 * The state at `root` listed by address and slot, from the preimages written as each key entered a
 * trie (flatState.ts preimageKey); undefined when a key's preimage is not known (a state merged from
 * this node's own blob, which holds hashed keys only): then only the blob is whole.
 */
export async function listState(db: StateDB, common: Common, root: Uint8Array): Promise<ListedAccount[] | undefined> {
  const out: ListedAccount[] = [];
  for (const [hashedAddress, accountRlp] of await leaves(rawTrie(db, common, root))) {
    const address = await db.get(preimageKey(hashedAddress));
    if (address === undefined) return undefined;
    const account = createAccountFromRLP(accountRlp);
    const storage: ListedAccount['storage'] = [];
    if (!equalsBytes(account.storageRoot, KECCAK256_RLP))
      for (const [hashedSlot, valueRlp] of await leaves(rawTrie(db, common, account.storageRoot))) {
        const slot = await db.get(preimageKey(hashedSlot));
        if (slot === undefined) return undefined;
        storage.push([slot, setLengthLeft(RLP.decode(valueRlp) as Uint8Array, 32)]);
      }
    out.push({ address, nonce: account.nonce, balance: account.balance, code: await codeOf(db, account), storage });
  }
  return out;
}

async function codeOf(db: StateDB, account: { codeHash: Uint8Array }): Promise<Uint8Array> {
  if (equalsBytes(account.codeHash, KECCAK256_NULL)) return new Uint8Array();
  return (
    (await db.get(Buffer.from(concatBytes(CODEHASH_PREFIX, account.codeHash)).toString('hex'))) ?? new Uint8Array()
  );
}

export async function dumpState(db: StateDB, common: Common, root: Uint8Array): Promise<Uint8Array> {
  const accounts = [];
  for (const [hashedAddress, accountRlp] of await leaves(rawTrie(db, common, root))) {
    const account = createAccountFromRLP(accountRlp);
    const code = await codeOf(db, account);
    const storage = equalsBytes(account.storageRoot, rawTrie(db, common).EMPTY_TRIE_ROOT)
      ? []
      : await leaves(rawTrie(db, common, account.storageRoot));
    accounts.push([hashedAddress, accountRlp, code, storage]);
  }
  return RLP.encode(accounts);
}

/**
 * Merges a dump into the state at `root`, as Anvil loads one: each account it holds takes the
 * dump's balance, nonce and code, and the dump's storage slots are written over the account's own;
 * accounts and slots the dump does not name stay. Returns the new state root.
 */
export async function loadState(db: StateDB, common: Common, blob: Uint8Array, root: Uint8Array): Promise<Uint8Array> {
  let accounts: [Uint8Array, Uint8Array, Uint8Array, [Uint8Array, Uint8Array][]][];
  try {
    accounts = RLP.decode(blob) as unknown as typeof accounts;
    if (!Array.isArray(accounts)) throw new Error('not a list');
  } catch (e) {
    throw new InvalidGenesisError(`state blob is not a dump of this node's format: ${(e as Error).message}`);
  }
  const state = rawTrie(db, common, root);
  for (const [hashedAddress, accountRlp, code, storage] of accounts) {
    const account = createAccountFromRLP(accountRlp);
    const own = rawTrie(db, common);
    for (const [slot, value] of storage) await own.put(slot, value);
    if (!equalsBytes(own.root(), account.storageRoot))
      throw new InvalidGenesisError('state blob: a storage root does not match its slots');
    const existing = await state.get(hashedAddress);
    const kept = existing === null ? undefined : createAccountFromRLP(existing).storageRoot;
    if (kept !== undefined && !equalsBytes(kept, own.EMPTY_TRIE_ROOT)) {
      const merged = rawTrie(db, common, kept);
      for (const [slot, value] of storage) await merged.put(slot, value);
      account.storageRoot = merged.root();
    }
    if (code.length > 0)
      await db.put(Buffer.from(concatBytes(CODEHASH_PREFIX, account.codeHash)).toString('hex'), code);
    await state.put(hashedAddress, account.serialize());
  }
  return state.root();
}
