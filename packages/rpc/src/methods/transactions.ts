/** Transactions and receipts, and sending (spec: eth_getTransactionBy*, eth_getTransactionReceipt). */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { BlockRef, Chain, ExclusionRecord } from '@l2devnet/core';
import { requestFees, requestTransaction, UnknownAccountError } from '@l2devnet/core';

import { invalidParams, RpcError, SERVER_ERROR } from '../errors';
import { formatReceipt, formatTransaction, hex } from '../format';
import type { Method, RpcContext } from '../method';
import { method, optional, required } from '../method';
import type { TransactionRequest } from '../params';
import { blockRef, callObject, data, hash, smallQuantity } from '../params';

/** EIP-7966: the timeout when none (or an invalid one) is given, as the EIP recommends: 2 s. */
const SYNC_TIMEOUT_MS = 2_000;
/** The longest wait a request may ask for. */
const SYNC_MAX_TIMEOUT_MS = 60_000;
/** EIP-7966's error codes: not mined within the timeout; not ready to be mined (a nonce gap). */
const EIP7966_TIMEOUT = 4;
const EIP7966_NOT_READY = 5;

/** EIP-7966: a positive number of milliseconds up to the maximum; anything else means the default. */
const syncTimeout = (value: unknown): number | undefined => {
  let ms: number | undefined;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string' && /^0x[0-9a-fA-F]{1,12}$/.test(value)) ms = Number(value);
  return ms !== undefined && Number.isSafeInteger(ms) && ms > 0 && ms <= SYNC_MAX_TIMEOUT_MS ? ms : undefined;
};

/**
 * Resolves when `hash` is mined (undefined), excluded by the sequencer (its record), or after `ms`
 * ('timeout').
 */
function mined(
  chain: Chain,
  hash: Uint8Array,
  ms: number,
): { done: Promise<ExclusionRecord | 'timeout' | undefined>; cancel(): void } {
  const key = hex(hash);
  let finish: (outcome: ExclusionRecord | 'timeout' | undefined) => void = () => undefined;
  const done = new Promise<ExclusionRecord | 'timeout' | undefined>((resolve) => {
    finish = resolve;
  });
  const onBlock = (block: { transactions: { hash(): Uint8Array }[] }) => {
    if (block.transactions.some((t) => hex(t.hash()) === key)) stop(undefined);
  };
  const onExcluded = (record: ExclusionRecord) => {
    if (hex(record.txHash) === key) stop(record);
  };
  const timer = setTimeout(() => stop('timeout'), ms);
  const stop = (outcome: ExclusionRecord | 'timeout' | undefined) => {
    clearTimeout(timer);
    chain.off('block', onBlock);
    chain.off('excluded', onExcluded);
    finish(outcome);
  };
  chain.on('block', onBlock);
  chain.on('excluded', onExcluded);
  return { done, cancel: () => stop(undefined) };
}

/** Transaction `index` of a block (the pending one too), or undefined. */
async function transactionOf(ctx: RpcContext, ref: BlockRef, index: number): Promise<TypedTransaction | undefined> {
  if (ref.kind === 'pending') return (await ctx.chain.miner.pendingBlock()).block.transactions[index];
  const n = await ctx.chain.reads.resolveNumber(ref);
  return n === undefined ? undefined : (await ctx.chain.reads.getBlockByNumber(n))?.transactions[index];
}

async function transactionAt(ctx: RpcContext, ref: BlockRef, index: number): Promise<unknown> {
  if (ref.kind === 'pending') {
    const { block, receipts } = await ctx.chain.miner.pendingBlock();
    const tx = block.transactions[index];
    return tx === undefined ? null : formatTransaction(tx, receipts[index].from);
  }
  const n = await ctx.chain.reads.resolveNumber(ref);
  if (n === undefined) return null;
  const [block, receipts] = await Promise.all([ctx.chain.reads.getBlockByNumber(n), ctx.chain.reads.getReceipts(n)]);
  const tx = block?.transactions[index];
  if (block === undefined || receipts === undefined || tx === undefined) return null;
  return formatTransaction(tx, receipts[index].from, { block, index });
}

/** Fills what eth_sendTransaction leaves out (nonce, gas, fees, type) and builds the transaction. */
export async function buildTransaction(
  ctx: RpcContext,
  req: TransactionRequest & { from: Uint8Array },
  nextNonce: bigint,
): Promise<TypedTransaction> {
  const { chain } = ctx;
  const gasLimit = req.gas ?? (await chain.calls.estimateGas(req, chain.headNumber)).gas;
  const baseFee = await chain.reads.nextBaseFee();
  const tip = chain.reads.suggestedTip();
  const fees = requestFees(chain.common, req, baseFee, tip);
  const [maxFee, maxTip] =
    'gasPrice' in fees ? [fees.gasPrice, fees.gasPrice] : [fees.maxFeePerGas, fees.maxPriorityFeePerGas];
  return chain.txs.constructTransaction({ gasLimit, maxFee, maxTip }, () =>
    requestTransaction(chain.common, req, { nonce: nextNonce, gasLimit, baseFee, tip }),
  );
}

export const transactionMethods: Record<string, Method> = {
  /** eth_getTransactionByHash (spec): mined or pending; `null` when unknown (or excluded). */
  'eth_getTransactionByHash': method([required('transactionHash', hash)], async ({ chain }, h) => {
    const found = await chain.reads.getTransaction(h);
    if (found === undefined) return null;
    const at = found.block === undefined ? undefined : { block: found.block, index: found.index as number };
    return formatTransaction(found.tx, found.sender, at);
  }),
  /** eth_getRawTransactionByHash (geth's): the transaction's EIP-2718 bytes, mined or pending; `0x` when unknown. */
  'eth_getRawTransactionByHash': method([required('transactionHash', hash)], async ({ chain }, h) => {
    const found = await chain.reads.getTransaction(h);
    return found === undefined ? '0x' : hex(found.tx.serialize());
  }),
  /** eth_getRawTransactionByBlockNumberAndIndex (geth's): its EIP-2718 bytes; `0x` when there is none. */
  'eth_getRawTransactionByBlockNumberAndIndex': method(
    [required('block', blockRef()), required('index', smallQuantity)],
    async (ctx, ref, i) => hex((await transactionOf(ctx, ref, i))?.serialize() ?? new Uint8Array()),
  ),
  /** eth_getRawTransactionByBlockHashAndIndex (geth's). */
  'eth_getRawTransactionByBlockHashAndIndex': method(
    [required('blockHash', hash), required('index', smallQuantity)],
    async (ctx, h, i) => hex((await transactionOf(ctx, { kind: 'hash', hash: h }, i))?.serialize() ?? new Uint8Array()),
  ),
  /** eth_getTransactionByBlockNumberAndIndex (spec): `safe` unsupported. */
  'eth_getTransactionByBlockNumberAndIndex': method(
    [required('block', blockRef()), required('index', smallQuantity)],
    (ctx, ref, i) => transactionAt(ctx, ref, i),
  ),
  /** eth_getTransactionByBlockHashAndIndex (spec). */
  'eth_getTransactionByBlockHashAndIndex': method(
    [required('blockHash', hash), required('index', smallQuantity)],
    (ctx, h, i) => transactionAt(ctx, { kind: 'hash', hash: h }, i),
  ),
  /** eth_getTransactionReceipt (spec): `null` for pending and unknown transactions. */
  'eth_getTransactionReceipt': method([required('transactionHash', hash)], async ({ chain }, h) => {
    const found = await chain.reads.getReceipt(h);
    if (found === undefined) return null;
    const receipts = (await chain.reads.getReceipts(found.block.header.number)) ?? [];
    return formatReceipt(found.block, receipts, found.index);
  }),
  'eth_sendRawTransaction': method([required('transaction', data)], async ({ chain }, raw) =>
    hex(await chain.txs.sendRawTransaction(raw)),
  ),
  /**
   * eth_sendRawTransactionSync (EIP-7966): submits, then answers with the receipt once the
   * transaction is mined; an exclusion at once (as the refusal it is); error 5 when it waits behind
   * a nonce gap; error 4 when no block took it within the timeout (ms; default 2 s).
   */
  'eth_sendRawTransactionSync': method(
    [required('transaction', data), optional('timeout', syncTimeout)],
    async ({ chain }, raw, timeoutMs) => {
      const tx = chain.txs.decodeTransaction(raw);
      const h = tx.hash();
      const wait = timeoutMs ?? SYNC_TIMEOUT_MS;
      // Listening before submitting: with automine the block is mined before submit returns.
      const outcome = mined(chain, h, wait);
      try {
        await chain.txs.submit(tx);
      } catch (e) {
        outcome.cancel();
        throw e;
      }
      const pooled = chain.reads.pooled(h);
      if (pooled !== undefined && !(await chain.reads.isReady(pooled))) {
        outcome.cancel();
        throw new RpcError(
          EIP7966_NOT_READY,
          "The transaction was added to the mempool but wasn't processed due to a missing nonce or insufficient funds. Please double-check your account and try again.",
          hex(h),
        );
      }
      const record = await outcome.done;
      if (record === 'timeout') {
        throw new RpcError(
          EIP7966_TIMEOUT,
          `The transaction was added to the mempool but wasn't processed in ${wait / 1000}s.`,
          hex(h),
        );
      }
      if (record !== undefined) throw new RpcError(SERVER_ERROR, record.reasonMessage, hex(h));
      const found = await chain.reads.getReceipt(h);
      if (found === undefined) throw new Error('a mined transaction has no receipt');
      return formatReceipt(found.block, (await chain.reads.getReceipts(found.block.header.number)) ?? [], found.index);
    },
  ),
  /** eth_sendTransaction: signed by the node for its dev accounts, or sent as an impersonated address. */
  'eth_sendTransaction': method([required('transaction', callObject({ requireFrom: true }))], async (ctx, req) => {
    const from = req.from as Uint8Array;
    if (!ctx.chain.txs.canSendFrom(from)) throw new UnknownAccountError(from);
    if (req.chainId !== undefined && req.chainId !== ctx.chain.chainId) {
      throw invalidParams(
        `param 1 (transaction.chainId) is ${req.chainId} but this chain's id is ${ctx.chain.chainId}`,
      );
    }
    return hex(await ctx.chain.txs.sendAs(from, (nextNonce) => buildTransaction(ctx, { ...req, from }, nextNonce)));
  }),
  /**
   * eth_sendUnsignedTransaction (Anvil's): eth_sendTransaction from any `from`, without its key, as an
   * impersonated address is sent from (viem's sendUnsignedTransaction).
   */
  'eth_sendUnsignedTransaction': method(
    [required('transaction', callObject({ requireFrom: true }))],
    async (ctx, req) => {
      const from = req.from as Uint8Array;
      const build = (nextNonce: bigint) => buildTransaction(ctx, { ...req, from }, nextNonce);
      return hex(await ctx.chain.txs.sendAs(from, build, true));
    },
  ),
};
