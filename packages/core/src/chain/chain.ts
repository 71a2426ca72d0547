/**
 * The chain: one EVM chain in one process, as a facade over its parts. Each part owns one concern
 * and receives the shared head (chain/head.ts) explicitly:
 *
 *   reads    blocks, receipts, transactions, logs, state and proofs at any block
 *   calls    eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1
 *   traces   debug_trace* of mined transactions, blocks and calls
 *   txs      admission: decoding, validation, the line gate's verdict, the pool; signing as the node
 *   miner    building and committing blocks; automine, interval and manual mining; the pending block
 *   lines    the line gate: limits, exclusions and their records, line counts of calls and blocks
 *   dev      devnet control: state edits, time, snapshots, rollbacks, reorgs, finality
 *   imports  geth's block import and export
 *
 * Every change to the chain runs through one queue, so blocks are built one at a time; reads never
 * wait for it. The chain speaks typed values only (bigint, Uint8Array, ethereumjs objects).
 *
 * `refork` starts an in-memory chain again on another fork (anvil_reset's `forking`): the parts are
 * replaced under the same object, so every holder of the chain, and every listener, carries on.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex } from '@ethereumjs/util';

import type { DevAccount } from '../config/accounts';
import { initFastCrypto } from '../config/fastCrypto';
import { ChainError, DatabaseOpenError, InvalidArgumentError } from '../errors';
import { ownEngine } from '../evm/engine';
import type { EngineName } from '../evm/engine';
import type { ForkOptions, ForkState } from '../fork/forkState';
import type { LineLimits } from '../lines/lineLimits';
import type { SequencerRulesConfig } from '../pool/sequencerRules';
import { openKvStore } from '../store/kvStore';
import type { KvStore } from '../store/kvStore';
import { Admission } from './admission';
import { Calls } from './calls';
import { ChainImport } from './chainImport';
import { NodeClock } from './clock';
import { DevControl } from './devControl';
import { FinalityTags } from './finality';
import type { ChainEvents, ChainHead } from './head';
import { LineGate } from './lineGate';
import { Miner } from './miner';
import type { MiningMode } from './miner';
import { openChain, refuseForeignDatabase } from './open';
import type { GenesisOptions, KeptOption } from './open';
import { Reads } from './reads';
import { Traces } from './traces';

export interface ChainOptions extends GenesisOptions {
  /** Where the database lives; undefined keeps everything in memory. */
  dataDir?: string;
  /**
   * Without `dataDir`: the MiB of blocks, receipts and state held in memory; past it the oldest go
   * to a temporary file and are read from there (store/byteMap.ts). Default no limit.
   */
  memoryLimitMb?: number;
  mining?: MiningMode;
  clock?: NodeClock;
  /** `finalized` is this many blocks behind `latest`; default 64 (as Anvil). */
  finalizedDepth?: bigint;
  /** `safe` is this many blocks behind `latest`; default 32 (as Anvil). */
  safeDepth?: bigint;
  /** eth_getLogs limits; defaults from the spec (10,000 results, 10 s). */
  maxLogResults?: number;
  logQueryTimeoutMs?: number;
  /** Line limits; undefined disables the line-count checks (counting still runs). */
  lineLimits?: LineLimits;
  /** Refuse overflowing transactions at submission (stage RPC); default true. */
  rpcLineCheck?: boolean;
  /** How blocks take pool transactions: `fees` (highest tip first, the default) or `fifo` (Anvil's --order). */
  order?: 'fees' | 'fifo';
  /** eth_sendTransaction may send from any address without its key (Anvil's --auto-impersonate). */
  autoImpersonate?: boolean;
  /** Senders whose transactions go first in blocks and are not priced (Besu's --tx-pool-priority-senders). */
  prioritySenders?: Uint8Array[];
  /** `false` takes a transaction whose sender cannot pay for it into the pool (Anvil's --disable-pool-balance-checks). */
  poolBalanceChecks?: boolean;
  /** Most transactions a mined block takes (Anvil's --max-transactions); default as many as fit. */
  maxTransactions?: number;
}

/** The parts of a chain (see the header), replaced together by `refork`. */
interface ChainParts {
  reads: Reads;
  calls: Calls;
  traces: Traces;
  txs: Admission;
  miner: Miner;
  lines: LineGate;
  dev: DevControl;
  imports: ChainImport;
}

export class Chain {
  // Replaced only by `refork`, all together.
  reads!: Reads;
  calls!: Calls;
  traces!: Traces;
  txs!: Admission;
  miner!: Miner;
  lines!: LineGate;
  dev!: DevControl;
  imports!: ChainImport;
  /** Options given that a reopened chain did not take: it keeps the values it was made with. */
  keptOptions: KeptOption[] = [];
  /** Where the dev accounts are derived, each one's index appended. */
  derivationPath = "m/44'/60'/0'/0/";
  private closed = false;

  private constructor(
    private head: ChainHead,
    /** The dev accounts, funded at genesis; the node signs for them. */
    readonly accounts: readonly DevAccount[],
    readonly mnemonic: string,
    /** What the chain was made with (a refork makes the new chain with the same). */
    private readonly opts: ChainOptions,
    parts: ChainParts,
  ) {
    this.adopt(parts);
  }

  /**
   * anvil_reset's `forking`: this chain starts again from `fork` (a new dev chain without one), in
   * memory, with the options it was made with and the mining mode it has now. Every listener moves
   * to the new chain; the old one is closed. A chain in a data directory is one chain: refused.
   */
  async refork(fork: ForkOptions | undefined): Promise<void> {
    if (this.opts.dataDir !== undefined)
      throw new InvalidArgumentError(
        'forking another remote or block needs an in-memory node: a data directory holds one chain',
      );
    // A fork takes its chain id and state from the remote, not the options' genesis.
    const base = fork === undefined ? this.opts : { ...this.opts, genesis: undefined, chainId: undefined };
    const next = await Chain.create({ ...base, fork, mining: this.miner.mode });
    const old = this.head;
    this.miner.stop();
    await old.idle();
    for (const event of old.events.eventNames())
      for (const listener of old.events.listeners(event)) next.head.events.on(event, listener as never);
    old.events.removeAllListeners();
    this.head = next.head;
    this.calls.close();
    this.adopt(next);
    await old.close();
  }

  private adopt(parts: ChainParts): void {
    ({
      reads: this.reads,
      calls: this.calls,
      traces: this.traces,
      txs: this.txs,
      miner: this.miner,
      lines: this.lines,
      dev: this.dev,
      imports: this.imports,
    } = parts);
  }

  /** Opens (or creates) the chain. */
  static async create(opts: ChainOptions = {}): Promise<Chain> {
    await initFastCrypto();
    const kv = await openKvStore(
      opts.dataDir,
      opts.memoryLimitMb === undefined ? undefined : opts.memoryLimitMb * 2 ** 20,
    );
    try {
      if (opts.dataDir !== undefined) await refuseForeignDatabase(kv, opts.dataDir);
      return await Chain.open(kv, opts);
    } catch (e) {
      await kv.close();
      if (opts.dataDir === undefined || e instanceof ChainError) throw e;
      // LevelDB opened it, but what it holds is not a chain this node can read.
      throw new DatabaseOpenError(
        `the database in ${opts.dataDir} cannot be read as an l2devnet chain (${(e as Error).message}): move the ` +
          'directory aside and start again to begin a new chain there, or start with another --data-dir',
      );
    }
  }

  private static async open(kv: KvStore, opts: ChainOptions): Promise<Chain> {
    const opened = await openChain(kv, opts, opts.clock ?? new NodeClock());
    const { head, simulator } = opened;
    const finality = await FinalityTags.load(kv, head.store, opts.finalizedDepth ?? 64n, opts.safeDepth ?? 32n);
    const reads = new Reads(head, finality, opts);
    const lines = new LineGate(head, simulator, opened.counter, opts, opened.workers);
    const miner = new Miner(head, lines, simulator, reads);
    const txs = new Admission(head, lines, miner, opened.accounts);
    const calls = new Calls(head, simulator, lines, opened.workers);
    const traces = new Traces(head, simulator, opened.workers);
    const leaveWorkers = () => {
      calls.leaveWorkers();
      traces.leaveWorkers();
      lines.leaveWorkers();
    };
    const chain = new Chain(head, opened.accounts, opened.mnemonic, opts, {
      reads,
      calls,
      traces,
      txs,
      miner,
      lines,
      dev: new DevControl(head, finality, miner, leaveWorkers, txs),
      imports: new ChainImport(head, lines, finality),
    });
    chain.keptOptions = opened.kept;
    chain.derivationPath = opened.derivationPath;
    head.pool.order = opts.order ?? 'fees';
    for (const sender of opts.prioritySenders ?? []) head.pool.prioritySenders.add(bytesToHex(sender));
    txs.autoImpersonate = opts.autoImpersonate ?? false;
    txs.balanceChecks = opts.poolBalanceChecks ?? true;
    miner.maxTransactions = opts.maxTransactions;
    miner.setMining(opts.mining ?? { mode: 'auto' });
    // A restarted automining chain mines what its pool kept ready, as it would have on arrival.
    if (miner.mode.mode === 'auto') await miner.mineReady();
    return chain;
  }

  /** Listens for the chain's events: `block`, `pendingTransaction`, `excluded`, `reorg`, `error`. */
  on<K extends keyof ChainEvents>(event: K, listener: (...args: ChainEvents[K]) => void): this {
    this.head.events.on(event, listener as never);
    return this;
  }

  once<K extends keyof ChainEvents>(event: K, listener: (...args: ChainEvents[K]) => void): this {
    this.head.events.once(event, listener as never);
    return this;
  }

  off<K extends keyof ChainEvents>(event: K, listener: (...args: ChainEvents[K]) => void): this {
    this.head.events.off(event, listener as never);
    return this;
  }

  get chainId(): bigint {
    return this.head.common.chainId();
  }

  /** What a forked chain was forked from (--fork-url): the remote and the fork block; undefined otherwise. */
  get fork(): ForkState | undefined {
    return this.head.stateDb.flat.fork;
  }

  /** The chain's configuration (its fork schedule, chain id); transactions are built with it. */
  get common(): Common {
    return this.head.common;
  }

  get headNumber(): bigint {
    return this.head.number;
  }

  /**
   * Which EVM runs the chain's calls and blocks: the node's own (`l2devnet`; ethereumjs still runs
   * what it does not: docs/benchmarks.md) or ethereumjs throughout (`--engine ethereumjs`, or the
   * process's L2DEVNET_ENGINE=ethereumjs).
   */
  get engine(): EngineName {
    return ownEngine(this.opts.engine) ? 'l2devnet' : 'ethereumjs';
  }

  /** The fork of the block about to be built. */
  get hardfork(): string {
    return this.head.vm.common.hardfork();
  }

  /** Linea's sequencer rules in force, if they apply (pool/sequencerRules.ts). */
  get sequencerRules(): SequencerRulesConfig | undefined {
    return this.head.rules?.config;
  }

  /** The gas limit of the next block (evm_setBlockGasLimit changes it). */
  get gasLimit(): bigint {
    return this.head.gasLimit;
  }

  set gasLimit(limit: bigint) {
    this.head.gasLimit = limit;
  }

  /** The node's clock: wall time plus what time travel moved it by. */
  get clock(): NodeClock {
    return this.head.clock;
  }

  /** The database (the server keeps its credit counts there). */
  get kv(): KvStore {
    return this.head.kv;
  }

  /** Mines one block now (evm_mine). */
  mine(opts: { timestamp?: bigint } = {}): Promise<Block> {
    return this.miner.mine(opts);
  }

  /** evm_snapshot: an id for `revertTo`. */
  snapshot(): Promise<bigint> {
    return this.dev.snapshot();
  }

  /** evm_revert: false when the id is unknown or used up. */
  revertTo(id: bigint): Promise<boolean> {
    return this.dev.revertTo(id);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.miner.stop();
    this.calls.close();
    await this.head.close();
  }
}
