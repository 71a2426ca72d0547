/**
 * Otterscan's API (ots_*, at API level 8, and erigon_getHeaderByNumber), as Otterscan calls it
 * (otterscan/otterscan src/useErigonHooks.ts, search/search.ts, useProvider.ts) and as Anvil
 * answers it (crates/anvil/src/eth/otterscan/api.rs): block details and pages of a block's
 * transactions with their receipts, a transaction's call tree, internal operations and revert data,
 * an address's history, a sender's transaction by nonce and a contract's creator.
 */
import type { Block } from '@ethereumjs/block';
import { bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import type { BlockRef, CallFrame, Receipt, TraceOptions } from '@l2devnet/core';
import { effectiveGasPrice } from '@l2devnet/core';

import { INTERNAL_ERROR, RESOURCE_NOT_FOUND, RpcError } from '../errors';
import { formatBlock, formatReceipt, formatTransaction, hex, quantity } from '../format';
import type { Method, RpcContext } from '../method';
import { method, required } from '../method';
import { address, amount, blockRef, count, hash } from '../params';
import type { Parser } from '../params';
import { blockResult, loadBlock, totalDifficultyOf } from './blocks';
import { blockTraces } from './parity';
import { stateRef } from './resolve';
import type { Trace } from './parity';

const CALLS: TraceOptions = { tracer: 'callTracer' };
/** The flat traces an address's history is searched in: calls to precompiles included. */
const FLAT_ALL: TraceOptions = { tracer: 'flatCallTracer', tracerConfig: { includePrecompiles: true } };

/** Otterscan's operation types (ots_getInternalOperations), by the frame that makes each. */
const OPERATIONS: Record<string, number> = { CALL: 0, SELFDESTRUCT: 1, CREATE: 2, CREATE2: 3 };

/** A block as Otterscan sends it, a JSON number, or as `parse` takes it. */
const orJsonNumber =
  (parse: Parser<unknown>) =>
  (value: unknown, slot: Parameters<typeof amount>[1]): BlockRef =>
    typeof value === 'number' ? { kind: 'number', number: amount(value, slot) } : (parse(value, slot) as BlockRef);

/** erigon_getHeaderByNumber's block: a number or a tag. */
const numberOrTag = orJsonNumber(blockRef());
/** ots_hasCode's block: any block reference eth_getCode takes. */
const anyBlock = orJsonNumber(stateRef);

const numbered = (n: bigint): BlockRef => ({ kind: 'number', number: n });

/** A block of Otterscan's block views, or Anvil's error for one that is not there. */
async function existingBlock(ctx: RpcContext, ref: BlockRef): Promise<{ block: Block; receipts: Receipt[] }> {
  const found = await loadBlock(ctx, ref);
  if (found === undefined) throw new RpcError(RESOURCE_NOT_FOUND, 'Resource not found');
  return found;
}

/** ots_getBlockDetails: the block without its transactions' bodies, their count, the fees they paid, no issuance (a proof-of-stake chain mints nothing per block). */
async function blockDetails(ctx: RpcContext, ref: BlockRef) {
  const found = await existingBlock(ctx, ref);
  const { block, receipts } = found;
  let fees = 0n;
  block.transactions.forEach((tx, i) => {
    fees += receipts[i].gasUsed * effectiveGasPrice(tx, block.header.baseFeePerGas ?? 0n);
  });
  const { transactions: _hashes, ...header } = formatBlock(
    block,
    receipts,
    false,
    await totalDifficultyOf(ctx, block.header),
  );
  return {
    block: { ...header, transactionCount: block.transactions.length },
    issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
    totalFees: quantity(fees),
  };
}

/** A receipt as Otterscan reads it: the standard one and its block's timestamp. */
function otsReceipt(block: Block, receipts: Receipt[], i: number) {
  return { ...formatReceipt(block, receipts, i), timestamp: quantity(block.header.timestamp) };
}

/** Whether a flat trace touches `who`: as sender, recipient, created or refunded address. */
function touches(trace: Trace, who: string): boolean {
  const a = trace.action;
  return [a.from, a.to, a.address, a.refundAddress, trace.result?.address].includes(who);
}

/** Hashes of the transactions of block `n` that touch `who` at any depth, in block order. */
async function touching(ctx: RpcContext, n: bigint, who: string): Promise<string[]> {
  const traces = await blockTraces(ctx, n, FLAT_ALL);
  return [...new Set(traces.filter((t) => touches(t, who)).map((t) => t.transactionHash))];
}

/** ots_searchTransactions*'s answer: the transactions, newest first, with receipts and timestamps. */
async function withReceipts(ctx: RpcContext, hashes: string[], firstPage: boolean, lastPage: boolean) {
  const txs = [];
  const receipts = [];
  for (const h of hashes) {
    const found = await ctx.chain.reads.getReceipt(hexToBytes(h as `0x${string}`));
    if (found === undefined) continue;
    const blockReceipts = (await ctx.chain.reads.getReceipts(found.block.header.number)) ?? [];
    const tx = found.block.transactions[found.index];
    txs.push(formatTransaction(tx, blockReceipts[found.index].from, { block: found.block, index: found.index }));
    receipts.push(otsReceipt(found.block, blockReceipts, found.index));
  }
  return { txs, receipts, firstPage, lastPage };
}

/** The lowest block in [lo, hi] where `holds` is true, given it holds at `hi` and, once true, stays true. */
async function firstBlockWhere(lo: bigint, hi: bigint, holds: (n: bigint) => Promise<boolean>): Promise<bigint> {
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (await holds(mid)) hi = mid;
    else lo = mid + 1n;
  }
  return lo;
}

const flatten = (f: CallFrame, depth: number, out: { frame: CallFrame; depth: number }[] = []) => {
  out.push({ frame: f, depth });
  for (const c of f.calls ?? []) flatten(c, depth + 1, out);
  return out;
};

/** The mined transaction of `sender` with `nonce`: the first block after which its nonce is past it. */
async function bySenderAndNonce(
  ctx: RpcContext,
  sender: Uint8Array,
  nonce: bigint,
): Promise<{ block: Block; receipts: Receipt[]; index: number } | undefined> {
  const { reads } = ctx.chain;
  const head = ctx.chain.headNumber;
  const nonceAt = async (n: bigint) => (await reads.getAccount(sender, n)).nonce;
  if ((await nonceAt(head)) <= nonce) return undefined;
  const n = await firstBlockWhere(reads.firstNumber, head, async (b) => (await nonceAt(b)) > nonce);
  const found = await loadBlock(ctx, numbered(n));
  const index =
    found?.block.transactions.findIndex((tx, j) => tx.nonce === nonce && equalsBytes(found.receipts[j].from, sender)) ??
    -1;
  return found === undefined || index < 0 ? undefined : { ...found, index };
}

export const otterscanMethods: Record<string, Method> = {
  /** ots_getApiLevel: 8, the level Otterscan asks for (src/params.ts). */
  'ots_getApiLevel': method([], () => 8),
  /** erigon_getHeaderByNumber(number): the block, as eth_getBlockByNumber without transaction bodies (Anvil answers the same). */
  'erigon_getHeaderByNumber': method([required('block', numberOrTag)], (ctx, ref) => blockResult(ctx, ref, false)),
  /** ots_hasCode(address, block): whether the address holds code then. */
  'ots_hasCode': method([required('address', address), required('block', anyBlock)], async (ctx, a, ref) => {
    const n = await ctx.chain.reads.resolveNumber(ref);
    if (n === undefined) return false;
    return (await ctx.chain.reads.getCode(a, n)).length > 0;
  }),
  /** ots_getBlockDetails(number): `{ block, issuance, totalFees }`; an unknown block is Anvil's -32001 Resource not found. */
  'ots_getBlockDetails': method([required('number', amount)], (ctx, n) => blockDetails(ctx, numbered(n))),
  'ots_getBlockDetailsByHash': method([required('hash', hash)], (ctx, h) =>
    blockDetails(ctx, { kind: 'hash', hash: h }),
  ),
  /**
   * ots_getBlockTransactions(number, page, pageSize): one page of the block's transactions, each input
   * cut to its selector (Otterscan shows only the method), with their receipts.
   */
  'ots_getBlockTransactions': method(
    [required('number', amount), required('page', count), required('pageSize', count)],
    async (ctx, n, page, pageSize) => {
      const { block, receipts } = await existingBlock(ctx, numbered(n));
      const full = formatBlock(block, receipts, true, await totalDifficultyOf(ctx, block.header));
      const from = page * pageSize;
      const indexes = block.transactions.map((_, i) => i).slice(from, from + pageSize);
      const selectorOnly = (tx: { input: string }) => ({ ...tx, input: tx.input.slice(0, 10) });
      return {
        fullblock: {
          ...full,
          transactions: indexes.map((i) => selectorOnly((full.transactions as { input: string }[])[i])),
          transactionCount: block.transactions.length,
        },
        receipts: indexes.map((i) => otsReceipt(block, receipts, i)),
      };
    },
  ),
  /** ots_traceTransaction(hash): every call frame, depth first, as `{ type, depth, from, to, value, input, output }`. */
  'ots_traceTransaction': method([required('transactionHash', hash)], async ({ chain }, h) => {
    const result = await chain.traces.traceTransaction(h, CALLS);
    if (result === undefined || result.tracer !== 'callTracer') return [];
    return flatten(result.frame, 0).map(({ frame: f, depth }) => ({
      type: f.type,
      depth,
      from: hex(f.from),
      to: f.to === undefined ? null : hex(f.to),
      // A delegate or static call moves no value: null, as Erigon answers.
      value: f.type === 'DELEGATECALL' || f.type === 'STATICCALL' ? null : quantity(f.value ?? 0n),
      input: hex(f.input),
      output: f.output === undefined ? '0x' : hex(f.output),
    }));
  }),
  /**
   * ots_getInternalOperations(hash): value transfers, creations and self-destructs, the transaction's
   * own included, as Anvil answers; an unknown transaction is Anvil's -32603 Required data unavailable.
   */
  'ots_getInternalOperations': method([required('transactionHash', hash)], async ({ chain }, h) => {
    const result = await chain.traces.traceTransaction(h, CALLS);
    if (result === undefined) throw new RpcError(INTERNAL_ERROR, 'Required data unavailable');
    if (result.tracer !== 'callTracer') return [];
    const ops = [];
    for (const { frame: f } of flatten(result.frame, 0)) {
      if (f.error !== undefined) continue;
      const value = f.value ?? 0n;
      const type = OPERATIONS[f.type];
      // A call is an operation when it moves value (a transfer).
      if (type === undefined || (f.type === 'CALL' && value === 0n)) continue;
      ops.push({ type, from: hex(f.from), to: f.to === undefined ? null : hex(f.to), value: quantity(value) });
    }
    return ops;
  }),
  /** ots_getTransactionError(hash): the revert data of a failed transaction; 0x otherwise. */
  'ots_getTransactionError': method([required('transactionHash', hash)], async ({ chain }, h) => {
    const result = await chain.traces.traceTransaction(h, CALLS);
    if (result === undefined || result.tracer !== 'callTracer' || result.frame.error === undefined) return '0x';
    return result.frame.output === undefined ? '0x' : hex(result.frame.output);
  }),
  /** ots_searchTransactionsBefore(address, block, pageSize): the address's transactions before `block` (0: from the head), newest first. */
  'ots_searchTransactionsBefore': method(
    [required('address', address), required('block', amount), required('pageSize', count)],
    async (ctx, a, n, pageSize) => {
      const head = ctx.chain.headNumber;
      const who = bytesToHex(a);
      const from = n === 0n || n > head + 1n ? head : n - 1n;
      const found: string[] = [];
      let b = from;
      for (; b >= 1n && found.length < pageSize; b--) found.push(...(await touching(ctx, b, who)).reverse());
      return withReceipts(ctx, found, from >= head, b < 1n);
    },
  ),
  /** ots_searchTransactionsAfter(address, block, pageSize): the address's transactions after `block`, newest first. */
  'ots_searchTransactionsAfter': method(
    [required('address', address), required('block', amount), required('pageSize', count)],
    async (ctx, a, n, pageSize) => {
      const head = ctx.chain.headNumber;
      const who = bytesToHex(a);
      const from = n === 0n ? 1n : n + 1n;
      const found: string[] = [];
      let b = from;
      for (; b <= head && found.length < pageSize; b++) found.push(...(await touching(ctx, b, who)));
      return withReceipts(ctx, found.reverse(), b > head, from <= 1n);
    },
  ),
  /** ots_getTransactionBySenderAndNonce(address, nonce): the hash, found by the block where the nonce was used; null if not yet. */
  'ots_getTransactionBySenderAndNonce': method(
    [required('address', address), required('nonce', amount)],
    async (ctx, a, nonce) => {
      const found = await bySenderAndNonce(ctx, a, nonce);
      return found === undefined ? null : hex(found.block.transactions[found.index].hash());
    },
  ),
  /** eth_getTransactionBySenderAndNonce (Anvil's): the same search, answering the transaction itself. */
  'eth_getTransactionBySenderAndNonce': method(
    [required('address', address), required('nonce', amount)],
    async (ctx, a, nonce) => {
      const found = await bySenderAndNonce(ctx, a, nonce);
      if (found === undefined) return null;
      const { block, receipts, index } = found;
      return formatTransaction(block.transactions[index], receipts[index].from, { block, index });
    },
  ),
  /** ots_getContractCreator(address): `{ hash, creator }` of the creation that put code there; null for no code. */
  'ots_getContractCreator': method([required('address', address)], async (ctx, a) => {
    const { reads } = ctx.chain;
    const head = ctx.chain.headNumber;
    const hasCode = async (n: bigint) => (await reads.getCode(a, n)).length > 0;
    if (!(await hasCode(head)) || (await hasCode(reads.firstNumber))) return null;
    const n = await firstBlockWhere(reads.firstNumber + 1n, head, hasCode);
    const who = bytesToHex(a);
    const created = (await blockTraces(ctx, n, FLAT_ALL)).find((t) => t.type === 'create' && t.result?.address === who);
    return created === undefined ? null : { hash: created.transactionHash, creator: created.action.from };
  }),
};
