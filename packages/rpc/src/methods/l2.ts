/** The layer-2 methods: transaction exclusion status (spec) and line-count-aware gas estimation. */
import { formatExclusion, quantity } from '../format';
import type { Method } from '../method';
import { method, optional, required, withDefault } from '../method';
import {
  address,
  arrayOf,
  blockRef,
  callObject,
  exclusionFilter,
  exclusionRule,
  hash,
  lineLimitChanges,
} from '../params';
import { stateBlock } from './resolve';
import { SUGGESTED_TIP } from '@l2devnet/core';

const exclusionStatus = method([required('transactionHash', hash)], async ({ chain }, h) => {
  const record = await chain.exclusions.get(h);
  return record === undefined ? null : formatExclusion(record);
});

const estimate = method(
  [
    required('transaction', callObject()),
    withDefault('block', blockRef({ allowObject: true }), () => ({ kind: 'latest' as const })),
  ],
  async (ctx, req, ref) => {
    const { gas } = await ctx.chain.estimateGas(req, await stateBlock(ctx, ref));
    return {
      gasLimit: quantity(gas),
      baseFeePerGas: quantity(await ctx.chain.nextBaseFee()),
      priorityFeePerGas: quantity(SUGGESTED_TIP),
    };
  },
);

export const l2Methods: Record<string, Method> = {
  /** l2_getTransactionExclusionStatusV1 (spec: Exclusion status method): the record, or null. */
  l2_getTransactionExclusionStatusV1: exclusionStatus,
  /** The real network's name for the same method, so existing client code works unchanged. */
  linea_getTransactionExclusionStatusV1: exclusionStatus,
  /** l2_estimateGas: gas, base fee and tip; refuses a call whose line count overflows a module. */
  l2_estimateGas: estimate,
  linea_estimateGas: estimate,

  // Limits that tests change at run time.
  /** l2_setLineLimits({ MODULE: limit, ... }): changes those modules' limits until l2_resetLineLimits. */
  l2_setLineLimits: method([required('limits', lineLimitChanges)], async ({ chain }, changes) => {
    await chain.setLineLimits(changes);
    return true;
  }),
  /** l2_resetLineLimits: the limits of the limits file again. */
  l2_resetLineLimits: method([], async ({ chain }) => {
    await chain.resetLineLimits();
    return true;
  }),
  /** l2_getLineLimits: the limits in force, per module; null when line-count checks are off. */
  l2_getLineLimits: method([], ({ chain }) => (chain.lineLimits === undefined ? null : { ...chain.lineLimits.limits })),

  // Exclusion control for test suites.
  /** l2_forceExclusion(rule): the next transaction matching the rule is excluded at its stage; returns the rule's id. */
  l2_forceExclusion: method([required('rule', exclusionRule)], ({ chain }, rule) =>
    quantity(chain.exclusionControl.force(rule)),
  ),
  /** l2_clearForcedExclusions: drops the rules not used yet; returns how many there were. */
  l2_clearForcedExclusions: method([], ({ chain }) => chain.exclusionControl.clearForced()),
  /** l2_setDenyList(addresses): transactions from or to these are refused, as Linea's sequencer refuses them. */
  l2_setDenyList: method([required('addresses', arrayOf(address, 10_000))], ({ chain }, addresses) => {
    chain.exclusionControl.setDenyList(addresses);
    return true;
  }),
  l2_getDenyList: method([], ({ chain }) => chain.exclusionControl.denyList()),
  /** l2_getExclusions(filter?): the exclusion records kept, oldest first, by stage and block range. */
  l2_getExclusions: method([optional('filter', exclusionFilter)], async ({ chain }, filter) =>
    (await chain.exclusions.list(filter)).map(formatExclusion),
  ),
  /** l2_getExclusionCount(filter?): how many records l2_getExclusions would return. */
  l2_getExclusionCount: method([optional('filter', exclusionFilter)], async ({ chain }, filter) =>
    quantity((await chain.exclusions.list(filter)).length),
  ),
};
