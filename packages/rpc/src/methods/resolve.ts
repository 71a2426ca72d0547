import type { BlockRef } from '@l2devnet/core';
import { HeaderNotFoundError } from '@l2devnet/core';

import type { RpcContext } from '../method';

/** The block a state read (balance, code, storage, call, proof) runs against; `pending` reads the head. */
export async function stateBlock(ctx: RpcContext, ref: BlockRef): Promise<bigint> {
  const n = await ctx.chain.reads.resolveNumber(ref);
  if (n === undefined) throw new HeaderNotFoundError();
  return n;
}
