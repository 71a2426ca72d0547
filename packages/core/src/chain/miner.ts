/**
 * The miner: builds the next block from the pool's ready transactions and commits it (block, receipts,
 * indexes, the state it created and its exclusion records in one atomic write). Automine, interval
 * and manual mining decide when; a build is inside the chain's queue, and one that is not committed
 * is thrown away without a trace.
 */
import type { Block, HeaderData } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, createWithdrawal, equalsBytes } from '@ethereumjs/util';

import {
  BuildBlockError,
  FeeCapTooLowError,
  InsufficientFundsError,
  InvalidTimestampError,
  InvalidTransactionError,
  NonceTooHighError,
  NonceTooLowError,
} from '../errors';
import { asCandidates, buildBlock } from '../exec/blockBuilder';
import type { BuildResult, BundleInput } from '../exec/blockBuilder';
import { maxFeeOf } from '../pool/txPool';
import type { Simulator } from '../exec/simulator';
import { putPoolRow } from '../pool/poolRows';
import type { PoolTx } from '../pool/txPool';
import type { Receipt } from '../types';
import type { ChainHead } from './head';
import type { LineGate } from './lineGate';
import type { Reads } from './reads';

/** What testing_buildBlockV1 builds: the engine API's payload attributes, transactions and extra data. */
export interface TestBlockRequest {
  parentHash: Uint8Array;
  timestamp: bigint;
  prevRandao: Uint8Array;
  feeRecipient: Uint8Array;
  withdrawals?: { index: bigint; validatorIndex: bigint; address: Uint8Array; amount: bigint }[];
  parentBeaconBlockRoot?: Uint8Array;
  /** These, all of them in this order; none for `[]`; the pool's, as mining picks them, for null. */
  transactions: TypedTransaction[] | null;
  extraData?: Uint8Array;
}

export type MiningMode = { mode: 'auto' } | { mode: 'interval'; intervalMs: number } | { mode: 'manual' };

export class Miner {
  private current: MiningMode = { mode: 'auto' };
  /** Most transactions a mined block takes (Anvil's --max-transactions); undefined: as many as fit. */
  maxTransactions: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly head: ChainHead,
    private readonly lines: LineGate,
    private readonly simulator: Simulator,
    private readonly reads: Reads,
  ) {}

  /** When blocks are mined: one per transaction, on an interval, or on request. */
  get mode(): MiningMode {
    return this.current;
  }

  setMining(mode: MiningMode): void {
    this.current = mode;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (mode.mode === 'interval') {
      this.timer = setInterval(() => {
        if (this.stopped) return;
        this.mine().catch((e: Error) => {
          if (this.head.events.listenerCount('error') > 0) this.head.events.emit('error', e);
          else console.error('interval mining failed:', e);
        });
      }, mode.intervalMs);
    }
  }

  /**
   * Automine catching up with what waits: mines blocks while they take ready pool transactions, as
   * Anvil's instant miner does when automine is turned back on, and at start on a data directory
   * whose pool holds executable transactions. A block that would take none is not mined.
   */
  mineReady(): Promise<void> {
    return this.head.exclusive(async () => {
      while (this.head.pool.size > 0) {
        const build = await this.build();
        if (build.included.length + build.excluded.length + build.dropped.length === 0) {
          await this.head.discardBuild();
          return;
        }
        await this.commit(build);
        if (build.included.length === 0) return;
      }
    });
  }

  /** Mines one block with the pool's ready transactions that fit. */
  mine(opts: { timestamp?: bigint } = {}): Promise<Block> {
    return this.head.exclusive(() => this.mineLocked(opts));
  }

  /** Mines one block; inside the chain's queue. */
  async mineLocked(opts: { timestamp?: bigint } = {}): Promise<Block> {
    return this.commit(await this.build(opts.timestamp));
  }

  /**
   * Builds the next block (at `timestamp`, if given) on the head state, not committed yet: the caller
   * commits it or throws it away (head.discardBuild). Inside the chain's queue.
   */
  async build(timestamp?: bigint): Promise<BuildResult> {
    const { head } = this;
    const parent = await head.block();
    if (timestamp !== undefined && timestamp <= parent.header.timestamp) {
      throw new InvalidTimestampError(timestamp, parent.header.timestamp);
    }
    const header = head.nextHeader(parent, timestamp);
    head.setForkAt(header.number as bigint, header.timestamp as bigint);
    const candidates = await head.pool.ordered(
      (header.baseFeePerGas as bigint | undefined) ?? 0n,
      async (sender) => (await head.account(sender)).nonce,
    );
    try {
      return await buildBlock({
        vm: head.vm,
        header,
        candidates,
        lineCounter: this.lines.counter,
        limits: this.lines.limits,
        screen: this.lines.screen(true),
        daoForkBlock: head.daoForkBlock,
        blockRules: head.rules?.startBlock((header.baseFeePerGas as bigint | undefined) ?? 0n),
        forced: head.forced.pending().map((f) => f.ptx),
        bundles: this.bundlesFor(header),
        maxTransactions: this.maxTransactions,
      });
    } catch (e) {
      await head.discardBuild();
      throw e;
    }
  }

  /**
   * Commits a built block: its transactions (included, excluded or dropped) leave the pool, its
   * exclusion records are written with it. `submitted`, a transaction just acknowledged that waits
   * for a later block (this one is full), gets its pool row written with the block, so the hash its
   * sender holds survives a restart.
   */
  async commit(build: BuildResult, submitted?: PoolTx): Promise<Block> {
    const { head } = this;
    const { block, receipts } = build;
    const removed = [...build.included, ...build.excluded.map((e) => e.ptx), ...build.dropped.map((d) => d.ptx)];
    const { records, ops } = this.lines.sequencerRecords(build);
    if (submitted !== undefined && !removed.includes(submitted)) ops.push(putPoolRow(submitted));
    await head.commitBlock(block, receipts, removed, ops);
    head.bundles.dropUpTo(block.header.number);
    head.forced.ended(
      {
        number: block.header.number,
        timestamp: block.header.timestamp,
        hashes: new Set(block.transactions.map((tx) => bytesToHex(tx.hash()))),
      },
      build.forcedRejection,
      bytesToHex,
    );
    head.nextTimestamp = undefined;
    head.nextBaseFeeOverride = undefined;
    await head.dropStale();
    this.lines.excluded(records);
    head.events.emit('block', block, receipts);
    if (build.full !== undefined) head.events.emit('blockFull', block.header.number, build.full);
    return block;
  }

  /**
   * testing_buildBlockV1, as geth's testing API (eth/catalyst/api_testing.go): the block on the head
   * with the given attributes, built and thrown away; the chain does not move. Given transactions are
   * all included or the build fails with the first one's reason; they are not judged by line counts.
   */
  buildTestBlock(req: TestBlockRequest): Promise<BuildResult> {
    return this.head.exclusive(async () => {
      const { head } = this;
      const parent = await head.block();
      if (!equalsBytes(parent.hash(), req.parentHash)) throw new BuildBlockError('parentHash is not current head');
      if (req.timestamp <= parent.header.timestamp)
        throw new InvalidTimestampError(req.timestamp, parent.header.timestamp);
      const header = head.nextHeader(parent, req.timestamp);
      header.coinbase = req.feeRecipient;
      header.mixHash = req.prevRandao;
      header.extraData = req.extraData ?? new Uint8Array();
      if (header.parentBeaconBlockRoot !== undefined && req.parentBeaconBlockRoot !== undefined)
        header.parentBeaconBlockRoot = req.parentBeaconBlockRoot;
      head.setForkAt(header.number as bigint, header.timestamp as bigint);
      const given = req.transactions;
      let candidates;
      if (given === null)
        candidates = await head.pool.ordered(
          (header.baseFeePerGas as bigint | undefined) ?? 0n,
          async (sender) => (await head.account(sender)).nonce,
        );
      else {
        const senders = given.map((tx) => {
          try {
            return tx.getSenderAddress().bytes;
          } catch {
            throw new InvalidTransactionError('invalid transaction signature');
          }
        });
        candidates = asCandidates(given, senders);
      }
      const withdrawals = (req.withdrawals ?? []).map((w) => createWithdrawal(w));
      let build: BuildResult;
      try {
        build = await buildBlock({
          vm: head.vm,
          header,
          candidates,
          lineCounter: this.lines.counter,
          limits: given === null ? this.lines.limits : undefined,
          screen: given === null ? this.lines.screen(false) : undefined,
          body: { uncles: [], withdrawals },
          daoForkBlock: head.daoForkBlock,
        });
      } catch (e) {
        await head.discardBuild();
        throw e;
      }
      try {
        if (given !== null) {
          const missing = candidates.find((c) => !build.included.includes(c));
          if (missing !== undefined) throw await this.whyNotIncluded(build, missing, header.baseFeePerGas as bigint);
        }
        return build;
      } finally {
        await head.discardBuild();
      }
    });
  }

  /** Why a given transaction did not make the test block, in geth's words where geth has them. */
  private async whyNotIncluded(build: BuildResult, ptx: PoolTx, baseFee: bigint | undefined): Promise<Error> {
    // The sender's state is as the build left it: its later transactions did not run.
    const account = await this.head.account(ptx.sender);
    if (ptx.nonce > account.nonce) return new NonceTooHighError(ptx.sender, ptx.nonce, account.nonce);
    if (ptx.nonce < account.nonce) return new NonceTooLowError(ptx.sender, ptx.nonce, account.nonce);
    const maxFee = maxFeeOf(ptx.tx);
    if (baseFee !== undefined && maxFee < baseFee) return new FeeCapTooLowError(ptx.sender, maxFee, baseFee);
    const cost = ptx.tx.gasLimit * maxFee + ptx.tx.value;
    if (account.balance < cost) return new InsufficientFundsError(ptx.sender, account.balance, cost);
    const dropped = build.dropped.find((d) => d.ptx === ptx);
    if (dropped !== undefined) return new BuildBlockError(dropped.error.message);
    return new BuildBlockError('gas limit reached');
  }

  /** The bundles for the block of `header` (its number, and its timestamp within their window). */
  private bundlesFor(header: HeaderData): BundleInput[] {
    return this.head.bundles
      .forBlock(header.number as bigint, header.timestamp as bigint)
      .map((b) => ({ txs: b.txs, revertible: b.revertible }));
  }

  /** The block that would be mined next from the pool, built on a scratch state and thrown away. */
  async pendingBlock(): Promise<{ block: Block; receipts: Receipt[] }> {
    const { head } = this;
    const parent = await head.block();
    const header = head.nextHeader(parent);
    // Outside the chain's queue: nonces are read from the head block's state, not the mining VM's.
    const candidates = await head.pool.ordered(
      (header.baseFeePerGas as bigint | undefined) ?? 0n,
      async (sender) => (await this.reads.getAccount(sender, parent.header.number)).nonce,
    );
    return this.simulator.preview(
      head.workingRoot,
      header,
      candidates,
      this.lines.limits,
      this.lines.screen(false),
      head.rules?.startBlock((header.baseFeePerGas as bigint | undefined) ?? 0n),
    );
  }

  /** Stops interval mining for good (the chain is closing). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
  }
}
