/**
 * Runs what must leave no trace: eth_call, eth_estimateGas, the RPC-stage line check and the
 * `pending` block preview. It has its own VM over the same state database; each use moves that VM
 * to the wanted state root, opens a journal checkpoint and reverts it afterwards, so nothing is ever
 * written. Uses are serialised (the VM has one journal).
 */
import { createBlock } from '@ethereumjs/block';
import type { Block, HeaderData } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles } from '@ethereumjs/evm';
import type { EVMResult } from '@ethereumjs/evm';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToHex, bytesToUnprefixedHex, createAccount, equalsBytes, hexToBytes } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import type { RunTxResult, VM } from '@ethereumjs/vm';

import { beginBlock, buildBlock } from './blockBuilder';
import type { BuildInput } from './blockBuilder';
import {
  ExecutionHaltedError,
  ExecutionRevertedError,
  ExecutionTimeoutError,
  InsufficientFundsError,
  InvalidArgumentError,
  StateOverrideError,
  TracerError,
} from '../errors';
import { ExecutionGuard } from './executionGuard';
import { gasSpent, intrinsicGasParts } from '../pool/intrinsicGas';
import type { IntrinsicGas } from '../pool/intrinsicGas';
import { LineCounter } from '../lines/lineCounter';
import type { LineCounts } from '../lines/lineCounter';
import type { LineLimits } from '../lines/lineLimits';
import type { TracerProfileName } from '../lines/lineProfiles';
import { decodeRevertReason } from './revertReason';
import { simulateBlocks } from './simulate';
import type { SimBlockInput, SimHost, SimOptions, SimulatedBlock } from './simulate';
import { countsLines, makeTracer } from './tracers/makeTracer';
import type {
  BlockOverrides,
  EvmObserver,
  MessageEvent,
  MessageResult,
  StateReader,
  StepEvent,
  TraceOptions,
  TraceResult,
  TracerContext,
} from './tracers/tracer';
import { LruCache } from '../support/lru';
import { SerialQueue } from '../support/serialQueue';
import { flatStateManager } from '../state/flatState';
import { OverlayDB, stateCaches } from '../state/stateDb';
import type { StateDB } from '../state/stateDb';
import type { PoolTx } from '../pool/txPool';
import type { Receipt } from '../types';

export interface CallRequest {
  from?: Uint8Array;
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
}

/** geth's per-account state override (the optional third param of eth_call). */
export interface StateOverride {
  address: Uint8Array;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Replaces the whole storage. */
  state?: [Uint8Array, Uint8Array][];
  /** Patches single slots. */
  stateDiff?: [Uint8Array, Uint8Array][];
  /** The precompile at `address` runs at this address instead (geth's movePrecompileToAddress). */
  movePrecompileTo?: Uint8Array;
}

export interface CallResult {
  returnValue: Uint8Array;
  gasUsed: bigint;
  lineCounts: LineCounts | undefined;
}

type Blockchain = {
  getBlock(n: number): Promise<{ hash(): Uint8Array }>;
  putBlock(): Promise<void>;
  shallowCopy(): Blockchain;
};

const ZERO_ADDRESS = new Uint8Array(20);
/** geth's eth_estimateGas stops when the bracket is within 1.5% of the answer. */
const ESTIMATE_ERROR_RATIO = 0.015;
/** geth's default `--rpc.evmtimeout`: how long one eth_call (or estimate, access list) may run. */
export const RPC_EVM_TIMEOUT_MS = 5_000;

export interface SimulatorOptions {
  /** Count lines at all; default true. */
  lineCounting?: boolean;
  /** Which Linea tracer the line counter follows; default osaka. */
  tracer?: TracerProfileName;
  /** The chain's DAO fork block (a genesis that supports it). */
  daoForkBlock?: bigint;
  /** How long a call, estimate or access list may run (ms); 0 for no limit. Default 5 s. */
  evmTimeoutMs?: number;
}

export class Simulator {
  private readonly queue = new SerialQueue();
  private root: Uint8Array | undefined;
  private readonly contexts = new LruCache<string, Block>(64);
  private readonly guard: ExecutionGuard;
  /** This use's overrides moved or removed precompiles: the fork's set is put back after it. */
  private precompilesChanged = false;
  /** How long a call, estimate or access list may run (ms); 0 for no limit. */
  private readonly evmTimeoutMs: number;
  /** The chain's DAO fork block (a genesis that supports it): replays and previews of it drain first. */
  private readonly daoForkBlock: bigint | undefined;

  private constructor(
    private readonly vm: VM,
    private readonly counter: LineCounter,
    private readonly overlay: OverlayDB,
    /** Hashes of blocks eth_simulateV1 made, by number, for BLOCKHASH while it runs. */
    private readonly simulatedHashes: Map<bigint, Uint8Array>,
    opts: SimulatorOptions,
  ) {
    this.guard = new ExecutionGuard(vm.evm);
    this.evmTimeoutMs = opts.evmTimeoutMs ?? RPC_EVM_TIMEOUT_MS;
    this.daoForkBlock = opts.daoForkBlock;
  }

  static async create(
    common: Common,
    stateDb: StateDB,
    blockchain: Blockchain,
    opts: SimulatorOptions = {},
  ): Promise<Simulator> {
    // Its own scratch layer: nothing it computes may reach the block the miner commits next.
    const overlay = new OverlayDB(stateDb);
    // Small unbounded caches: they hold only what one use writes, which every use reverts; reads are
    // kept by the flat state.
    const sm = flatStateManager(overlay, stateDb.flat, common, stateCaches(0));
    const simulatedHashes = new Map<bigint, Uint8Array>();
    const chain: Blockchain = {
      getBlock: async (n: number) => {
        const hash = simulatedHashes.get(BigInt(n));
        return hash === undefined ? blockchain.getBlock(n) : { hash: () => hash };
      },
      putBlock: async () => {},
      shallowCopy() {
        return this;
      },
    };
    const vm = await createVM({ common, stateManager: sm, blockchain: chain });
    const counter = new LineCounter(vm.evm, opts.lineCounting ?? true, opts.tracer ?? 'osaka');
    return new Simulator(vm, counter, overlay, simulatedHashes, opts);
  }

  /** The EVM's precompiles: address (unprefixed hex) to function; state overrides may change them for one use. */
  private get precompileMap(): Map<string, unknown> {
    return (this.vm.evm as unknown as { _precompiles: Map<string, unknown> })._precompiles;
  }

  private set precompileMap(map: Map<string, unknown>) {
    (this.vm.evm as unknown as { _precompiles: Map<string, unknown> })._precompiles = map;
  }

  /** Puts back the fork's precompiles (as the EVM builds them on a fork change) after overrides changed them. */
  private restorePrecompiles(): void {
    if (!this.precompilesChanged) return;
    this.precompileMap = getActivePrecompiles(this.vm.common);
    this.precompilesChanged = false;
  }

  /**
   * Runs `fn` on the state `root`, inside a checkpoint that is always reverted. With `timed`, the
   * execution is halted after `evmTimeoutMs` (or after `timed` ms) and fails with
   * ExecutionTimeoutError (a call's answer); without it (a transaction's line check, the pending
   * block) it runs to its end, as in a block. Lines are counted only when `countLines` (the result
   * needs them).
   */
  private withState<T>(root: Uint8Array, timed: boolean | number, fn: () => Promise<T>, countLines = true): Promise<T> {
    return this.queue.run(async () => {
      this.counter.setActive(countLines);
      if (this.root === undefined || !equalsBytes(this.root, root)) {
        await this.vm.stateManager.setStateRoot(root);
        this.root = root;
      }
      const timeoutMs = typeof timed === 'number' ? timed : timed ? this.evmTimeoutMs : 0;
      // The state manager's checkpoint depth: the journal's own height is reset by every call.
      const sm = this.vm.stateManager as unknown as { _checkpointCount: number };
      const depth = sm._checkpointCount;
      await this.vm.evm.journal.checkpoint();
      this.guard.begin(timeoutMs);
      try {
        const result = await fn();
        if (this.guard.timedOut) throw new ExecutionTimeoutError(timeoutMs);
        return result;
      } catch (e) {
        if (this.guard.timedOut) throw new ExecutionTimeoutError(timeoutMs);
        throw e;
      } finally {
        this.guard.end();
        // Every checkpoint opened since, this one and any a failed run left open, is reverted.
        while (sm._checkpointCount > depth) await this.vm.evm.journal.revert();
        this.overlay.clear();
        this.restorePrecompiles();
      }
    });
  }

  /**
   * Sealing a block moved the trie to the block's root, in the overlay that is about to be cleared:
   * the next use must set its root again.
   */
  private forgetRoot(): void {
    this.root = undefined;
  }

  /** The block context a call sees: block `block`, with base fee 0 when the call names no fee (as geth). */
  private context(block: Block, zeroBaseFee: boolean): Block {
    if (!zeroBaseFee || block.header.baseFeePerGas === undefined) return block;
    const key = bytesToHex(block.hash());
    let ctx = this.contexts.get(key);
    if (ctx === undefined) {
      ctx = createBlock({ header: { ...block.header.toJSON(), baseFeePerGas: 0n } }, { common: this.vm.common });
      this.contexts.set(key, ctx);
    }
    return ctx;
  }

  /** The block context with geth's block overrides applied. */
  private overridden(block: Block, o: BlockOverrides | undefined): Block {
    if (o === undefined) return block;
    const header = {
      ...block.header.toJSON(),
      // A call's context, not the mined block: nothing of it is used yet.
      gasUsed: 0n,
      ...(o.number !== undefined && { number: o.number }),
      ...(o.time !== undefined && { timestamp: o.time }),
      ...(o.gasLimit !== undefined && { gasLimit: o.gasLimit }),
      ...(o.coinbase !== undefined && { coinbase: o.coinbase }),
      ...(o.random !== undefined && { mixHash: o.random }),
      ...(o.baseFee !== undefined && { baseFeePerGas: o.baseFee }),
    };
    try {
      return createBlock({ header }, { common: this.vm.common });
    } catch (e) {
      throw new InvalidArgumentError(`block overrides: ${(e as Error).message.split('\n')[0]}`);
    }
  }

  /**
   * geth's state overrides (override.StateOverride.Apply), in address order: an overridden precompile
   * address is a precompile no more, and `movePrecompileTo` runs its precompile at another address
   * (not one overridden in the same set, nor a destination of another move) for this use.
   */
  private async applyOverrides(overrides: StateOverride[]): Promise<void> {
    const sm = this.vm.stateManager;
    // Each set starts from the fork's precompiles: a simulated block's moves are not the next one's.
    this.restorePrecompiles();
    const hex = (a: Uint8Array) => bytesToUnprefixedHex(a);
    const overridden = new Set(overrides.map((o) => hex(o.address)));
    const moved = new Set<string>();
    const sorted = [...overrides].sort((a, b) => (hex(a.address) < hex(b.address) ? -1 : 1));
    for (const o of sorted) {
      const key = hex(o.address);
      if (moved.has(key))
        throw new StateOverrideError(`account ${bytesToHex(o.address)} has already been overridden by a precompile`);
      const precompile = this.precompileMap.get(key);
      if (precompile !== undefined || o.movePrecompileTo !== undefined) {
        // The first change of this use: a map of its own, the EVM's left as it is.
        if (!this.precompilesChanged) {
          this.precompileMap = new Map(this.precompileMap);
          this.precompilesChanged = true;
        }
      }
      if (o.movePrecompileTo !== undefined) {
        if (precompile === undefined)
          throw new StateOverrideError(`account ${bytesToHex(o.address)} is not a precompile`);
        const to = hex(o.movePrecompileTo);
        if (overridden.has(to))
          throw new StateOverrideError(`account ${bytesToHex(o.movePrecompileTo)} is already overridden`);
        this.precompileMap.set(to, precompile);
        moved.add(to);
      }
      if (precompile !== undefined) this.precompileMap.delete(key);
    }
    for (const o of overrides) {
      const address = new Address(o.address);
      const account = (await sm.getAccount(address)) ?? createAccount({});
      if (o.balance !== undefined) account.balance = o.balance;
      if (o.nonce !== undefined) account.nonce = o.nonce;
      await sm.putAccount(address, account);
      if (o.code !== undefined) await sm.putCode(address, o.code);
      if (o.state !== undefined) {
        await sm.clearStorage(address);
        for (const [k, v] of o.state) await sm.putStorage(address, k, v);
      }
      for (const [k, v] of o.stateDiff ?? []) await sm.putStorage(address, k, v);
    }
  }

  /**
   * One message call; the journal has been checkpointed by the caller. With `prepaid` the caller has
   * taken the gas from the sender already (eth_simulateV1), so only the value must be there.
   */
  private async runCall(req: CallRequest, block: Block, gasLimit: bigint, prepaid = false): Promise<EVMResult> {
    const caller = new Address(req.from ?? ZERO_ADDRESS);
    const gasPrice = req.gasPrice ?? req.maxFeePerGas ?? 0n;
    const value = req.value ?? 0n;
    if (!prepaid && (gasPrice > 0n || value > 0n)) {
      const balance = (await this.vm.stateManager.getAccount(caller))?.balance ?? 0n;
      const want = gasLimit * gasPrice + value;
      if (balance < want) throw new InsufficientFundsError(caller.bytes, balance, want);
    }
    // Warm what a transaction would warm (EIP-2929), so gas figures match a real transaction.
    const journal = this.vm.evm.journal;
    for (const p of this.precompileMap.keys()) journal.addAlwaysWarmAddress(p);
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(caller.bytes));
    if (req.to !== undefined) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(req.to));
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(block.header.coinbase.bytes));
    try {
      return await this.vm.evm.runCall({
        caller,
        origin: caller,
        to: req.to === undefined ? undefined : new Address(req.to),
        value,
        data: req.data ?? new Uint8Array(),
        gasLimit,
        gasPrice,
        block: this.context(block, req.gasPrice === undefined && req.maxFeePerGas === undefined),
      });
    } finally {
      // Forget what this call warmed (the next call has its own sender and target); the state it
      // touched is reverted by the caller's checkpoint.
      journal.cleanJournal();
      (journal as unknown as { accessList?: unknown }).accessList = undefined;
    }
  }

  /**
   * A transaction like `req` (what its line counts are folded with), and the gas it pays before it
   * runs (`upfront`) and the least it pays in all: with EIP-7623 the calldata floor, which is
   * charged at the end, not before execution (as geth).
   */
  private asTransaction(req: CallRequest): { tx: TypedTransaction; intrinsic: IntrinsicGas } {
    const data = { to: req.to, value: req.value ?? 0n, data: req.data ?? new Uint8Array(), gasLimit: 0n };
    const tx = this.vm.common.isActivatedEIP(1559)
      ? createFeeMarket1559Tx(data, { common: this.vm.common })
      : createLegacyTx(data, { common: this.vm.common });
    return { tx, intrinsic: intrinsicGasParts(tx) };
  }

  /** One call with at most `gas`, its lines counted when `countLines`; inside a use (withState). */
  private async countedCall(
    req: CallRequest,
    block: Block,
    gas: bigint,
    countLines: boolean,
  ): Promise<{ result: EVMResult; intrinsic: IntrinsicGas; lineCounts: LineCounts | undefined }> {
    const { tx, intrinsic } = this.asTransaction(req);
    if (countLines) this.counter.begin();
    const result = await this.runCall(req, block, gas > intrinsic.upfront ? gas - intrinsic.upfront : 0n);
    return { result, intrinsic, lineCounts: countLines ? this.counter.end(tx, result) : undefined };
  }

  /** eth_call: the return value, or ExecutionRevertedError / ExecutionHaltedError. */
  call(
    req: CallRequest,
    block: Block,
    root: Uint8Array,
    gasCap: bigint,
    countLines: boolean,
    overrides: StateOverride[] = [],
  ): Promise<CallResult> {
    const gas = cappedGas(req, gasCap);
    return this.withState(
      root,
      true,
      async () => {
        await this.applyOverrides(overrides);
        const { result, intrinsic, lineCounts } = await this.countedCall(req, block, gas, countLines);
        throwIfFailed(result);
        return {
          returnValue: result.execResult.returnValue,
          gasUsed: gasSpent(intrinsic, result.execResult, false),
          lineCounts,
        };
      },
      countLines,
    );
  }

  /**
   * eth_estimateGas: the smallest gas limit (within 1.5%) at which the call succeeds, found by
   * binary search as geth does; plus the line counts of the run at that limit.
   */
  estimateGas(
    req: CallRequest,
    block: Block,
    root: Uint8Array,
    gasCap: bigint,
    /** Judges the line counts of the first run before its outcome, as linea_estimateGas does. */
    checkLines: (counts: LineCounts) => void = () => {},
  ): Promise<{ gas: bigint; lineCounts: LineCounts }> {
    const hi0 = cappedGas(req, gasCap);
    return this.withState(root, true, async () => {
      const { tx, intrinsic } = this.asTransaction(req);
      // A plain transfer to an account without code needs exactly its intrinsic gas (as geth answers).
      if ((req.data === undefined || req.data.length === 0) && req.to !== undefined) {
        const code = await this.vm.stateManager.getCode(new Address(req.to));
        if (code.length === 0 && hi0 >= intrinsic.floor) {
          this.counter.begin();
          const probe = await this.runCall(req, block, 0n);
          const lineCounts = this.counter.end(tx, probe);
          checkLines(lineCounts);
          throwIfFailed(probe);
          return { gas: intrinsic.floor, lineCounts };
        }
      }
      const attempt = async (gas: bigint): Promise<EVMResult> => {
        await this.vm.evm.journal.checkpoint();
        try {
          return await this.runCall(req, block, gas - intrinsic.upfront);
        } finally {
          await this.vm.evm.journal.revert();
        }
      };
      if (hi0 < intrinsic.floor) throw new ExecutionHaltedError(`gas required exceeds allowance (${hi0})`);
      this.counter.begin();
      const first = await attempt(hi0);
      const lineCounts = this.counter.end(tx, first);
      checkLines(lineCounts);
      throwIfFailed(first);
      const used = gasSpent(intrinsic, first.execResult, false);
      let lo = used - 1n;
      let hi = hi0;
      // Most calls succeed with what they used plus the 1/64 kept back by each call frame.
      const guess = ((used + (first.execResult.gasRefund ?? 0n) + 2300n) * 64n) / 63n;
      if (guess < hi) {
        const r = await attempt(guess);
        if (r.execResult.exceptionError === undefined) hi = guess;
        else lo = guess;
      }
      while (hi - lo > 1n && Number(hi - lo) / Number(hi) > ESTIMATE_ERROR_RATIO) {
        const mid = (hi + lo) / 2n;
        const r = await attempt(mid);
        if (r.execResult.exceptionError === undefined) hi = mid;
        else lo = mid;
      }
      return { gas: hi, lineCounts };
    });
  }

  /**
   * eth_createAccessList: the accounts and slots the call touches, less the sender, the target and
   * the precompiles (which every transaction warms anyway), as geth reports it.
   */
  createAccessList(
    req: CallRequest,
    block: Block,
    root: Uint8Array,
    gasCap: bigint,
  ): Promise<{ accessList: [Uint8Array, Uint8Array[]][]; gasUsed: bigint }> {
    const gas = cappedGas(req, gasCap);
    return this.withState(
      root,
      true,
      async () => {
        const journal = this.vm.evm.journal as unknown as {
          startReportingAccessList(): void;
          accessList?: Map<string, Set<string>>;
        };
        journal.startReportingAccessList();
        // runCall's cleanup drops the journal's reference; the map itself keeps what was recorded.
        const touched = journal.accessList as Map<string, Set<string>>;
        const { intrinsic } = this.asTransaction(req);
        const result = await this.runCall(req, block, gas - intrinsic.upfront);
        throwIfFailed(result);
        const skip = new Set([
          ...this.precompileMap.keys(),
          bytesToUnprefixedHex(req.from ?? ZERO_ADDRESS),
          req.to ? bytesToUnprefixedHex(req.to) : '',
        ]);
        const accessList: [Uint8Array, Uint8Array[]][] = [];
        for (const [addr, slots] of touched) {
          if (skip.has(addr) && slots.size === 0) continue;
          accessList.push([hexToBytes(`0x${addr}`), [...slots].map((s) => hexToBytes(`0x${s.padStart(64, '0')}`))]);
        }
        return { accessList, gasUsed: gasSpent(intrinsic, result.execResult, false) };
      },
      false,
    );
  }

  /** Line counts of a signed transaction run on the state after `parent` (stage RPC check). */
  countTransaction(tx: TypedTransaction, root: Uint8Array, header: HeaderData): Promise<LineCounts | undefined> {
    return this.withState(root, false, async () => {
      const context = createBlock({ header }, { common: this.vm.common });
      this.counter.begin();
      try {
        const result = await runTx(this.vm, { tx, block: context, skipNonce: true, skipHardForkValidation: true });
        return this.counter.end(tx, result);
      } catch {
        // It cannot run on the pending state (yet); the sequencer stage still checks it.
        return undefined;
      }
    });
  }

  /** The block the pool would produce next, built on a scratch state. */
  /**
   * Line counts of a call as a simulation sees them (a conflation of its own), whatever its outcome:
   * a reverted or failed run is counted as far as it went.
   */
  countCall(req: CallRequest, block: Block, root: Uint8Array, gasCap: bigint): Promise<LineCounts> {
    const gas = cappedGas(req, gasCap);
    return this.withState(
      root,
      true,
      async () => (await this.countedCall(req, block, gas, true)).lineCounts as LineCounts,
    );
  }

  /** Runs a mined block's transactions again on its parent's state, counting lines as its builder did. */
  replayLines(
    root: Uint8Array,
    header: HeaderData,
    candidates: PoolTx[],
  ): Promise<{ totals: LineCounts; added: LineCounts[] }> {
    return this.withState(root, false, async () => {
      const result = await buildBlock({
        vm: this.vm,
        header,
        candidates,
        lineCounter: this.counter,
        limits: undefined,
        daoForkBlock: this.daoForkBlock,
      });
      this.forgetRoot();
      return { totals: result.lineTotals, added: result.lineAdded };
    });
  }

  /**
   * Runs a mined block's transactions again on its parent's state, tracing each (or only the one at
   * `only`, the ones before it run untraced) with a new tracer named by `options`.
   */
  traceBlock(
    root: Uint8Array,
    block: Block,
    senders: Uint8Array[],
    options: TraceOptions,
    only?: number,
  ): Promise<{ txHash: Uint8Array; result: TraceResult }[]> {
    return this.withState(
      root,
      options.timeout ?? true,
      async () => {
        this.counter.startBlock();
        // The block's own writes before its transactions (beacon root, parent hash), as when it was mined.
        await beginBlock(this.vm, block, this.daoForkBlock);
        const out: { txHash: Uint8Array; result: TraceResult }[] = [];
        let gasUsed = 0n;
        for (const [i, tx] of block.transactions.entries()) {
          if (only !== undefined && i > only) break;
          const start = [senders[i], ...(tx.to === undefined ? [] : [tx.to.bytes]), block.header.coinbase.bytes];
          const tracer = only === undefined || i === only ? makeTracer(options, this.tracerContext(start)) : undefined;
          const run = () => runTx(this.vm, { tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true });
          this.counter.beginTx();
          const withState = tracer?.capture !== undefined;
          if (withState) await this.vm.evm.journal.checkpoint();
          const detach = tracer === undefined ? () => {} : this.attach(tracer);
          let result: RunTxResult;
          try {
            result = await run();
          } finally {
            detach();
          }
          const lineCounts = this.counter.endTx(tx, result);
          this.counter.commitTx();
          if (withState) {
            // The state after the transaction, then before it; then the transaction again, untraced.
            await tracer?.capture?.('post', this.stateReader());
            await this.vm.evm.journal.revert();
            await tracer?.capture?.('pre', this.stateReader());
            const counting = this.counter.isActive;
            this.counter.setActive(false);
            try {
              await run();
            } finally {
              this.counter.setActive(counting);
            }
          }
          gasUsed += result.totalGasSpent;
          if (tracer === undefined) continue;
          const summary = {
            from: senders[i],
            to: tx.to?.bytes,
            createdAddress: result.createdAddress?.bytes,
            input: tx.data,
            value: tx.value,
            gasLimit: tx.gasLimit,
            gasUsed: result.totalGasSpent,
            error: result.execResult.exceptionError?.error,
            returnValue: result.execResult.returnValue,
            lineCounts,
            blockHash: block.hash(),
            blockNumber: block.header.number,
            txHash: tx.hash(),
            txIndex: i,
          };
          out.push({ txHash: tx.hash(), result: tracer.result(summary) });
        }
        return out;
      },
      countsLines(options),
    );
  }

  /** debug_traceCall: a call on the state after `block`, with overrides, traced as `options` say. */
  traceCall(
    req: CallRequest,
    mined: Block,
    root: Uint8Array,
    gasCap: bigint,
    overrides: StateOverride[],
    options: TraceOptions,
  ): Promise<TraceResult> {
    const gas = cappedGas(req, gasCap);
    return this.withState(
      root,
      options.timeout ?? true,
      async () => {
        await this.applyOverrides(overrides);
        const block = this.overridden(mined, options.blockOverrides);
        const start = [
          req.from ?? ZERO_ADDRESS,
          ...(req.to === undefined ? [] : [req.to]),
          block.header.coinbase.bytes,
        ];
        const tracer = makeTracer(options, this.tracerContext(start));
        const { tx, intrinsic } = this.asTransaction(req);
        this.counter.begin();
        if (tracer.capture !== undefined) await this.vm.evm.journal.checkpoint();
        const detach = this.attach(tracer);
        let result: EVMResult;
        try {
          result = await this.runCall(req, block, gas > intrinsic.upfront ? gas - intrinsic.upfront : 0n);
        } finally {
          detach();
        }
        const lineCounts = this.counter.end(tx, result);
        if (tracer.capture !== undefined) {
          await tracer.capture('post', this.stateReader());
          await this.vm.evm.journal.revert();
          await tracer.capture('pre', this.stateReader());
        }
        return tracer.result({
          from: req.from ?? ZERO_ADDRESS,
          to: req.to,
          createdAddress: result.createdAddress?.bytes,
          input: req.data ?? new Uint8Array(),
          value: req.value ?? 0n,
          gasLimit: gas,
          gasUsed: gasSpent(intrinsic, result.execResult, true),
          error: result.execResult.exceptionError?.error,
          returnValue: result.execResult.returnValue,
          lineCounts,
        });
      },
      countsLines(options),
    );
  }

  /** eth_simulateV1: blocks of calls on the state after `parent` (simulate.ts). */
  simulate(
    parent: Block,
    root: Uint8Array,
    input: SimBlockInput<StateOverride>[],
    opts: SimOptions,
  ): Promise<SimulatedBlock[]> {
    return this.withState(root, true, async () => {
      const host: SimHost<StateOverride> = {
        vm: this.vm,
        applyOverrides: (overrides) => this.applyOverrides(overrides),
        simulated: (number, hash) => this.simulatedHashes.set(number, hash),
        runCall: async (call, block, gasLimit, gasPrice, tx, tracer) => {
          this.counter.begin();
          const detach = tracer === undefined ? undefined : this.attach(tracer);
          let result: EVMResult;
          try {
            result = await this.runCall(
              { ...call, gasPrice, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined },
              block,
              gasLimit,
              true,
            );
          } finally {
            detach?.();
          }
          return { result, lineCounts: this.counter.end(tx, result) };
        },
      };
      try {
        return await simulateBlocks(host, parent, input, opts);
      } finally {
        // Sealing the simulated blocks moved the trie's root inside the overlay about to be cleared.
        this.forgetRoot();
        this.simulatedHashes.clear();
      }
    });
  }

  private stateReader(): StateReader {
    const sm = this.vm.stateManager;
    return {
      account: async (bytes) => {
        const address = new Address(bytes);
        const account = await sm.getAccount(address);
        return { balance: account?.balance ?? 0n, nonce: account?.nonce ?? 0n, code: await sm.getCode(address) };
      },
      storage: (bytes, slot) => sm.getStorage(new Address(bytes), slot),
    };
  }

  private tracerContext(start: Uint8Array[]): TracerContext {
    return {
      start,
      isPrecompile: (address) => this.precompileMap.has(bytesToUnprefixedHex(address)),
      counts: () => this.counter.liveCounts(),
      profile: this.counter.profile.name,
    };
  }

  /**
   * Feeds the EVM's events to `tracer` until the returned function is called; that function throws
   * what the tracer threw, if it did.
   */
  private attach(tracer: EvmObserver): () => void {
    const events = this.vm.evm.events;
    type Done = (() => void) | undefined;
    let failure: unknown;
    const step = (data: StepEvent, resolve: Done) => {
      try {
        const r = tracer.onStep?.(data);
        if (r instanceof Promise)
          r.then(
            () => resolve?.(),
            (e: unknown) => {
              failure ??= e;
              resolve?.();
            },
          );
        else resolve?.();
      } catch (e) {
        failure ??= e;
        resolve?.();
      }
    };
    const enter = (message: MessageEvent, resolve: Done) => {
      tracer.onEnter?.(message);
      resolve?.();
    };
    const exit = (result: MessageResult, resolve: Done) => {
      tracer.onExit?.(result);
      resolve?.();
    };
    const on = events as unknown as {
      on(name: string, fn: (...a: never[]) => void): void;
      off(name: string, fn: (...a: never[]) => void): void;
    };
    if (tracer.steps) on.on('step', step);
    on.on('beforeMessage', enter);
    on.on('afterMessage', exit);
    return () => {
      if (tracer.steps) on.off('step', step);
      on.off('beforeMessage', enter);
      on.off('afterMessage', exit);
      if (failure !== undefined) throw new TracerError(`the tracer failed: ${(failure as Error).message}`);
    };
  }

  preview(
    root: Uint8Array,
    header: HeaderData,
    candidates: PoolTx[],
    limits: LineLimits | undefined,
    screen: BuildInput['screen'],
  ): Promise<{ block: Block; receipts: Receipt[] }> {
    return this.withState(root, false, async () => {
      const result = await buildBlock({
        vm: this.vm,
        header,
        candidates,
        lineCounter: this.counter,
        limits,
        screen,
        daoForkBlock: this.daoForkBlock,
      });
      this.forgetRoot();
      return { block: result.block, receipts: result.receipts };
    });
  }
}

/** Spec, Limits: a call's gas is capped (10× the block gas limit); without a gas, the cap. */
function cappedGas(req: CallRequest, cap: bigint): bigint {
  return req.gas === undefined || req.gas > cap ? cap : req.gas;
}

function throwIfFailed(result: EVMResult): void {
  const error = result.execResult.exceptionError;
  if (error === undefined) return;
  if (error.error === 'revert') {
    const data = result.execResult.returnValue;
    throw new ExecutionRevertedError(data, decodeRevertReason(data));
  }
  throw new ExecutionHaltedError(error.error);
}
