/**
 * Flat state: committed accounts, storage and code kept in memory maps that the EVM reads before the
 * trie. Each map is keyed by what its value is a pure function of, so nothing in it ever goes stale
 * and nothing needs invalidating:
 *  - an account by (state root, address);
 *  - a storage value by (the account's storage root, slot): a contract a block did not write keeps
 *    its storage root, so its slots stay found across blocks;
 *  - code by its hash.
 * A read the maps lack goes to the trie once. Writes go through the state manager's caches and, at
 * the flush, into the tries (updateTrie.ts), which still give every root and every proof.
 */
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager';
import type { Caches, MerkleStateManagerOpts } from '@ethereumjs/statemanager';
import {
  Account,
  bytesToUnprefixedHex,
  concatBytes,
  createAccountFromRLP,
  createAddressFromString,
  equalsBytes,
  KECCAK256_RLP,
  unpadBytes,
  unprefixedHexToBytes,
  ValueEncoding,
} from '@ethereumjs/util';
import type { Address, DB, NestedUint8Array } from '@ethereumjs/util';

import { keccak256 } from '../config/fastCrypto';
import type { ForkState } from '../fork/forkState';
import { LruCache } from '../support/lru';
import { MissingTrieNodeError, readTrieNode, trieValue, updateTrie } from './updateTrie';
import type { TrieChange, TrieNodeStore } from './updateTrie';

const EMPTY = new Uint8Array(0);

/**
 * The key of a trie key's preimage in the state database: 'p' and the hash (trie nodes' keys are
 * hashes, code's 'c' and the hash). An address's and a slot's preimage is written as it enters a
 * trie, so the state can be listed by address and slot (anvil_dumpState in Anvil's format).
 */
export function preimageKey(hash: Uint8Array): string {
  return `70${bytesToUnprefixedHex(hash)}`;
}

/** The parts of ethereumjs's StorageCache (cache/storage.js) a revert's record needs. */
type StorageCacheInternals = {
  _lruCache?: { get(addressHex: string): Map<string, Uint8Array> | undefined };
  _orderedMapCache?: { getElementByKey(addressHex: string): Map<string, Uint8Array> | undefined };
  _saveCachePreState(addressHex: string, keyHex: string): void;
};

/**
 * The maps, shared by every state manager over one state database. Their keys hold the root they
 * were read at: a block moves the state root and the storage roots it writes, so what a block made
 * old is never read again and only waits to be evicted. Sized for the reads between two blocks:
 * at 65,536 accounts and 131,072 slots, a node that had answered 60,000 eth_calls at random holders
 * held ~50 MiB more of its heap (RSS after the run 410 MiB against 357-370 at these sizes).
 */
export class FlatState {
  /** The account as decoded (handed out only as copies), or null for none. */
  readonly accounts = new LruCache<string, Account | null>(8_192);
  /** The decoded value (empty for an unset slot). */
  readonly storage = new LruCache<string, Uint8Array>(16_384);
  readonly code = new LruCache<string, Uint8Array>(4_096, { weigh: (c) => c.length + 64, maxWeight: 64 << 20 });
  /** A forked chain's remote state: what a read finds missing is fetched from it (fork/forkState.ts). */
  fork: ForkState | undefined;
}

export class FlatStateManager extends MerkleStateManager {
  /** Accounts decoded from the cache's entries, by entry. */
  private readonly decoded = new WeakMap<object, Account>();
  private rootBytes: Uint8Array | undefined;
  private rootHex = '';

  /**
   * A scratch VM's (`scratch`): the roots its trie had at each open checkpoint. Its writes are all
   * dropped after every use (its overlay is cleared), so its trie keeps no checkpoints of its own
   * (their maps, lock and promises were 6-8% of the instructions of a call to an address without
   * code): a revert only puts back the root.
   */
  private readonly roots: Uint8Array[] | undefined;

  constructor(
    opts: MerkleStateManagerOpts,
    private readonly flat: FlatState,
    scratch = false,
  ) {
    super(opts);
    if (scratch) this.roots = [];
  }

  override async checkpoint(): Promise<void> {
    if (this.roots === undefined) return super.checkpoint();
    this.roots.push(this._trie.root());
    this._caches?.checkpoint();
    this._checkpointCount++;
  }

  override async commit(): Promise<void> {
    if (this.roots === undefined) return super.commit();
    this.roots.pop();
    this._caches?.commit();
    await this.closedCheckpoint();
  }

  override async revert(): Promise<void> {
    if (this.roots === undefined) return super.revert();
    // A flush inside the checkpoint (a pre-Byzantium receipt's root) moved the root: back to its own.
    this._trie.root(this.roots.pop()!);
    this._caches?.revert();
    this._storageTries = {};
    await this.closedCheckpoint();
  }

  /** As ethereumjs's commit and revert end: the last checkpoint closed flushes the caches. */
  private async closedCheckpoint(): Promise<void> {
    this._checkpointCount--;
    if (this._checkpointCount === 0) {
      await this.flush();
      this.originalStorageCache.clear();
    }
  }

  /** The hex of the trie's current root; the trie replaces its root array whenever the root moves. */
  private currentRootHex(): string {
    const root = this._trie.root();
    if (root !== this.rootBytes) {
      this.rootBytes = root;
      this.rootHex = bytesToUnprefixedHex(root);
    }
    return this.rootHex;
  }

  /** A copy: callers change what they get. */
  override async getAccount(address: Address): Promise<Account | undefined> {
    const a = await this.accountToRead(address);
    return a === undefined ? undefined : new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
  }

  /** The account as the trie has it at the current root, from the flat map; not to be changed. */
  private async committedAccount(address: Address): Promise<Account | null> {
    const key = this.currentRootHex() + bytesToUnprefixedHex(address.bytes);
    let account = this.flat.accounts.get(key);
    if (account === undefined) {
      const rlp = await this.readTrie(this._trie.root(), address.bytes, undefined);
      account = rlp === null ? null : createAccountFromRLP(rlp);
      this.flat.accounts.set(key, account);
    }
    return account;
  }

  /** The account for reading its roots: the cached one when this manager changed it, else the committed one. */
  private async accountToRead(address: Address): Promise<Account | undefined> {
    const elem = this._caches?.account?.get(address);
    if (elem !== undefined) {
      if (elem.accountRLP === undefined) return undefined;
      // Decoded once per cache entry (every write makes a new entry): each SLOAD and SSTORE reads it.
      let account = this.decoded.get(elem);
      if (account === undefined) {
        account = createAccountFromRLP(elem.accountRLP);
        this.decoded.set(elem, account);
      }
      return account;
    }
    return (await this.committedAccount(address)) ?? undefined;
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) return super.getStorage(address, key); // its error
    const cached = this._caches?.storage?.get(address, key);
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array;
    const account = await this.accountToRead(address);
    if (account === undefined) return EMPTY;
    const flatKey = bytesToUnprefixedHex(account.storageRoot) + bytesToUnprefixedHex(key);
    let value = this.flat.storage.get(flatKey);
    if (value === undefined) {
      const stored = await this.readTrie(account.storageRoot, key, address.bytes);
      value = stored === null ? EMPTY : (RLP.decode(stored) as Uint8Array);
      this.flat.storage.set(flatKey, value);
    }
    return value;
  }

  /**
   * Into the storage cache only, to reach the trie at the next flush. ethereumjs 10.1.3 means to do
   * this, but its `cache.put(...) ?? write()` always writes the trie as well (`put` returns nothing):
   * a trie walk, re-hash and account update for every SSTORE.
   * A zero written where the slot is already zero changes nothing, and is not kept.
   */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const cache = this._caches?.storage;
    if (
      cache === undefined ||
      key.length !== 32 ||
      value.length > 32 ||
      (await this.accountToRead(address)) === undefined
    )
      return super.putStorage(address, key, value); // its writes or its errors
    const unpadded = unpadBytes(value);
    if (unpadded.length === 0 && (await this.getStorage(address, key)).length === 0) return;
    cache.put(address, key, RLP.encode(unpadded));
  }

  /**
   * ethereumjs's storage cache clears an address's slots without keeping them for a revert: with
   * the writes only in the cache until the flush, a reverted SELFDESTRUCT or storage clear would
   * lose the block's earlier writes of that address. Its slots are recorded at this checkpoint first.
   */
  override async clearStorage(address: Address): Promise<void> {
    this.keepSlotsForRevert(address);
    return super.clearStorage(address);
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.keepSlotsForRevert(address);
    return super.deleteAccount(address);
  }

  /** Whether this manager's cache holds slots of `address` written since the last flush (its storage root does not show them). */
  hasCachedStorage(address: Address): boolean {
    return (this.cachedSlots(address)?.slots.size ?? 0) > 0;
  }

  private keepSlotsForRevert(address: Address): void {
    const cached = this.cachedSlots(address);
    for (const keyHex of cached?.slots.keys() ?? []) cached?.cache._saveCachePreState(cached.addressHex, keyHex);
  }

  /** The slots of `address` in the storage cache (written since the last flush), with the cache. */
  private cachedSlots(address: Address) {
    const cache = this._caches?.storage as unknown as StorageCacheInternals | undefined;
    if (cache === undefined) return undefined;
    const addressHex = bytesToUnprefixedHex(address.bytes);
    const slots = cache._lruCache?.get(addressHex) ?? cache._orderedMapCache?.getElementByKey(addressHex);
    return slots === undefined ? undefined : { cache, addressHex, slots };
  }

  /**
   * The value at `key` in the trie rooted at `root` (a state or storage trie: keys hashed), node by
   * node through the trie's own database (its open checkpoints included), or null. The same answer
   * as ethereumjs's `get`, which walks with a task queue and a promise per node and, for a storage
   * trie, needs a trie object built first: several times the cost of the read itself.
   * On a forked chain, a node not fetched yet is fetched with the key's proof (`owner` is the
   * storage trie's account, undefined for the account trie).
   */
  private async readTrie(root: Uint8Array, key: Uint8Array, owner: Uint8Array | undefined): Promise<Uint8Array | null> {
    if (equalsBytes(root, KECCAK256_RLP)) return null;
    const db = this.nodeStore();
    const load = async (ref: Uint8Array | NestedUint8Array): Promise<NestedUint8Array> => {
      if (Array.isArray(ref)) return ref; // a node under 32 bytes, embedded in its parent
      return readTrieNode(db, ref as Uint8Array);
    };
    const fork = this.flat.fork;
    if (fork === undefined) return trieValue(load, root, keccak256(key));
    try {
      return await trieValue(load, root, keccak256(key));
    } catch (e) {
      if (!(e instanceof MissingTrieNodeError)) throw e;
      await (owner === undefined ? fork.proveAccount(key) : fork.proveSlot(owner, key));
      return trieValue(load, root, keccak256(key));
    }
  }

  /**
   * The trie's database (its open checkpoints included). On a forked chain, a node it lacks is looked
   * up among the remote's nodes fetched so far: a checkpoint keeps a miss as a miss, and the node may
   * have been fetched since.
   */
  private nodeStore(): TrieNodeStore {
    const db = this._trie.database() as unknown as TrieNodeStore;
    const fork = this.flat.fork;
    if (fork === undefined) return db;
    return {
      get: async (hash) => (await db.get(hash)) ?? fork.get(bytesToUnprefixedHex(hash)),
      put: (hash, encoded) => db.put(hash, encoded),
    };
  }

  /**
   * Writes the caches' changes into the tries, as ethereumjs's `flush`, with each trie's changes made
   * in one pass (updateTrie.ts): every changed node hashed and stored once, not once per key.
   */
  override async flush(): Promise<void> {
    const db = this.nodeStore();
    // Storage tries' nodes go under the account trie's checkpoints, as ethereumjs's storage tries
    // (copies without checkpoints) write them: a flush inside a checkpoint that is then reverted
    // leaves the account cache with the new storage root (its diff was flushed), whose nodes must
    // still be found.
    const base = this._trie.database().db;
    const storageDb: TrieNodeStore = {
      get: async (hash) => (await base.get(bytesToUnprefixedHex(hash))) as Uint8Array | undefined,
      put: (hash, encoded) => base.put(bytesToUnprefixedHex(hash), encoded),
    };
    for (const [addressHex, elem] of this._caches?.code?.flush() ?? []) {
      if (elem.code === undefined) continue;
      const address = createAddressFromString(`0x${addressHex}`);
      const codeHash = keccak256(elem.code);
      await db.put(this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, elem.code);
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account());
      await this.modifyAccountFields(address, { codeHash });
    }
    const storage = new Map<string, { changes: TrieChange[]; slots: Uint8Array[] }>();
    for (const [addressHex, keyHex, value] of this._caches?.storage?.flush() ?? []) {
      // Cached as RLP; RLP of nothing (0x80) is a zero, which deletes the slot.
      const decoded = RLP.decode(value ?? EMPTY) as Uint8Array;
      const slot = unprefixedHexToBytes(keyHex);
      const hashed = keccak256(slot);
      if (this.roots === undefined) await base.put(preimageKey(hashed), slot);
      const change: TrieChange = [hashed, decoded.length > 0 ? value! : null];
      const account = storage.get(addressHex);
      if (account === undefined) storage.set(addressHex, { changes: [change], slots: [slot] });
      else {
        account.changes.push(change);
        account.slots.push(slot);
      }
    }
    const fork = this.flat.fork;
    for (const [addressHex, { changes, slots }] of storage) {
      const address = createAddressFromString(`0x${addressHex}`);
      const account = await this.getAccount(address);
      if (account === undefined) continue;
      // A forked trie has every changed key's path once the key has been read.
      if (fork !== undefined) for (const slot of slots) await this.readTrie(account.storageRoot, slot, address.bytes);
      const reveal = fork && ((prefix: number[]) => fork.reveal(prefix, address.bytes));
      account.storageRoot = await updateTrie(storageDb, account.storageRoot, changes, reveal);
      await this.putAccount(address, account);
    }
    const accounts: TrieChange[] = [];
    for (const [addressHex, elem] of this._caches?.account?.flush() ?? []) {
      const address = unprefixedHexToBytes(addressHex);
      if (fork !== undefined) await this.readTrie(this._trie.root(), address, undefined);
      const hashed = keccak256(address);
      if (this.roots === undefined) await base.put(preimageKey(hashed), address);
      accounts.push([hashed, elem.accountRLP ?? null]);
    }
    const reveal = fork && ((prefix: number[]) => fork.reveal(prefix));
    if (accounts.length > 0) this._trie.root(await updateTrie(db, this._trie.root(), accounts, reveal));
    // ethereumjs's storage trie objects, kept per address, have the roots from before.
    this._storageTries = {};
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const elem = this._caches?.code?.get(address);
    if (elem !== undefined) return elem.code ?? EMPTY;
    const account = await this.accountToRead(address);
    if (account === undefined || !account.isContract()) return EMPTY;
    const hashHex = bytesToUnprefixedHex(account.codeHash);
    let code = this.flat.code.get(hashHex);
    if (code === undefined) {
      const dbKey = this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, account.codeHash) : account.codeHash;
      code =
        ((await this._trie.database().get(dbKey)) as Uint8Array | undefined) ??
        (this.flat.fork === undefined ? EMPTY : await this.flat.fork.code(address.bytes, account.codeHash));
      this.flat.code.set(hashHex, code);
    }
    return code;
  }
}

/**
 * `L2DEVNET_STOCK_EVM=1` runs ethereumjs as published: no flat state here, and the original
 * interpreter paths in the patched packages (patches/). The differential test's reference.
 */
export const STOCK_EVM = process.env.L2DEVNET_STOCK_EVM === '1';

/**
 * A state manager over `db` (a state database or a scratch layer over one) reading through `flat`;
 * `scratch` for a scratch VM's, whose writes are dropped after each use (FlatStateManager.roots).
 */
export function flatStateManager(
  db: DB<string, string | Uint8Array>,
  flat: FlatState,
  common: Common,
  caches: Caches,
  opts: { root?: Uint8Array; scratch?: boolean } = {},
): MerkleStateManager {
  const trie = new MerklePatriciaTrie({
    db,
    root: opts.root,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
  });
  return STOCK_EVM
    ? new MerkleStateManager({ trie, common, caches })
    : new FlatStateManager({ trie, common, caches }, flat, opts.scratch);
}
