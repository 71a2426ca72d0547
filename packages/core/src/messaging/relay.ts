/**
 * The off-chain services between the two layers, as the node's own behaviour (Linea's coordinator),
 * each in a transaction the operator signs:
 *  - L1 messages are anchored on the L2 with the L1's rolling hash, so that they can be claimed
 *    there: after the L1 block that holds them, or `anchoringDelay` L1 blocks or seconds later;
 *  - L2 blocks are finalized on the L1 with the Merkle roots of their messages (trees of 2^5 leaves,
 *    in log order, zero-padded, as Linea's SDK rebuilds them) and the blocks that sent them, so that
 *    each message can be claimed there with its proof: after every L2 block that sends a message,
 *    or every `finalizationInterval` L2 blocks or seconds.
 * Either can also be left to the hand (`manual`: l2_anchorMessages, l2_finalize), which does it at once.
 * With `autoClaim` (--auto-claim), the node also claims each message once it can be, as Linea's
 * postman does: on the L2 after anchoring, on the L1 with its proof after finalization, with the
 * operator as the fee's recipient.
 * Where the work stands is read from the chains, never kept: the operator's transactions waiting in
 * a pool, else the L2 service's last anchored message and the L1 service's last finalized L2 block.
 * So a node that stopped picks up where the chains say at start, and a chain reverted to a snapshot
 * or rolled back at its next block (or timer).
 * Blocks one chain drops (a rollback, a reorg, a revert of it alone) take with them what the other
 * holds of them, as neither outlives the other's blocks on Linea: the L2 goes back to before it
 * anchored a message of a dropped L1 block, the L1 to before it finalized a dropped L2 block
 * (`agree`); what either then lacks is anchored or finalized again.
 * The L2's `finalized` and `safe` are the last L2 block finalized on the L1 as of the L1's `finalized`
 * block, as Linea's consensus client sets them (maru/linea-finalization-provider/.../
 * LineaFinalizationProvider.kt: LineaRollup's currentL2BlockNumber at the L1's `finalized`, both tags
 * to it): read again after every L1 block and after either chain goes back.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToBigInt, concatBytes, equalsBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';

import type { Chain } from '../chain/chain';
import { StateProofUnavailableError } from '../errors';
import { SUGGESTED_TIP } from '../pool/requestTx';
import { keccak256 } from '../config/fastCrypto';
import type { Block } from '@ethereumjs/block';
import type { LocatedLog, Log, Receipt } from '../types';
import { L1_MESSAGE_SERVICE, L2_MESSAGE_SERVICE, operatorAddress, operatorKey, word } from './services';

/** RollingHashUpdated(uint256 indexed messageNumber, bytes32 indexed rollingHash, bytes32 indexed messageHash), the L1's topic. */
const L1_ROLLING_HASH_UPDATED = hexToBytes('0xea3b023b4c8680d4b4824f0143132c95476359a2bb70a81d6c5a36f6918f6339');
/** anchorL1L2MessageHashes(bytes32[],uint256,uint256,bytes32) */
const ANCHOR_SELECTOR = hexToBytes('0x3c362146');
/** Linea's limit of hashes in one anchoring. */
const MAX_HASHES = 100;
/** MessageSent(address,address,uint256,uint256,uint256,bytes,bytes32), on both layers. */
export const MESSAGE_SENT = hexToBytes('0xe856c2b8bd4eb0027ce32eeaf595c21b0b6b4644b326e5b7bd80a1cf8db72e6c');
/** finalizeMessages(uint256,bytes32,bytes32,uint256,bytes32,bytes32[],uint256,uint256[]) (this project's LineaRollup). */
const FINALIZE_SELECTOR = hexToBytes('0x5379daae');
/** Most messaging blocks and messages one finalization posts: a longer range is finalized in parts, each well under a transaction's gas cap. */
const MAX_FINALIZED_BLOCKS = 500;
const MAX_FINALIZED_MESSAGES = 1024;
/**
 * The gas an automatic claim is sent with (the operator pays for what it uses): a claim whose call is
 * a token's first crossing deploys its bridged token (TokenBridge.completeBridging): 658k measured.
 */
const CLAIM_GAS = 3_000_000n;
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

/** One L1 message as its rolling-hash log gives it, with the L1 block that holds it. */
interface L1Message {
  number: bigint;
  hash: Uint8Array;
  rollingHash: Uint8Array;
  blockNumber: bigint;
}

/**
 * When the node does a service's job: `blocks` after (anchoring: L1 blocks on top of the message's;
 * finalization: at every such L2 block number), `seconds` after, or only when asked (`manual`).
 */
export type Cadence = { blocks: number } | { seconds: number } | 'manual';

export interface RelayOptions {
  /** Claim every message once it can be (--auto-claim). */
  autoClaim?: boolean;
  /** L1->L2 anchoring (--message-anchoring-delay); default `{ blocks: 0 }`: right after the L1 block. */
  anchoringDelay?: Cadence;
  /** L2->L1 finalization (--finalization-interval); default `{ blocks: 1 }`: after every L2 block that sends a message. */
  finalizationInterval?: Cadence;
}

/** What an anchoring did: the messages it anchored, and its transactions (up to 100 messages each). */
export interface Anchoring {
  messageHashes: Uint8Array[];
  transactionHashes: Uint8Array[];
}

/** What a finalization did. */
export interface Finalization {
  /** The last L2 block it finalized. */
  l2BlockNumber: bigint;
  merkleRoots: Uint8Array[];
  /** The L2 blocks with messages among those it finalized. */
  messagingBlocks: bigint[];
  /** One transaction, or more for a range past one's limits (MAX_FINALIZED_BLOCKS, MAX_FINALIZED_MESSAGES). */
  transactionHashes: Uint8Array[];
}

export class MessageRelay {
  private work: Promise<unknown> = Promise.resolve();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** With a delay in seconds: when the node saw each L1 message (ms); those it found at start, `startedAt`. */
  private readonly seenAt = new Map<bigint, number>();
  private readonly startedAt = Date.now();
  /** Whether some L1 message may wait for anchoring, some L2 message for finalization: work to look for. */
  private l1Waiting = true;
  private l2Waiting = true;
  private closed = false;
  private readonly anchoring: Cadence;
  private readonly finalizing: Cadence;
  /** With a cadence in blocks: finalization at every this-many-th L2 block (at least 1). */
  private readonly finalizeEvery: bigint;
  private readonly autoClaim: boolean;
  /** Per chain, its snapshot ids taken by `snapshot` and the other chain's taken with each. */
  private readonly partners = { l1: new Map<bigint, bigint>(), l2: new Map<bigint, bigint>() };
  /** Per chain, the lowest block it dropped the blocks above since `agree` last looked. */
  private dropped: { l1?: bigint; l2?: bigint } = {};

  constructor(
    readonly l1: Chain,
    readonly l2: Chain,
    private readonly log: (line: string) => void,
    opts: RelayOptions = {},
  ) {
    this.autoClaim = opts.autoClaim ?? false;
    this.anchoring = opts.anchoringDelay ?? { blocks: 0 };
    this.finalizing = opts.finalizationInterval ?? { blocks: 1 };
    this.finalizeEvery =
      this.finalizing !== 'manual' && 'blocks' in this.finalizing ? BigInt(Math.max(1, this.finalizing.blocks)) : 1n;
    l1.on('block', this.onL1Block);
    l2.on('block', this.onL2Block);
    l1.on('reorg', this.onL1Reorg);
    l2.on('reorg', this.onL2Reorg);
    this.background("following the L1's finality", () => this.followFinality());
    // What the chains say is left undone: done now if due, else when it is.
    if (this.anchoring !== 'manual') {
      if ('seconds' in this.anchoring) this.anchorIn(this.anchoring.seconds);
      else this.background('anchoring L1 messages on the L2', () => this.anchorDue());
    }
    if (this.finalizing !== 'manual') {
      if ('seconds' in this.finalizing) {
        const every = setInterval(
          () => this.background('finalizing L2 blocks on the L1', () => this.finalizeDue()),
          this.finalizing.seconds * 1000,
        );
        every.unref();
        this.timers.add(every);
      } else this.background('finalizing L2 blocks on the L1', () => this.finalizeDue());
    }
  }

  /** Resolves once the work asked for so far was done (its transactions submitted). */
  async idle(): Promise<void> {
    await this.work;
  }

  /** l2_anchorMessages: anchors every L1 message not anchored yet, now, whatever the delay. */
  anchorMessages(): Promise<Anchoring> {
    return this.queue(() => this.anchor(() => true));
  }

  /** l2_finalize: finalizes the L2 up to its head now, messages or not; undefined when the head is finalized already. */
  finalize(): Promise<Finalization | undefined> {
    return this.queue(() => this.finalizeTo(this.l2.headNumber, true));
  }

  /**
   * evm_snapshot on either chain's paths: both chains remembered at once, in the relay's queue (a
   * message half relayed would tie a snapshot of one to a later state of the other). The id is
   * `on`'s own; reverting to it on `on`'s paths takes the other chain back with it.
   */
  snapshot(on: 'l1' | 'l2'): Promise<bigint> {
    return this.queue(async () => {
      const ids = { l1: await this.l1.dev.snapshot(), l2: await this.l2.dev.snapshot() };
      this.partners[on].set(ids[on], ids[on === 'l1' ? 'l2' : 'l1']);
      return ids[on];
    });
  }

  /**
   * evm_revert on `on`'s paths: that chain to snapshot `id`, the other to the snapshot taken with it;
   * false, as evm_revert answers, when either is gone. The L2's tags follow the L1 before it answers.
   */
  revertTo(on: 'l1' | 'l2', id: bigint): Promise<boolean> {
    return this.queue(async () => {
      const [chain, other] = on === 'l1' ? [this.l1, this.l2] : [this.l2, this.l1];
      const partner = this.partners[on].get(id);
      for (const later of [...this.partners[on].keys()]) if (later >= id) this.partners[on].delete(later);
      if (!(await chain.dev.revertTo(id))) return false;
      const both = partner === undefined || (await other.dev.revertTo(partner));
      await this.followFinality();
      return both;
    });
  }

  /**
   * anvil_rollback or anvil_reorg on `on`'s paths (`job`): answered once the other chain dropped what
   * it held of the dropped blocks and the L2's tags follow the L1.
   */
  rewind<T>(job: () => Promise<T>): Promise<T> {
    return this.queue(async () => {
      const answer = await job();
      await this.agree();
      await this.followFinality();
      return answer;
    });
  }

  /** anvil_reset on either chain's paths: the other chain starts again too (`resetOne` resets the one asked; its answer). */
  reset<T>(on: 'l1' | 'l2', resetOne: () => Promise<T>): Promise<T> {
    return this.queue(async () => {
      const answer = await resetOne();
      await (on === 'l1' ? this.l2 : this.l1).dev.reset();
      this.partners.l1.clear();
      this.partners.l2.clear();
      await this.followFinality();
      return answer;
    });
  }

  /** Stops the relay: no more work starts on its own; what was started ends first. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.l1.off('block', this.onL1Block);
    this.l2.off('block', this.onL2Block);
    this.l1.off('reorg', this.onL1Reorg);
    this.l2.off('reorg', this.onL2Reorg);
    await this.idle();
  }

  private readonly onL1Block = (_block: Block, receipts: Receipt[]) => {
    this.background("following the L1's finality", () => this.followFinality());
    const messages = receipts.flatMap((r) => r.logs.filter(isL1Message));
    if (messages.length > 0) this.l1Waiting = true;
    if (this.anchoring === 'manual' || !this.l1Waiting) return;
    if ('seconds' in this.anchoring) {
      if (messages.length === 0) return;
      const now = Date.now();
      for (const log of messages) this.seenAt.set(bytesToBigInt(log.topics[1]), now);
      this.anchorIn(this.anchoring.seconds);
      return;
    }
    this.background('anchoring L1 messages on the L2', () => this.anchorDue());
  };

  private readonly onL2Block = (block: Block, receipts: Receipt[]) => {
    if (receipts.some((r) => r.logs.some((l) => isMessageSent(l, L2_MESSAGE_SERVICE)))) this.l2Waiting = true;
    if (this.finalizing === 'manual' || 'seconds' in this.finalizing || !this.l2Waiting) return;
    if (block.header.number % this.finalizeEvery !== 0n) return;
    this.background('finalizing L2 blocks on the L1', () => this.finalizeDue());
  };

  private readonly onL1Reorg = (n: bigint) => this.onReorg('l1', n);
  private readonly onL2Reorg = (n: bigint) => this.onReorg('l2', n);

  /**
   * `on` dropped its blocks above `n` (a snapshot reverted, a rollback, a reorg): the other chain
   * drops what it held of them (`agree`, queued: a revert or reset of both in the relay's queue ends
   * first, and leaves nothing to drop); an anchoring or finalization that went with them is made
   * again at the next block or timer.
   */
  private onReorg(on: 'l1' | 'l2', n: bigint): void {
    const lowest = this.dropped[on];
    if (lowest === undefined || n < lowest) this.dropped[on] = n;
    this.l1Waiting = true;
    this.l2Waiting = true;
    this.background('bringing the chains to agree', () => this.agree());
    this.background("following the L1's finality", () => this.followFinality());
  }

  /**
   * Takes each chain back to where it agrees with the blocks the other dropped: the L2 to before its
   * first anchoring of a message the L1 no longer holds below the blocks it dropped, the L1 to before
   * its first finalization of an L2 block that was dropped. Each going back can drop what the other
   * holds in turn: repeated until neither moves.
   */
  private async agree(): Promise<void> {
    for (;;) {
      const { l1, l2 } = this.dropped;
      this.dropped = {};
      if (l1 === undefined && l2 === undefined) return;
      if (l1 !== undefined) {
        // The L1 service's slot 1: nextMessageNumber; the L2 service's slot 3: lastAnchoredL1MessageNumber.
        const kept = bytesToBigInt(await this.l1.reads.getStorage(L1_MESSAGE_SERVICE, word(1n), l1)) - 1n;
        await this.dropAbove(this.l2, L2_MESSAGE_SERVICE, word(3n), kept, `anchored L1 message ${kept + 1n}`);
      }
      // The L1 service's slot 4: currentL2BlockNumber.
      if (l2 !== undefined)
        await this.dropAbove(this.l1, L1_MESSAGE_SERVICE, word(4n), l2, `finalized L2 block ${l2 + 1n}`);
    }
  }

  /**
   * Rolls `chain` back to before its first block whose `slot` of `service` holds more than `bound`
   * (a number that only grows along the chain), when its head's does; `what` that block did, for the log.
   */
  private async dropAbove(chain: Chain, service: Uint8Array, slot: Uint8Array, bound: bigint, what: string) {
    const at = async (n: bigint) => bytesToBigInt(await chain.reads.getStorage(service, slot, n));
    let [lo, hi] = [chain.reads.firstNumber, chain.headNumber];
    if ((await at(hi)) <= bound) return;
    while (lo < hi) {
      const mid = (lo + hi) / 2n;
      if ((await at(mid)) > bound) hi = mid;
      else lo = mid + 1n;
    }
    const name = chain === this.l1 ? 'the L1' : 'the L2';
    this.log(`${name} goes back to block ${lo - 1n}: block ${lo} ${what}, which the other chain dropped`);
    await chain.dev.rollback(chain.headNumber - (lo - 1n));
  }

  /** Sets the L2's `finalized` and `safe` to the last L2 block the L1 has finalized as of its `finalized` block. */
  private async followFinality(): Promise<void> {
    const at = (await this.l1.reads.resolveNumber({ kind: 'finalized' })) ?? 0n;
    // The L1 service's slot 4: currentL2BlockNumber.
    await this.l2.dev.followFinality(bytesToBigInt(await this.l1.reads.getStorage(L1_MESSAGE_SERVICE, word(4n), at)));
  }

  /** `job` after the work asked for before it; its failure is the caller's, the work goes on. */
  private queue<T>(job: () => Promise<T>): Promise<T> {
    const run = this.work.then(job);
    this.work = run.catch(() => undefined);
    return run;
  }

  /** `job` queued, its failure said in the node's log. */
  private background(what: string, job: () => Promise<unknown>): void {
    if (this.closed) return;
    this.queue(job).catch((e: Error) => this.log(`${what} failed: ${e.message}`));
  }

  /** An anchoring of what is due queued in `seconds`. */
  private anchorIn(seconds: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.background('anchoring L1 messages on the L2', () => this.anchorDue());
    }, seconds * 1000);
    timer.unref();
    this.timers.add(timer);
  }

  /** Anchors the L1 messages whose delay has passed. */
  private async anchorDue(): Promise<void> {
    const cadence = this.anchoring;
    if (cadence === 'manual') return;
    if ('blocks' in cadence) {
      await this.anchor((m) => m.blockNumber + BigInt(cadence.blocks) <= this.l1.headNumber);
      return;
    }
    const now = Date.now();
    const dueAt = (m: L1Message) => (this.seenAt.get(m.number) ?? this.startedAt) + cadence.seconds * 1000;
    const { next } = await this.anchor((m) => dueAt(m) <= now);
    // A timer can fire a little before the wall clock says the delay has passed: the first message
    // still waiting is looked at again when it is due.
    if (next !== undefined) this.anchorIn(Math.max(dueAt(next) - Date.now(), 1) / 1000);
  }

  /** Finalizes the L2 up to its last block on the cadence, if a message waits. */
  private async finalizeDue(): Promise<void> {
    const cadence = this.finalizing;
    if (cadence === 'manual') return;
    const head = this.l2.headNumber;
    await this.finalizeTo(head - (head % this.finalizeEvery), false);
  }

  /**
   * Anchors on the L2 the L1 messages after the last anchored (or waiting to be) that `due` takes, in
   * order up to the first it does not; then, with autoClaim, claims them.
   */
  private async anchor(due: (m: L1Message) => boolean): Promise<Anchoring & { next?: L1Message }> {
    const out: Anchoring = { messageHashes: [], transactionHashes: [] };
    const after = await this.anchoredUpTo();
    const logs = await this.l1.reads.getLogs({
      fromBlock: 0n,
      toBlock: this.l1.headNumber,
      addresses: [L1_MESSAGE_SERVICE],
      topics: [[L1_ROLLING_HASH_UPDATED, MESSAGE_SENT]],
    });
    const waiting = l1Messages(logs, after);
    const messages: L1Message[] = [];
    for (const m of waiting) {
      if (!due(m)) break;
      messages.push(m);
    }
    for (let i = 0; i < messages.length; i += MAX_HASHES) {
      const batch = messages.slice(i, i + MAX_HASHES);
      const last = batch[batch.length - 1];
      const data = anchorCalldata(
        batch.map((m) => m.hash),
        batch[0].number,
        last.number,
        last.rollingHash,
      );
      out.transactionHashes.push(
        await this.send(this.l2, L2_MESSAGE_SERVICE, data, 100_000n + 30_000n * BigInt(batch.length)),
      );
    }
    out.messageHashes = messages.map((m) => m.hash);
    // Only now that they are sent: a send that failed leaves the messages to be looked at again.
    const next = waiting[messages.length];
    this.l1Waiting = next !== undefined;
    for (const m of messages) this.seenAt.delete(m.number);
    if (this.autoClaim) {
      const sent = sentMessages(logs, L1_MESSAGE_SERVICE);
      for (const m of messages) {
        const message = sent.find((s) => equalsBytes(s.hash, m.hash));
        if (message !== undefined)
          await this.send(this.l2, L2_MESSAGE_SERVICE, claimCalldata(message, operatorAddress()), CLAIM_GAS);
      }
    }
    return { ...out, next };
  }

  /**
   * Finalizes on the L1 the L2 blocks after the last finalized (or waiting to be) up to `to`: the
   * Merkle roots of their messages and the blocks that sent them, in parts of at most
   * MAX_FINALIZED_BLOCKS messaging blocks and MAX_FINALIZED_MESSAGES messages (a block's messages are
   * never split: Linea's SDK rebuilds a tree from all of a finalization's blocks). Without `always`,
   * only when a message is among them. Then, with autoClaim, claims each message with its proof.
   */
  private async finalizeTo(to: bigint, always: boolean): Promise<Finalization | undefined> {
    const from = (await this.finalizedUpTo()) + 1n;
    if (to < from) return undefined;
    const logs = await this.l2.reads.getLogs({
      fromBlock: from,
      toBlock: to,
      addresses: [L2_MESSAGE_SERVICE],
      topics: [[MESSAGE_SENT]],
    });
    if (logs.length === 0 && !always) {
      this.l2Waiting = to < this.l2.headNumber;
      return undefined;
    }
    // The messages by block (logs come in chain order), then the blocks in parts.
    const byBlock: LocatedLog[][] = [];
    for (const log of logs) {
      const last = byBlock[byBlock.length - 1];
      if (last !== undefined && last[0].blockNumber === log.blockNumber) last.push(log);
      else byBlock.push([log]);
    }
    const parts: LocatedLog[][] = [[]];
    let blocks = 0;
    for (const block of byBlock) {
      const part = parts[parts.length - 1];
      if (part.length > 0 && (blocks === MAX_FINALIZED_BLOCKS || part.length + block.length > MAX_FINALIZED_MESSAGES)) {
        parts.push([...block]);
        blocks = 1;
      } else {
        part.push(...block);
        blocks++;
      }
    }
    const done: Finalization = { l2BlockNumber: to, merkleRoots: [], messagingBlocks: [], transactionHashes: [] };
    let parentRoot = await this.lineaStateRoot(from - 1n);
    for (const [i, part] of parts.entries()) {
      // Each part up to its last messaging block; the last one up to `to`.
      const partTo = i === parts.length - 1 ? to : part[part.length - 1].blockNumber;
      const finalRoot = await this.lineaStateRoot(partTo);
      const { merkleRoots, messagingBlocks, transactionHash } = await this.finalizePart(
        partTo,
        [parentRoot, finalRoot],
        part,
      );
      parentRoot = finalRoot;
      done.merkleRoots.push(...merkleRoots);
      done.messagingBlocks.push(...messagingBlocks);
      done.transactionHashes.push(transactionHash);
    }
    this.l2Waiting = to < this.l2.headNumber;
    return done;
  }

  /**
   * Linea's state root after L2 block `n` (its sparse Merkle tries'), which the L1 stores at
   * finalization; zero for a forked L2, whose tries the node does not hold.
   */
  private async lineaStateRoot(n: bigint): Promise<Uint8Array> {
    try {
      return await this.l2.reads.lineaStateRoot(n);
    } catch (e) {
      if (e instanceof StateProofUnavailableError) return new Uint8Array(32);
      throw e;
    }
  }

  /**
   * One finalization transaction: L2 blocks up to `to`, Linea's state roots before and after them,
   * and the messages they sent (`logs`).
   */
  private async finalizePart(
    to: bigint,
    [parentRoot, finalRoot]: [Uint8Array, Uint8Array],
    logs: LocatedLog[],
  ): Promise<{ merkleRoots: Uint8Array[]; messagingBlocks: bigint[]; transactionHash: Uint8Array }> {
    // The L2 service's MessageSent logs (getLogs' filter): each message's hash is the last topic.
    const hashes = logs.map((l) => l.topics[3]);
    const messagingBlocks = [...new Set(logs.map((l) => l.blockNumber))];
    const size = 2 ** MESSAGE_TREE_DEPTH;
    const trees: Uint8Array[][][] = [];
    for (let i = 0; i < hashes.length; i += size)
      trees.push(merkleLevels(hashes.slice(i, i + size), MESSAGE_TREE_DEPTH));
    const merkleRoots = trees.map((levels) => levels[MESSAGE_TREE_DEPTH][0]);
    // The last L1 message the L2 had anchored by block `to`, and the rolling hash then (the L2
    // service's slot 3, lastAnchoredL1MessageNumber, and its mapping at slot 4, l1RollingHashes).
    const anchored = bytesToBigInt(await this.l2.reads.getStorage(L2_MESSAGE_SERVICE, word(3n), to));
    const anchoredRollingHash =
      anchored === 0n
        ? new Uint8Array(32)
        : setLengthLeft(
            await this.l2.reads.getStorage(L2_MESSAGE_SERVICE, keccak256(concatBytes(word(anchored), word(4n))), to),
            32,
          );
    const data = concatBytes(
      FINALIZE_SELECTOR,
      word(to),
      parentRoot,
      finalRoot,
      word(anchored),
      anchoredRollingHash,
      word(0x100n),
      word(BigInt(MESSAGE_TREE_DEPTH)),
      word(0x120n + 0x20n * BigInt(merkleRoots.length)),
      word(BigInt(merkleRoots.length)),
      ...merkleRoots,
      word(BigInt(messagingBlocks.length)),
      ...messagingBlocks.map(word),
    );
    // Measured: ~25k a root (a stored depth, a LOG3), ~1.5k a messaging block (a LOG2 and its calldata);
    // the state roots, the shnarf and DataFinalizedV3 ~70k more.
    const gas = 220_000n + 30_000n * BigInt(merkleRoots.length) + 3_000n * BigInt(messagingBlocks.length);
    const transactionHash = await this.send(this.l1, L1_MESSAGE_SERVICE, data, gas);
    if (this.autoClaim)
      // Each message with its proof: its tree, its leaf, the siblings from the bottom up.
      for (const [at, m] of sentMessages(logs, L2_MESSAGE_SERVICE).entries()) {
        const levels = trees[Math.floor(at / size)];
        const leaf = at % size;
        const proof = Array.from({ length: MESSAGE_TREE_DEPTH }, (_, d) => levels[d][(leaf >> d) ^ 1]);
        const claim = claimWithProofCalldata(m, proof, leaf, levels[MESSAGE_TREE_DEPTH][0], operatorAddress());
        await this.send(this.l1, L1_MESSAGE_SERVICE, claim, CLAIM_GAS);
      }
    return { merkleRoots, messagingBlocks, transactionHash };
  }

  /** The last L1 message anchored on the L2, or in an anchoring waiting in its pool. */
  private async anchoredUpTo(): Promise<bigint> {
    // An anchoring's third word: its final number; the L2 service's slot 3: lastAnchoredL1MessageNumber.
    // The pool first: an anchoring mined in between is then in the state read after.
    const waiting = this.waiting(this.l2, ANCHOR_SELECTOR, 2);
    return maxOf(waiting, await stored(this.l2, L2_MESSAGE_SERVICE, word(3n)));
  }

  /** The last L2 block finalized on the L1, or in a finalization waiting in its pool. */
  private async finalizedUpTo(): Promise<bigint> {
    // A finalization's first word: its last block; the L1 service's slot 4: currentL2BlockNumber.
    // The pool first, as for anchorings.
    const waiting = this.waiting(this.l1, FINALIZE_SELECTOR, 0);
    return maxOf(waiting, await stored(this.l1, L1_MESSAGE_SERVICE, word(4n)));
  }

  /** The highest `index`-th word of the operator's `selector` calls waiting in `chain`'s pool. */
  private waiting(chain: Chain, selector: Uint8Array, index: number): bigint {
    let out = 0n;
    for (const { tx } of chain.reads.poolTransactionsFrom(operatorAddress()))
      if (equalsBytes(tx.data.subarray(0, 4), selector))
        out = maxOf(out, bytesToBigInt(tx.data.subarray(4 + 32 * index, 36 + 32 * index)));
    return out;
  }

  /** A transaction of the operator's to `to` on `chain`; its hash. */
  private async send(chain: Chain, to: Uint8Array, data: Uint8Array, gasLimit: bigint): Promise<Uint8Array> {
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
    return chain.txs.submit(tx, operator);
  }
}

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);

/** Whether `log` is the L1 service's RollingHashUpdated: one per message, its number the first topic. */
function isL1Message(log: Log): boolean {
  return (
    equalsBytes(log.address, L1_MESSAGE_SERVICE) &&
    log.topics.length === 4 &&
    equalsBytes(log.topics[0], L1_ROLLING_HASH_UPDATED)
  );
}

/** The L1 service's messages among `logs` numbered after `after`, in order. */
function l1Messages(logs: LocatedLog[], after: bigint): L1Message[] {
  const out: L1Message[] = [];
  for (const log of logs) {
    const number = isL1Message(log) ? bytesToBigInt(log.topics[1]) : 0n;
    if (number > after)
      out.push({ number, rollingHash: log.topics[2], hash: log.topics[3], blockNumber: log.blockNumber });
  }
  return out;
}

/** Whether `log` is `service`'s MessageSent: from, to and the message's hash indexed. */
function isMessageSent(log: Log, service: Uint8Array): boolean {
  return equalsBytes(log.address, service) && log.topics.length === 4 && equalsBytes(log.topics[0], MESSAGE_SENT);
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
    if (!isMessageSent(log, service)) continue;
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
