/**
 * Flat state: committed accounts, storage and code kept in memory maps that the EVM reads before the
 * trie. Each map is keyed by what its value is a pure function of, so nothing in it ever goes stale
 * and nothing needs invalidating:
 *  - an account by (state root, address);
 *  - a storage value by (the account's storage root, slot): a contract a block did not write keeps
 *    its storage root, so its slots stay found across blocks;
 *  - code by its hash.
 * A read the map lacks goes to the trie once. Writes are untouched: they go through the state
 * manager's caches and, at commit, into the trie, which still gives every root and every proof.
 */
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager';
import type { Caches, MerkleStateManagerOpts } from '@ethereumjs/statemanager';
import { Account, bytesToUnprefixedHex, concatBytes, createAccountFromRLP, ValueEncoding } from '@ethereumjs/util';
import type { Address, DB } from '@ethereumjs/util';

import { LruCache } from './lru';

const EMPTY = new Uint8Array(0);

/**
 * A bounded map that keeps what was used recently: two generations, the newest written and read
 * first; when it is full the older one is dropped. Cheaper on a hit than a strict LRU (no reordering).
 */
class Generations<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();

  constructor(private readonly perGeneration: number) {}

  get(key: string): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const older = this.old.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: string, value: V): void {
    if (this.young.size >= this.perGeneration) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}

/** The maps, shared by every state manager over one state database. */
export class FlatState {
  /** The account as decoded, never handed out (callers get copies, which they may change), or null for none. */
  readonly accounts = new Generations<Account | null>(32_768);
  /** The decoded value (empty for an unset slot). */
  readonly storage = new Generations<Uint8Array>(65_536);
  readonly code = new LruCache<string, Uint8Array>(4_096, { weigh: (c) => c.length + 64, maxWeight: 64 << 20 });
}

export class FlatStateManager extends MerkleStateManager {
  private rootBytes: Uint8Array | undefined;
  private rootHex = '';
  /**
   * Read-only storage tries by storage root, for reads the flat map lacks. ethereumjs drops its own
   * at every revert, and a call is one revert: building a trie per read costs more than the read.
   */
  private readonly storageTries = new Generations<MerklePatriciaTrie>(4_096);

  constructor(
    opts: MerkleStateManagerOpts,
    private readonly flat: FlatState,
  ) {
    super(opts);
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

  override async getAccount(address: Address): Promise<Account | undefined> {
    const elem = this._caches?.account?.get(address);
    if (elem !== undefined) return elem.accountRLP !== undefined ? createAccountFromRLP(elem.accountRLP) : undefined;
    const committed = await this.committedAccount(address);
    return committed === null
      ? undefined
      : new Account(committed.nonce, committed.balance, committed.storageRoot, committed.codeHash);
  }

  /** The account as the trie has it at the current root, from the flat map; not to be changed. */
  private async committedAccount(address: Address): Promise<Account | null> {
    const key = this.currentRootHex() + bytesToUnprefixedHex(address.bytes);
    let account = this.flat.accounts.get(key);
    if (account === undefined) {
      const rlp = await this._trie.get(address.bytes);
      account = rlp === null ? null : createAccountFromRLP(rlp);
      this.flat.accounts.set(key, account);
    }
    return account;
  }

  /** The account for reading its roots: the cached one when this manager changed it, else the committed one. */
  private async accountToRead(address: Address): Promise<Account | undefined> {
    const elem = this._caches?.account?.get(address);
    if (elem !== undefined) return elem.accountRLP !== undefined ? createAccountFromRLP(elem.accountRLP) : undefined;
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
      const stored = await this.storageTrie(account.storageRoot).get(key);
      value = stored === null ? EMPTY : (RLP.decode(stored) as Uint8Array);
      this.flat.storage.set(flatKey, value);
    }
    return value;
  }

  private storageTrie(storageRoot: Uint8Array): MerklePatriciaTrie {
    const key = bytesToUnprefixedHex(storageRoot);
    let trie = this.storageTries.get(key);
    if (trie === undefined) {
      trie = this._trie.shallowCopy(false);
      trie.root(storageRoot);
      this.storageTries.set(key, trie);
    }
    return trie;
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
      code = ((await this._trie.database().get(dbKey)) as Uint8Array | undefined) ?? EMPTY;
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

/** A state manager over `db` (a state database or a scratch layer over one) reading through `flat`. */
export function flatStateManager(
  db: DB<string, string | Uint8Array>,
  flat: FlatState,
  common: Common,
  caches: Caches,
  root?: Uint8Array,
): MerkleStateManager {
  const trie = new MerklePatriciaTrie({ db, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, common });
  return STOCK_EVM
    ? new MerkleStateManager({ trie, common, caches })
    : new FlatStateManager({ trie, common, caches }, flat);
}
