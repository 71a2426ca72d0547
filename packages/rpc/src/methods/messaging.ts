/**
 * The messages between the devnet's L1 and L2 (--l1), on both chains' paths: l2_getMessageStatus.
 * The node anchors, finalizes and (with --auto-claim) claims them itself (core/messaging/relay.ts).
 */
import { messageStatus } from '@l2devnet/core';
import type { Chain } from '@l2devnet/core';

import { quantity } from '../format';
import type { Method } from '../method';
import { method, required } from '../method';
import { hash } from '../params';

export function messagingMethods(l1: Chain, l2: Chain): Record<string, Method> {
  return {
    /**
     * l2_getMessageStatus(messageHash): `{ direction: 'L1->L2' | 'L2->L1', status: 'sent' | 'claimable'
     * | 'claimed', nonce, blockNumber }` (the block of the chain that sent it), or null for a hash
     * neither service sent.
     */
    'l2_getMessageStatus': method([required('messageHash', hash)], async (_ctx, h) => {
      const found = await messageStatus(l1, l2, h);
      if (found === undefined) return null;
      return {
        direction: found.direction,
        status: found.status,
        nonce: quantity(found.nonce),
        blockNumber: quantity(found.blockNumber),
      };
    }),
  };
}
