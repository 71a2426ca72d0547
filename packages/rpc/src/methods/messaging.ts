/**
 * The messages between the devnet's L1 and L2 (--l1), on both chains' paths: l2_getMessageStatus, and
 * l2_anchorMessages and l2_finalize, which do at once what the node otherwise does on its cadence
 * (core/messaging/relay.ts: anchoring, finalization and, with --auto-claim, claiming).
 */
import { messageStatus } from '@l2devnet/core';
import type { MessageRelay } from '@l2devnet/core';

import { METHOD_NOT_FOUND, RpcError } from '../errors';
import { hex, quantity } from '../format';
import type { Method } from '../method';
import { method, optional, required } from '../method';
import { hash } from '../params';
import { devnetMethods } from './devnet';

export function messagingMethods(relay: MessageRelay, on: 'l1' | 'l2'): Record<string, Method> {
  // Snapshots and resets cover both chains, and a rollback of one takes from the other what it held
  // of the dropped blocks, so that what one holds of the other's messages stays true: devnet.ts's
  // methods, their params as theirs, run through the relay.
  const snapshot = method([], async () => quantity(await relay.snapshot(on)));
  const revert: Method = {
    params: devnetMethods.evm_revert.params,
    handler: (_ctx, [id]) => relay.revertTo(on, id as bigint),
  };
  const reset: Method = {
    params: devnetMethods.anvil_reset.params,
    handler: (ctx, args) => relay.reset(on, async () => devnetMethods.anvil_reset.handler(ctx, args)),
  };
  // A rollback or reorg of this chain alone answers once the other dropped what it held of its blocks.
  const rewind = (name: 'anvil_rollback' | 'anvil_reorg'): Method => ({
    params: devnetMethods[name].params,
    handler: (ctx, args) => relay.rewind(async () => devnetMethods[name].handler(ctx, args)),
  });
  return {
    'evm_snapshot': snapshot,
    'anvil_snapshot': snapshot,
    'evm_revert': revert,
    'anvil_revert': revert,
    'anvil_reset': reset,
    'hardhat_reset': reset,
    'anvil_rollback': rewind('anvil_rollback'),
    'anvil_reorg': rewind('anvil_reorg'),
    /**
     * l2_getMessageStatus(messageHash): `{ direction: 'L1->L2' | 'L2->L1', status: 'sent' | 'claimable'
     * | 'claimed', nonce, blockNumber }` (the block of the chain that sent it), or null for a hash
     * neither service sent.
     */
    'l2_getMessageStatus': method([required('messageHash', hash)], async (_ctx, h) => {
      const found = await messageStatus(relay.l1, relay.l2, h);
      if (found === undefined) return null;
      return {
        direction: found.direction,
        status: found.status,
        nonce: quantity(found.nonce),
        blockNumber: quantity(found.blockNumber),
      };
    }),
    /**
     * l2_anchorMessages(): anchors on the L2 every L1 message not anchored yet, whatever
     * --message-anchoring-delay says: `{ messageHashes, transactionHashes }` (empty when none waited).
     */
    'l2_anchorMessages': method([], async () => {
      const done = await relay.anchorMessages();
      return { messageHashes: done.messageHashes.map(hex), transactionHashes: done.transactionHashes.map(hex) };
    }),
    /**
     * l2_finalize(): finalizes on the L1 every L2 block up to the head, whatever
     * --finalization-interval says: `{ l2BlockNumber, merkleRoots, messagingBlocks, transactionHashes }`
     * (one transaction, or more for a range of over 500 messaging blocks or 1,024 messages), or null when
     * the head is finalized already.
     */
    'l2_finalize': method([], async () => {
      const done = await relay.finalize();
      if (done === undefined) return null;
      return {
        l2BlockNumber: quantity(done.l2BlockNumber),
        merkleRoots: done.merkleRoots.map(hex),
        messagingBlocks: done.messagingBlocks.map(quantity),
        transactionHashes: done.transactionHashes.map(hex),
      };
    }),
  };
}

/**
 * The same methods on a node started without an L1: each says how to get one, where an unknown
 * method would only say it does not exist (messagingMethods replaces them when there is an L1).
 */
export const messagingWithoutL1: Record<string, Method> = Object.fromEntries(
  ['l2_getMessageStatus', 'l2_anchorMessages', 'l2_finalize'].map((name) => [
    name,
    // Whatever it is given (l2_getMessageStatus takes a hash): the missing L1 is the answer.
    method([optional('param', (v: unknown) => v)], (_ctx, _param): never => {
      throw new RpcError(
        METHOD_NOT_FOUND,
        `${name} needs the devnet's L1: start l2devnet with --l1 (createDevnet({ l1: true }) in process)`,
      );
    }),
  ]),
);
