/**
 * The off-chain services between the two layers, as the node's own behaviour (Linea's coordinator),
 * each in a transaction the operator signs:
 *  - every L1 message is anchored on the L2 after the L1 block that holds it, with the L1's rolling
 *    hash, so that it can be claimed there;
 *  - every L2 block that sends messages is finalized on the L1 after it: the Merkle roots of its
 *    messages (trees of 2^5 leaves, in log order, zero-padded, as Linea's SDK rebuilds them) and the
 *    block, so that each message can be claimed there with its proof.
 * What a stopped node left undone (a message sent just before a kill) is done when it starts again:
 * the L2 service's last anchored message and the L1 service's last finalized L2 block say where to
 * pick up.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bigIntToBytes, bytesToBigInt, concatBytes, equalsBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';

import type { Chain } from '../chain/chain';
import { SUGGESTED_TIP } from '../pool/requestTx';
import { keccak256 } from '../config/fastCrypto';
import type { Log } from '../types';
import { L1_MESSAGE_SERVICE, L2_MESSAGE_SERVICE, operatorAddress, operatorKey } from './services';

/** RollingHashUpdated(uint256 indexed messageNumber, bytes32 indexed rollingHash, bytes32 indexed messageHash), the L1's topic. */
const L1_ROLLING_HASH_UPDATED = hexToBytes('0xea3b023b4c8680d4b4824f0143132c95476359a2bb70a81d6c5a36f6918f6339');
/** anchorL1L2MessageHashes(bytes32[],uint256,uint256,bytes32) */
const ANCHOR_SELECTOR = hexToBytes('0x3c362146');
/** Linea's limit of hashes in one anchoring. */
const MAX_HASHES = 100;
/** MessageSent(address,address,uint256,uint256,uint256,bytes,bytes32), on both layers. */
const MESSAGE_SENT = hexToBytes('0xe856c2b8bd4eb0027ce32eeaf595c21b0b6b4644b326e5b7bd80a1cf8db72e6c');
/** finalizeMessages(uint256,bytes32[],uint256,uint256[]) (this project's LineaRollup). */
const FINALIZE_SIGNATURE = 'finalizeMessages(uint256,bytes32[],uint256,uint256[])';
/** The depth of the L2 message trees: Linea's SDK's default (l2MessageTreeDepth). */
export const MESSAGE_TREE_DEPTH = 5;

/** One L1 message as its rolling-hash log gives it. */
interface L1Message {
  number: bigint;
  hash: Uint8Array;
  rollingHash: Uint8Array;
}

export class MessageRelay {
  private work: Promise<void> = Promise.resolve();

  constructor(
    private readonly l1: Chain,
    private readonly l2: Chain,
    private readonly log: (line: string) => void,
  ) {
    l2.on('block', (block, receipts) => {
      const hashes = l2Messages(receipts.flatMap((r) => r.logs));
      if (hashes.length === 0) return;
      const n = block.header.number;
      this.work = this.work
        .then(() => this.finalize(n, hashes))
        .catch((e: Error) => this.log(`finalizing L2 block ${n} on the L1 failed: ${e.message}`));
    });
    this.work = this.catchUp().catch((e: Error) => this.log(`catching up on messages failed: ${e.message}`));
    l1.on('block', (_block, receipts) => {
      const messages = l1Messages(receipts.flatMap((r) => r.logs));
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

  /** Anchors the L1 messages and finalizes the L2 blocks that were not when the node stopped. */
  private async catchUp(): Promise<void> {
    const word = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);
    const stored = async (chain: Chain, service: Uint8Array, slot: bigint) =>
      bytesToBigInt(await chain.reads.getStorage(service, word(slot), chain.headNumber));
    // The L2 service's slot 3: its last anchored L1 message; the L1 service's slot 4: its last finalized L2 block.
    const anchored = await stored(this.l2, L2_MESSAGE_SERVICE, 3n);
    const l1Logs = await this.l1.reads.getLogs({
      fromBlock: 0n,
      toBlock: this.l1.headNumber,
      addresses: [L1_MESSAGE_SERVICE],
      topics: [[L1_ROLLING_HASH_UPDATED]],
    });
    const unanchored = l1Messages(l1Logs).filter((m) => m.number > anchored);
    if (unanchored.length > 0) await this.anchor(unanchored);
    const finalized = await stored(this.l1, L1_MESSAGE_SERVICE, 4n);
    const l2Logs = await this.l2.reads.getLogs({
      fromBlock: finalized + 1n,
      toBlock: this.l2.headNumber,
      addresses: [L2_MESSAGE_SERVICE],
      topics: [[MESSAGE_SENT]],
    });
    const byBlock = new Map<bigint, Uint8Array[]>();
    for (const log of l2Logs) byBlock.set(log.blockNumber, [...(byBlock.get(log.blockNumber) ?? []), log.topics[3]]);
    for (const [n, hashes] of byBlock) await this.finalize(n, hashes);
  }

  /** Posts the Merkle roots of L2 block `n`'s messages to the L1, with the block. */
  private async finalize(n: bigint, hashes: Uint8Array[]): Promise<void> {
    const roots: Uint8Array[] = [];
    const size = 2 ** MESSAGE_TREE_DEPTH;
    for (let i = 0; i < hashes.length; i += size) roots.push(merkleRoot(hashes.slice(i, i + size), MESSAGE_TREE_DEPTH));
    const word = (x: bigint) => setLengthLeft(bigIntToBytes(x), 32);
    const data = concatBytes(
      keccak256(new TextEncoder().encode(FINALIZE_SIGNATURE)).subarray(0, 4),
      word(n),
      word(0x80n),
      word(BigInt(MESSAGE_TREE_DEPTH)),
      word(0xa0n + 0x20n * BigInt(roots.length)),
      word(BigInt(roots.length)),
      ...roots,
      word(1n),
      word(n),
    );
    await this.send(this.l1, L1_MESSAGE_SERVICE, data, 150_000n + 30_000n * BigInt(roots.length));
  }

  /** A transaction of the operator's to `to` on `chain`. */
  private async send(chain: Chain, to: Uint8Array, data: Uint8Array, gasLimit: bigint): Promise<void> {
    const operator = operatorAddress();
    const nonce = await chain.reads.pendingNonce(operator);
    const baseFee = await chain.reads.nextBaseFee();
    const tx = createFeeMarket1559Tx(
      {
        nonce,
        to,
        data,
        gasLimit,
        maxPriorityFeePerGas: SUGGESTED_TIP,
        maxFeePerGas: baseFee * 2n + SUGGESTED_TIP,
        chainId: chain.chainId,
      },
      { common: chain.common },
    ).sign(operatorKey());
    await chain.txs.submit(tx, operator);
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
      await this.send(this.l2, L2_MESSAGE_SERVICE, data, 100_000n + 30_000n * BigInt(batch.length));
    }
  }
}

/** The L1 service's messages among `logs`, in order. */
function l1Messages(logs: Log[]): L1Message[] {
  const out: L1Message[] = [];
  for (const log of logs)
    if (
      equalsBytes(log.address, L1_MESSAGE_SERVICE) &&
      log.topics.length === 4 &&
      equalsBytes(log.topics[0], L1_ROLLING_HASH_UPDATED)
    )
      out.push({ number: bytesToBigInt(log.topics[1]), rollingHash: log.topics[2], hash: log.topics[3] });
  return out;
}

/** The hashes of the L2 service's messages among `logs`, in log order. */
function l2Messages(logs: Log[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const log of logs)
    if (
      equalsBytes(log.address, L2_MESSAGE_SERVICE) &&
      log.topics.length === 4 &&
      equalsBytes(log.topics[0], MESSAGE_SENT)
    )
      out.push(log.topics[3]);
  return out;
}

/** The root of a tree of 2^depth leaves: `leaves`, then zero hashes; nodes keccak-256(left ‖ right). */
export function merkleRoot(leaves: Uint8Array[], depth: number): Uint8Array {
  let level = [...leaves, ...Array<Uint8Array>(2 ** depth - leaves.length).fill(new Uint8Array(32))];
  for (let d = 0; d < depth; d++) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(keccak256(concatBytes(level[i], level[i + 1])));
    level = next;
  }
  return level[0];
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
