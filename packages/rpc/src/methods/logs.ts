/**
 * eth_getLogs (spec): served from the log index; result-count and time limits from the spec. On the
 * devnet paths, a range that runs backwards or past the head and an unknown block hash are refused
 * as geth refuses them (eth/filters/api.go, filter.go); the service document answers them with the
 * logs there are.
 */
import type { BlockRef } from '@l2devnet/core';

import { INVALID_PARAMS, RpcError, SERVER_ERROR } from '../errors';
import { logsJson } from '../format';
import type { JsonText } from '../format';
import type { Method, RpcContext } from '../method';
import { method, required } from '../method';
import type { RawLogFilter } from '../params';
import { logFilter } from '../params';

async function numberOf(ctx: RpcContext, ref: BlockRef | undefined): Promise<bigint> {
  if (ref === undefined) return ctx.chain.headNumber;
  // A number past the head is a range end the chain has not reached: nothing there yet.
  if (ref.kind === 'number') return ref.number;
  return (await ctx.chain.reads.resolveNumber(ref)) ?? ctx.chain.headNumber;
}

export async function queryLogs(ctx: RpcContext, filter: RawLogFilter): Promise<JsonText | []> {
  let fromBlock: bigint;
  let toBlock: bigint;
  const geth = ctx.profile === 'geth';
  if (filter.blockHash !== undefined) {
    const n = await ctx.chain.reads.resolveNumber({ kind: 'hash', hash: filter.blockHash });
    if (n === undefined) {
      if (geth) throw new RpcError(SERVER_ERROR, 'unknown block');
      return [];
    }
    fromBlock = toBlock = n;
  } else {
    fromBlock = await numberOf(ctx, filter.fromBlock);
    toBlock = await numberOf(ctx, filter.toBlock);
    if (geth && fromBlock > toBlock) throw new RpcError(INVALID_PARAMS, 'invalid block range params');
    if (geth && toBlock > ctx.chain.headNumber)
      throw new RpcError(INVALID_PARAMS, 'block range extends beyond current head block');
  }
  const logs = await ctx.chain.reads.getLogs({
    fromBlock,
    toBlock,
    addresses: filter.addresses,
    topics: filter.topics,
  });
  return logsJson(logs);
}

export const logMethods: Record<string, Method> = {
  'eth_getLogs': method([required('filter', logFilter)], queryLogs),
};
