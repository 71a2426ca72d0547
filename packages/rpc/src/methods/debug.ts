/**
 * Raw data, as geth's debug API serves it: the consensus encodings of headers, blocks, receipts
 * and transactions, for tools that verify or re-import them. Blocks are named as geth's
 * BlockNumberOrHash takes them: a number, a tag, a 32-byte hash or an EIP-1898 object.
 */
import { encodeReceipt, HeaderNotFoundError } from '@l2devnet/core';
import type { Block } from '@ethereumjs/block';

import { hex } from '../format';
import type { Method, RpcContext } from '../method';
import { method, required } from '../method';
import { blockRef, hash } from '../params';

const numberOrHash = blockRef({ allowObject: true, allowHash: true, allowSafe: true });

async function blockOf(ctx: RpcContext, ref: Parameters<RpcContext['chain']['getBlock']>[0]): Promise<Block> {
  const block = await ctx.chain.getBlock(ref);
  if (block === undefined) throw new HeaderNotFoundError();
  return block;
}

export const debugMethods: Record<string, Method> = {
  /** debug_getRawHeader: the RLP of the block's header. */
  debug_getRawHeader: method([required('block', numberOrHash)], async (ctx, ref) =>
    hex((await blockOf(ctx, ref)).header.serialize()),
  ),
  /** debug_getRawBlock: the RLP of the whole block. */
  debug_getRawBlock: method([required('block', numberOrHash)], async (ctx, ref) =>
    hex((await blockOf(ctx, ref)).serialize()),
  ),
  /** debug_getRawReceipts: each receipt of the block in its consensus encoding. */
  debug_getRawReceipts: method([required('block', numberOrHash)], async (ctx, ref) => {
    const block = await blockOf(ctx, ref);
    const receipts = (await ctx.chain.getReceipts(block.header.number)) ?? [];
    return receipts.map((r) => hex(encodeReceipt(r)));
  }),
  /** debug_getRawTransaction: the transaction's EIP-2718 encoding, mined or pending; "0x" if unknown (as geth). */
  debug_getRawTransaction: method([required('transactionHash', hash)], async (ctx, h) => {
    const found = await ctx.chain.getTransaction(h);
    return found === undefined ? '0x' : hex(found.tx.serialize());
  }),
};
