/**
 * The scratch VM every simulated use runs on (calls, estimates, traces, line counts, previews,
 * eth_simulateV1): its own EVM over an overlay of the state database, so nothing it computes reaches
 * a block. A use runs on the state root it names, inside a checkpoint that is always reverted, one use
 * at a time, with a time limit where the use is an answer to a call; `runCall` is one message call
 * warmed as a transaction would be.
 */
import { createBlock } from '@ethereumjs/block';
import type { Block } from '@ethereumjs/block';
import type { EVMOpts, EVMResult } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bytesToHex, bytesToUnprefixedHex, equalsBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

import { ExecutionHaltedError, ExecutionRevertedError, ExecutionTimeoutError, InsufficientFundsError } from '../errors';
import { FramePool, MAX_ENGINE_GAS, ownEngine, runMessage, World } from '../evm/engine';
import type { EngineName } from '../evm/engine';
import { bothHooks } from '../evm/hooks';
import type { Precompile, StateBackend } from '../evm/engine';
import type { ForkRules } from '../evm/rules';
import { ExecutionGuard } from './executionGuard';
import { blockEnv, engineRules, stateBackend, tracerListening, writeBack } from './onEngine';
import { attach, engineObserver, opcodeInfo } from './tracers/attach';
import type { EngineTransactions } from './onEngine';
import { callIntrinsicGas, callTransaction, gasSpent, intrinsicGasParts } from '../pool/intrinsicGas';
import type { IntrinsicGas } from '../pool/intrinsicGas';
import { requestTransaction } from '../pool/requestTx';
import type { TxRequest } from '../pool/requestTx';
import { LineCounter } from '../lines/lineCounter';
import type { L1L2Bridge } from '../lines/lineCounter';
import type { LineCounts } from '../lines/conflation';
import type { CounterName, TracerProfileName } from '../lines/lineProfiles';
import { decodeRevertReason } from './revertReason';
import { Overrides } from './overrides';
import type { StateOverride } from './overrides';
import type { EvmObserver, TracerContext } from './tracers/tracer';
import { LruCache } from '../support/lru';
import { SerialQueue } from '../support/serialQueue';
import { STOCK_EVM } from '../state/flatState';
import { OverlayDB } from '../state/stateDb';

/** A call: a transaction request (pool/requestTx.ts) from `from` with at most `gas`. */
export interface CallRequest extends TxRequest {
  from?: Uint8Array;
  gas?: bigint;
}

export type { StateOverride };

export interface CallResult {
  returnValue: Uint8Array;
  gasUsed: bigint;
  lineCounts: LineCounts | undefined;
}

export type Blockchain = {
  getBlock(n: number): Promise<{ hash(): Uint8Array }>;
  putBlock(): Promise<void>;
  shallowCopy(): Blockchain;
};

/** How runCall runs a request (see runCall). */
interface RunOptions {
  prepaid?: boolean;
  /** The gas price the run sees (GASPRICE) where the request names none, not charged (Besu's estimate). */
  price?: bigint;
  settle?: boolean;
  untouched?: boolean;
  access?: Map<string, Set<string>>;
  observer?: EvmObserver;
  reads?: StateBackend;
}

/** What runCall worked out before it picks an engine. */
interface PreparedRun {
  caller: Address;
  gasPrice: bigint;
  value: bigint;
  gasLimit: bigint;
  /** The block the run sees (base fee 0 for a call that names no fee). */
  context: Block;
}

export const ZERO_ADDRESS = new Uint8Array(20);
/** geth's default `--rpc.evmtimeout`: how long one eth_call (or estimate, access list) may run. */
export const RPC_EVM_TIMEOUT_MS = 5_000;

/** A block's number and time: what selects its fork on a scheduled chain. */
export interface ForkPoint {
  number?: unknown;
  timestamp?: unknown;
}

export interface SimulatorOptions {
  /** A genesis file's fork schedule (blocks or times) rather than one fork throughout. */
  scheduled?: boolean;
  /** Count lines at all; default true. */
  lineCounting?: boolean;
  /** Which Linea tracer the line counter follows; default osaka. */
  tracer?: TracerProfileName;
  /** Which of Linea's line counters (full tracer or limitless); default the full tracer. */
  counter?: CounterName;
  /** Where BLOCK_L2_L1_LOGS counts messages from. */
  bridge?: L1L2Bridge;
  /** The chain's DAO fork block (a genesis that supports it). */
  daoForkBlock?: bigint;
  /** How long a call, estimate or access list may run (ms); 0 for no limit. Default 5 s. */
  evmTimeoutMs?: number;
  /** The EVM's options, as the mining VM's (the code size limit). */
  evmOpts?: EVMOpts;
  /** Which EVM runs the calls: the node's own where it can (default) or ethereumjs. */
  engine?: EngineName;
}

export class ScratchVm {
  protected readonly queue = new SerialQueue();
  protected root: Uint8Array | undefined;
  protected readonly contexts = new LruCache<string, Block>(64);
  protected readonly guard: ExecutionGuard;
  /** State, block and precompile overrides of one use. */
  protected readonly overrides: Overrides;
  /** How long a call, estimate or access list may run (ms); 0 for no limit. */
  protected readonly evmTimeoutMs: number;
  /** The chain's DAO fork block (a genesis that supports it): replays and previews of it drain first. */
  protected readonly daoForkBlock: bigint | undefined;
  /** A genesis file's fork schedule: each use runs under its block's fork. */
  private readonly scheduled: boolean;
  /** Whether calls run on the node's own engine where it can. */
  private readonly ownEngine: boolean;

  /** The engine's stacks and memories, reused by this VM's runs (one at a time). */
  private readonly framePool = new FramePool();

  protected constructor(
    protected readonly vm: VM,
    protected readonly counter: LineCounter,
    protected readonly overlay: OverlayDB,
    /** Hashes of blocks eth_simulateV1 made, by number, for BLOCKHASH while it runs. */
    protected readonly simulatedHashes: Map<bigint, Uint8Array>,
    opts: SimulatorOptions,
    /** Its transactions on the node's engine (exec/onEngine.ts), installed before the counter. */
    engine?: EngineTransactions,
  ) {
    this.guard = new ExecutionGuard(vm.evm);
    engine?.connect(this.guard, counter);
    this.overrides = new Overrides(vm);
    this.evmTimeoutMs = opts.evmTimeoutMs ?? RPC_EVM_TIMEOUT_MS;
    this.scheduled = opts.scheduled ?? false;
    this.daoForkBlock = opts.daoForkBlock;
    this.ownEngine = ownEngine(opts.engine);
  }

  /**
   * Runs `fn` on the state `root`, inside a checkpoint that is always reverted. With `timed`, the
   * execution is halted after `evmTimeoutMs` (or after `timed` ms) and fails with
   * ExecutionTimeoutError (a call's answer); without it (a transaction's line check, the pending
   * block) it runs to its end, as in a block. Lines are counted only when `countLines` (the result
   * needs them).
   */
  protected withState<T>(
    root: Uint8Array,
    /** The block whose fork's rules the use runs under. */
    at: ForkPoint,
    timed: boolean | number,
    fn: () => Promise<T>,
    countLines = true,
  ): Promise<T> {
    return this.queue.run(async () => {
      this.useForkOf(at);
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
        if (this.guard.stopped !== undefined) throw this.guard.stopped;
        if (this.guard.timedOut) throw new ExecutionTimeoutError(timeoutMs);
        return result;
      } catch (e) {
        if (this.guard.stopped !== undefined) throw this.guard.stopped;
        if (this.guard.timedOut) throw new ExecutionTimeoutError(timeoutMs);
        throw e;
      } finally {
        this.guard.end();
        // Every checkpoint opened since, this one and any a failed run left open, is reverted.
        while (sm._checkpointCount > depth) await this.vm.evm.journal.revert();
        // A state root taken mid-use (a pre-Byzantium receipt's) flushes the caches inside the
        // checkpoint, and ethereumjs does not revert a flushed write: what the use wrote is dropped
        // here, whatever happened (the caches hold only this use's writes; reads come from the flat maps).
        this.vm.stateManager.clearCaches();
        this.overlay.clear();
        this.overrides.restore();
      }
    });
  }

  /**
   * With a genesis file's fork schedule, moves the scratch VM to the fork of the block at `at` (a
   * replayed block's, a call's context block's): its rules, opcodes and precompiles. The scratch VM has
   * a Common of its own, so the miner's is never moved from here.
   */
  protected useForkOf(at: ForkPoint): void {
    if (!this.scheduled) return;
    const common = this.vm.common;
    const fork = common.getHardforkBy({
      blockNumber: BigInt(at.number as bigint),
      timestamp: BigInt(at.timestamp as bigint),
    });
    if (fork !== common.hardfork()) common.setHardfork(fork);
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

  /**
   * Runs `req` as a message call or creation with `gasLimit` for execution; the journal has been
   * checkpointed by the caller. `prepaid`: the caller has bought the gas (eth_simulateV1: no balance
   * check here). `price`: the gas price a request that names none runs at, not charged. `settle`:
   * ends as a transaction does, the empty accounts it touched removed (EIP-161), for a state that is
   * kept (eth_simulateV1's blocks). `untouched`: only its answer is
   * read (no trace, no line count, no access list), so a call that moves no value writes neither
   * account at its top frame (the patched EVM's `untouchedCalls`; patches/). `access`: filled with the
   * addresses and slots the run warms, the request's access list first (unprefixed hex, as
   * ethereumjs's journal reports them). `observer`: fed the run (tracers/attach.ts). `reads`: the
   * state the engine reads, when the caller keeps one for runs that leave the state as they found it
   * (onEngine.ts readOnce).
   *
   * It runs on the node's own engine where that has the fork's rules, with the line counter's hooks
   * when the counter is on and the observer's; on ethereumjs when a tracer listens to the EVM's
   * events or a stop condition watches the counts (the guard's checks are ethereumjs's opcodes). A
   * settled run's changes are written back.
   */
  protected async runCall(req: CallRequest, block: Block, gasLimit: bigint, opts: RunOptions = {}): Promise<EVMResult> {
    const caller = new Address(req.from ?? ZERO_ADDRESS);
    const named = req.gasPrice ?? req.maxFeePerGas;
    const gasPrice = named ?? opts.price ?? 0n;
    const value = req.value ?? 0n;
    // The value is always there to pay; the gas only at a price the request names.
    const want = (named === undefined ? 0n : gasLimit * gasPrice) + value;
    if (opts.prepaid !== true && want > 0n) {
      const balance = (await this.vm.stateManager.getAccount(caller))?.balance ?? 0n;
      if (balance < want) throw new InsufficientFundsError(caller.bytes, balance, want);
    }
    const context = this.context(block, named === undefined && opts.price === undefined);
    const rules =
      this.ownEngine && !tracerListening(this.vm) && !this.guard.watching && gasLimit <= MAX_ENGINE_GAS
        ? engineRules(this.vm)
        : null;
    const run = { caller, gasPrice, value, gasLimit, context };
    return rules === null ? this.runOnEthereumjs(req, run, opts) : this.runOnEngine(req, run, rules, opts);
  }

  /** runCall on the node's own engine. */
  private async runOnEngine(
    req: CallRequest,
    { caller, gasPrice, value, gasLimit, context }: PreparedRun,
    rules: ForkRules,
    { settle = false, access, observer, reads }: RunOptions,
  ): Promise<EVMResult> {
    const backend = reads ?? stateBackend(this.vm);
    const world = new World(backend);
    const observed = observer === undefined ? undefined : engineObserver(observer, opcodeInfo(this.vm.evm));
    const accessed = access === undefined ? undefined : new Map<string, Set<bigint>>();
    const result = await runMessage(
      {
        rules,
        backend,
        block: blockEnv(this.vm, context),
        tx: { origin: caller.bytes, gasPrice, blobHashes: [] },
        precompiles: this.overrides.precompiles as Map<string, Precompile>,
        warmPrecompiles: this.overrides.forkPrecompiles(),
        precompileContext: { common: this.vm.common, _EVM: this.vm.evm },
        check: this.guard.engineCheck,
        // ethereumjs wraps the tracer's opcode handlers around the counter's: the tracer first.
        hooks: bothHooks(observed?.hooks, this.counter.engineHooks(context.header.baseFeePerGas)),
        pool: this.framePool,
      },
      {
        caller: caller.bytes,
        to: req.to,
        value,
        data: req.data ?? new Uint8Array(),
        gasLimit,
        warmAddresses: [caller.bytes, ...(req.to === undefined ? [] : [req.to]), context.header.coinbase.bytes],
        warmSlots: this.vm.common.isActivatedEIP(2930) ? (req.accessList ?? []) : [],
        accessed,
      },
      world,
    );
    observed?.done();
    for (const [key, slots] of accessed ?? [])
      access?.set(key, new Set([...slots].map((s) => s.toString(16).padStart(64, '0'))));
    // What the run wrote stays in the VM's state when it settles, or for an observer that reads the
    // state after it (on ethereumjs the writes are there until the caller reverts them), with the
    // caller at its next nonce, as ethereumjs's runCall leaves it (and geth's debug_traceCall).
    if (settle || observer?.capture !== undefined) {
      await writeBack(this.vm, world);
      const account = (await this.vm.stateManager.getAccount(caller)) ?? new Account();
      account.nonce += 1n;
      await this.vm.evm.journal.putAccount(caller, account);
    }
    if (settle) await this.settled();
    return result as unknown as EVMResult;
  }

  /** runCall on ethereumjs: the journal warmed as a transaction warms it, the observer on its events. */
  private async runOnEthereumjs(
    req: CallRequest,
    { caller, gasPrice, value, gasLimit, context }: PreparedRun,
    { settle = false, untouched = false, access, observer }: RunOptions,
  ): Promise<EVMResult> {
    // Warm what a transaction would warm (EIP-2929), so gas figures match a real transaction.
    const journal = this.vm.evm.journal;
    const reporting = journal as unknown as { startReportingAccessList(): void; accessList?: Map<string, Set<string>> };
    if (access !== undefined) reporting.startReportingAccessList();
    const reported = reporting.accessList;
    // The fork's precompiles: held warm by the patched journal (patches/) from their map, rather than
    // given an always-warm entry each at every call.
    const warm = journal as unknown as { warmAddresses?: ReadonlyMap<string, unknown> };
    if (STOCK_EVM) for (const p of this.overrides.forkPrecompiles().keys()) journal.addAlwaysWarmAddress(p);
    else warm.warmAddresses = this.overrides.forkPrecompiles();
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(caller.bytes));
    if (req.to !== undefined) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(req.to));
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(context.header.coinbase.bytes));
    if (this.vm.common.isActivatedEIP(2930))
      for (const [address, slots] of req.accessList ?? []) {
        const a = bytesToUnprefixedHex(address);
        journal.addAlwaysWarmAddress(a, true);
        for (const slot of slots) journal.addAlwaysWarmSlot(a, bytesToUnprefixedHex(slot), true);
      }
    const evm = this.vm.evm as { untouchedCalls?: boolean };
    evm.untouchedCalls = untouched && !settle && !STOCK_EVM;
    const detach = observer === undefined ? undefined : attach(this.vm.evm, observer);
    try {
      return await this.vm.evm.runCall({
        caller,
        origin: caller,
        to: req.to === undefined ? undefined : new Address(req.to),
        value,
        data: req.data ?? new Uint8Array(),
        gasLimit,
        gasPrice,
        block: context,
      });
    } finally {
      detach?.();
      for (const [key, slots] of reported ?? []) access?.set(key, slots);
      evm.untouchedCalls = false;
      warm.warmAddresses = undefined;
      // Forget what this call warmed (the next call has its own sender and target); the state it
      // touched is reverted by the caller's checkpoint, or settled.
      if (settle) await this.settled();
      else journal.cleanJournal();
      (journal as unknown as { accessList?: unknown }).accessList = undefined;
    }
  }

  /**
   * A settled run ends as a transaction: the empty accounts it touched removed (EIP-161), and the
   * next run's original slot values (EIP-2200) the ones this run left, as runTx has them (it clears
   * this cache after every transaction).
   */
  private async settled(): Promise<void> {
    await this.vm.evm.journal.cleanup();
    this.vm.stateManager.originalStorageCache.clear();
  }

  /**
   * The gas a transaction like `req` pays before it runs (`upfront`) and the least it pays in all:
   * with EIP-7623 the calldata floor, which is charged at the end, not before execution (as geth).
   * Worked out from the request where it can be (pool/intrinsicGas.ts callIntrinsicGas), else from
   * the transaction ethereumjs builds: its type as the fork allows, and its checks (an oversized
   * creation is refused there).
   */
  protected intrinsicOf(req: CallRequest): IntrinsicGas {
    const common = this.vm.common;
    return (STOCK_EVM ? undefined : callIntrinsicGas(common, req)) ?? intrinsicGasParts(callTransaction(common, req));
  }

  /**
   * The transaction a call would be if sent now, for its line counts, given its gas limit: filled as
   * eth_sendTransaction fills it (the sender's nonce in this state, read before the call runs; fees
   * after `block`) and sized as signed. Its counts are the counts of that transaction at submission.
   */
  protected async sentAs(req: CallRequest, block: Block): Promise<(gasLimit: bigint) => TypedTransaction> {
    const nonce = (await this.vm.stateManager.getAccount(new Address(req.from ?? ZERO_ADDRESS)))?.nonce ?? 0n;
    const baseFee = sentBaseFee(block);
    return (gasLimit) => requestTransaction(this.vm.common, req, { nonce, gasLimit, baseFee }, true);
  }

  /**
   * One call with at most `gas`, its lines counted when `countLines`, as the transaction it would be
   * with the gas given (else the gas it used); inside a use (withState).
   */
  protected async countedCall(
    req: CallRequest,
    block: Block,
    gas: bigint,
    countLines: boolean,
    /** The gas price a call that names none runs at (RunOptions.price). */
    price?: bigint,
  ): Promise<{ result: EVMResult; intrinsic: IntrinsicGas; lineCounts: LineCounts | undefined }> {
    const intrinsic = this.intrinsicOf(req);
    const sent = countLines ? await this.sentAs(req, block) : undefined;
    if (countLines) await this.counter.begin(sentBaseFee(block));
    const result = await this.runCall(req, block, gas > intrinsic.upfront ? gas - intrinsic.upfront : 0n, {
      untouched: !countLines,
      price,
    });
    const tx = sent?.(req.gas ?? gasSpent(intrinsic, result.execResult, false));
    return { result, intrinsic, lineCounts: tx === undefined ? undefined : this.counter.end(tx, result) };
  }

  protected tracerContext(start: Uint8Array[]): TracerContext {
    return {
      start,
      isPrecompile: (address) => this.overrides.precompiles.has(bytesToUnprefixedHex(address)),
      counts: () => this.counter.liveCounts(),
      profile: this.counter.profile.name,
    };
  }
}

/** The base fee of the block a call on the state after `block` would be sent in: the next one's. */
export function sentBaseFee(block: Block): bigint {
  return block.header.baseFeePerGas === undefined ? 0n : block.header.calcNextBaseFee();
}

/** Spec, Limits: a call's gas is capped (10× the block gas limit); without a gas, the cap. */
export function cappedGas(req: CallRequest, cap: bigint): bigint {
  return req.gas === undefined || req.gas > cap ? cap : req.gas;
}

export function throwIfFailed(result: EVMResult): void {
  const error = result.execResult.exceptionError;
  if (error === undefined) return;
  if (error.error === 'revert') {
    const data = result.execResult.returnValue;
    throw new ExecutionRevertedError(data, decodeRevertReason(data));
  }
  throw new ExecutionHaltedError(error.error);
}
