/**
 * Blocks, receipts and indexes in the embedded database, one table per key prefix:
 *
 *   'm' meta (head number)             'h' number → hash           'H' hash → number
 *   'b' number → block RLP             'r' number → receipts RLP  't' tx hash → (number, index)
 *   'a' address ‖ number → ''          'o' topic ‖ number → ''     'l' number → '' (block has logs)
 *   'd' number → total difficulty (the sum of the difficulties up to the block)
 *
 * The log index ('a', 'o', 'l') maps each address and topic to the blocks whose logs mention it, so a
 * query for one contract or topic reads only those blocks' receipts instead of every receipt of the
 * range. `commitBlock` writes a block, its receipts, its indexes, the state nodes it created and any
 * extra rows (pool, exclusions) in one atomic batch: after a crash the head is either the old block
 * or the new one, never half of it.
 */
import { createBlockFromRLP } from '@ethereumjs/block';
import type { Block, BlockOptions } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, concatBytes, equalsBytes } from '@ethereumjs/util';

import { LogQueryLimitError, LogQueryTimeoutError } from '../errors';
import { yieldIfBusy } from '../support/eventLoop';
import type { KvOp, KvStore } from './kvStore';
import { LruCache } from '../support/lru';
import { decodeFirstItem } from '../support/rlp';
import type { LocatedLog, Log, LogFilter, Receipt, TxLocation } from '../types';

const P_META = 0x6d;
const P_HASH_BY_NUMBER = 0x68;
const P_NUMBER_BY_HASH = 0x48;
const P_BLOCK = 0x62;
const P_RECEIPTS = 0x72;
const P_TX = 0x74;
const P_LOG_ADDRESS = 0x61;
const P_LOG_TOPIC = 0x6f;
const P_LOG_BLOCK = 0x6c;
const P_TOTAL_DIFFICULTY = 0x64;
/** The state a block was built on, where it is not its parent's (state edited between the two). */
const P_PRE_STATE = 0x65;

const HEAD_KEY = concatBytes(Uint8Array.of(P_META), new TextEncoder().encode('head'));
const EMPTY = new Uint8Array(0);
const BLOCK_CACHE_ENTRIES = 2048;
/**
 * Decoded blocks and receipts cost ~2 KB a transaction in memory (a 200-transaction block with its
 * receipts ~400 KB, 24 times its RLP), so a count of blocks alone does not bound the caches: 2,048
 * full blocks would hold ~800 MB. Each cache also stops at this many transactions (logs for the log
 * cache): blocks and receipts together stay under ~50 MB (measured), whatever the blocks hold.
 */
const CACHED_TRANSACTIONS = 20_000;
/** Below this many (candidate × key) pairs, a constraint is checked by point reads, not a range scan. */
const POINT_LOOKUP_LIMIT = 512;

/** Blocks' sizes in bytes (their RLP's), known when they are stored or read: no block is encoded again for its size. */
const sizes = new WeakMap<Block, number>();

/** `block` as RLP, its size kept. */
function serialized(block: Block): Uint8Array {
  const rlp = block.serialize();
  sizes.set(block, rlp.length);
  return rlp;
}

/** The size of `block`'s RLP (a block's `size`): known for a block stored or read, else encoded. */
export function blockSize(block: Block): number {
  return sizes.get(block) ?? serialized(block).length;
}

export function u64(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

/** The big-endian u64 at `offset` as a number: a block number, which fits (and a number is cheaper to read and hash). */
function blockNumberAt(bytes: Uint8Array, offset: number): number {
  let n = 0;
  for (let i = offset; i < offset + 8; i++) n = n * 256 + bytes[i];
  return n;
}

function readU64(bytes: Uint8Array, offset = 0): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset);
}

function key(prefix: number, ...parts: Uint8Array[]): Uint8Array {
  return concatBytes(Uint8Array.of(prefix), ...parts);
}

function encodeReceipts(receipts: Receipt[]): Uint8Array {
  return RLP.encode(
    receipts.map((r) => [
      r.txHash,
      bigIntToUnpaddedBytes(BigInt(r.type)),
      bigIntToUnpaddedBytes(BigInt(r.status)),
      bigIntToUnpaddedBytes(r.cumulativeGasUsed),
      bigIntToUnpaddedBytes(r.gasUsed),
      bigIntToUnpaddedBytes(r.effectiveGasPrice),
      r.from,
      r.to ?? EMPTY,
      r.contractAddress ?? EMPTY,
      r.logs.map((l) => [l.address, l.topics, l.data]),
      r.logsBloom,
      // Trailing fields only some receipts have: the root (before Byzantium), blob gas and price.
      ...(r.root === undefined && r.blobGasUsed === undefined ? [] : [r.root ?? EMPTY]),
      ...(r.blobGasUsed === undefined
        ? []
        : [bigIntToUnpaddedBytes(r.blobGasUsed), bigIntToUnpaddedBytes(r.blobGasPrice ?? 0n)]),
    ]),
  );
}

function decodeReceipts(bytes: Uint8Array): Receipt[] {
  const rows = RLP.decode(bytes) as unknown as Uint8Array[][];
  return rows.map((row) => {
    const logs = row[9] as unknown as [Uint8Array, Uint8Array[], Uint8Array][];
    return {
      txHash: row[0],
      type: Number(bytesToBigInt(row[1])),
      status: bytesToBigInt(row[2]) === 1n ? 1 : 0,
      cumulativeGasUsed: bytesToBigInt(row[3]),
      gasUsed: bytesToBigInt(row[4]),
      effectiveGasPrice: bytesToBigInt(row[5]),
      from: row[6],
      to: row[7].length === 0 ? undefined : row[7],
      contractAddress: row[8].length === 0 ? undefined : row[8],
      logs: logs.map(([address, topics, data]) => ({ address, topics, data })),
      logsBloom: row[10],
      ...(row[11] === undefined || row[11].length === 0 ? {} : { root: row[11] }),
      ...(row[12] === undefined ? {} : { blobGasUsed: bytesToBigInt(row[12]), blobGasPrice: bytesToBigInt(row[13]) }),
    };
  });
}

export interface LogQueryLimits {
  maxResults: number;
  /** Absolute time (ms, performance clock) after which the query gives up. */
  deadline: number;
}

export class ChainStore {
  private head = -1n;
  private readonly blocks = new LruCache<bigint, Block>(BLOCK_CACHE_ENTRIES, {
    weigh: (b) => 1 + b.transactions.length,
    maxWeight: CACHED_TRANSACTIONS,
  });
  private readonly receipts = new LruCache<bigint, Receipt[]>(BLOCK_CACHE_ENTRIES, {
    weigh: (r) => 1 + r.length,
    maxWeight: CACHED_TRANSACTIONS,
  });
  private readonly hashes = new LruCache<bigint, Uint8Array>(BLOCK_CACHE_ENTRIES * 4);
  /** By block number as a number: hashed and compared faster than a bigint key, and a block number fits. */
  private readonly logs = new LruCache<number, LocatedLog[]>(BLOCK_CACHE_ENTRIES, {
    weigh: (l) => 1 + l.length,
    maxWeight: CACHED_TRANSACTIONS,
  });
  /** The first block stored: 0, or a forked chain's fork block (the blocks before it are the remote's). */
  first = 0n;
  /** Bumped whenever blocks are dropped. */
  private generation = 0;
  /** The head's total difficulty, which the next block's adds to. */
  private headTd = 0n;
  private readonly totalDifficulties = new LruCache<bigint, bigint>(BLOCK_CACHE_ENTRIES * 4);

  constructor(
    readonly kv: KvStore,
    private readonly common: Common,
    /** True when the hardfork follows a schedule (genesis file): blocks pick theirs by number/time. */
    private readonly scheduled: boolean,
  ) {}

  /** Reads the head pointer; -1 when the database is empty. */
  async open(): Promise<bigint> {
    const head = await this.kv.get(HEAD_KEY);
    this.head = head === undefined ? -1n : readU64(head);
    if (this.head >= 0n) {
      if ((await this.kv.get(key(P_TOTAL_DIFFICULTY, u64(this.head)))) === undefined) await this.writeTotals();
      this.headTd = await this.totalDifficulty(this.head);
    }
    return this.head;
  }

  /** A data directory written before totals were kept: they are summed from its blocks once, and written. */
  private async writeTotals(): Promise<void> {
    let td = 0n;
    let ops: KvOp[] = [];
    for (let n = 0n; n <= this.head; n++) {
      td += (await this.getBlock(n))?.header.difficulty ?? 0n;
      ops.push({ type: 'put', key: key(P_TOTAL_DIFFICULTY, u64(n)), value: bigIntToUnpaddedBytes(td) });
      if (ops.length === 10_000 || n === this.head) {
        await this.kv.batch(ops);
        ops = [];
      }
    }
  }

  /** The sum of the difficulties of blocks 0..n (proof of work; it stays put after the merge). */
  async totalDifficulty(n: bigint): Promise<bigint> {
    const cached = this.totalDifficulties.get(n);
    if (cached !== undefined) return cached;
    const stored = await this.kv.get(key(P_TOTAL_DIFFICULTY, u64(n)));
    const td = stored === undefined ? 0n : bytesToBigInt(stored);
    this.totalDifficulties.set(n, td);
    return td;
  }

  get headNumber(): bigint {
    return this.head;
  }

  /** The rows that store `block` and move the head to it; the caller adds state and commits once. */
  blockOps(block: Block, receipts: Receipt[], preState?: Uint8Array): KvOp[] {
    const n = block.header.number;
    const num = u64(n);
    const hash = block.hash();
    const ops: KvOp[] = [
      ...(preState === undefined ? [] : [{ type: 'put' as const, key: key(P_PRE_STATE, num), value: preState }]),
      { type: 'put', key: key(P_HASH_BY_NUMBER, num), value: hash },
      { type: 'put', key: key(P_NUMBER_BY_HASH, hash), value: num },
      { type: 'put', key: key(P_BLOCK, num), value: serialized(block) },
      { type: 'put', key: key(P_RECEIPTS, num), value: encodeReceipts(receipts) },
      { type: 'put', key: HEAD_KEY, value: num },
      { type: 'put', key: key(P_TOTAL_DIFFICULTY, num), value: bigIntToUnpaddedBytes(this.tdOf(block)) },
    ];
    block.transactions.forEach((tx, i) => {
      const loc = new Uint8Array(12);
      loc.set(num);
      new DataView(loc.buffer).setUint32(8, i);
      ops.push({ type: 'put', key: key(P_TX, tx.hash()), value: loc });
    });
    const addresses = new Map<string, Uint8Array>();
    const topics = new Map<string, Uint8Array>();
    for (const r of receipts) {
      for (const log of r.logs) {
        addresses.set(bytesToHex(log.address), log.address);
        for (const t of log.topics) topics.set(bytesToHex(t), t);
      }
    }
    for (const a of addresses.values()) ops.push({ type: 'put', key: key(P_LOG_ADDRESS, a, num), value: EMPTY });
    for (const t of topics.values()) ops.push({ type: 'put', key: key(P_LOG_TOPIC, t, num), value: EMPTY });
    if (addresses.size > 0) ops.push({ type: 'put', key: key(P_LOG_BLOCK, num), value: EMPTY });
    return ops;
  }

  /** A new head block's total difficulty: its parent's (the head's) and its own. */
  private tdOf(block: Block): bigint {
    return (block.header.number === 0n ? 0n : this.headTd) + block.header.difficulty;
  }

  /** The rows that put `block` in the place of genesis block `old` (the same state, another header). */
  replaceGenesisOps(old: Block, block: Block): KvOp[] {
    return [{ type: 'del', key: key(P_NUMBER_BY_HASH, old.hash()) }, ...this.blockOps(block, [])];
  }

  /** Writes `ops` (which include `blockOps(block, receipts)`) in one batch and advances the head. */
  async commit(ops: KvOp[], block: Block, receipts: Receipt[]): Promise<void> {
    await this.kv.batch(ops);
    const n = block.header.number;
    this.blocks.set(n, block);
    this.receipts.set(n, receipts);
    this.hashes.set(n, block.hash());
    this.logs.delete(Number(n));
    this.headTd = this.tdOf(block);
    this.totalDifficulties.set(n, this.headTd);
    this.head = n;
  }

  /**
   * The rows that drop every block above `n` (and their indexes) and move the head to `n`, and the
   * logs those blocks held, marked removed.
   */
  async dropAboveOps(n: bigint): Promise<{ ops: KvOp[]; removedLogs: LocatedLog[] }> {
    const ops: KvOp[] = [];
    const removedLogs: LocatedLog[] = [];
    for (let b = this.head; b > n; b--) {
      const [block, receipts] = await Promise.all([this.getBlock(b), this.getReceipts(b)]);
      if (block === undefined || receipts === undefined) continue;
      const num = u64(b);
      const hash = block.hash();
      ops.push(
        { type: 'del', key: key(P_HASH_BY_NUMBER, num) },
        { type: 'del', key: key(P_NUMBER_BY_HASH, hash) },
        { type: 'del', key: key(P_BLOCK, num) },
        { type: 'del', key: key(P_RECEIPTS, num) },
        { type: 'del', key: key(P_LOG_BLOCK, num) },
        { type: 'del', key: key(P_TOTAL_DIFFICULTY, num) },
        { type: 'del', key: key(P_PRE_STATE, num) },
      );
      for (const tx of block.transactions) ops.push({ type: 'del', key: key(P_TX, tx.hash()) });
      let logIndex = 0;
      receipts.forEach((r, transactionIndex) => {
        for (const log of r.logs) {
          ops.push({ type: 'del', key: key(P_LOG_ADDRESS, log.address, num) });
          for (const t of log.topics) ops.push({ type: 'del', key: key(P_LOG_TOPIC, t, num) });
          removedLogs.push({
            ...log,
            blockNumber: b,
            blockHash: hash,
            blockTimestamp: block.header.timestamp,
            transactionHash: r.txHash,
            transactionIndex,
            logIndex: logIndex++,
            removed: true,
          });
        }
      });
    }
    ops.push({ type: 'put', key: HEAD_KEY, value: u64(n) });
    return { ops, removedLogs: removedLogs.reverse() };
  }

  /**
   * The state root block `n` was built on: its parent's, unless the state was edited between the two
   * (anvil_setCode and the like), then the edited one.
   */
  async preStateRoot(n: bigint, parent: Block): Promise<Uint8Array> {
    return (await this.kv.get(key(P_PRE_STATE, u64(n)))) ?? parent.header.stateRoot;
  }

  /** Applies `dropAboveOps(n)`'s rows and forgets the dropped blocks. */
  async dropAbove(n: bigint, ops: KvOp[]): Promise<void> {
    await this.kv.batch(ops);
    this.generation++;
    for (let b = this.head; b > n; b--) {
      this.blocks.delete(b);
      this.receipts.delete(b);
      this.hashes.delete(b);
      this.logs.delete(Number(b));
      this.totalDifficulties.delete(b);
    }
    this.head = n;
    this.headTd = await this.totalDifficulty(n);
  }

  /** Writes rows that belong to no block (exclusion records, pool contents). */
  async write(ops: KvOp[]): Promise<void> {
    if (ops.length > 0) await this.kv.batch(ops);
  }

  async getBlock(n: bigint): Promise<Block | undefined> {
    if (n < 0n || n > this.head) return undefined;
    const cached = this.blocks.get(n);
    if (cached !== undefined) return cached;
    const bytes = await this.kv.get(key(P_BLOCK, u64(n)));
    if (bytes === undefined) return undefined;
    const block = createBlockFromRLP(bytes, storedBlockOptions(this.common, this.scheduled));
    sizes.set(block, bytes.length);
    this.blocks.set(n, block);
    return block;
  }

  async getBlockHash(n: bigint): Promise<Uint8Array | undefined> {
    if (n < 0n || n > this.head) return undefined;
    const cached = this.hashes.get(n) ?? this.blocks.get(n)?.hash();
    if (cached !== undefined) return cached;
    const hash = await this.kv.get(key(P_HASH_BY_NUMBER, u64(n)));
    if (hash !== undefined) this.hashes.set(n, hash);
    return hash;
  }

  /** Block `n`'s timestamp, read from its header alone: its transactions are not decoded. */
  async getTimestamp(n: bigint): Promise<bigint | undefined> {
    if (n < 0n || n > this.head) return undefined;
    const cached = this.blocks.get(n);
    if (cached !== undefined) return cached.header.timestamp;
    const bytes = await this.kv.get(key(P_BLOCK, u64(n)));
    if (bytes === undefined) return undefined;
    // A block is [header, transactions, ...]; a header's field 11 is its timestamp.
    const header = decodeFirstItem(bytes) as Uint8Array[];
    return bytesToBigInt(header[11]);
  }

  async getBlockNumber(hash: Uint8Array): Promise<bigint | undefined> {
    const num = await this.kv.get(key(P_NUMBER_BY_HASH, hash));
    if (num === undefined) return undefined;
    const n = readU64(num);
    return n <= this.head ? n : undefined;
  }

  async getReceipts(n: bigint): Promise<Receipt[] | undefined> {
    if (n < 0n || n > this.head) return undefined;
    const cached = this.receipts.get(n);
    if (cached !== undefined) return cached;
    const bytes = await this.kv.get(key(P_RECEIPTS, u64(n)));
    if (bytes === undefined) return undefined;
    const receipts = decodeReceipts(bytes);
    this.receipts.set(n, receipts);
    return receipts;
  }

  async getTxLocation(txHash: Uint8Array): Promise<TxLocation | undefined> {
    const loc = await this.kv.get(key(P_TX, txHash));
    if (loc === undefined) return undefined;
    const blockNumber = readU64(loc);
    if (blockNumber > this.head) return undefined;
    return { blockNumber, index: new DataView(loc.buffer, loc.byteOffset).getUint32(8) };
  }

  /**
   * Logs matching `filter`, in chain order. Candidate blocks come from the log index (the most
   * selective constraint given: addresses, else the first constrained topic position, else blocks
   * that have any log); only their receipts are read and matched exactly.
   */
  async queryLogs(filter: LogFilter, limits: LogQueryLimits): Promise<LocatedLog[]> {
    const from = filter.fromBlock < 0n ? 0n : filter.fromBlock;
    const to = filter.toBlock > this.head ? this.head : filter.toBlock;
    if (from > to) return [];
    const candidates = await this.candidateBlocks(filter, from, to, limits);
    const out: LocatedLog[] = [];
    for (const [i, n] of candidates.entries()) {
      // Every 16 blocks (reading the clock costs about what a cached block's matching does): past the
      // time limit, an error; a query over many blocks in memory never waits for I/O, so other
      // clients are let in between blocks.
      if (i % 16 === 0) {
        if (performance.now() > limits.deadline) throw new LogQueryTimeoutError();
        const pause = yieldIfBusy();
        if (pause !== undefined) await pause;
      }
      for (const log of this.logs.get(n) ?? (await this.blockLogs(BigInt(n))))
        if (matchesLog(log, filter)) out.push(log);
      if (out.length > limits.maxResults) throw new LogQueryLimitError(limits.maxResults);
    }
    return out;
  }

  /** Every log of block `n` with its position (kept: a block's logs never change). */
  async blockLogs(n: bigint): Promise<readonly LocatedLog[]> {
    const cached = this.logs.get(Number(n));
    if (cached !== undefined) return cached;
    const generation = this.generation;
    const [receipts, blockHash, blockTimestamp] = await Promise.all([
      this.getReceipts(n),
      this.getBlockHash(n),
      this.getTimestamp(n),
    ]);
    if (receipts === undefined || blockHash === undefined || blockTimestamp === undefined) return [];
    const logs: LocatedLog[] = [];
    receipts.forEach((r, transactionIndex) => {
      for (const log of r.logs) {
        logs.push({
          address: log.address,
          topics: log.topics,
          data: log.data,
          blockNumber: n,
          blockHash,
          blockTimestamp,
          transactionHash: r.txHash,
          transactionIndex,
          logIndex: logs.length,
          removed: false,
        });
      }
    });
    // Blocks dropped while this was read must not come back through the cache.
    if (generation === this.generation) this.logs.set(Number(n), logs);
    return logs;
  }

  /**
   * The blocks that can hold a match: for each constraint (the address set, each constrained topic
   * position) the blocks the index lists for it, intersected. With no constraint, every block that
   * has logs.
   */
  private async candidateBlocks(
    filter: LogFilter,
    from: bigint,
    to: bigint,
    limits: LogQueryLimits,
  ): Promise<number[]> {
    // Most selective first: addresses, then indexed arguments (topics 1-3), the event signature last.
    const constraints: Uint8Array[][] = [];
    if (filter.addresses !== undefined && filter.addresses.length > 0) {
      constraints.push(filter.addresses.map((a) => key(P_LOG_ADDRESS, a)));
    }
    const topics = filter.topics ?? [];
    for (const i of [1, 2, 3, 0]) {
      const position = topics[i];
      if (position !== undefined && position !== null && position.length > 0)
        constraints.push(position.map((t) => key(P_LOG_TOPIC, t)));
    }
    if (constraints.length === 0) constraints.push([Uint8Array.of(P_LOG_BLOCK)]);
    let result: Set<number> | undefined;
    for (const prefixes of constraints) {
      const found = new Set<number>();
      if (result !== undefined && result.size * prefixes.length <= POINT_LOOKUP_LIMIT) {
        // Few candidates left: look each one up instead of scanning the range.
        for (const n of result) {
          for (const prefix of prefixes) {
            if ((await this.kv.get(concatBytes(prefix, u64(BigInt(n))))) !== undefined) {
              found.add(n);
              break;
            }
          }
        }
      } else {
        for (const prefix of prefixes) {
          const rows = this.kv.rangeBatches(concatBytes(prefix, u64(from)), concatBytes(prefix, u64(to + 1n)));
          for await (const batch of rows) {
            for (const [k] of batch) {
              const n = blockNumberAt(k, k.length - 8);
              if (result === undefined || result.has(n)) found.add(n);
            }
            if (performance.now() > limits.deadline) throw new LogQueryTimeoutError();
          }
        }
      }
      result = found;
      if (result.size === 0) break;
    }
    return [...(result ?? [])].sort((a, b) => a - b);
  }
}

/** Exact match of one log against a filter (address set, then topics by position). */
export function matchesLog(log: Log, filter: Pick<LogFilter, 'addresses' | 'topics'>): boolean {
  if (filter.addresses !== undefined && filter.addresses.length > 0) {
    if (!filter.addresses.some((a) => equalsBytes(a, log.address))) return false;
  }
  const topics = filter.topics ?? [];
  for (let i = 0; i < topics.length; i++) {
    const wanted = topics[i];
    if (wanted === null || wanted.length === 0) continue;
    const actual = log.topics[i];
    if (actual === undefined || !wanted.some((t) => equalsBytes(t, actual))) return false;
  }
  return true;
}

/**
 * How a block the chain keeps is decoded again (the store's, a call worker's, a simulated block's):
 * under its own fork on a scheduled chain; checked when it was built or fetched, so not again (a
 * forked chain's first block is its remote's, whose consensus fields, a Clique signature in the extra
 * data, a dev chain's rules would refuse).
 */
export function storedBlockOptions(common: Common, scheduled: boolean): BlockOptions {
  return { common, setHardfork: scheduled, skipConsensusFormatValidation: true };
}
