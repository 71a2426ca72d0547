/** Simulated execution: eth_call (spec), eth_estimateGas, eth_createAccessList. */
import { hex, quantity } from '../format';
import type { Method } from '../method';
import { method, optional, required, withDefault } from '../method';
import { blockRef, callObject, stateOverrides } from '../params';
import { stateBlock } from './resolve';

const latest = () => ({ kind: 'latest' as const });

export interface ExecutionOptions {
  /** Spec: eth_call's `from` is required. Off, a missing `from` calls from the zero address. */
  requireCallFrom: boolean;
}

export function executionMethods(opts: ExecutionOptions): Record<string, Method> {
  return {
    /**
     * eth_call (spec): call object and block (tags include `safe`) both required; gas capped at 10×
     * the block gas limit; a REVERT is error 3 with the decoded reason and the raw data. The optional
     * third param is geth's state override set.
     */
    eth_call: method(
      [
        required('transaction', callObject({ requireFrom: opts.requireCallFrom })),
        required('block', blockRef({ allowSafe: true, allowObject: true })),
        optional('stateOverrides', stateOverrides),
      ],
      async (ctx, req, ref, overrides) => {
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
}
