/**
 * The embedded database: LevelDB on disk (`level`) by default, `memory-level` on request. Keys and
 * values are bytes; every key starts with a one-byte prefix naming its table (see chainStore.ts).
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type * as LevelModule from 'level';
import { MemoryLevel } from 'memory-level';

import { ByteMap } from './byteMap';
import { DatabaseOpenError } from '../errors';

export type KvOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

export interface KvStore {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** One atomic write. */
  batch(ops: KvOp[]): Promise<void>;
  /** Keys (and values) in [gte, lt), ascending, or descending when `reverse`. */
  range(gte: Uint8Array, lt: Uint8Array, limit?: number, reverse?: boolean): AsyncIterable<[Uint8Array, Uint8Array]>;
  /** The same rows ascending, a batch at a time: for long scans, where a wait per row costs more than the row. */
  rangeBatches(gte: Uint8Array, lt: Uint8Array): AsyncIterable<[Uint8Array, Uint8Array][]>;
  close(): Promise<void>;
  /** Whether it is all in this process's memory (a read costs no more than a cache's would). */
  readonly inMemory?: boolean;
}

// abstract-level's typings are generic over encodings; this is the one shape we use.
type BytesIterator = {
  nextv(size: number): Promise<[Uint8Array, Uint8Array][]>;
  close(): Promise<void>;
};
type BytesLevel = {
  open(): Promise<void>;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  batch(ops: KvOp[]): Promise<void>;
  iterator(opts: object): BytesIterator;
  close(): Promise<void>;
};

/** Rows read RANGE_BATCH at a time: an iterator's `next` per row costs several times its row. */
const RANGE_BATCH = 256;

async function* batches(it: BytesIterator): AsyncIterable<[Uint8Array, Uint8Array][]> {
  try {
    for (;;) {
      const rows = await it.nextv(RANGE_BATCH);
      if (rows.length === 0) return;
      yield rows;
    }
  } finally {
    await it.close();
  }
}

async function* inBatches(it: BytesIterator): AsyncIterable<[Uint8Array, Uint8Array]> {
  for await (const rows of batches(it)) yield* rows;
}

const ENCODING = { keyEncoding: 'view', valueEncoding: 'view' } as const;

/**
 * The chain's database: LevelDB in `dataDir`, or without one in memory, where the point rows held
 * in memory stay under `memoryLimit` bytes (default no limit) and older ones go to a temporary file.
 */
export async function openKvStore(dataDir: string | undefined, memoryLimit?: number): Promise<KvStore> {
  if (dataDir === undefined)
    return new MemoryKvStore(levelStore(new MemoryLevel(ENCODING) as unknown as BytesLevel), memoryLimit);
  refuseForeignFiles(dataDir);
  // Loaded on use: LevelDB's native binding and its modules cost an in-memory start-up ~50 ms.
  const { Level } = require('level') as typeof LevelModule;
  const db = new Level<Uint8Array, Uint8Array>(dataDir, ENCODING) as unknown as BytesLevel;
  try {
    await db.open();
  } catch (e) {
    throw databaseOpenError(dataDir, e as LevelError);
  }
  // Who holds the directory, for the message a second node gets (LevelDB's lock does not say).
  const pidFile = join(dataDir, PID_FILE);
  writeFileSync(pidFile, `${process.pid}\n`);
  const store = levelStore(db);
  return {
    ...store,
    close: async () => {
      await db.close();
      rmSync(pidFile, { force: true });
    },
  };
}

function levelStore(db: BytesLevel): KvStore {
  return {
    get: (key) => db.get(key),
    batch: (ops) => db.batch(ops),
    range: (gte, lt, limit = -1, reverse = false) => inBatches(db.iterator({ gte, lt, limit, reverse })),
    rangeBatches: (gte, lt) => batches(db.iterator({ gte, lt })),
    close: () => db.close(),
  };
}

/** The files LevelDB writes in its directory (and the pid file of ours). */
const LEVEL_FILE = /^(CURRENT|LOCK|LOG|LOG\.old|MANIFEST-\d+|\d+\.(ldb|log|sst)|l2devnet\.pid)$/;

/**
 * A data directory that holds files of another program is not taken over: LevelDB would make its
 * database among them. An empty or missing directory is new; one with LevelDB's files is opened.
 */
function refuseForeignFiles(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // Missing (LevelDB makes it), or not a directory (the open says so).
  }
  const foreign = names.filter((n) => !LEVEL_FILE.test(n));
  if (names.length > 0 && foreign.length > 0 && !names.includes('CURRENT'))
    throw new DatabaseOpenError(
      `${dir} is not an l2devnet database: it holds other files (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}); start with another --data-dir, or an empty or new directory`,
    );
}

/** Written in an open data directory: the process that has it open. */
const PID_FILE = 'l2devnet.pid';

/** abstract-level wraps the reason a database did not open in `cause`. */
type LevelError = Error & { code?: string; cause?: Error & { code?: string } };

/** What is wrong with a data directory that did not open, and what to do about it. */
export function databaseOpenError(dir: string, error: LevelError): DatabaseOpenError {
  const cause = error.cause ?? error;
  const code = cause.code ?? '';
  const detail = cause.message;
  const other = 'or start with another --data-dir';
  if (code === 'LEVEL_LOCKED') {
    let holder = 'another process';
    try {
      holder = `another l2devnet (process ${readFileSync(join(dir, PID_FILE), 'utf8').trim()})`;
    } catch {
      // No pid file: not one of ours, or from before it was written.
    }
    return new DatabaseOpenError(`the database in ${dir} is in use by ${holder}: stop it, ${other}`);
  }
  if (code === 'EACCES' || code === 'EPERM' || /permission denied/i.test(detail)) {
    return new DatabaseOpenError(
      `permission denied: ${dir} is not writable by this user; change its permissions, ${other} (${detail})`,
    );
  }
  if (code === 'ENOTDIR' || (code === 'EEXIST' && !isDirectory(dir))) {
    return new DatabaseOpenError(
      `${dir} is not a directory (a file stands at or above it): start with another --data-dir`,
    );
  }
  if (code === 'LEVEL_CORRUPTION' || /corrupt|MANIFEST|CURRENT/i.test(detail)) {
    return new DatabaseOpenError(
      `the database in ${dir} is corrupt (${detail}); its chain cannot be read: move the directory aside and start ` +
        `again to begin a new chain there, ${other}`,
    );
  }
  return new DatabaseOpenError(`cannot open the database in ${dir}: ${detail}`);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Key tables (first byte) that are read by range: they live in the ordered store. */
const RANGED_TABLES = new Set([0x61, 0x6f, 0x6c, 0x58, 0x63, 0x70]); // 'a' 'o' 'l' 'X' 'c' 'p'

/**
 * In-memory mode: point reads and writes (state nodes, blocks, receipts) go to a hash map over a
 * few large buffers (byteMap.ts), which costs a fraction of an ordered tree; only the tables read by
 * range (log index, exclusion order, credits, pool) use the ordered memory-level store. With a
 * memory limit the map keeps its oldest rows in a temporary file (byteMap.ts); a read of them costs
 * a read of the kernel's file cache, still far less than the on-disk database's.
 */
class MemoryKvStore implements KvStore {
  readonly inMemory = true;
  private readonly map: ByteMap;

  constructor(
    private readonly ordered: KvStore,
    memoryLimit: number | undefined,
  ) {
    this.map = new ByteMap({ memoryLimit });
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return RANGED_TABLES.has(key[0]) ? this.ordered.get(key) : this.map.get(key);
  }

  async batch(ops: KvOp[]): Promise<void> {
    const ranged: KvOp[] = [];
    for (const op of ops) {
      if (RANGED_TABLES.has(op.key[0])) ranged.push(op);
      else if (op.type === 'put') this.map.set(op.key, op.value);
      else this.map.delete(op.key);
    }
    if (ranged.length > 0) await this.ordered.batch(ranged);
  }

  range(gte: Uint8Array, lt: Uint8Array, limit?: number, reverse?: boolean): AsyncIterable<[Uint8Array, Uint8Array]> {
    if (!RANGED_TABLES.has(gte[0])) throw new Error(`table 0x${gte[0].toString(16)} is not ordered in memory`);
    return this.ordered.range(gte, lt, limit, reverse);
  }

  rangeBatches(gte: Uint8Array, lt: Uint8Array): AsyncIterable<[Uint8Array, Uint8Array][]> {
    if (!RANGED_TABLES.has(gte[0])) throw new Error(`table 0x${gte[0].toString(16)} is not ordered in memory`);
    return this.ordered.rangeBatches(gte, lt);
  }

  close(): Promise<void> {
    this.map.close();
    return this.ordered.close();
  }
}
