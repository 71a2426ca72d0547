/** Simulated execution: eth_call (spec), eth_estimateGas, eth_createAccessList. */
import { invalidParams } from '../errors';
import { hex, quantity } from '../format';
import type { Method } from '../method';
import { method, optional, required, withDefault } from '../method';
import { blockRef, callObject, stateOverrides } from '../params';
import { stateBlock } from './resolve';

const latest = () => ({ kind: 'latest' as const });

export const executionMethods: Record<string, Method> = {
  /**
   * eth_call (spec): call object and block (tags include `safe`) both required; gas capped at 10×
   * the block gas limit; a REVERT is error 3 with the decoded reason and the raw data. The optional
   * third param is geth's state override set. The spec requires `from` where the request says so
   * (`requireCallFrom`: the hosted-API paths); elsewhere a call without it runs from the zero address.
   */
  eth_call: method(
    [
      required('transaction', callObject()),
      required('block', blockRef({ allowSafe: true, allowObject: true })),
      optional('stateOverrides', stateOverrides),
    ],
    async (ctx, req, ref, overrides) => {
      if (ctx.requireCallFrom && req.from === undefined) throw invalidParams('param 1 (transaction.from) is required');
      const result = await ctx.chain.call(req, await stateBlock(ctx, ref), { overrides });
      return hex(result.returnValue);
    },
  ),
  /** eth_estimateGas: the smallest gas (within 1.5%) at which the call succeeds; capped as eth_call. */
  eth_estimateGas: method(
    [required('transaction', callObject()), withDefault('block', blockRef({ allowObject: true }), latest)],
    async (ctx, req, ref) => quantity((await ctx.chain.estimateGas(req, await stateBlock(ctx, ref))).gas),
  ),
  eth_createAccessList: method(
    [required('transaction', callObject()), withDefault('block', blockRef({ allowObject: true }), latest)],
    async (ctx, req, ref) => {
      const { accessList, gasUsed } = await ctx.chain.createAccessList(req, await stateBlock(ctx, ref));
      return {
        accessList: accessList.map(([address, keys]) => ({ address: hex(address), storageKeys: keys.map(hex) })),
        gasUsed: quantity(gasUsed),
      };
    },
  ),
};
