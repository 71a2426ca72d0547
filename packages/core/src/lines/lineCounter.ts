/**
 * Counts prover lines per module as Linea's sequencer does, with either of its counters: the full
 * tracer (ZkTracer, London's or today's) or the light one (ZkCounter, `limitless`). Rules and
 * sources in lineProfiles.ts, precompileRows.ts (precompile calls), instructionRows.ts (an
 * instruction's rows beyond its opcode count), frameRows.ts (a frame's and a message's rows) and
 * transactionRows.ts (a transaction's rows as a whole); this file holds the hooks that reach them
 * and the state they share.
 *
 * The model is the tracer's own:
 *  - counts accumulate over a conflation, which in the sequencer is the block being built (a new
 *    tracer per block) and in a simulation is that one run (a new tracer per transaction);
 *  - a conflation starts with its constant rows (reference tables, placeholders) and each block adds
 *    its own, so the first transaction of a block carries them;
 *  - operations of the deduplicating modules count once per conflation; a transaction that is not
 *    selected has its operations dropped (popTx), a selected one keeps them (commitTx);
 *  - every reported count is lines + the module's spillage;
 *  - an opcode that raises an exception never reaches the arithmetic modules: here the opcode
 *    handlers are wrapped, and the EVM calls a handler only once the stack and gas checks passed.
 *
 * The hooks are the cheapest ethereumjs offers: each opcode handler in its opcode table is wrapped
 * (operands are read from the stack before the handler pops them), precompiles at `runPrecompile`,
 * frames at `runInterpreter`, messages (a CALL or CREATE's outcome, ZkCounter's context exits) at
 * `runCall`. The node's own engine calls the same rules at the same points (engineHooks, evm/hooks.ts).
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToBigInt, bytesToUnprefixedHex, createAddressFromBigInt } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { keccak256 } from 'ethereum-cryptography/keccak';

import type { EngineHooks, FrameEnd } from '../evm/hooks';

import { byteLen, eucRows, ISZERO, LEQ, LT, profileOf, wcpRows } from './lineProfiles';
import type { CounterName, TracerProfile, TracerProfileName } from './lineProfiles';
import { Conflation } from './conflation';
import type { ConflationMark, LineCounts } from './conflation';
import { countPrecompileCall } from './precompileRows';
import { foldTransaction } from './transactionRows';
import type { TransactionStart } from './transactionRows';
import { arith, copy, hex, instructionHook } from './instructionRows';
import type { Frame, Stack } from './instructionRows';
import { deploymentStop, fragment, frameFinished, frameStarted, messageEntered, messageExited } from './frameRows';
import type { FrameCounting, FrameStarted, InterpreterResult, MessageEntered } from './frameRows';

/** Topic of MessageSent, the event an L2→L1 message emits. */
export const MESSAGE_SENT_TOPIC = keccak256(
  new TextEncoder().encode('MessageSent(address,address,uint256,uint256,uint256,bytes,bytes32)'),
);

/**
 * Where the L2→L1 messages the prover counts come from (BLOCK_L2_L1_LOGS): logs of this contract
 * whose first topic is this one (L1BlockSize.isL2L1Log). Linea's sequencer takes them from
 * --plugin-linea-l1l2-bridge-contract and --plugin-linea-l1l2-bridge-topic, both zero by default
 * (LineaL1L2BridgeSharedCliOptions.java), which counts nothing.
 */
export interface L1L2Bridge {
  contract: Uint8Array;
  topic: Uint8Array;
}

export const NO_BRIDGE: L1L2Bridge = { contract: new Uint8Array(20), topic: new Uint8Array(32) };

export interface LineCounterOptions {
  /** Off: nothing is hooked and every count is empty (a baseline for benchmarks). Default on. */
  enabled?: boolean;
  tracer?: TracerProfileName;
  counter?: CounterName;
  bridge?: L1L2Bridge;
}

type RunState = {
  stack: Stack;
  gasLeft: bigint;
  programCounter: number;
  stateManager: { getCode(a: Address): Promise<Uint8Array> };
};
type OpHandler = (runState: RunState, common: unknown) => unknown;
type OpEntry = { opcodeInfo: { code: number; isAsync: boolean; dynamicGas: boolean }; opHandler: OpHandler };
type ExecResult = { exceptionError?: { error?: string }; returnValue?: Uint8Array };
type PrecompileFn = (...args: unknown[]) => unknown;
type Message = {
  code?: unknown;
  data?: Uint8Array;
  codeAddress?: { bytes: Uint8Array };
  to?: { bytes: Uint8Array };
  isCreate?: boolean;
};
// The EVM keeps these on its instance; they are the only hooks cheaper than the `step` event.
type EvmInternals = {
  _opcodeMap: (OpEntry | undefined)[];
  precompiles: Map<string, PrecompileFn>;
  runPrecompile(code: PrecompileFn, data: Uint8Array, gasLimit: bigint): ExecResult | Promise<ExecResult>;
  runInterpreter(message: Message, opts?: unknown): Promise<InterpreterResult>;
  runCall(opts: unknown): Promise<unknown>;
  stateManager: { getAccount(address: Address): Promise<{ balance: bigint } | undefined> };
};

const ADDRESS_MASK = (1n << 160n) - 1n;
const TWO_160 = 1n << 160n;
const TWO_96_MO = (1n << 96n) - 1n;
/** London's MAX_PRC_ADDRESS: its precompiles are 0x01 to 0x09. */
const LAST_PRECOMPILE = 9n;

export class LineCounter {
  readonly profile: TracerProfile;
  private c: Conflation;
  /** Executions per opcode in the current transaction (HUB rows are folded from it). */
  private readonly ops = new Uint32Array(256);
  /** The frames running, innermost last. */
  private readonly stack: Frame[] = [];
  /** The current transaction's frames with code, and London's exceptional ones. */
  private readonly tally = { codeFrames: 0, exceptionalFrames: 0 };
  private active = true;
  /** Per opcode: what its hook reads from the stack and counts (beyond the opcode count). */
  private readonly measures: (((stack: Stack) => void) | undefined)[] = [];
  /** Per opcode: its gas is computed by a handler that reads the stack before the instruction runs. */
  private readonly dynamicGas = new Uint8Array(256);
  /** Whose rules count: London's full tracer, today's full tracer (ZkTracer), or the light counter (ZkCounter). */
  private readonly mode: 'london' | 'osaka' | 'limitless';
  /** Off: nothing is hooked and every count is empty. */
  readonly enabled: boolean;
  private readonly bridge: L1L2Bridge;
  /**
   * London: the gas left once the last instruction was charged, which (no instruction but a call's
   * changes it after) is the gas the next one starts with.
   */
  private lastGasLeft = 0n;
  /** London: the argsOffset of the CALL whose frame starts next. */
  private nextCallDataOffset: bigint | undefined;
  /** The base fee of the block a counted call would be sent in (begin). */
  private sentBaseFee: bigint | undefined;
  /** London: the transaction's sender balance, gas price and base fee as its message started (txnDataComparisons). */
  private txStart: TransactionStart | undefined;
  /** What a transaction's rows (transactionRows.ts), an instruction's (instructionRows.ts) and a frame's (frameRows.ts) need of it. */
  private readonly counting: FrameCounting;

  constructor(
    private readonly evm: VM['evm'],
    opts: LineCounterOptions = {},
  ) {
    const { tracer = 'osaka', counter = 'tracer' } = opts;
    this.enabled = opts.enabled ?? true;
    this.bridge = opts.bridge ?? NO_BRIDGE;
    this.profile = profileOf(tracer, counter);
    this.mode = counter === 'limitless' ? 'limitless' : tracer;
    this.c = new Conflation(this.profile);
    const self = this;
    this.counting = {
      // The conflation of the moment (each block starts a new one).
      get c() {
        return self.c;
      },
      mode: this.mode,
      bridge: this.bridge,
      profile: this.profile,
      get lastGasLeft() {
        return self.lastGasLeft;
      },
      get nextCallDataOffset() {
        return self.nextCallDataOffset;
      },
      set nextCallDataOffset(offset) {
        self.nextCallDataOffset = offset;
      },
      trm: (word) => this.trm(word),
      wcp: (op, a, b) => this.wcp(op, a, b),
      euc: (dividend, divisor, width) => this.euc(dividend, divisor, width),
      top: () => this.top(),
      halt: (stop) => this.halt(stop),
      deploymentStop: (frame) => deploymentStop(self.counting, frame),
      frames: this.stack,
      ops: this.ops,
      measures: this.measures,
      dynamicGas: this.dynamicGas,
      tally: this.tally,
    };
    if (!this.enabled) return;
    const internals = evm as unknown as EvmInternals;
    this.hookOpcodes(internals);
    this.hookFrames(internals);
    if (this.mode !== 'london') this.hookCalls(internals);
    else this.hookTransactionAddresses(internals);
    // A fork change rebuilds the EVM's opcode table (its own listener runs first): hook the new one.
    evm.common.events.on('hardforkChanged', () => {
      this.hookOpcodes(internals);
      this.mapPrecompiles(internals);
    });
  }

  /**
   * The conflation's counts now, mid-transaction: with the HUB rows of the instructions run so far
   * (folded into the conflation only when the transaction ends). For per-frame line counts.
   */
  liveCounts(): LineCounts {
    const counts = this.c.counts();
    if (counts.HUB !== undefined) counts.HUB += this.instructionHubRows();
    return counts;
  }

  /** HUB rows of the instructions run so far in this transaction, exceptional context exits included. */
  private instructionHubRows(): number {
    let hub = this.tally.exceptionalFrames;
    for (let op = 0; op < 256; op++) if (this.ops[op] !== 0) hub += this.ops[op] * this.profile.hubRows[op];
    return hub;
  }

  /**
   * The block's totals once it ends (traceEndBlock's rows in), as Linea's tracer reports a whole
   * block (linea_getBlockTracesCountersV2): for an empty block, its constant and system rows.
   */
  blockTotals(): LineCounts {
    return this.enabled ? this.c.counts(true) : {};
  }

  /**
   * Starts a conflation of one block (the sequencer's new tracer for the block it builds), on the
   * state the block starts from: its system contracts' code decides some of its rows.
   */
  async startBlock(): Promise<Conflation> {
    let missing = 0;
    if (this.enabled && this.active)
      for (const { address, hub } of this.profile.systemStorageRows ?? [])
        if ((await this.evm.stateManager.getCode(new Address(address))).length === 0) missing += hub;
    this.c = new Conflation(this.profile, missing);
    return this.c;
  }

  /** Starts counting a transaction in the current conflation. */
  beginTx(): void {
    this.txStart = undefined;
    this.nextCallDataOffset = undefined;
    this.sentBaseFee = undefined;
    this.ops.fill(0);
    this.stack.length = 0;
    this.tally.codeFrames = this.tally.exceptionalFrames = 0;
    this.c.popTx();
  }

  /** Ends the transaction: adds its transaction-level rows; returns the conflation's counts (none when not counting). */
  endTx(tx: TypedTransaction | undefined, result: Pick<RunTxResult, 'execResult'> | undefined): LineCounts {
    if (!this.enabled || !this.active) return {};
    this.foldTransaction(tx, result);
    return this.c.counts();
  }

  /**
   * A simulation: a conflation of its own, holding one transaction (begin ... end). `sentBaseFee`: a
   * call counted as the transaction it would be, the base fee of the block it would be sent in (its
   * run's context may have none).
   */
  async begin(sentBaseFee?: bigint): Promise<void> {
    await this.startBlock();
    this.beginTx();
    this.sentBaseFee = sentBaseFee;
  }

  end(tx: TypedTransaction | undefined, result: Pick<RunTxResult, 'execResult'> | undefined): LineCounts {
    return this.endTx(tx, result);
  }

  commitTx(): void {
    this.c.commitTx();
  }

  popTx(): void {
    this.c.popTx();
  }

  /** The conflation now, and back to it: a bundle of transactions selected whole or not at all. */
  mark(): ConflationMark {
    return this.c.mark();
  }

  rollback(mark: ConflationMark): void {
    this.c.rollback(mark);
  }

  private foldTransaction(tx: TypedTransaction | undefined, result: Pick<RunTxResult, 'execResult'> | undefined): void {
    foldTransaction(this.counting, tx, result, {
      instructionHub: this.instructionHubRows(),
      codeFrames: this.tally.codeFrames,
      start: this.txStart,
    });
  }

  // -------------------------------------------------------------------------------- opcode hooks

  private hookOpcodes(evm: EvmInternals): void {
    const map = evm._opcodeMap;
    for (let code = 0; code < map.length; code++) {
      const entry = map[code];
      if (entry === undefined) continue;
      this.dynamicGas[code] = entry.opcodeInfo.dynamicGas ? 1 : 0;
      const inner = entry.opHandler;
      let opHandler: OpHandler;
      const measure = instructionHook(this.counting, code);
      this.measures[code] = measure;
      if (code === 0x3c && this.mode !== 'limitless')
        opHandler = async (rs, c) => {
          if (this.active) await this.extCodeCopySeen(rs.stack, (target) => rs.stateManager.getCode(target));
          return inner(rs, c);
        };
      else
        opHandler = (rs, c) => {
          if (this.active) this.measured(code, rs.stack, rs.gasLeft);
          return inner(rs, c);
        };
      map[code] = { ...entry, opHandler };
    }
  }

  /**
   * An instruction about to run, its gas paid (on either engine): its operands measured and the
   * instruction counted. London keeps the gas left for the SSTORE that may come next.
   */
  private measured(code: number, stack: Stack, gasLeft: bigint | number): void {
    const measure = this.measures[code];
    if (measure === undefined) {
      this.ops[code]++;
      return;
    }
    measure(stack);
    this.ops[code]++;
    if (this.mode === 'london') this.lastGasLeft = BigInt(gasLeft);
  }

  /**
   * Counts from now on, or not at all: a run whose result needs no counts passes through the hooks.
   * (The hooks stay in the EVM's opcode table: other wrappers, such as the execution guard's, may sit
   * around them.)
   */
  setActive(on: boolean): void {
    this.active = on;
  }

  get isActive(): boolean {
    return this.active;
  }

  /**
   * A comparison another module asks WCP for (London's tracer), kept once per instruction and
   * arguments as WCP keeps it, and as the LT/GT/ISZERO instructions' own are keyed.
   */
  private wcp(op: number, a: bigint, b = 0n): void {
    arith(this.counting, 'WCP', `${op}:${hex(a)}:${hex(b)}`, () => wcpRows(op, a, b));
  }

  /**
   * A division another module asks EUC for (London's tracer, module/euc/Euc.java, 658ab6d1): kept
   * once per dividend and divisor, the dividend as the bytes its caller gives (`width` of them, or
   * its minimal bytes, one for 0, when undefined: an equal value in another width is another
   * operation), and each new one asks WCP whether its remainder is below the divisor.
   */
  private euc(dividend: bigint, divisor: bigint, width?: number): void {
    const bytes = width ?? Math.max(1, byteLen(dividend));
    if (arith(this.counting, 'EUC', `euc:${bytes}:${hex(dividend)}:${hex(divisor)}`, () => eucRows(dividend, divisor)))
      this.wcp(LT, dividend % divisor, divisor);
  }

  /**
   * London's transaction sections trim the addresses they touch (makeWithTrm, 658ab6d1): the sender
   * and the recipient (TxInitializationSection, TxSkipSection) and the coinbase
   * (TxFinalizationSection); a created recipient is trimmed when its init code runs.
   */
  private hookTransactionAddresses(evm: EvmInternals): void {
    const runCall = evm.runCall.bind(evm);
    evm.runCall = async (opts) => {
      const top = opts as {
        message?: unknown;
        caller?: Address;
        to?: Address;
        gasPrice?: bigint;
        skipNonceIncrement?: boolean;
        block?: { header: { coinbase: Address; baseFeePerGas?: bigint } };
      };
      if (this.active && top.message === undefined && top.caller !== undefined)
        await this.transactionStarted(
          top.caller,
          top.to,
          top.block?.header.coinbase,
          top.gasPrice ?? 0n,
          // runTx (the only caller that skips the nonce increment) has bought the gas by now, a call has not.
          top.skipNonceIncrement === true,
          top.block?.header.baseFeePerGas,
        );
      return runCall(opts);
    };
  }

  /** London: the transaction's addresses trimmed, and what TXN_DATA compares (txnDataComparisons). */
  private async transactionStarted(
    caller: Address,
    to: Address | undefined,
    coinbase: Address | undefined,
    gasPrice: bigint,
    gasBought: boolean,
    baseFee: bigint | undefined,
  ): Promise<void> {
    this.trm(bytesToBigInt(caller.bytes));
    if (to !== undefined) this.trm(bytesToBigInt(to.bytes));
    if (coinbase !== undefined) this.trm(bytesToBigInt(coinbase.bytes));
    this.txStart = {
      balance: (await this.evm.stateManager.getAccount(caller))?.balance ?? 0n,
      gasBought,
      gasPrice,
      baseFee: this.sentBaseFee ?? baseFee ?? 0n,
    };
  }

  // ------------------------------------------------------------------------ the node's engine

  /**
   * The counter's hooks for a run on the node's own engine (evm/hooks.ts), which calls them where
   * ethereumjs reaches the hooks above: undefined when nothing is counted. `baseFee`: the block's.
   * `top`: the hooks take the run's own message too; without it, the run is the message of a
   * transaction whose `evm.runCall` the wrappers above have seen (exec/onEngine.ts).
   */
  engineHooks(baseFee: bigint | undefined, top = true): EngineHooks | undefined {
    if (!this.enabled || !this.active) return undefined;
    const frames: { started: FrameStarted; frame: Frame }[] = [];
    const messages: (MessageEntered | undefined)[] = [];
    const london = this.mode === 'london';
    return {
      transactionStart:
        london && top
          ? (tx) =>
              this.transactionStarted(
                new Address(tx.caller),
                tx.to === undefined ? undefined : new Address(tx.to),
                new Address(tx.coinbase),
                tx.gasPrice,
                false,
                baseFee,
              )
          : undefined,
      opcode: (op, stack, gasLeft, state) => {
        if (op === 0x3c && this.mode !== 'limitless')
          return this.extCodeCopySeen(stack, (target) => state.code(target.bytes));
        this.measured(op, stack, gasLeft);
      },
      enter: ({ depth }) => {
        if (!london && (top || depth > 0)) messages.push(messageEntered(this.counting, depth === 0));
      },
      exit: ({ depth }, { error }) => {
        if (london || (!top && depth === 0)) return;
        const entered = messages.pop();
        if (entered !== undefined && this.active) messageExited(this.counting, entered, error !== undefined);
      },
      frameStart: (f) => {
        const started: FrameStarted = {
          code: f.code,
          isCreate: f.isCreate,
          address: bytesToUnprefixedHex(f.address),
          data: f.data,
        };
        frames.push({ started, frame: frameStarted(this.counting, started) });
      },
      frameEnd: (f) => {
        const { started, frame } = frames.pop() as { started: FrameStarted; frame: Frame };
        this.stack.pop();
        frameFinished(this.counting, started, interpreterResult(f), frame);
      },
      precompile: (fn, data, result) => {
        const caller = this.stack.at(-1);
        if (caller !== undefined) caller.child = 'prc';
        countPrecompileCall(this.c, this.mode, this.precompileAddress.get(fn as PrecompileFn) ?? 0, data, result);
      },
    };
  }

  /**
   * Every message the EVM runs (calls, creations, the transaction's own) passes through runCall.
   * ZkCounter.traceContextExit: each that ends (precompiles and code-less calls too) adds a HUB and a
   * GAS row. ZkTracer: a CALL or CREATE section's rows depend on where the message went and how it
   * ended (settle).
   */
  private hookCalls(evm: EvmInternals): void {
    const runCall = evm.runCall.bind(evm);
    evm.runCall = (opts) => {
      const entered = messageEntered(this.counting, (opts as { message?: unknown }).message === undefined);
      // The transaction's own message: the full tracer has nothing to settle for it.
      if (entered === undefined) return runCall(opts);
      return runCall(opts).then((result) => {
        const failed = (result as { execResult: ExecResult }).execResult.exceptionError !== undefined;
        if (this.active) messageExited(this.counting, entered, failed);
        return result;
      });
    };
  }

  /** SELFDESTRUCT and explicit STOP/RETURN/REVERT end their frame (the frame hook counts it). */
  private halt(stop = false): void {
    const frame = this.stack.at(-1);
    if (frame === undefined) return;
    frame.halted = true;
    frame.stopped = stop;
  }

  /** The frame running now. */
  private top(): Frame {
    return this.stack[this.stack.length - 1];
  }

  /** TRM: 4 rows (Osaka: 1) per distinct raw address word. */
  private trm(word: bigint): void {
    this.c.addOnce(`trm:${hex(word)}`, 'TRM', this.profile.singleRowArithmetic ? 1 : 4);
    if (this.mode !== 'london') return;
    // London's TrmOperation makes four WCP calls (module/trm/TrmOperation.java, linea-monorepo
    // 658ab6d1): the address below 2^160, its word's high 12 bytes at most 2^96 - 1, the address
    // zero, the address at most the last precompile's (9).
    const address = word & ADDRESS_MASK;
    const high = word >> 160n;
    this.wcp(LT, address, TWO_160);
    this.wcp(LEQ, high, TWO_96_MO);
    this.wcp(ISZERO, address);
    this.wcp(LEQ, address, LAST_PRECOMPILE);
  }

  /** EXTCODECOPY also adds the target's code to ROM when it copies something (async: reads the code). */
  private async extCodeCopySeen(stack: Stack, getCode: (target: Address) => Promise<Uint8Array>): Promise<void> {
    const [address, dst, src, size] = stack.peek(4);
    this.ops[0x3c]++;
    if (this.mode === 'osaka') this.top().undo++;
    this.trm(address);
    copy(this.counting, [dst, src, size]);
    if (size !== 0n) {
      const target = createAddressFromBigInt(address & ((1n << 160n) - 1n));
      const code = await getCode(target);
      if (code.length > 0) fragment(this.c, `${bytesToUnprefixedHex(target.bytes)}:code`, code.length);
    }
  }

  // --------------------------------------------------------------------------------- frame hooks

  private precompileAddress = new Map<PrecompileFn, number>();

  private mapPrecompiles(evm: EvmInternals): void {
    this.precompileAddress = new Map();
    for (const [h, fn] of evm.precompiles) this.precompileAddress.set(fn, parseInt(h, 16));
  }

  private hookFrames(evm: EvmInternals): void {
    this.mapPrecompiles(evm);
    const runPrecompile = evm.runPrecompile.bind(evm);
    evm.runPrecompile = (code, data, gasLimit) => {
      const result = runPrecompile(code, data, gasLimit);
      if (!this.active) return result;
      const address = this.precompileAddress.get(code) ?? 0;
      const caller = this.stack.at(-1);
      if (caller !== undefined) caller.child = 'prc';
      const tally = (r: ExecResult) => {
        countPrecompileCall(this.c, this.mode, address, data, r);
        return r;
      };
      return result instanceof Promise ? result.then(tally) : tally(result);
    };
    const runInterpreter = evm.runInterpreter.bind(evm);
    evm.runInterpreter = async (message, opts) => {
      const code = message.code instanceof Uint8Array ? message.code : undefined;
      if (!this.active || code === undefined || code.length === 0) return runInterpreter(message, opts);
      const started: FrameStarted = {
        code,
        isCreate: message.isCreate === true,
        address: bytesToUnprefixedHex((message.isCreate ? message.to : message.codeAddress)?.bytes ?? new Uint8Array()),
        data: message.data ?? new Uint8Array(),
      };
      const frame = frameStarted(this.counting, started);
      let result: InterpreterResult;
      try {
        result = await runInterpreter(message, opts);
      } finally {
        this.stack.pop();
      }
      frameFinished(this.counting, started, result, frame);
      return result;
    };
  }
}

/** An engine frame's end in ethereumjs's shape (its runInterpreter result). */
function interpreterResult(f: FrameEnd): InterpreterResult {
  return {
    ...(f.error !== undefined && { exceptionError: { error: f.error } }),
    gas: BigInt(f.gasLeft),
    returnValue: f.returnData,
    runState: { programCounter: 0, opCode: f.opCode, stack: f.stack, memoryWordCount: BigInt(f.memoryWords) },
  };
}
