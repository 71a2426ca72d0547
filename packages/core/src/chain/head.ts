/**
 * The head of the chain: what every part of the chain shares and changes only inside the chain's
 * queue (`exclusive`), so blocks are built one at a time.
 *
 * - The working root: the state reads at the head see. It is the head block's stateRoot unless state
 *   was edited since (anvil_set*, a loaded dump); then it is kept in the database (META_WORKING_ROOT).
 * - The fork rules: with a genesis file's schedule, the mining VM's Common is moved to the fork of the
 *   block about to be built; previews work on a copy, never on the shared one.
 * - The next block's header: time, base fee, gas limit, coinbase, and the one-shot overrides.
 * - The pool, and its rows in the database, kept in step with the head.
 */
import { EventEmitter } from 'node:events';

import { createBlockHeader } from '@ethereumjs/block';
import type { Block, BlockHeader, HeaderData } from '@ethereumjs/block';
import { ConsensusType } from '@ethereumjs/common';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { createTxFromRLP } from '@ethereumjs/tx';
import { Address, equalsBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

import { INITIAL_BASE_FEE } from '../config/genesis';
import { lineaPrevRandao, signAhead } from '../config/prevRandao';
import { HeaderNotFoundError } from '../errors';
import { DAO_FORK_EXTRA } from '../exec/blockBuilder';
import type { CallRequest } from '../exec/simulator';
import type { ExclusionRecord } from '../lines/exclusionStore';
import type { LineOverflow } from '../lines/lineLimits';
import { BundlePool } from '../pool/bundlePool';
import { ForcedQueue } from '../pool/forcedQueue';
import { delPoolRow, POOL_ROWS, putPoolRow } from '../pool/poolRows';
import type { SequencerRules } from '../pool/sequencerRules';
import { withSender } from '../pool/txCodec';
import { TxPool } from '../pool/txPool';
import type { StateDB } from '../state/stateDb';
import type { ChainStore } from '../store/chainStore';
import type { KvOp, KvStore } from '../store/kvStore';
import { SerialQueue } from '../support/serialQueue';
import type { LocatedLog, Receipt } from '../types';
import type { NodeClock } from './clock';

export interface ChainEvents {
  block: [block: Block, receipts: Receipt[]];
  pendingTransaction: [hash: Uint8Array];
  excluded: [record: ExclusionRecord];
  /** A block's selection stopped because a module's cumulative count would pass its limit (BLOCK_MODULE_LINE_COUNT_FULL). */
  blockFull: [blockNumber: bigint, overflow: LineOverflow];
  /** Blocks above `newHead` were dropped (rollback, reorg, snapshot revert); their logs, marked removed. */
  reorg: [newHead: bigint, removedLogs: LocatedLog[]];
  error: [error: Error];
}

export type ChainEmitter = EventEmitter<ChainEvents>;

/** Spec, Limits: eth_call and eth_estimateGas gas is capped at 10× the block gas limit. */
export const CALL_GAS_CAP_FACTOR = 10n;

/** The state root reads at the head use when it differs from the head block's (state edited by anvil_set*). */
const META_WORKING_ROOT = new Uint8Array([0x6d, ...new TextEncoder().encode('root')]);

export class ChainHead {
  readonly pool = new TxPool();
  /** Bundles waiting for their block (linea_sendBundle). */
  readonly bundles = new BundlePool();
  /** Forced transactions waiting, and how those that ended did (linea_sendForcedRawTransaction). */
  readonly forced = new ForcedQueue();
  /** What the parts tell listeners (the chain's `on`): blocks, pending transactions, exclusions, reorgs. */
  readonly events: ChainEmitter = new EventEmitter<ChainEvents>();
  /** The state at the head: the head block's stateRoot unless state was edited since. */
  workingRoot: Uint8Array = new Uint8Array(32);
  /** The state the chain started with (anvil_reset goes back to it): its first block's, dev accounts funded. */
  startRoot: Uint8Array = new Uint8Array(32);
  /** Linea's sequencer rules beyond line counts, when they apply (--sequencer-rules). */
  rules: SequencerRules | undefined;
  /** A fixed gas cap for calls (--rpc-gas-cap); unset, the cap follows the gas limit. */
  rpcGasCap: bigint | undefined;
  /** The next block's gas limit (--gas-limit, evm_setBlockGasLimit). */
  gasLimit = 0n;
  /** The next block's beneficiary (anvil_setCoinbase). */
  coinbase: Uint8Array = new Uint8Array(20);
  /** One-shot overrides for the next block (evm_setNextBlockTimestamp, anvil_setNextBlockBaseFeePerGas). */
  nextTimestamp: bigint | undefined;
  /** Each block this many seconds after its parent, whatever the clock says (anvil_setBlockTimestampInterval). */
  timestampInterval: bigint | undefined;
  nextBaseFeeOverride: bigint | undefined;
  private readonly queue = new SerialQueue();

  constructor(
    readonly common: Common,
    /** A genesis file's fork schedule (blocks or times) rather than one fork throughout. */
    readonly scheduled: boolean,
    readonly kv: KvStore,
    readonly store: ChainStore,
    readonly stateDb: StateDB,
    /** The mining VM: its state manager is the head state, warm. */
    readonly vm: VM,
    readonly clock: NodeClock,
    /** A genesis file's DAO fork block, when it supports the fork. */
    readonly daoForkBlock: bigint | undefined,
  ) {
    // Each waiting eth_sendRawTransactionSync listens for blocks: no listener limit.
    this.events.setMaxListeners(0);
  }

  /** Runs `fn` after every earlier change to the chain has finished. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(fn);
  }

  /** Resolves once every change queued so far has finished. */
  idle(): Promise<unknown> {
    return this.queue.idle();
  }

  /** Once every queued change has finished: closes the database and the fork cache. */
  async close(): Promise<void> {
    await this.idle();
    await this.kv.close();
    this.stateDb.flat.fork?.cache.close();
  }

  get number(): bigint {
    return this.store.headNumber;
  }

  async block(): Promise<Block> {
    return (await this.store.getBlock(this.store.headNumber)) as Block;
  }

  /** The mining VM's state manager: the head state. */
  get state(): MerkleStateManager {
    return this.vm.stateManager as MerkleStateManager;
  }

  // ---------------------------------------------------------------- fork rules

  /** With a genesis file's fork schedule, selects the fork of the block at (number, timestamp). */
  setForkAt(number: bigint, timestamp: bigint): void {
    if (this.scheduled) this.vm.common.setHardforkBy({ blockNumber: number, timestamp });
  }

  /** The chain's Common if it is at the fork of the block at (number, timestamp), else a copy that is. */
  private forkCommon(number: bigint, timestamp: bigint): Common {
    const common = this.vm.common;
    if (!this.scheduled) return common;
    const fork = common.getHardforkBy({ blockNumber: number, timestamp });
    if (fork === common.hardfork()) return common;
    const copy = common.copy();
    copy.setHardfork(fork);
    return copy;
  }

  /** The DAO fork's block and the nine after it carry "dao-hard-fork" (geth's VerifyDAOHeaderExtraData). */
  private inDaoExtraRange(number: bigint): boolean {
    return this.daoForkBlock !== undefined && number >= this.daoForkBlock && number < this.daoForkBlock + 10n;
  }

  // ---------------------------------------------------------------- the next block

  /** The header fields of the block after `parent`; sealing it computes the rest. */
  nextHeader(parent: Block, timestamp?: bigint): HeaderData {
    const now = this.clock.nowSeconds();
    const ts =
      timestamp ??
      this.nextTimestamp ??
      (this.timestampInterval !== undefined
        ? parent.header.timestamp + this.timestampInterval
        : now > parent.header.timestamp
          ? now
          : parent.header.timestamp + 1n);
    const number = parent.header.number + 1n;
    const header: HeaderData = {
      parentHash: parent.hash(),
      number,
      gasLimit: this.gasLimit,
      timestamp: ts,
      coinbase: this.coinbase,
      difficulty: 0n,
      // prevRandao: deterministic per block so runs repeat exactly.
      mixHash: numberWord(number),
    };
    // Linea's PREVRANDAO where its rules apply (config/prevRandao.ts).
    if (this.rules !== undefined) {
      // One signature per block number, however many times its header is made (the check at
      // submission, the build), signed ahead once the block before is committed.
      header.mixHash = lineaPrevRandao(parent.header.mixHash, number);
    }
    if (this.inDaoExtraRange(number)) header.extraData = DAO_FORK_EXTRA;
    // Linea's blocks carry the sequencer's pricing (SEQ/extradata/LineaExtraDataHandler.java, version 1).
    else if (this.rules !== undefined) header.extraData = this.rules.extraData();
    // The fields are those of the new block's own fork. Previews (the pending block, line counts)
    // run outside the chain's queue, so the shared Common is not moved here: mining moves it.
    const common = this.forkCommon(number, ts);
    if (common.consensusType() === ConsensusType.ProofOfWork)
      header.difficulty = createBlockHeader(header, { common }).ethashCanonicalDifficulty(parent.header);
    if (common.isActivatedEIP(1559)) header.baseFeePerGas = this.baseFeeAfter(parent.header, common);
    if (common.isActivatedEIP(4788)) header.parentBeaconBlockRoot = new Uint8Array(32);
    if (common.isActivatedEIP(4844)) {
      header.excessBlobGas = parent.header.calcNextExcessBlobGas(common);
      header.blobGasUsed = 0n;
    }
    return header;
  }

  /** Base fee of the next block. */
  async nextBaseFee(): Promise<bigint> {
    return this.baseFeeAfter((await this.block()).header, this.vm.common);
  }

  /** The base fee of the block after `parent` under its fork (`common`): the override, else the rule's. */
  private baseFeeAfter(parent: BlockHeader, common: Common): bigint {
    if (!common.isActivatedEIP(1559)) return 0n;
    return this.nextBaseFeeOverride ?? ruleBaseFee(parent);
  }

  /**
   * The gas price a call that names no fee runs at in block `block`'s context, not charged: its base
   * fee on a Linea chain (its sequencer rules on), as Besu's estimate, which Linea's nodes run and
   * linea_estimateGas calls (LineaEstimateGas.getGasEstimation; TransactionSimulator.buildTransaction,
   * allowUnderpriced); undefined for a call that names one, and on an Ethereum chain (the L1 beside
   * it, a genesis file's), which runs it at 0 as geth does.
   */
  feelessPrice(req: CallRequest, block: Block): bigint | undefined {
    const named = req.gasPrice ?? req.maxFeePerGas ?? req.maxPriorityFeePerGas;
    return this.rules === undefined || named !== undefined ? undefined : (block.header.baseFeePerGas ?? 0n);
  }

  /** The gas eth_call and its kin may use: `--rpc-gas-cap`, else 10× the block gas limit (spec, Limits). */
  callGasCap(): bigint {
    return this.rpcGasCap ?? this.gasLimit * CALL_GAS_CAP_FACTOR;
  }

  // ---------------------------------------------------------------- state

  /** The head state through the mining VM's warm caches; only inside `exclusive`, where no block is half built. */
  async account(address: Uint8Array): Promise<{ nonce: bigint; balance: bigint }> {
    const account = await this.vm.stateManager.getAccount(new Address(address));
    return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
  }

  /** The nonce `address`'s next transaction should carry, counting the pool; inside `exclusive`. */
  async pendingNonce(address: Uint8Array): Promise<bigint> {
    return this.pool.nextNonce(address, (await this.account(address)).nonce);
  }

  /** Block `n` (the context a simulation sees) and the state root it runs on. */
  async blockAndRoot(n: bigint): Promise<{ block: Block; root: Uint8Array }> {
    const block = await this.store.getBlock(n);
    if (block === undefined) throw new HeaderNotFoundError();
    return { block, root: n === this.number ? this.workingRoot : block.header.stateRoot };
  }

  /** The state root reads at block `n` use: the working root at the head, the block's own otherwise. */
  async stateRootAt(n: bigint): Promise<Uint8Array> {
    return n === this.number ? this.workingRoot : (await this.blockAndRoot(n)).root;
  }

  /** What replaying block `n` needs: the block, its parent's state root, and each transaction's sender. */
  async replayInputs(n: bigint): Promise<{ block: Block; root: Uint8Array; senders: Uint8Array[] } | undefined> {
    if (n <= this.store.first) return undefined;
    const [block, parent, receipts] = await Promise.all([
      this.store.getBlock(n),
      this.store.getBlock(n - 1n),
      this.store.getReceipts(n),
    ]);
    if (block === undefined || parent === undefined || receipts === undefined) return undefined;
    return { block, root: await this.store.preStateRoot(n, parent), senders: receipts.map((r) => r.from) };
  }

  /** Forgets a block that was built but will not be committed. */
  async discardBuild(): Promise<void> {
    this.stateDb.discardPending();
    await this.state.setStateRoot(this.workingRoot);
  }

  /** Makes `root` the head state (edited state), kept in the database with the nodes it created. */
  async setWorkingRoot(root: Uint8Array): Promise<void> {
    const ops: KvOp[] = [];
    this.stateDb.drainInto(ops);
    ops.push({ type: 'put', key: META_WORKING_ROOT, value: root });
    await this.store.write(ops);
    this.workingRoot = root;
    await this.state.setStateRoot(root);
  }

  /** The working root a reopened chain resumes with: the stored one, else the head block's. */
  async resumeWorkingRoot(headBlock: Block): Promise<void> {
    this.workingRoot = (await this.kv.get(META_WORKING_ROOT)) ?? headBlock.header.stateRoot;
    await this.state.setStateRoot(this.workingRoot);
  }

  /**
   * Commits a built block in one atomic write: the state nodes it created, the block and its indexes,
   * `ops`, and the pool rows of `removed` deleted. Nothing is left of it if the write fails. Then the
   * block is the head and `removed` leave the pool.
   */
  async commitBlock(block: Block, receipts: Receipt[], removed: { hash: Uint8Array }[], ops: KvOp[]): Promise<void> {
    const all: KvOp[] = [];
    this.stateDb.drainInto(all);
    // Built on edited state: replays of the block (traces, line counts) start from it.
    const parent = await this.store.getBlock(block.header.number - 1n);
    const edited = parent !== undefined && !equalsBytes(parent.header.stateRoot, this.workingRoot);
    all.push(...this.store.blockOps(block, receipts, edited ? this.workingRoot : undefined));
    for (const ptx of removed) all.push(delPoolRow(ptx.hash));
    all.push(...ops);
    all.push({ type: 'del', key: META_WORKING_ROOT });
    try {
      await this.store.commit(all, block, receipts);
    } catch (e) {
      // Nothing of the block reached the disk: go back to the state that did.
      await this.discardBuild();
      throw e;
    }
    this.workingRoot = block.header.stateRoot;
    for (const ptx of removed) this.pool.remove(ptx.hash);
    if (this.rules !== undefined) signAhead(block.header.number + 1n);
  }

  /**
   * Drops the blocks above `n` and makes `root` the head state; `ops` are written with the change.
   * Returns the logs of the dropped blocks (marked removed) for the `reorg` event.
   */
  async dropAbove(n: bigint, root: Uint8Array, ops: KvOp[]): Promise<LocatedLog[]> {
    const dropped = await this.store.dropAboveOps(n);
    const block = (await this.store.getBlock(n)) as Block;
    const all = [...dropped.ops, ...ops];
    if (equalsBytes(root, block.header.stateRoot)) all.push({ type: 'del', key: META_WORKING_ROOT });
    else all.push({ type: 'put', key: META_WORKING_ROOT, value: root });
    await this.store.dropAbove(n, all);
    this.setForkAt(n + 1n, this.nextTimestamp ?? block.header.timestamp);
    this.workingRoot = root;
    await this.state.setStateRoot(root);
    return dropped.removedLogs;
  }

  // ---------------------------------------------------------------- the pool's rows

  /** The pool as it was at the last stop: every acknowledged transaction not mined yet. */
  async restorePool(): Promise<void> {
    for await (const [, row] of this.kv.range(...POOL_ROWS)) {
      try {
        const sender = row.subarray(0, 20);
        const signed = createTxFromRLP(row.subarray(20), { common: this.common });
        const tx = equalsBytes(signed.getSenderAddress().bytes, sender) ? signed : withSender(signed, sender);
        this.pool.add({ tx, hash: tx.hash(), sender, nonce: tx.nonce, addedAt: this.clock.now() });
      } catch {
        // A transaction the pool accepted decodes; anything else is not worth keeping.
      }
    }
    if (this.pool.size > 0) await this.dropStale();
  }

  /** Removes pool transactions whose nonce the chain has passed: each sender's account is read once. */
  async dropStale(): Promise<void> {
    const ops: KvOp[] = [];
    for (const sender of this.pool.senders()) {
      const { nonce } = await this.account(sender);
      for (const dropped of this.pool.dropMined(sender, nonce)) ops.push(delPoolRow(dropped.hash));
    }
    await this.store.write(ops);
  }

  /** Rewrites the pool's rows to match the pool in memory (after a revert or a reorg rebuilt it). */
  async persistPool(): Promise<void> {
    const ops: KvOp[] = [];
    for await (const [key] of this.kv.range(...POOL_ROWS)) ops.push({ type: 'del', key });
    for (const ptx of this.pool.all()) ops.push(putPoolRow(ptx));
    await this.store.write(ops);
  }
}

/** The base fee EIP-1559 gives the block after `parent`; London's first block has the initial one. */
export function ruleBaseFee(parent: BlockHeader): bigint {
  return parent.baseFeePerGas === undefined ? INITIAL_BASE_FEE : parent.calcNextBaseFee();
}

function numberWord(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  new DataView(out.buffer).setBigUint64(24, n);
  return out;
}
