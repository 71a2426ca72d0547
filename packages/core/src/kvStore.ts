/**
 * The embedded database: LevelDB on disk (`level`) by default, `memory-level` on request. Keys and
 * values are bytes; every key starts with a one-byte prefix naming its table (see chainStore.ts).
 */
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';

export type KvOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

export interface KvStore {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** One atomic write. */
  batch(ops: KvOp[]): Promise<void>;
  /** Keys (and values) in [gte, lt), ascending, or descending when `reverse`. */
  range(gte: Uint8Array, lt: Uint8Array, limit?: number, reverse?: boolean): AsyncIterable<[Uint8Array, Uint8Array]>;
  close(): Promise<void>;
}

// abstract-level's typings are generic over encodings; this is the one shape we use.
type BytesLevel = {
  open(): Promise<void>;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  batch(ops: KvOp[]): Promise<void>;
  iterator(opts: object): AsyncIterable<[Uint8Array, Uint8Array]>;
  close(): Promise<void>;
};

const ENCODING = { keyEncoding: 'view', valueEncoding: 'view' } as const;

export async function openKvStore(dataDir: string | undefined): Promise<KvStore> {
  const db = (
    dataDir === undefined ? new MemoryLevel(ENCODING) : new Level<Uint8Array, Uint8Array>(dataDir, ENCODING)
  ) as unknown as BytesLevel;
  await db.open();
  return {
    get: (key) => db.get(key),
    batch: (ops) => db.batch(ops),
    range: (gte, lt, limit = -1, reverse = false) => db.iterator({ gte, lt, limit, reverse }),
    close: () => db.close(),
  };
}
