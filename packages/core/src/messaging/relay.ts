/**
 * The off-chain services between the two layers, as the node's own behaviour (Linea's coordinator),
 * each in a transaction the operator signs:
 *  - every L1 message is anchored on the L2 after the L1 block that holds it, with the L1's rolling
 *    hash, so that it can be claimed there;
 *  - every L2 block that sends messages is finalized on the L1 after it: the Merkle roots of its
 *    messages (trees of 2^5 leaves, in log order, zero-padded, as Linea's SDK rebuilds them) and the
 *    block, so that each message can be claimed there with its proof.
 * With `autoClaim` (--auto-claim), the node also claims each message once it can be, as Linea's
 * postman does: on the L2 after anchoring, on the L1 with its proof after finalization, with the
 * operator as the fee's recipient.
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
export const MESSAGE_SENT = hexToBytes('0xe856c2b8bd4eb0027ce32eeaf595c21b0b6b4644b326e5b7bd80a1cf8db72e6c');
/** finalizeMessages(uint256,bytes32[],uint256,uint256[]) (this project's LineaRollup). */
const FINALIZE_SIGNATURE = 'finalizeMessages(uint256,bytes32[],uint256,uint256[])';
/** The gas an automatic claim is sent with. */
const CLAIM_GAS = 500_000n;
/** claimMessage(address,address,uint256,uint256,address,bytes,uint256) */
const CLAIM_SELECTOR = hexToBytes('0x491e0936');
/** claimMessageWithProof((bytes32[],uint256,uint32,address,address,uint256,uint256,address,bytes32,bytes)) */
const CLAIM_WITH_PROOF_SELECTOR = hexToBytes('0x6463fb2a');

/** A message as MessageSent gives it. */
interface SentMessage {
  from: Uint8Array;
  to: Uint8Array;
  fee: bigint;
  value: bigint;
  nonce: bigint;
  calldata: Uint8Array;
  hash: Uint8Array;
}

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
    private readonly autoClaim = false,
  ) {
    l2.on('block', (block, receipts) => {
      const logs = receipts.flatMap((r) => r.logs);
      const hashes = l2Messages(logs);
      if (hashes.length === 0) return;
      const n = block.header.number;
      this.work = this.work
        .then(() => this.finalize(n, hashes, sentMessages(logs, L2_MESSAGE_SERVICE)))
        .catch((e: Error) => this.log(`finalizing L2 block ${n} on the L1 failed: ${e.message}`));
    });
    this.work = this.catchUp().catch((e: Error) => this.log(`catching up on messages failed: ${e.message}`));
    l1.on('block', (_block, receipts) => {
      const logs = receipts.flatMap((r) => r.logs);
      const messages = l1Messages(logs);
      if (messages.length === 0) return;
      this.work = this.work
        .then(() => this.anchor(messages, sentMessages(logs, L1_MESSAGE_SERVICE)))
        .catch((e: Error) => this.log(`anchoring L1 messages on the L2 failed: ${e.message}`));
    });
  }

  /** Resolves once every anchoring asked for so far was submitted. */
  idle(): Promise<void> {
    return this.work;
  }

  /** Anchors the L1 messages and finalizes the L2 blocks that were not when the node stopped. */
  private async catchUp(): Promise<void> {
    // The operator's transactions still in a chain's pool (kept across a restart) are its catching up.
    const operator = operatorAddress();
    const busy = async (chain: Chain) =>
      (await chain.reads.pendingNonce(operator)) > (await chain.reads.getAccount(operator, chain.headNumber)).nonce;
    // The L2 service's slot 3: its last anchored L1 message; the L1 service's slot 4: its last finalized L2 block.
    const anchored = await stored(this.l2, L2_MESSAGE_SERVICE, word(3n));
    const l1Logs = await this.l1.reads.getLogs({
      fromBlock: 0n,
      toBlock: this.l1.headNumber,
      addresses: [L1_MESSAGE_SERVICE],
      topics: [[L1_ROLLING_HASH_UPDATED]],
    });
    const unanchored = l1Messages(l1Logs).filter((m) => m.number > anchored);
    if (unanchored.length > 0 && !(await busy(this.l2))) {
      const sent = await this.l1.reads.getLogs({
        fromBlock: 0n,
        toBlock: this.l1.headNumber,
        addresses: [L1_MESSAGE_SERVICE],
        topics: [[MESSAGE_SENT]],
      });
      await this.anchor(unanchored, sentMessages(sent, L1_MESSAGE_SERVICE));
    }
    if (await busy(this.l1)) return;
    const finalized = await stored(this.l1, L1_MESSAGE_SERVICE, word(4n));
    const l2Logs = await this.l2.reads.getLogs({
      fromBlock: finalized + 1n,
      toBlock: this.l2.headNumber,
      addresses: [L2_MESSAGE_SERVICE],
      topics: [[MESSAGE_SENT]],
    });
    const byBlock = new Map<bigint, Log[]>();
    for (const log of l2Logs) byBlock.set(log.blockNumber, [...(byBlock.get(log.blockNumber) ?? []), log]);
    for (const [n, logs] of byBlock) await this.finalize(n, l2Messages(logs), sentMessages(logs, L2_MESSAGE_SERVICE));
  }

  /** Posts the Merkle roots of L2 block `n`'s messages to the L1, with the block. */
  private async finalize(n: bigint, hashes: Uint8Array[], sent: SentMessage[]): Promise<void> {
    const roots: Uint8Array[] = [];
    const size = 2 ** MESSAGE_TREE_DEPTH;
    const trees: Uint8Array[][][] = [];
    for (let i = 0; i < hashes.length; i += size) {
      const levels = merkleLevels(hashes.slice(i, i + size), MESSAGE_TREE_DEPTH);
      trees.push(levels);
      roots.push(levels[MESSAGE_TREE_DEPTH][0]);
    }
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
    if (!this.autoClaim) return;
    // Each message with its proof: its tree, its leaf, the siblings from the bottom up.
    for (const m of sent) {
      const at = hashes.findIndex((h) => equalsBytes(h, m.hash));
      const levels = trees[Math.floor(at / size)];
      const leaf = at % size;
      const proof = Array.from({ length: MESSAGE_TREE_DEPTH }, (_, d) => levels[d][(leaf >> d) ^ 1]);
      const claim = claimWithProofCalldata(m, proof, leaf, levels[MESSAGE_TREE_DEPTH][0], operatorAddress());
      await this.send(this.l1, L1_MESSAGE_SERVICE, claim, CLAIM_GAS);
    }
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

  private async anchor(messages: L1Message[], sent: SentMessage[]): Promise<void> {
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
    if (!this.autoClaim) return;
    for (const m of messages) {
      const message = sent.find((s) => equalsBytes(s.hash, m.hash));
      if (message !== undefined)
        await this.send(this.l2, L2_MESSAGE_SERVICE, claimCalldata(message, operatorAddress()), CLAIM_GAS);
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

/** The levels of a tree of 2^depth leaves (`leaves`, then zero hashes), the root last; nodes keccak-256(left ‖ right). */
export function merkleLevels(leaves: Uint8Array[], depth: number): Uint8Array[][] {
  const levels = [[...leaves, ...Array<Uint8Array>(2 ** depth - leaves.length).fill(new Uint8Array(32))]];
  for (let d = 0; d < depth; d++) {
    const below = levels[d];
    const next: Uint8Array[] = [];
    for (let i = 0; i < below.length; i += 2) next.push(keccak256(concatBytes(below[i], below[i + 1])));
    levels.push(next);
  }
  return levels;
}

/** The messages `service` sent among `logs` (MessageSent: from, to and hash indexed; fee, value, nonce, calldata in the data). */
function sentMessages(logs: Log[], service: Uint8Array): SentMessage[] {
  const out: SentMessage[] = [];
  for (const log of logs) {
    if (!equalsBytes(log.address, service) || log.topics.length !== 4 || !equalsBytes(log.topics[0], MESSAGE_SENT))
      continue;
    const d = log.data;
    const at = (i: number) => bytesToBigInt(d.subarray(32 * i, 32 * i + 32));
    const length = Number(at(4));
    out.push({
      from: log.topics[1].subarray(12),
      to: log.topics[2].subarray(12),
      fee: at(0),
      value: at(1),
      nonce: at(2),
      calldata: d.slice(160, 160 + length),
      hash: log.topics[3],
    });
  }
  return out;
}

export const word = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);

/** The word stored at `slot` of `service` at `chain`'s head. */
export async function stored(chain: Chain, service: Uint8Array, slot: Uint8Array): Promise<bigint> {
  return bytesToBigInt(await chain.reads.getStorage(service, slot, chain.headNumber));
}
const address = (a: Uint8Array) => setLengthLeft(a, 32);
/** `data` as ABI bytes: its length, then the bytes padded to a whole word. */
const abiBytes = (data: Uint8Array) =>
  concatBytes(word(BigInt(data.length)), data, new Uint8Array((32 - (data.length % 32)) % 32));

/** claimMessage(from, to, fee, value, feeRecipient, calldata, nonce) */
function claimCalldata(m: SentMessage, feeRecipient: Uint8Array): Uint8Array {
  return concatBytes(
    CLAIM_SELECTOR,
    address(m.from),
    address(m.to),
    word(m.fee),
    word(m.value),
    address(feeRecipient),
    word(0xe0n),
    word(m.nonce),
    abiBytes(m.calldata),
  );
}

/** claimMessageWithProof((proof, messageNumber, leafIndex, from, to, fee, value, feeRecipient, merkleRoot, data)) */
function claimWithProofCalldata(
  m: SentMessage,
  proof: Uint8Array[],
  leafIndex: number,
  root: Uint8Array,
  feeRecipient: Uint8Array,
): Uint8Array {
  const head = 10n * 32n;
  const proofTail = concatBytes(word(BigInt(proof.length)), ...proof);
  return concatBytes(
    CLAIM_WITH_PROOF_SELECTOR,
    word(0x20n),
    word(head),
    word(m.nonce),
    word(BigInt(leafIndex)),
    address(m.from),
    address(m.to),
    word(m.fee),
    word(m.value),
    address(feeRecipient),
    root,
    word(head + BigInt(proofTail.length)),
    proofTail,
    abiBytes(m.calldata),
  );
}

/** The ABI encoding of anchorL1L2MessageHashes(hashes, start, final, rollingHash). */
function anchorCalldata(hashes: Uint8Array[], start: bigint, final: bigint, rollingHash: Uint8Array): Uint8Array {
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
