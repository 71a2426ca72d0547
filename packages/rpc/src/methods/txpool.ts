/**
 * The pool as geth's txpool API shows it (internal/ethapi/api.go TxPoolAPI): txpool_status,
 * txpool_content, txpool_contentFrom, txpool_inspect (chain.reads). Senders and recipients are
 * written with their checksum, as geth's Address.Hex().
 */
import { bytesToHex, equalsBytes, toChecksumAddress } from '@ethereumjs/util';
import type { PoolTx } from '@l2devnet/core';

import { formatTransaction, quantity } from '../format';
import type { Method } from '../method';
import { method, required } from '../method';
import { address } from '../params';

/** txpool_content / txpool_inspect layout: { pending, queued } by sender, then by nonce. */
function poolContent(ready: PoolTx[], queued: PoolTx[], shape: (p: PoolTx) => unknown) {
  const group = (list: PoolTx[]) => {
    const out: Record<string, Record<string, unknown>> = {};
    for (const p of list) (out[toChecksumAddress(bytesToHex(p.sender))] ??= {})[p.nonce.toString()] = shape(p);
    return out;
  };
  return { pending: group(ready), queued: group(queued) };
}

/** One sender's transactions by nonce. */
function byNonce(list: PoolTx[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of list) out[p.nonce.toString()] = formatTransaction(p.tx, p.sender);
  return out;
}

export const txpoolMethods: Record<string, Method> = {
  /** txpool_status: how many transactions are ready for the next block (pending) and behind a nonce gap (queued). */
  'txpool_status': method([], async ({ chain }) => {
    const { ready, queued } = await chain.reads.poolContent();
    return { pending: quantity(ready.length), queued: quantity(queued.length) };
  }),
  /** txpool_content: every pool transaction, by sender and nonce. */
  'txpool_content': method([], async ({ chain }) => {
    const { ready, queued } = await chain.reads.poolContent();
    return poolContent(ready, queued, (p) => formatTransaction(p.tx, p.sender));
  }),
  /** txpool_contentFrom: one sender's pool transactions, by nonce. */
  'txpool_contentFrom': method([required('address', address)], async ({ chain }, from) => {
    const { ready, queued } = await chain.reads.poolContent();
    const mine = (p: PoolTx) => equalsBytes(p.sender, from);
    return { pending: byNonce(ready.filter(mine)), queued: byNonce(queued.filter(mine)) };
  }),
  /** txpool_inspect: geth's one-line summary of each pool transaction. */
  'txpool_inspect': method([], async ({ chain }) => {
    const { ready, queued } = await chain.reads.poolContent();
    return poolContent(ready, queued, (p) => {
      const gasPrice = 'maxFeePerGas' in p.tx ? p.tx.maxFeePerGas : (p.tx as unknown as { gasPrice: bigint }).gasPrice;
      const to = p.tx.to === undefined ? 'contract creation' : toChecksumAddress(p.tx.to.toString());
      return `${to}: ${p.tx.value} wei + ${p.tx.gasLimit} gas × ${gasPrice} wei`;
    });
  }),
};
