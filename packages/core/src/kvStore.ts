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
  const db = (dataDir === undefined
    ? new MemoryLevel(ENCODING)
    : new Level<Uint8Array, Uint8Array>(dataDir, ENCODING)) as unknown as BytesLevel;
  await db.open();
  const store: KvStore = {
    get: (key) => db.get(key),
    batch: (ops) => db.batch(ops),
    range: (gte, lt, limit = -1, reverse = false) => db.iterator({ gte, lt, limit, reverse }),
    close: () => db.close(),
  };
  return dataDir === undefined ? new MemoryKvStore(store) : store;
}

/** Key tables (first byte) that are read by range: they live in the ordered store. */
const RANGED_TABLES = new Set([0x61, 0x6f, 0x6c, 0x58, 0x63, 0x70]); // 'a' 'o' 'l' 'X' 'c' 'p'

function mapKey(key: Uint8Array): string {
  return String.fromCharCode.apply(null, key as unknown as number[]);
}

/**
 * In-memory mode: point reads and writes (state nodes, blocks, receipts) go to a plain Map, which
 * costs a fraction of an ordered tree; only the tables read by range (log index, exclusion
 * order, credits, pool) use the ordered memory-level store.
 */
class MemoryKvStore implements KvStore {
  private readonly map = new Map<string, Uint8Array>();

  constructor(private readonly ordered: KvStore) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return RANGED_TABLES.has(key[0]) ? this.ordered.get(key) : this.map.get(mapKey(key));
  }

  async batch(ops: KvOp[]): Promise<void> {
    const ranged: KvOp[] = [];
    for (const op of ops) {
      if (RANGED_TABLES.has(op.key[0])) ranged.push(op);
      else if (op.type === 'put') this.map.set(mapKey(op.key), op.value);
      else this.map.delete(mapKey(op.key));
    }
    if (ranged.length > 0) await this.ordered.batch(ranged);
  }

  range(gte: Uint8Array, lt: Uint8Array, limit?: number, reverse?: boolean): AsyncIterable<[Uint8Array, Uint8Array]> {
    if (!RANGED_TABLES.has(gte[0])) throw new Error(`table 0x${gte[0].toString(16)} is not ordered in memory`);
    return this.ordered.range(gte, lt, limit, reverse);
  }

  close(): Promise<void> {
    return this.ordered.close();
  }
}
