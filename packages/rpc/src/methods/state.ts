/** Account state at a block: balance, code, nonce, storage, proofs. */
import { bytesToBigInt } from '@ethereumjs/util';

import { formatProof, hex, quantity } from '../format';
import type { Method } from '../method';
import { method, required, withDefault } from '../method';
import { address, arrayOf, blockRef, storageKey } from '../params';
import { stateBlock } from './resolve';

const latest = () => ({ kind: 'latest' as const });
const stateRef = blockRef({ allowObject: true });

export const stateMethods: Record<string, Method> = {
  eth_getBalance: method([required('address', address), withDefault('block', stateRef, latest)], async (ctx, a, ref) =>
    quantity((await ctx.chain.getAccount(a, await stateBlock(ctx, ref))).balance),
  ),
  eth_getCode: method([required('address', address), withDefault('block', stateRef, latest)], async (ctx, a, ref) =>
    hex(await ctx.chain.getCode(a, await stateBlock(ctx, ref))),
  ),
  /** eth_getTransactionCount: with `pending`, counts the pool's ready transactions too. */
  eth_getTransactionCount: method(
    [required('address', address), withDefault('block', stateRef, latest)],
    async (ctx, a, ref) => {
      if (ref.kind === 'pending') return quantity(await ctx.chain.pendingNonce(a));
      return quantity((await ctx.chain.getAccount(a, await stateBlock(ctx, ref))).nonce);
    },
  ),
  /** eth_getStorageAt (spec: eth_getStorageAt): all three params required; `safe` unsupported. */
  eth_getStorageAt: method(
    [required('address', address), required('position', storageKey), required('block', stateRef)],
    async (ctx, a, position, ref) => {
      const value = await ctx.chain.getStorage(a, position, await stateBlock(ctx, ref));
      return `0x${bytesToBigInt(value).toString(16).padStart(64, '0')}`;
    },
  ),
  /** eth_getProof (spec: eth_getProof): account and storage proofs against the block's stateRoot. */
  eth_getProof: method(
    [required('address', address), required('storageKeys', arrayOf(storageKey)), required('block', stateRef)],
    async (ctx, a, keys, ref) => {
      const proof = await ctx.chain.getProof(a, keys, await stateBlock(ctx, ref));
      return formatProof(
        proof,
        keys.map((k) => `0x${bytesToBigInt(k).toString(16).padStart(64, '0')}`),
      );
    },
  ),
};
