/**
 * The key-value store under the state trie. Trie nodes and contract code are content-addressed, so
 * nothing is ever deleted (no pruning: the state of every past block stays readable).
 *
 * Writes made while a block is built are held in `pending` and leave memory only through
 * `drainInto`, which hands them to the chain store's atomic block batch: a block, its receipts, its
 * indexes and the state nodes it created reach the disk in one write or not at all.
 */
import { unprefixedHexToBytes } from '@ethereumjs/util';
import { CacheType, Caches } from '@ethereumjs/statemanager';
import type { BatchDBOp, DB } from '@ethereumjs/util';

import { FlatState } from './flatState';
import { LruCache } from '../support/lru';
import type { KvStore, KvOp } from '../store/kvStore';

/** Level key prefix for state trie nodes and code. */
export const STATE_PREFIX = 0x73; // 's'

/** Recently read or written nodes kept decoded-free in memory; ~100 MB at 500 bytes a node. */
const NODE_CACHE_ENTRIES = 200_000;

function levelKey(key: string): Uint8Array {
  const hex = unprefixedHexToBytes(key.length % 2 === 0 ? key : `0${key}`);
  const out = new Uint8Array(hex.length + 1);
  out[0] = STATE_PREFIX;
  out.set(hex, 1);
  return out;
}

/**
 * What a scratch layer reads through: trie nodes and code by key, and the flat maps over them. The
 * state database, or a call worker's copy of what it read from it (exec/workers/).
 */
export interface StateSource {
  get(key: string): Promise<Uint8Array | undefined>;
  readonly flat: FlatState;
}

export class StateDB implements DB<string, string | Uint8Array>, StateSource {
  private pending = new Map<string, Uint8Array>();
  /** None over an in-memory store, whose reads cost what a cache's would. */
  private readonly cache: LruCache<string, Uint8Array> | undefined;
  /** Committed accounts, storage and code read from this database, for every state manager over it. */
  readonly flat = new FlatState();

  constructor(private readonly kv: KvStore) {
    this.cache = kv.inMemory ? undefined : new LruCache(NODE_CACHE_ENTRIES);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const value = this.pending.get(key) ?? this.cache?.get(key);
    if (value !== undefined) return value;
    const stored = await this.kv.get(levelKey(key));
    if (stored !== undefined) this.cache?.set(key, stored);
    // A forked chain's remote nodes and code, as fetched so far.
    return stored ?? this.flat.fork?.get(key);
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.pending.set(key, typeof value === 'string' ? unprefixedHexToBytes(value) : value);
  }

  /** Nodes are shared between blocks' tries; deleting one could break an older state. */
  async del(_key: string): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') await this.put(op.key, op.value);
    }
  }

  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }

  async open(): Promise<void> {}

  /** Moves the writes made since the last drain into `ops`, to be committed with the block. */
  drainInto(ops: KvOp[]): void {
    for (const [key, value] of this.pending) {
      ops.push({ type: 'put', key: levelKey(key), value });
      this.cache?.set(key, value);
    }
    this.pending = new Map();
  }

  /** Forgets writes that will never be committed (a block build that failed). */
  discardPending(): void {
    this.pending = new Map();
  }
}

/**
 * A scratch layer over the state database for work that must leave no trace (calls, estimates, the
 * pending-block preview): reads fall through to the database, writes stay here and are thrown away.
 */
export class OverlayDB implements DB<string, string | Uint8Array> {
  private writes = new Map<string, Uint8Array>();

  constructor(private readonly base: StateSource) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.writes.get(key) ?? this.base.get(key);
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.writes.set(key, typeof value === 'string' ? unprefixedHexToBytes(value) : value);
  }

  async del(_key: string): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') await this.put(op.key, op.value);
  }

  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }

  async open(): Promise<void> {}

  /** Throws away everything written since the last clear. */
  clear(): void {
    if (this.writes.size > 0) this.writes = new Map();
  }
}

/**
 * Account, storage and code caches for a state manager over this database: unbounded maps, cheap to
 * create. They hold only what the manager writes until its next flush (reads come from the flat
 * state), so nothing is evicted from them.
 */
export function stateCaches(): Caches {
  return new Caches({
    account: { type: CacheType.ORDERED_MAP, size: 1 },
    storage: { type: CacheType.ORDERED_MAP, size: 1 },
    code: { type: CacheType.ORDERED_MAP, size: 1 },
  });
}
