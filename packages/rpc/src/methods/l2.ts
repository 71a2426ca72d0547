/** The layer-2 methods: transaction exclusion status (spec) and line-count-aware gas estimation. */
import { HeaderNotFoundError } from '@l2devnet/core';

import { INVALID_PARAMS, RpcError } from '../errors';
import { formatExclusion, formatLineaProof, formatTransaction, hex, quantity } from '../format';
import type { Method } from '../method';
import { method, optional, required, serviceRequired, withDefault } from '../method';
import {
  address,
  arrayOf,
  blockOrStateOverrides,
  bundleParams,
  callObject,
  data,
  exclusionFilter,
  exclusionRule,
  hash,
  lineLimitChanges,
  proofKey,
  stateOverrides,
  tracesCountersRequest,
} from '../params';
import { latest, stateBlock, stateRef } from './resolve';
import { TRACER_VERSIONS } from '@l2devnet/core';
import type { Chain, ForcedItem, LineCounts } from '@l2devnet/core';
import { hexToBytes } from '@ethereumjs/util';

/**
 * A line-count report: each module's count, its limit in force (null with checks off) and whether
 * the profile counts it exactly; the first module over its limit (in the order the sequencer
 * reports), and the module that binds (the largest share of its limit).
 */
function lineReport(chain: Chain, counts: LineCounts) {
  const profile = chain.lines.profile;
  const limits = chain.lines.limits?.limits;
  const modules: Record<string, { count: number; limit: number | null; exact: boolean }> = {};
  let overflow: { module: string; count: number; limit: number } | null = null;
  let binding: string | null = null;
  let share = -1;
  for (const module of profile.modules) {
    const count = counts[module] ?? 0;
    const limit = limits?.[module] ?? null;
    modules[module] = { count, limit, exact: profile.notes[module].startsWith('exact') };
    if (limit === null) continue;
    if (overflow === null && count > limit) overflow = { module, count, limit };
    const s = limit === 0 ? (count > 0 ? Infinity : 0) : count / limit;
    if (s > share) [share, binding] = [s, module];
  }
  return { tracer: profile.name, counter: profile.counter, modules, overflow, binding };
}

const exclusionStatus = method([required('transactionHash', hash)], async ({ chain }, h) => {
  const record = await chain.lines.exclusion(h);
  return record === undefined ? null : formatExclusion(record);
});

/**
 * linea_estimateGas(call, stateOverrides?) as Linea's node takes it, and viem's Linea action's
 * (call, block?, stateOverrides?): the second param is overrides when it is an address map.
 */
const estimate = method(
  [
    required('transaction', callObject()),
    withDefault('blockOrStateOverrides', blockOrStateOverrides(stateRef), latest),
    optional('stateOverrides', stateOverrides),
  ],
  async (ctx, req, second, third) => {
    const [ref, overrides] = Array.isArray(second) ? [latest(), second] : [second, third ?? []];
    const { gas } = await ctx.chain.calls.estimateGas(req, await stateBlock(ctx, ref), true, overrides);
    // Linea's profitable priority fee where its rules apply (LineaEstimateGas.java), else the suggested tip.
    const tip = await ctx.chain.calls.priorityFee(req, gas);
    return {
      gasLimit: quantity(gas),
      baseFeePerGas: quantity(await ctx.chain.reads.nextBaseFee()),
      priorityFeePerGas: quantity(tip ?? ctx.chain.reads.suggestedTip()),
    };
  },
);

const blockCounters = method([required('request', tracesCountersRequest)], async ({ chain }, req) => {
  const lines = await chain.lines.blockLineCounts(req.blockNumber);
  if (lines === undefined) throw new HeaderNotFoundError();
  return {
    tracesEngineVersion: req.expectedTracesEngineVersion ?? TRACER_VERSIONS[chain.lines.tracer],
    blockNumber: Number(req.blockNumber),
    tracesCounters: lines.totals,
  };
});

const sendBundle = method([required('bundle', bundleParams)], async ({ chain }, bundle) => ({
  bundleHash: hex(
    await chain.txs.sendBundle(
      bundle,
      JSON.stringify(bundle, (_k, v) => (typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? hex(v) : v)),
    ),
  ),
}));

/** linea_sendForcedRawTransaction's list, with the endpoint's request-level refusals. */
const forcedItems = (value: unknown): ForcedItem[] => {
  const malformed = (why: string) => new RpcError(INVALID_PARAMS, `Malformed request parameters: ${why}`);
  if (!Array.isArray(value)) throw malformed('expected a list of forced transactions');
  if (value.length === 0) throw new RpcError(INVALID_PARAMS, 'At least one forced transaction is required');
  const seen = new Set<number>();
  return value.map((entry) => {
    if (typeof entry !== 'object' || entry === null) throw malformed('each forced transaction is an object');
    const o = entry as Record<string, unknown>;
    const number = o.forcedTransactionNumber;
    if (number !== undefined && number !== null && (typeof number !== 'number' || !Number.isSafeInteger(number)))
      throw malformed('forcedTransactionNumber is a number');
    if (typeof number === 'number') {
      if (seen.has(number)) throw new RpcError(INVALID_PARAMS, `Duplicate forcedTransactionNumber: ${number}`);
      seen.add(number);
    }
    const raw = o.transaction;
    if (raw !== undefined && raw !== null && typeof raw !== 'string') throw malformed('transaction is a hex string');
    let transaction: Uint8Array | undefined;
    try {
      transaction =
        typeof raw === 'string' && raw !== '' && raw !== '0x' ? hexToBytes(raw as `0x${string}`) : undefined;
    } catch {
      transaction = new Uint8Array([0]);
    }
    const deadline = o.deadlineBlockNumber;
    return {
      number: typeof number === 'number' ? number : undefined,
      transaction,
      deadlineBlockNumber: deadline === undefined || deadline === null ? undefined : String(deadline),
    };
  });
};

/** linea_cancelBundle's UUID: a string, else the endpoint's refusal. */
const uuidParam = (value: unknown): string => {
  if (typeof value !== 'string') throw new RpcError(INVALID_PARAMS, 'malformed linea_cancelBundle json param');
  return value;
};

export const l2Methods: Record<string, Method> = {
  /**
   * l2_traceLineCounts(txHash): the lines a mined transaction added to its block (its block run again
   * as its builder ran it), with limits, the first overflow and the binding module; null if not mined.
   */
  'l2_traceLineCounts': method([required('transactionHash', hash)], async ({ chain }, h) => {
    const found = await chain.lines.transactionLinesInBlock(h);
    if (found === undefined) return null;
    return { ...lineReport(chain, found.counts), blockNumber: quantity(found.blockNumber) };
  }),
  /** l2_traceCallLineCounts(call, block?): a call's line counts as linea_estimateGas counts them, whatever its outcome. */
  'l2_traceCallLineCounts': method(
    [required('transaction', callObject()), withDefault('block', stateRef, latest)],
    async (ctx, req, ref) =>
      lineReport(ctx.chain, await ctx.chain.lines.callLineCounts(req, await stateBlock(ctx, ref))),
  ),
  /** linea_getBlockTracesCountersV2({ blockNumber }): a mined block's counts per module, as Linea's tracer plugin answers. */
  'linea_getBlockTracesCountersV2': blockCounters,
  'l2_getBlockTracesCountersV2': blockCounters,
  /** l2_getTransactionExclusionStatusV1 (spec: Exclusion status method): the record, or null. */
  'l2_getTransactionExclusionStatusV1': exclusionStatus,
  /**
   * l2_getExcludedTransaction(hash): an excluded transaction as it was submitted (the record keeps
   * its signed bytes), in eth_getTransactionByHash's shape without a block; null for none.
   */
  'l2_getExcludedTransaction': method([required('transactionHash', hash)], async ({ chain }, h) => {
    const record = await chain.lines.exclusion(h);
    return record === undefined ? null : formatTransaction(chain.txs.decodeTransaction(record.rawTx), record.from);
  }),
  /** The real network's name for the same method, so existing client code works unchanged. */
  'linea_getTransactionExclusionStatusV1': exclusionStatus,
  /**
   * linea_getProof(address, storageKeys, block): Linea's sparse-Merkle proofs of the account and
   * slots (Shomei's answer: the leaf of each, or its two neighbours when absent) against Linea's
   * state root after the block; beside an L1, only for a block the L1 has finalized.
   */
  'linea_getProof': method(
    [
      required('address', address),
      required('storageKeys', arrayOf(proofKey)),
      serviceRequired('block', stateRef, latest),
    ],
    async (ctx, a, keys, ref) =>
      formatLineaProof(
        await ctx.chain.reads.lineaProof(
          a,
          keys.map((k) => k.key),
          await stateBlock(ctx, ref),
        ),
      ),
  ),
  /** l2_estimateGas: gas, base fee and tip; refuses a call whose line count overflows a module. */
  'l2_estimateGas': estimate,
  'linea_estimateGas': estimate,

  // Limits that tests change at run time.
  /** l2_setLineLimits({ MODULE: limit, ... }): changes those modules' limits until l2_resetLineLimits. */
  'l2_setLineLimits': method([required('limits', lineLimitChanges)], async ({ chain }, changes) => {
    await chain.lines.setLineLimits(changes);
    return true;
  }),
  /** l2_resetLineLimits: the limits of the limits file again. */
  'l2_resetLineLimits': method([], async ({ chain }) => {
    await chain.lines.resetLineLimits();
    return true;
  }),
  /** l2_getLineLimits: the limits in force, per module; null when line-count checks are off. */
  'l2_getLineLimits': method([], ({ chain }) =>
    chain.lines.limits === undefined ? null : { ...chain.lines.limits.limits },
  ),

  // Exclusion control for test suites.
  /** l2_forceExclusion(rule): the next transaction matching the rule is excluded at its stage; returns the rule's id. */
  'l2_forceExclusion': method([required('rule', exclusionRule)], ({ chain }, rule) =>
    quantity(chain.lines.forceExclusion(rule)),
  ),
  /** l2_clearForcedExclusions: drops the rules not used yet; returns how many there were. */
  'l2_clearForcedExclusions': method([], ({ chain }) => chain.lines.clearForcedExclusions()),
  /**
   * linea_setExtraData(32 bytes): the version-1 pricing (fixed cost, variable cost, L1 gas price, in
   * kWei) that profitability and the blocks built from now on use, as the sequencer's endpoint sets it.
   */
  'linea_setExtraData': method([required('extraData', data)], async ({ chain }, bytes) => {
    await chain.txs.setExtraData(bytes);
    return true;
  }),
  /**
   * linea_sendBundle({ txs, blockNumber, minTimestamp?, maxTimestamp?, revertingTxHashes?, replacementUUID? }):
   * transactions for one block, included in order and whole or not at all; `{ bundleHash }`.
   */
  'linea_sendBundle': sendBundle,
  /** The name Linea's documentation gives the same method (Infura's front for linea_sendBundle). */
  'eth_sendBundle': sendBundle,
  /** linea_cancelBundle(uuid): drops the bundle sent with that replacementUUID; whether there was one. */
  'linea_cancelBundle': method([required('replacementUUID', uuidParam)], async ({ chain }, uuid) =>
    chain.txs.cancelBundle(uuid),
  ),
  /**
   * linea_sendForcedRawTransaction([{ forcedTransactionNumber, transaction, deadlineBlockNumber }]):
   * queues forced transactions, tried first in every block; `[{ forcedTransactionNumber, hash | error }]`.
   */
  'linea_sendForcedRawTransaction': method([required('forcedTransactions', forcedItems)], async ({ chain }, items) =>
    (await chain.txs.sendForced(items)).map((r) => ({
      forcedTransactionNumber: r.number,
      ...(r.hash !== undefined && { hash: hex(r.hash) }),
      ...(r.error !== undefined && { error: r.error }),
    })),
  ),
  /** linea_getForcedTransactionInclusionStatus(number): how it ended, or null while queued or unknown. */
  'linea_getForcedTransactionInclusionStatus': method(
    [
      required('forcedTransactionNumber', (v: unknown) => {
        if (typeof v !== 'number' || !Number.isSafeInteger(v))
          throw new RpcError(INVALID_PARAMS, 'Malformed request parameters: forcedTransactionNumber is a number');
        return v;
      }),
    ],
    ({ chain }, number) => {
      const o = chain.txs.forcedOutcome(number);
      if (o === undefined) return null;
      return {
        forcedTransactionNumber: o.number,
        blockNumber: quantity(o.blockNumber),
        blockTimestamp: Number(o.blockTimestamp),
        from: hex(o.from),
        inclusionResult: o.status,
        transactionHash: hex(o.txHash),
      };
    },
  ),
  /** l2_setDenyList(addresses): transactions from or to these are refused, as Linea's sequencer refuses them. */
  'l2_setDenyList': method([required('addresses', arrayOf(address, 10_000))], ({ chain }, addresses) => {
    chain.lines.setDenyList(addresses);
    return true;
  }),
  'l2_getDenyList': method([], ({ chain }) => chain.lines.denyList()),
  /** l2_getExclusions(filter?): the exclusion records kept, oldest first, by stage and block range. */
  'l2_getExclusions': method([optional('filter', exclusionFilter)], async ({ chain }, filter) =>
    (await chain.lines.listExclusions(filter)).map(formatExclusion),
  ),
  /** l2_getExclusionCount(filter?): how many records l2_getExclusions would return. */
  'l2_getExclusionCount': method([optional('filter', exclusionFilter)], async ({ chain }, filter) =>
    quantity((await chain.lines.listExclusions(filter)).length),
  ),
};
