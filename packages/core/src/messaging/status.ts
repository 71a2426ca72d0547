/**
 * Where a message between the two layers is (l2_getMessageStatus): found by its hash in the sending
 * service's MessageSent logs, then read from the receiving service's storage (see the storage
 * layout in MessageService.sol).
 */
import { bytesToBigInt, concatBytes } from '@ethereumjs/util';

import type { Chain } from '../chain/chain';
import { keccak256 } from '../config/fastCrypto';
import { L1_MESSAGE_SERVICE, L2_MESSAGE_SERVICE, word } from './services';
import { MESSAGE_SENT, stored } from './relay';

export interface MessageStatus {
  direction: 'L1->L2' | 'L2->L1';
  /** sent: not yet claimable (not anchored on the L2, not finalized on the L1); claimable; claimed. */
  status: 'sent' | 'claimable' | 'claimed';
  /** The message's number (nonce) and the block of the sending chain that holds it. */
  nonce: bigint;
  blockNumber: bigint;
}

/** The status of the message `hash`; undefined when neither service sent it. */
export async function messageStatus(l1: Chain, l2: Chain, hash: Uint8Array): Promise<MessageStatus | undefined> {
  const sentOn = async (chain: Chain, service: Uint8Array) =>
    (
      await chain.reads.getLogs({
        fromBlock: 0n,
        toBlock: chain.headNumber,
        addresses: [service],
        topics: [[MESSAGE_SENT], null, null, [hash]],
      })
    )[0];
  const toL2 = await sentOn(l1, L1_MESSAGE_SERVICE);
  if (toL2 !== undefined) {
    // L2MessageService.inboxL1L2MessageStatus: mapping at slot 2.
    const inbox = await stored(l2, L2_MESSAGE_SERVICE, keccak256(concatBytes(hash, word(2n))));
    const status = inbox === 2n ? 'claimed' : inbox === 1n ? 'claimable' : 'sent';
    return { direction: 'L1->L2', status, nonce: nonceOf(toL2.data), blockNumber: toL2.blockNumber };
  }
  const toL1 = await sentOn(l2, L2_MESSAGE_SERVICE);
  if (toL1 === undefined) return undefined;
  const nonce = nonceOf(toL1.data);
  // LineaRollup: the claimed bitmap at slot 5 (a word per 256 messages), the last finalized L2 block at slot 4.
  const bits = await stored(l1, L1_MESSAGE_SERVICE, keccak256(concatBytes(word(nonce >> 8n), word(5n))));
  const finalized = await stored(l1, L1_MESSAGE_SERVICE, word(4n));
  const status = (bits >> (nonce & 0xffn)) & 1n ? 'claimed' : finalized >= toL1.blockNumber ? 'claimable' : 'sent';
  return { direction: 'L2->L1', status, nonce, blockNumber: toL1.blockNumber };
}

/** MessageSent's data: fee, value, nonce, then the calldata. */
function nonceOf(data: Uint8Array): bigint {
  return bytesToBigInt(data.subarray(64, 96));
}
