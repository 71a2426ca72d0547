/**
 * The off-chain service between the two layers, as the node's own behaviour (Linea's coordinator):
 * every L1 message is anchored on the L2 in a transaction the operator signs, after the L1 block
 * that holds it, with the L1's rolling hash, so that it can be claimed there.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bigIntToBytes, bytesToBigInt, concatBytes, equalsBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';

import type { Chain } from '../chain/chain';
import { SUGGESTED_TIP } from '../pool/requestTx';
import type { Receipt } from '../types';
import { L1_MESSAGE_SERVICE, L2_MESSAGE_SERVICE, operatorAddress, operatorKey } from './services';

/** RollingHashUpdated(uint256 indexed messageNumber, bytes32 indexed rollingHash, bytes32 indexed messageHash), the L1's topic. */
const L1_ROLLING_HASH_UPDATED = hexToBytes('0xea3b023b4c8680d4b4824f0143132c95476359a2bb70a81d6c5a36f6918f6339');
/** anchorL1L2MessageHashes(bytes32[],uint256,uint256,bytes32) */
const ANCHOR_SELECTOR = hexToBytes('0x3c362146');
/** Linea's limit of hashes in one anchoring. */
const MAX_HASHES = 100;

/** One L1 message as its rolling-hash log gives it. */
interface L1Message {
  number: bigint;
  hash: Uint8Array;
  rollingHash: Uint8Array;
}

export class MessageRelay {
  private work: Promise<void> = Promise.resolve();

  constructor(
    l1: Chain,
    private readonly l2: Chain,
    private readonly log: (line: string) => void,
  ) {
    l1.on('block', (_block, receipts) => {
      const messages = l1Messages(receipts);
      if (messages.length === 0) return;
      this.work = this.work
        .then(() => this.anchor(messages))
        .catch((e: Error) => this.log(`anchoring L1 messages on the L2 failed: ${e.message}`));
    });
  }

  /** Resolves once every anchoring asked for so far was submitted. */
  idle(): Promise<void> {
    return this.work;
  }

  private async anchor(messages: L1Message[]): Promise<void> {
    for (let i = 0; i < messages.length; i += MAX_HASHES) {
      const batch = messages.slice(i, i + MAX_HASHES);
      const last = batch[batch.length - 1];
      const data = anchorCalldata(
        batch.map((m) => m.hash),
        batch[0].number,
        last.number,
        last.rollingHash,
      );
      const operator = operatorAddress();
      const nonce = await this.l2.reads.pendingNonce(operator);
      const baseFee = await this.l2.reads.nextBaseFee();
      const tx = createFeeMarket1559Tx(
        {
          nonce,
          to: L2_MESSAGE_SERVICE,
          data,
          gasLimit: 100_000n + 30_000n * BigInt(batch.length),
          maxPriorityFeePerGas: SUGGESTED_TIP,
          maxFeePerGas: baseFee * 2n + SUGGESTED_TIP,
          chainId: this.l2.chainId,
        },
        { common: this.l2.common },
      ).sign(operatorKey());
      await this.l2.txs.submit(tx, operator);
    }
  }
}

/** The L1 service's messages in a block's receipts, in order. */
function l1Messages(receipts: Receipt[]): L1Message[] {
  const out: L1Message[] = [];
  for (const r of receipts)
    for (const log of r.logs)
      if (
        equalsBytes(log.address, L1_MESSAGE_SERVICE) &&
        log.topics.length === 4 &&
        equalsBytes(log.topics[0], L1_ROLLING_HASH_UPDATED)
      )
        out.push({ number: bytesToBigInt(log.topics[1]), rollingHash: log.topics[2], hash: log.topics[3] });
  return out;
}

/** The ABI encoding of anchorL1L2MessageHashes(hashes, start, final, rollingHash). */
function anchorCalldata(hashes: Uint8Array[], start: bigint, final: bigint, rollingHash: Uint8Array): Uint8Array {
  const word = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);
  return concatBytes(
    ANCHOR_SELECTOR,
    word(0x80n),
    word(start),
    word(final),
    rollingHash,
    word(BigInt(hashes.length)),
    ...hashes,
  );
}
