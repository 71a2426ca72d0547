/**
 * Raw data, as geth's debug API serves it: the consensus encodings of headers, blocks, receipts
 * and transactions, for tools that verify or re-import them. Blocks are named as geth's
 * BlockNumberOrHash takes them: a number, a tag, a 32-byte hash or an EIP-1898 object.
 */
import { encodeReceipt, HeaderNotFoundError, TransactionNotFoundError } from '@l2devnet/core';
import type { BlockRef, TraceOptions } from '@l2devnet/core';
import type { Block } from '@ethereumjs/block';

import { RpcError, SERVER_ERROR } from '../errors';
import { formatTrace, hex } from '../format';
import type { Method, RpcContext } from '../method';
import { method, optional, required } from '../method';
import { blockRef, callObject, hash, traceOptions } from '../params';
import { stateBlock } from './resolve';

const numberOrHash = blockRef({ allowObject: true, allowHash: true, allowSafe: true });

async function blockOf(ctx: RpcContext, ref: BlockRef): Promise<Block> {
  const block = await ctx.chain.reads.getBlock(ref);
  if (block === undefined) throw new HeaderNotFoundError();
  return block;
}

const noOptions = {};

/** A block to trace, refused in geth's words (eth/tracers/api.go) when there is none, or it is genesis. */
async function blockToTrace(ctx: RpcContext, ref: BlockRef): Promise<Block> {
  const block = await ctx.chain.reads.getBlock(ref);
  if (block === undefined)
    throw new RpcError(
      SERVER_ERROR,
      ref.kind === 'hash'
        ? `block ${hex(ref.hash)} not found`
        : `block #${ref.kind === 'number' ? ref.number : ref.kind} not found`,
    );
  if (block.header.number === 0n) throw new RpcError(SERVER_ERROR, 'genesis is not traceable');
  return block;
}

async function traceBlock(ctx: RpcContext, ref: BlockRef, options: TraceOptions) {
  const block = await blockToTrace(ctx, ref);
  const traces = await ctx.chain.traces.traceBlock(block.header.number, options);
  if (traces === undefined) throw new HeaderNotFoundError();
  return traces.map((t) => ({ txHash: hex(t.txHash), result: formatTrace(t.result) }));
}

export const debugMethods: Record<string, Method> = {
  /**
   * debug_traceTransaction(hash, options?): the mined transaction run again on its block's state
   * before it, traced by geth's struct logger or the named tracer (callTracer, 4byteTracer,
   * noopTracer, muxTracer, lineCountTracer).
   */
  'debug_traceTransaction': method(
    [required('transactionHash', hash), optional('options', traceOptions)],
    async ({ chain }, h, options) => {
      const result = await chain.traces.traceTransaction(h, options ?? noOptions);
      if (result === undefined) throw new TransactionNotFoundError();
      return formatTrace(result);
    },
  ),
  /** debug_traceCall(call, block, options?): a call traced, with the options' stateOverrides. */
  'debug_traceCall': method(
    [
      required('transaction', callObject()),
      required('block', blockRef({ allowObject: true, allowSafe: true, orHash: true })),
      optional('options', traceOptions),
    ],
    async (ctx, req, ref, options) =>
      formatTrace(
        await ctx.chain.traces.traceCall(
          req,
          await stateBlock(ctx, ref),
          options?.stateOverrides ?? [],
          options ?? noOptions,
        ),
      ),
  ),
  /** debug_traceBlockByNumber(block, options?): each transaction traced, as `[{ txHash, result }]`. */
  'debug_traceBlockByNumber': method(
    [required('block', blockRef({ allowSafe: true })), optional('options', traceOptions)],
    async (ctx, ref, options) => traceBlock(ctx, ref, options ?? noOptions),
  ),
  /** debug_traceBlockByHash(hash, options?): as debug_traceBlockByNumber. */
  'debug_traceBlockByHash': method(
    [required('blockHash', blockRef({ allowHash: true })), optional('options', traceOptions)],
    async (ctx, ref, options) => traceBlock(ctx, ref, options ?? noOptions),
  ),
  /** debug_getRawHeader: the RLP of the block's header. */
  'debug_getRawHeader': method([required('block', numberOrHash)], async (ctx, ref) =>
    hex((await blockOf(ctx, ref)).header.serialize()),
  ),
  /** debug_getRawBlock: the RLP of the whole block. */
  'debug_getRawBlock': method([required('block', numberOrHash)], async (ctx, ref) =>
    hex((await blockOf(ctx, ref)).serialize()),
  ),
  /** debug_getRawReceipts: each receipt of the block in its consensus encoding. */
  'debug_getRawReceipts': method([required('block', numberOrHash)], async (ctx, ref) => {
    const block = await blockOf(ctx, ref);
    const receipts = (await ctx.chain.reads.getReceipts(block.header.number)) ?? [];
    return receipts.map((r) => hex(encodeReceipt(r)));
  }),
  /** debug_getRawTransaction: the transaction's EIP-2718 encoding, mined or pending; "0x" if unknown (as geth). */
  /** debug_codeByHash (reth's, Anvil's): code by its hash; null for code the chain never held. */
  'debug_codeByHash': method(
    [required('codeHash', hash), optional('block', blockRef())],
    async ({ chain }, h, _block) => {
      const code = await chain.reads.getCodeByHash(h);
      return code === undefined ? null : hex(code);
    },
  ),
  'debug_getRawTransaction': method([required('transactionHash', hash)], async (ctx, h) => {
    const found = await ctx.chain.reads.getTransaction(h);
    return found === undefined ? '0x' : hex(found.tx.serialize());
  }),
};
