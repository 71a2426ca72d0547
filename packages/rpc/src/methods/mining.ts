/**
 * Mining control (chain.miner): when blocks are made, and making them on request, as Anvil and
 * Hardhat name the methods (viem's test client in anvil mode, Hardhat network helpers).
 */
import { invalidParams } from '../errors';
import type { Method, RpcContext } from '../method';
import { method, optional, required, withDefault } from '../method';
import type { ParamSlot } from '../params';
import { formatExecutionPayload } from '../format';
import { amount, bool, count, data, hash, payloadAttributes, rawTransactionsOrNull, timestamp } from '../params';

/** Anvil's bound on blocks mined by one request. */
const MAX_BLOCKS_AT_ONCE = 100_000n;

/** evm_mine's optional param: a timestamp, or `{ timestamp, blocks }`. */
const mineOptions = (value: unknown, slot: ParamSlot): { timestamp?: bigint; blocks?: bigint } => {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    return {
      timestamp:
        o.timestamp === undefined ? undefined : timestamp(o.timestamp, { ...slot, name: `${slot.name}.timestamp` }),
      blocks: o.blocks === undefined ? undefined : amount(o.blocks, { ...slot, name: `${slot.name}.blocks` }),
    };
  }
  return { timestamp: timestamp(value, slot) };
};

async function mineBlocks(ctx: RpcContext, blocks: bigint, interval: bigint, timestamp?: bigint): Promise<void> {
  if (blocks > MAX_BLOCKS_AT_ONCE)
    throw invalidParams(`at most ${MAX_BLOCKS_AT_ONCE} blocks can be mined at once; asked for ${blocks}`);
  // The first block at `timestamp` (if given, else at the usual next one), each next one `interval`
  // seconds later. Refused before any block is made if the last one's would not fit in a uint64.
  const first = timestamp ?? (await ctx.chain.reads.headBlock()).header.timestamp + 1n;
  if (blocks > 1n && first + (blocks - 1n) * interval >= 1n << 64n)
    throw invalidParams(`param 2 (interval) must keep block timestamps below 2^64 (a uint64); got ${interval}`);
  let ts = timestamp;
  for (let i = 0n; i < blocks; i++) {
    const block = await ctx.chain.miner.mine({ timestamp: ts });
    ts = interval > 0n ? block.header.timestamp + interval : undefined;
  }
}

/** anvil_mine(blocks?, interval?): `blocks` blocks, each `interval` seconds after the one before. */
const mine = method(
  [withDefault('blocks', amount, () => 1n), withDefault('interval', timestamp, () => 0n)],
  async (ctx, blocks, interval) => {
    await mineBlocks(ctx, blocks, interval);
    return null;
  },
);

/** evm_setAutomine: turned on, it mines what the pool holds ready at once, as Anvil does. */
const setAutomine = method([required('enabled', bool)], async ({ chain }, enabled) => {
  chain.miner.setMining(enabled ? { mode: 'auto' } : { mode: 'manual' });
  if (enabled) await chain.miner.mineReady();
  return null;
});

const getAutomine = method([], ({ chain }) => chain.miner.mode.mode === 'auto');

export const miningMethods: Record<string, Method> = {
  /** evm_mine: one block, optionally at a timestamp; or `{ blocks, timestamp }`. */
  'evm_mine': method([optional('options', mineOptions)], async (ctx, opts) => {
    await mineBlocks(ctx, opts?.blocks ?? 1n, 0n, opts?.timestamp);
    return '0x0';
  }),
  'anvil_mine': mine,
  'hardhat_mine': mine,
  'evm_setAutomine': setAutomine,
  'anvil_setAutomine': setAutomine,
  'anvil_getAutomine': getAutomine,
  'hardhat_getAutomine': getAutomine,
  /**
   * testing_buildBlockV1 (execution-apis src/testing/testing_buildBlockV1.yaml; geth's
   * eth/catalyst/api_testing.go): the block the head would get with these payload attributes and
   * transactions (all of them in order; none for `[]`; the pool's for null), built and thrown away.
   */
  'testing_buildBlockV1': method(
    [
      required('parentHash', hash),
      required('payloadAttributes', payloadAttributes),
      required('transactions', rawTransactionsOrNull),
      optional('extraData', data),
    ],
    async ({ chain }, parentHash, attributes, raw, extraData) => {
      const transactions = raw === null ? null : raw.map((r) => chain.txs.decodeTransaction(r));
      const build = await chain.miner.buildTestBlock({ parentHash, ...attributes, transactions, extraData });
      return formatExecutionPayload(build, transactions);
    },
  ),
  /** evm_setIntervalMining: milliseconds between blocks; 0 turns interval mining off (manual). */
  'evm_setIntervalMining': method([required('intervalMs', count)], ({ chain }, ms) => {
    chain.miner.setMining(ms === 0 ? { mode: 'manual' } : { mode: 'interval', intervalMs: ms });
    return null;
  }),
  /** anvil_getIntervalMining: seconds between blocks under interval mining, else null (as Anvil). */
  'anvil_getIntervalMining': method([], ({ chain }) => {
    const m = chain.miner.mode;
    return m.mode === 'interval' ? m.intervalMs / 1000 : null;
  }),
  /** anvil_setIntervalMining: seconds between blocks. */
  'anvil_setIntervalMining': method([required('seconds', count)], ({ chain }, s) => {
    chain.miner.setMining(s === 0 ? { mode: 'manual' } : { mode: 'interval', intervalMs: s * 1000 });
    return null;
  }),
};
