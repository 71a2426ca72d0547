/** Blocks and their receipts (spec: eth_getBlockByNumber, eth_getBlockByHash, eth_getBlockReceipts). */
import { Block as BlockClass } from '@ethereumjs/block';
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { BlockRef, Receipt } from '@l2devnet/core';

import { formatBlock, formatReceipts, quantity } from '../format';
import type { Method, RpcContext } from '../method';
import { method, required } from '../method';
import { blockRef, bool, hash, smallQuantity } from '../params';

export async function loadBlock(
  ctx: RpcContext,
  ref: BlockRef,
): Promise<{ block: Block; receipts: Receipt[] } | undefined> {
  const n = await ctx.chain.reads.resolveNumber(ref);
  if (n === undefined) return undefined;
  const [block, receipts] = await Promise.all([ctx.chain.reads.getBlockByNumber(n), ctx.chain.reads.getReceipts(n)]);
  return block === undefined || receipts === undefined ? undefined : { block, receipts };
}

/**
 * The total difficulty through a block: a field of the service document's block object, which geth
 * no longer answers. `stored` is false for a header the chain did not store (the pending block, an
 * ommer): its parent's total and its own difficulty.
 */
export async function totalDifficultyOf(
  ctx: RpcContext,
  header: BlockHeader,
  stored = true,
): Promise<bigint | undefined> {
  if (ctx.profile === 'geth') return undefined;
  if (stored) return ctx.chain.reads.totalDifficulty(header.number);
  return (await ctx.chain.reads.totalDifficulty(header.number - 1n)) + header.difficulty;
}

/**
 * eth_getBlockByNumber / ByHash's answer: the block, or null. The pending block has the service
 * document's null fields on its paths; on geth's it has them all, its number, hash and nonce as
 * Anvil answers them, since alloy (cast, forge) cannot decode a block without them.
 */
export async function blockResult(ctx: RpcContext, ref: BlockRef, full: boolean): Promise<unknown> {
  if (ref.kind === 'pending') {
    const { block, receipts } = await ctx.chain.miner.pendingBlock();
    const td = await totalDifficultyOf(ctx, block.header, false);
    return formatBlock(block, receipts, full, td, ctx.profile === 'service');
  }
  const found = await loadBlock(ctx, ref);
  if (found === undefined) return null;
  return formatBlock(found.block, found.receipts, full, await totalDifficultyOf(ctx, found.block.header));
}

async function txCount(ctx: RpcContext, ref: BlockRef): Promise<string | null> {
  if (ref.kind === 'pending') return quantity((await ctx.chain.miner.pendingBlock()).block.transactions.length);
  const found = await loadBlock(ctx, ref);
  return found === undefined ? null : quantity(found.block.transactions.length);
}

async function uncleCount(ctx: RpcContext, ref: BlockRef): Promise<string | null> {
  if (ref.kind === 'pending') return quantity(0);
  const found = await loadBlock(ctx, ref);
  return found === undefined ? null : quantity(found.block.uncleHeaders.length);
}

/** Ommer `index` of a block, as geth: a block of its header alone. */
async function uncle(ctx: RpcContext, ref: BlockRef, index: number): Promise<unknown> {
  if (ref.kind === 'pending') return null;
  const found = await loadBlock(ctx, ref);
  const header = found?.block.uncleHeaders[index];
  if (header === undefined) return null;
  const ommer = new BlockClass(header, [], [], undefined, { common: header.common });
  return formatBlock(ommer, [], false, await totalDifficultyOf(ctx, header, false));
}

const byHash = (h: Uint8Array): BlockRef => ({ kind: 'hash', hash: h });

export const blockMethods: Record<string, Method> = {
  /** eth_getBlockByNumber (spec): block parameter (`safe` unsupported) and details flag, both required. */
  'eth_getBlockByNumber': method(
    [required('block', blockRef()), required('fullTransactions', bool)],
    (ctx, ref, full) => blockResult(ctx, ref, full),
  ),
  /** eth_getBlockByHash (spec). */
  'eth_getBlockByHash': method([required('blockHash', hash), required('fullTransactions', bool)], (ctx, h, full) =>
    blockResult(ctx, byHash(h), full),
  ),
  'eth_getBlockTransactionCountByNumber': method([required('block', blockRef())], (ctx, ref) => txCount(ctx, ref)),
  'eth_getBlockTransactionCountByHash': method([required('blockHash', hash)], (ctx, h) => txCount(ctx, byHash(h))),
  'eth_getUncleCountByBlockNumber': method([required('block', blockRef())], (ctx, ref) => uncleCount(ctx, ref)),
  'eth_getUncleCountByBlockHash': method([required('blockHash', hash)], (ctx, h) => uncleCount(ctx, byHash(h))),
  'eth_getUncleByBlockNumberAndIndex': method(
    [required('block', blockRef()), required('index', smallQuantity)],
    (ctx, ref, i) => uncle(ctx, ref, i),
  ),
  'eth_getUncleByBlockHashAndIndex': method(
    [required('blockHash', hash), required('index', smallQuantity)],
    (ctx, h, i) => uncle(ctx, byHash(h), i),
  ),
  /**
   * eth_getBlockReceipts (spec): a hex or decimal number, a tag (including `safe`), or a block hash;
   * `pending` returns the same as `latest`.
   */
  'eth_getBlockReceipts': method(
    [required('block', blockRef({ allowSafe: true, allowDecimal: true, allowObject: true, orHash: true }))],
    async (ctx, ref) => {
      const found = await loadBlock(ctx, ref.kind === 'pending' ? { kind: 'latest' } : ref);
      if (found === undefined) return null;
      return formatReceipts(found.block, found.receipts);
    },
  ),
};
