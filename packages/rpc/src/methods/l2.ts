/** The layer-2 methods: transaction exclusion status (spec) and line-count-aware gas estimation. */
import { formatExclusion, quantity } from '../format';
import type { Method } from '../method';
import { method, required, withDefault } from '../method';
import { blockRef, callObject, hash } from '../params';
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
};
