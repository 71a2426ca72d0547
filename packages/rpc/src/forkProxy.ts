/**
 * A forked chain's requests about the remote's blocks, answered by the remote: the fork block and
 * every block before it (their transactions, receipts, logs and traces), and state before the fork
 * block. The fork block's state and everything after it are this node's. The remote's answers are
 * passed on as it gave them; a hash this node does not know is the remote's only if the remote has
 * it at or before the fork block.
 */
import { dirname } from 'node:path';

import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { DEFAULT_LIMITS, LineLimits } from '@l2devnet/core';
import type { Chain, ForkState } from '@l2devnet/core';

import { RpcError } from './errors';
import { quantity } from './format';
import { replayRemoteTransaction } from './forkReplay';
import { RemoteCallError } from './remote';
import type { RemoteNode } from './remote';

/** Methods about one block's contents, and where their block parameter is: the remote's up to the fork block. */
const BLOCK_CONTENT: Record<string, number> = {
  eth_getBlockByNumber: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  eth_getUncleByBlockNumberAndIndex: 0,
  eth_getUncleCountByBlockNumber: 0,
  eth_getBlockReceipts: 0,
  debug_traceBlockByNumber: 0,
  debug_getRawBlock: 0,
  debug_getRawHeader: 0,
  debug_getRawReceipts: 0,
  trace_block: 0,
};

/** Methods reading state at a block, and where their block parameter is: the remote's before the fork block. */
const STATE_AT: Record<string, number> = {
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_getTransactionCount: 1,
  eth_getProof: 2,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_createAccessList: 1,
  debug_traceCall: 1,
};

/** Methods taking a block hash first. */
const BY_BLOCK_HASH = new Set([
  'eth_getBlockByHash',
  'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getUncleByBlockHashAndIndex',
  'eth_getUncleCountByBlockHash',
  'debug_traceBlockByHash',
]);

/** Methods taking a transaction hash first. */
const BY_TX_HASH = new Set([
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'debug_traceTransaction',
  'debug_getRawTransaction',
  'trace_transaction',
]);

const TAGS = new Set(['latest', 'pending', 'safe', 'finalized', 'earliest']);

type Local = (params?: unknown[]) => Promise<unknown>;

export class ForkProxy {
  private readonly remote: RemoteNode;
  private readonly number: bigint;
  private readonly hash: string;

  constructor(
    private readonly chain: Chain,
    /** The fork it serves (a refork makes another proxy). */
    readonly fork: ForkState,
  ) {
    this.remote = fork.source as RemoteNode;
    this.number = fork.number;
    this.hash = bytesToHex(fork.hash);
  }

  /** The answer to `method`: the remote's when it is about the remote's blocks, else `local`'s. */
  async request(method: string, raw: unknown, local: Local): Promise<unknown> {
    if (!Array.isArray(raw)) return local();
    if (Object.hasOwn(BLOCK_CONTENT, method)) {
      const ref = raw[BLOCK_CONTENT[method]];
      if (isHash(ref)) return this.byBlockHash(method, raw, ref, local);
      const n = await this.numberOf(ref);
      return n !== undefined && n <= this.number ? this.forward(method, raw) : local();
    }
    if (Object.hasOwn(STATE_AT, method)) {
      const ref = raw[STATE_AT[method]];
      const n = await this.numberOf(ref);
      return n !== undefined && n < this.number ? this.forward(method, raw) : local();
    }
    if (BY_BLOCK_HASH.has(method)) return this.byBlockHash(method, raw, raw[0], local);
    if (BY_TX_HASH.has(method)) return this.byTxHash(method, raw, local);
    if (method === 'eth_getLogs') return this.logs(raw, local);
    if (method === 'l2_traceLineCounts') return this.remoteLines(raw, local);
    return local();
  }

  /** A remote transaction's line counts (up to the fork block): run again on a fork of its block's parent. */
  private async remoteLines(raw: unknown[], local: Local): Promise<unknown> {
    const mine = await local();
    const hash = raw[0];
    if (mine !== null || !isHash(hash) || !(await this.remoteTxBeforeFork(hash))) return mine;
    const { lines } = this.chain;
    const { counter } = lines.profile;
    const file = this.fork.cache.file;
    const replay = await replayRemoteTransaction(this.remote, hash, {
      limits: lines.limits ?? LineLimits.fromFile(DEFAULT_LIMITS[lines.tracer], lines.tracer, counter),
      tracer: lines.tracer,
      counter,
      cacheDir: file === undefined ? undefined : dirname(file),
    });
    return replay?.report ?? null;
  }

  /** A block parameter's number when it names one by number, tag or `{ blockNumber }`; undefined otherwise. */
  private async numberOf(ref: unknown): Promise<bigint | undefined> {
    if (typeof ref === 'object' && ref !== null && 'blockNumber' in ref)
      ref = (ref as { blockNumber: unknown }).blockNumber;
    if (typeof ref === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(ref)) return BigInt(ref);
    if (typeof ref === 'string' && TAGS.has(ref))
      return this.chain.reads.resolveNumber({ kind: ref as 'latest' | 'pending' | 'safe' | 'finalized' | 'earliest' });
    return undefined;
  }

  private async byBlockHash(method: string, raw: unknown[], hash: unknown, local: Local): Promise<unknown> {
    if (typeof hash !== 'string' || !isHash(hash)) return local();
    // The fork block is stored here as a header only: its body is the remote's.
    if (hash.toLowerCase() === this.hash) return this.forward(method, raw);
    const mine = await this.chain.reads.resolveNumber({ kind: 'hash', hash: hexToBytes(hash) });
    if (mine !== undefined || !(await this.remoteBlockBeforeFork(hash))) return local();
    return this.forward(method, raw);
  }

  private async byTxHash(method: string, raw: unknown[], local: Local): Promise<unknown> {
    const hash = raw[0];
    let mine: unknown;
    let failure: unknown;
    try {
      mine = await local();
    } catch (e) {
      failure = e;
    }
    if (mine !== null && failure === undefined) return mine;
    // A transaction waiting in this node's pool is this node's (a receipt polled until it is mined).
    if (
      isHash(hash) &&
      this.chain.reads.pooled(hexToBytes(hash)) === undefined &&
      (await this.remoteTxBeforeFork(hash))
    )
      return this.forward(method, raw);
    if (failure !== undefined) throw failure;
    return mine;
  }

  /** Logs of a range that starts at or before the fork block: the remote's part, then this node's. */
  private async logs(raw: unknown[], local: Local): Promise<unknown> {
    const filter = raw[0] as Record<string, unknown> | undefined;
    if (typeof filter !== 'object' || filter === null) return local();
    if (filter.blockHash !== undefined) return this.byBlockHash('eth_getLogs', raw, filter.blockHash, local);
    const from = await this.numberOf(filter.fromBlock ?? 'latest');
    const to = await this.numberOf(filter.toBlock ?? 'latest');
    if (from === undefined || to === undefined || from > this.number || from > to) return local();
    const last = to < this.number ? to : this.number;
    const theirs = (await this.forward('eth_getLogs', [
      { ...filter, fromBlock: quantity(from), toBlock: quantity(last) },
    ])) as unknown[];
    if (to <= this.number) return theirs;
    const mine = (await local([
      { ...filter, fromBlock: quantity(this.number + 1n), toBlock: quantity(to) },
    ])) as unknown[];
    return [...theirs, ...mine];
  }

  private async remoteBlockBeforeFork(hash: string): Promise<boolean> {
    const block = (await this.forward('eth_getBlockByHash', [hash, false])) as { number?: unknown } | null;
    return typeof block?.number === 'string' && BigInt(block.number) <= this.number;
  }

  private async remoteTxBeforeFork(hash: string): Promise<boolean> {
    const tx = (await this.forward('eth_getTransactionByHash', [hash])) as { blockNumber?: unknown } | null;
    return typeof tx?.blockNumber === 'string' && BigInt(tx.blockNumber) <= this.number;
  }

  /** The remote's answer, its error object as this node's. */
  private async forward(method: string, params: unknown[]): Promise<unknown> {
    try {
      return await this.remote.call(method, params);
    } catch (e) {
      if (e instanceof RemoteCallError) throw new RpcError(e.code, e.message, e.data as string | undefined);
      throw e;
    }
  }
}

function isHash(v: unknown): v is `0x${string}` {
  return typeof v === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v);
}
