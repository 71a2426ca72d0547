/**
 * Linea's state as its state manager (Shomei) keeps it beside the Merkle-Patricia state: one sparse
 * Merkle trie of accounts and one per account of its storage, hashed with Poseidon2, updated block by
 * block in Shomei's order (core/src/main/java/net/consensys/shomei/worldview/ZkEvmWorldState.java:
 * the block's accounts sorted by key hash, each one's changed slots sorted by key hash first, a slot
 * set to zero or an account gone removed from its trie).
 *
 * Built lazily: nothing is hashed until a root or a proof is asked for; then the blocks not built yet
 * are, each from what changed in the Merkle-Patricia state between its parent and itself (the tries
 * are diffed, so imported chains and edited states are covered the same way). A block replaced by a
 * rollback or a reorg is unbuilt first.
 */
import { RLP } from '@ethereumjs/rlp';
import {
  bigIntToBytes,
  bytesToBigInt,
  createAccountFromRLP,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  setLengthLeft,
} from '@ethereumjs/util';

import { StateProofUnavailableError } from '../../errors';
import { yieldIfBusy } from '../../support/eventLoop';
import { SerialQueue } from '../../support/serialQueue';
import { diffTries } from '../trieDiff';
import type { TrieNodeStore } from '../updateTrie';
import { FlatLeaves } from './flatLeaves';
import { poseidon2, poseidonSafe } from './poseidon2';
import { SparseMerkleNodes } from './sparseMerkleTrie';
import { proveKey, ZkTrie } from './zkTrie';
import type { LineaKeyProof } from './zkTrie';

/** What the tries are built from: the Merkle-Patricia state of each block and its preimages. */
export interface LineaStateSource {
  /** Trie nodes by hash. */
  nodes: Pick<TrieNodeStore, 'get'>;
  /** An address or slot from its keccak hash (written as it entered the trie). */
  preimage(hash: Uint8Array): Promise<Uint8Array | undefined>;
  /** Code by its keccak hash. */
  code(codeHash: Uint8Array): Promise<Uint8Array>;
  /** Block `n`'s hash and post-state root; undefined past the head. */
  block(n: number): Promise<{ hash: Uint8Array; stateRoot: Uint8Array } | undefined>;
}

export interface LineaAccountProof {
  accountProof: LineaKeyProof;
  storageProofs: LineaKeyProof[];
}

/** A number as a 32-byte big-endian word. */
const word = (value: bigint): Uint8Array => setLengthLeft(bigIntToBytes(value), 32);

/** Shomei's ZkAccount.EMPTY_CODE_HASH: the Poseidon2 hash of 32 zero bytes (made at first use, not at start-up). */
let emptyCodeHash: Uint8Array | undefined;

/** The account as Shomei encodes it for proofs (ZkAccount's fields, 32 bytes each). */
export function accountValue(
  nonce: bigint,
  balance: bigint,
  storageRoot: Uint8Array,
  codeHash: Uint8Array,
  keccakCodeHash: Uint8Array,
  codeSize: number,
): Uint8Array {
  const out = new Uint8Array(192);
  out.set(word(nonce), 0);
  out.set(word(balance), 32);
  out.set(storageRoot, 64);
  out.set(codeHash, 96);
  out.set(keccakCodeHash, 128);
  out.set(word(BigInt(codeSize)), 160);
  return out;
}

/** ZkAccount.getEncodedBytes hashed: nonce, balance, keccak code hash and size made Poseidon-safe. */
export function hashAccountValue(value: Uint8Array): Uint8Array {
  const parts = [
    poseidonSafe(value.subarray(0, 32)),
    poseidonSafe(value.subarray(32, 64)),
    value.subarray(64, 96),
    value.subarray(96, 128),
    poseidonSafe(value.subarray(128, 160)),
    poseidonSafe(value.subarray(160, 192)),
  ];
  const all = new Uint8Array(320);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return poseidon2(all);
}

export class LineaState {
  private readonly nodes = new SparseMerkleNodes();
  private readonly accounts = new FlatLeaves();
  /** Each account's storage leaves, by the account's leaf index (Shomei's StorageTrieRepositoryWrapper). */
  private readonly storage = new Map<number, FlatLeaves>();
  /** By block number: the block built and the account trie's root after it. */
  private readonly built: { hash: Uint8Array; root: Uint8Array; tries: ZkTrie[] }[] = [];

  /** One build at a time: a block is built once, in order. */
  private readonly queue = new SerialQueue();

  constructor(private readonly source: LineaStateSource) {}

  /** The account trie's root after block `n` (Linea's state root, the L1's `stateRootHashes`). */
  rootAt(n: number): Promise<Uint8Array> {
    return this.queue.run(async () => {
      await this.buildTo(n);
      return this.built[n].root;
    });
  }

  /** `linea_getProof`: the account's proof and its slots' after block `n`, as Shomei answers. */
  proof(address: Uint8Array, slots: Uint8Array[], n: number): Promise<LineaAccountProof> {
    return this.queue.run(async () => {
      await this.buildTo(n);
      return this.proveAt(address, slots, n);
    });
  }

  private proveAt(address: Uint8Array, slots: Uint8Array[], n: number): LineaAccountProof {
    const root = this.built[n].root;
    const accountProof = proveKey(this.nodes, root, this.accounts, accountKey(address), address, n);
    const storageProofs: LineaKeyProof[] = [];
    // As Shomei's WorldStateProofProvider: slots are proved only for an account with storage.
    if ('leafIndex' in accountProof) {
      const storageRoot = accountProof.proof.value.subarray(64, 96);
      const leaves = this.storage.get(accountProof.leafIndex);
      if (leaves !== undefined && !equalsBytes(storageRoot, this.nodes.emptyTrieRoot))
        for (const slot of slots) storageProofs.push(proveKey(this.nodes, storageRoot, leaves, slotKey(slot), slot, n));
    }
    return { accountProof, storageProofs };
  }

  /** Builds every block up to `n`, unbuilding first any built block the chain no longer has. */
  private async buildTo(n: number): Promise<void> {
    while (this.built.length > 0) {
      const last = this.built.length - 1;
      const now = await this.source.block(last);
      if (now !== undefined && equalsBytes(now.hash, this.built[last].hash)) break;
      this.unbuild();
    }
    for (let b = this.built.length; b <= n; b++) {
      const block = await this.source.block(b);
      if (block === undefined) throw new RangeError(`block ${b} is not in the chain`);
      const parentRoot = b === 0 ? KECCAK256_RLP : (await this.source.block(b - 1))!.stateRoot;
      await this.buildBlock(b, block.hash, parentRoot, block.stateRoot);
      // A long catch-up shares the event loop with the node's requests.
      await yieldIfBusy();
    }
  }

  private unbuild(): void {
    const n = this.built.length - 1;
    for (const trie of this.built.pop()!.tries) trie.leaves.rewind(trie.touched, n - 1);
  }

  private async buildBlock(n: number, hash: Uint8Array, before: Uint8Array, after: Uint8Array): Promise<void> {
    const accounts = new ZkTrie(
      this.nodes,
      n === 0 ? this.nodes.emptyTrieRoot : this.built[n - 1].root,
      this.accounts,
      n,
    );
    const tries = [accounts];
    const changes = [];
    for (const [hashed, old, now] of await diffTries(this.source.nodes, before, after)) {
      const address = await this.source.preimage(hashed);
      if (address === undefined)
        throw new StateProofUnavailableError(
          "Linea's state needs every account's address, and this state holds one known by its hash only (loaded from a dump)",
        );
      changes.push({ hKey: accountKey(address), old, now });
    }
    changes.sort((a, b) => Buffer.compare(a.hKey, b.hKey));
    for (const { hKey, old, now } of changes) {
      if (now === null) {
        accounts.remove(hKey);
        continue;
      }
      const account = createAccountFromRLP(now);
      const existing = this.accounts.at(hKey, n);
      let storageRoot = existing?.value.subarray(64, 96) ?? this.nodes.emptyTrieRoot;
      const oldStorageRoot = old === null ? KECCAK256_RLP : createAccountFromRLP(old).storageRoot;
      if (!equalsBytes(oldStorageRoot, account.storageRoot)) {
        const index = existing?.index ?? accounts.nextFreeNode;
        const storage = this.storageTrie(index, storageRoot, n);
        tries.push(storage);
        await this.writeSlots(storage, oldStorageRoot, account.storageRoot);
        storageRoot = storage.root();
      }
      // The code's Poseidon2 hash and size: the leaf's while its keccak hash is unchanged.
      let codeHash: Uint8Array;
      let codeSize: number;
      if (existing !== undefined && equalsBytes(existing.value.subarray(128, 160), account.codeHash)) {
        codeHash = existing.value.subarray(96, 128);
        codeSize = Number(bytesToBigInt(existing.value.subarray(160, 192)));
      } else {
        const code = equalsBytes(account.codeHash, KECCAK256_NULL)
          ? new Uint8Array()
          : await this.source.code(account.codeHash);
        codeHash = codeHashOf(code);
        codeSize = code.length;
      }
      const value = accountValue(account.nonce, account.balance, storageRoot, codeHash, account.codeHash, codeSize);
      accounts.put(hKey, value, hashAccountValue(value));
    }
    this.built.push({ hash, root: accounts.root(), tries });
  }

  /** The storage trie of the account at leaf `accountIndex`, opened at `root` for block `n`. */
  private storageTrie(accountIndex: number, root: Uint8Array, n: number): ZkTrie {
    let leaves = this.storage.get(accountIndex);
    if (leaves === undefined) {
      leaves = new FlatLeaves();
      this.storage.set(accountIndex, leaves);
    }
    return new ZkTrie(this.nodes, root, leaves, n);
  }

  /** The slots that differ between two Merkle-Patricia storage tries, written in key-hash order. */
  private async writeSlots(trie: ZkTrie, before: Uint8Array, after: Uint8Array): Promise<void> {
    const changes = [];
    for (const [hashed, , now] of await diffTries(this.source.nodes, before, after)) {
      const slot = await this.source.preimage(hashed);
      if (slot === undefined)
        throw new StateProofUnavailableError(
          "Linea's state needs every storage slot's key, and this state holds one known by its hash only (loaded from a dump)",
        );
      const value = now === null ? null : setLengthLeft(RLP.decode(now) as Uint8Array, 32);
      changes.push({ hKey: slotKey(slot), value });
    }
    changes.sort((a, b) => Buffer.compare(a.hKey, b.hKey));
    for (const { hKey, value } of changes) {
      if (value === null) trie.remove(hKey);
      else trie.put(hKey, value, poseidon2(poseidonSafe(value)));
    }
  }
}

/** A code's hash in Linea's account (Shomei's poseidonCodeHash; EMPTY_CODE_HASH for none). */
export function codeHashOf(code: Uint8Array): Uint8Array {
  return code.length === 0 ? (emptyCodeHash ??= poseidon2(new Uint8Array(32))) : poseidon2(poseidonSafe(code));
}

/** An account's key hash: Poseidon2 of its Poseidon-safe address (Shomei's AccountKey). */
export function accountKey(address: Uint8Array): Uint8Array {
  return poseidon2(poseidonSafe(address));
}

/** A slot's key hash: Poseidon2 of its Poseidon-safe 32-byte key (Shomei's StorageSlotKey). */
export function slotKey(slot: Uint8Array): Uint8Array {
  return poseidon2(poseidonSafe(setLengthLeft(slot, 32)));
}
