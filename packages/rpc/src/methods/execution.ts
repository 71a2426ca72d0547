/** Simulated execution: eth_call (spec), eth_estimateGas, eth_createAccessList. */
import { invalidParams } from '../errors';
import { encodeLog, formatBlock, hex, quantity } from '../format';
import type { Method } from '../method';
import { method, optional, required, serviceRequired, withDefault } from '../method';
import { blockRef, callObject, simulatePayload, stateOverrides } from '../params';
import { latest, stateBlock, stateRef } from './resolve';

export const executionMethods: Record<string, Method> = {
  /**
   * eth_call (spec): call object and block (tags include `safe`) both required; gas capped at 10×
   * the block gas limit; a REVERT is error 3 with the decoded reason and the raw data. The optional
   * third param is geth's state override set. The spec requires `from` where the request says so
   * (`requireCallFrom`: the hosted-API paths); elsewhere a call without it runs from the zero address.
   */
  'eth_call': method(
    [
      required('transaction', callObject()),
      serviceRequired('block', blockRef({ allowSafe: true, allowObject: true, orHash: true }), latest),
      optional('stateOverrides', stateOverrides),
    ],
    async (ctx, req, ref, overrides) => {
      if (ctx.requireCallFrom && req.from === undefined)
        throw invalidParams(
          'param 1 (transaction.from) is required on /v3/<KEY> (the service spec); / and /ws accept a call without it, and so does /v3 with --call-from-optional',
        );
      const result = await ctx.chain.calls.call(req, await stateBlock(ctx, ref), { overrides });
      return hex(result.returnValue);
    },
  ),
  /** eth_estimateGas: the smallest gas (within 1.5%) at which the call succeeds; capped as eth_call. */
  'eth_estimateGas': method(
    [
      required('transaction', callObject()),
      withDefault('block', stateRef, latest),
      optional('stateOverrides', stateOverrides),
    ],
    async (ctx, req, ref, overrides) =>
      quantity((await ctx.chain.calls.estimateGas(req, await stateBlock(ctx, ref), false, overrides)).gas),
  ),
  'eth_createAccessList': method(
    [required('transaction', callObject()), withDefault('block', stateRef, latest)],
    async (ctx, req, ref) => {
      const { accessList, gasUsed, error } = await ctx.chain.calls.createAccessList(req, await stateBlock(ctx, ref));
      return {
        accessList: accessList.map(([address, keys]) => ({ address: hex(address), storageKeys: keys.map(hex) })),
        gasUsed: quantity(gasUsed),
        ...(error !== undefined && { error }),
      };
    },
  ),
  /**
   * eth_simulateV1 (execution-apis): blocks of calls on top of a block, with block and state
   * overrides, validation, traceTransfers and returnFullTransactions. Each call result also carries
   * its prover `lineCounts` and, where a limit would be crossed, `wouldBeExcluded`.
   */
  'eth_simulateV1': method(
    [
      required('payload', simulatePayload),
      withDefault('block', blockRef({ allowObject: true, allowSafe: true, orHash: true }), latest),
    ],
    async (ctx, payload, ref) => {
      const base = await stateBlock(ctx, ref);
      const simulated = await ctx.chain.calls.simulate(base, payload.blocks, payload);
      // Simulated blocks add no difficulty: the total is their base block's (on the service's paths).
      const first = simulated[0]?.block.header.number;
      const td =
        first === undefined || ctx.profile === 'geth' ? undefined : await ctx.chain.reads.totalDifficulty(first - 1n);
      return simulated.map(({ block, receipts, calls }) => ({
        ...formatBlock(block, receipts, payload.returnFullTransactions, td),
        calls: calls.map((c) => {
          const overflow = ctx.chain.lines.limits?.txOverflow(c.lineCounts);
          return {
            returnData: hex(c.returnData),
            logs: c.logs.map(encodeLog),
            gasUsed: quantity(c.gasUsed),
            maxUsedGas: quantity(c.maxUsedGas),
            status: quantity(BigInt(c.status)),
            ...(c.error !== undefined && {
              error: {
                code: c.error.code,
                message: c.error.message,
                ...(c.error.data !== undefined && { data: hex(c.error.data) }),
              },
            }),
            lineCounts: c.lineCounts,
            ...(overflow !== undefined && { wouldBeExcluded: { stage: 'RPC', ...overflow } }),
          };
        }),
      }));
    },
  ),
};
