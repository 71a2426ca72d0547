/**
 * Parity's trace API as Anvil serves it (crates/anvil/src/eth/api.rs, backend/mem/mod.rs): the
 * flat traces of geth's flatCallTracer in Parity's words (its errors converted), for a mined
 * transaction, a block, a call, and a filter over a range of blocks.
 */
import type { TraceOptions } from '@l2devnet/core';

import { invalidParams } from '../errors';
import { formatTrace } from '../format';
import type { Method, RpcContext } from '../method';
import { method, optional, required } from '../method';
import type { ParamSlot } from '../params';
import { address, arrayOf, blockRef, callObject, count, fail, hash, member, strictObject } from '../params';
import { stateBlock } from './resolve';

const FLAT: TraceOptions = { tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } };
/** Anvil's bound on trace_filter's range. */
const MAX_FILTER_BLOCKS = 300n;

/** A flat trace, as far as its readers here and in otterscan.ts look into it. */
export type Trace = {
  action: { from?: string; to?: string; address?: string; refundAddress?: string };
  result?: { address?: string };
  type: string;
  transactionHash: string;
};

/** A block's flat traces, every transaction's in order; [] for genesis, as Anvil. */
export async function blockTraces(ctx: RpcContext, n: bigint, options: TraceOptions = FLAT): Promise<Trace[]> {
  if (n === 0n) return [];
  const traced = await ctx.chain.traces.traceBlock(n, options);
  return (traced ?? []).flatMap((t) => formatTrace(t.result) as Trace[]);
}

interface TraceFilter {
  fromBlock?: bigint;
  toBlock?: bigint;
  fromAddress?: Uint8Array[];
  toAddress?: Uint8Array[];
  after?: number;
  count?: number;
  mode: 'union' | 'intersection';
}

const blockNumber = (v: unknown, slot: ParamSlot): bigint => {
  const ref = blockRef()(v, slot);
  if (ref.kind === 'number') return ref.number;
  if (ref.kind === 'earliest') return 0n;
  return -1n; // latest, pending, safe, finalized: resolved against the head below
};

const traceFilter = (value: unknown, slot: ParamSlot): TraceFilter => {
  const o = strictObject(value, slot, ['fromBlock', 'toBlock', 'fromAddress', 'toAddress', 'after', 'count', 'mode']);
  const mode = member(
    o,
    'mode',
    (v, s) => (v === 'union' || v === 'intersection' ? v : fail(s, '"union" or "intersection"', v)),
    slot,
  );
  return {
    fromBlock: member(o, 'fromBlock', blockNumber, slot),
    toBlock: member(o, 'toBlock', blockNumber, slot),
    fromAddress: member(o, 'fromAddress', arrayOf(address), slot),
    toAddress: member(o, 'toAddress', arrayOf(address), slot),
    after: member(o, 'after', count, slot),
    count: member(o, 'count', count, slot),
    mode: mode ?? 'union',
  };
};

/**
 * Whether a trace matches the filter's addresses, as alloy's TraceFilterMatcher (Anvil's): the
 * sender side is a call's or create's `from` or a self-destructed account, the recipient side a
 * call's `to`, a created address or a refund address; an empty list matches any.
 */
function matches(filter: TraceFilter, trace: Trace): boolean {
  const from = new Set((filter.fromAddress ?? []).map((a) => Buffer.from(a).toString('hex')));
  const to = new Set((filter.toAddress ?? []).map((a) => Buffer.from(a).toString('hex')));
  const has = (set: Set<string>, a: string | undefined) => set.size === 0 || (a !== undefined && set.has(a.slice(2)));
  const sender = trace.type === 'suicide' ? trace.action.address : trace.action.from;
  const recipient =
    trace.type === 'suicide'
      ? trace.action.refundAddress
      : trace.type === 'create'
        ? trace.result?.address
        : trace.action.to;
  const fromOk = has(from, sender);
  const toOk = has(to, recipient);
  if (filter.mode === 'intersection') return fromOk && toOk;
  if (from.size === 0) return toOk;
  if (to.size === 0) return fromOk;
  return fromOk || toOk;
}

const traceTypes = (value: unknown, slot: ParamSlot): string[] => {
  const list = arrayOf((v, s) => (typeof v === 'string' ? v : fail(s, 'a trace type', v)))(value, slot);
  for (const t of list)
    if (t !== 'trace')
      throw invalidParams(`param ${slot.position} (${slot.name}): "${t}" is not served; only "trace" is`);
  return list;
};

export const parityTraceMethods: Record<string, Method> = {
  /** trace_transaction(hash): a mined transaction's flat traces; [] when it is not mined, as Anvil. */
  'trace_transaction': method([required('transactionHash', hash)], async ({ chain }, h) => {
    const result = await chain.traces.traceTransaction(h, FLAT);
    return result === undefined ? [] : formatTrace(result);
  }),
  /** trace_block(block): the flat traces of every transaction in the block; [] for none. */
  'trace_block': method([required('block', blockRef({ allowSafe: true }))], async (ctx, ref) => {
    const n = await ctx.chain.reads.resolveNumber(ref);
    return n === undefined ? [] : blockTraces(ctx, n);
  }),
  /**
   * trace_call(call, traceTypes, block?): a call's flat traces, not placed in any block, as
   * `{ output, stateDiff, trace, vmTrace }`; only the "trace" type is served.
   */
  'trace_call': method(
    [
      required('transaction', callObject()),
      optional('traceTypes', traceTypes),
      optional('block', blockRef({ allowObject: true, allowSafe: true, orHash: true })),
    ],
    async (ctx, req, _types, ref) => {
      const n = await stateBlock(ctx, ref ?? { kind: 'latest' });
      const result = await ctx.chain.traces.traceCall(req, n, [], FLAT);
      const trace = (formatTrace(result) as Record<string, unknown>[]).map(
        ({ blockHash: _h, blockNumber: _n, transactionHash: _t, transactionPosition: _p, ...rest }) => rest,
      );
      const top = trace[0] as { result?: { output?: string } } | undefined;
      return { output: top?.result?.output ?? '0x', stateDiff: null, trace, vmTrace: null };
    },
  ),
  /** trace_filter({ fromBlock, toBlock, fromAddress, toAddress, after, count, mode }): at most 300 blocks, as Anvil. */
  'trace_filter': method([required('filter', traceFilter)], async (ctx, filter) => {
    const head = ctx.chain.headNumber;
    const resolve = (n: bigint | undefined, otherwise: bigint) => (n === undefined ? otherwise : n < 0n ? head : n);
    const start = resolve(filter.fromBlock, 0n);
    const end = resolve(filter.toBlock, head);
    if (start > end) throw invalidParams('invalid block range, ensure that to block is greater than from block');
    if (end - start > MAX_FILTER_BLOCKS)
      throw invalidParams(`block range too large, currently limited to ${MAX_FILTER_BLOCKS}`);
    const found: Trace[] = [];
    for (let n = start; n <= end && n <= head; n++)
      for (const t of await blockTraces(ctx, n)) if (matches(filter, t)) found.push(t);
    const from = filter.after ?? 0;
    return found.slice(from, filter.count === undefined ? undefined : from + filter.count);
  }),
};
