/** Transactions and receipts, and sending (spec: eth_getTransactionBy*, eth_getTransactionReceipt). */
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { BlockRef } from '@l2devnet/core';
import { SUGGESTED_TIP, UnknownAccountError } from '@l2devnet/core';

import { invalidParams } from '../errors';
import { formatReceipt, formatTransaction, hex } from '../format';
import type { Method, RpcContext } from '../method';
import { method, required } from '../method';
import type { TransactionRequest } from '../params';
import { blockRef, callObject, data, hash, smallQuantity } from '../params';

async function transactionAt(ctx: RpcContext, ref: BlockRef, index: number): Promise<unknown> {
  if (ref.kind === 'pending') {
    const { block, receipts } = await ctx.chain.pendingBlock();
    const tx = block.transactions[index];
    return tx === undefined ? null : formatTransaction(tx, receipts[index].from);
  }
  const n = await ctx.chain.resolveNumber(ref);
  if (n === undefined) return null;
  const [block, receipts] = await Promise.all([ctx.chain.getBlockByNumber(n), ctx.chain.getReceipts(n)]);
  const tx = block?.transactions[index];
  if (block === undefined || receipts === undefined || tx === undefined) return null;
  return formatTransaction(tx, receipts[index].from, { block, index });
}

/** Fills what eth_sendTransaction leaves out (nonce, gas, fees, type) and builds the transaction. */
async function buildTransaction(
  ctx: RpcContext,
  req: TransactionRequest & { from: Uint8Array },
  nextNonce: bigint,
): Promise<TypedTransaction> {
  const { chain } = ctx;
  const nonce = req.nonce ?? nextNonce;
  const gasLimit = req.gas ?? (await chain.estimateGas(req, chain.headNumber)).gas;
  const base = { nonce, gasLimit, to: req.to, value: req.value ?? 0n, data: req.data ?? new Uint8Array() };
  const opts = { common: chain.common };
  const legacy = req.gasPrice !== undefined || req.type === 0 || req.type === 1 || !chain.common.isActivatedEIP(1559);
  if (legacy) {
    const gasPrice = req.gasPrice ?? (await chain.nextBaseFee()) + SUGGESTED_TIP;
    return req.type === 1
      ? createAccessList2930Tx({ ...base, gasPrice }, opts)
      : createLegacyTx({ ...base, gasPrice }, opts);
  }
  const baseFee = await chain.nextBaseFee();
  let maxPriorityFeePerGas = req.maxPriorityFeePerGas ?? SUGGESTED_TIP;
  const maxFeePerGas = req.maxFeePerGas ?? 2n * baseFee + maxPriorityFeePerGas;
  if (req.maxPriorityFeePerGas === undefined && maxPriorityFeePerGas > maxFeePerGas)
    maxPriorityFeePerGas = maxFeePerGas;
  return createFeeMarket1559Tx({ ...base, maxFeePerGas, maxPriorityFeePerGas }, opts);
}

export const transactionMethods: Record<string, Method> = {
  /** eth_getTransactionByHash (spec): mined or pending; `null` when unknown (or excluded). */
  eth_getTransactionByHash: method([required('transactionHash', hash)], async ({ chain }, h) => {
    const found = await chain.getTransaction(h);
    if (found === undefined) return null;
    const at = found.block === undefined ? undefined : { block: found.block, index: found.index as number };
    return formatTransaction(found.tx, found.sender, at);
  }),
  /** eth_getTransactionByBlockNumberAndIndex (spec): `safe` unsupported. */
  eth_getTransactionByBlockNumberAndIndex: method(
    [required('block', blockRef()), required('index', smallQuantity)],
    (ctx, ref, i) => transactionAt(ctx, ref, i),
  ),
  /** eth_getTransactionByBlockHashAndIndex (spec). */
  eth_getTransactionByBlockHashAndIndex: method(
    [required('blockHash', hash), required('index', smallQuantity)],
    (ctx, h, i) => transactionAt(ctx, { kind: 'hash', hash: h }, i),
  ),
  /** eth_getTransactionReceipt (spec): `null` for pending and unknown transactions. */
  eth_getTransactionReceipt: method([required('transactionHash', hash)], async ({ chain }, h) => {
    const found = await chain.getReceipt(h);
    if (found === undefined) return null;
    const receipts = (await chain.getReceipts(found.block.header.number)) ?? [];
    return formatReceipt(found.block, receipts, found.index);
  }),
  eth_sendRawTransaction: method([required('transaction', data)], async ({ chain }, raw) =>
    hex(await chain.sendRawTransaction(raw)),
  ),
  /** eth_sendTransaction: signed by the node for its dev accounts, or sent as an impersonated address. */
  eth_sendTransaction: method([required('transaction', callObject({ requireFrom: true }))], async (ctx, req) => {
    const from = req.from as Uint8Array;
    if (!ctx.chain.canSendFrom(from)) throw new UnknownAccountError(from);
    if (req.chainId !== undefined && req.chainId !== ctx.chain.chainId) {
      throw invalidParams(
        `param 1 (transaction.chainId) is ${req.chainId} but this chain's id is ${ctx.chain.chainId}`,
      );
    }
    return hex(await ctx.chain.sendAs(from, (nextNonce) => buildTransaction(ctx, { ...req, from }, nextNonce)));
  }),
};
