import type { BlockRef } from '@l2devnet/core';
import { HeaderNotFoundError } from '@l2devnet/core';

import type { RpcContext } from '../method';
import { blockRef } from '../params';

/** The block a method takes when it is left out. */
export const latest = () => ({ kind: 'latest' as const });
/** geth's BlockNumberOrHash for state reads: a number, a tag, EIP-1898's object, on the devnet paths a bare hash too. */
export const stateRef = blockRef({ allowObject: true, orHash: true });

/** The block a state read (balance, code, storage, call, proof) runs against; `pending` reads the head. */
export async function stateBlock(ctx: RpcContext, ref: BlockRef): Promise<bigint> {
  const n = await ctx.chain.reads.resolveNumber(ref);
  if (n === undefined) throw new HeaderNotFoundError();
  return n;
}
