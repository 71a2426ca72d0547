/**
 * geth's built-in tracers, fed by the EVM's `step`, `beforeMessage` and `afterMessage` events while
 * one transaction or call runs (simulator.ts `trace`): the struct logger (geth's default), callTracer,
 * 4byteTracer, noopTracer, muxTracer, and lineCountTracer, which gives the prover line counts per
 * call frame. Results are JSON as geth answers them.
 */
import { bigIntToBytes, bytesToHex, bytesToUnprefixedHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';

import { TracerError } from '../errors';
import { decodeRevertReason } from './revertReason';
import type { LineCounts } from '../lines/lineCounter';
import type { Log } from '../types';

type Addr = { bytes: Uint8Array };
export interface StepEvent {
  pc: number;
  gasLeft: bigint;
  gasRefund: bigint;
  opcode: { name: string; code: number; dynamicFee?: bigint; fee: number };
  stack: bigint[];
  depth: number;
  address: Addr;
  memory: Uint8Array;
  stateManager: {
    getStorage(address: Addr, key: Uint8Array): Promise<Uint8Array>;
    getAccount(address: Addr): Promise<{ balance: bigint } | undefined>;
  };
}
export interface MessageEvent {
  caller: Addr;
  to?: Addr;
  codeAddress?: Addr;
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
  depth: number;
  delegatecall?: boolean;
  isStatic?: boolean;
  salt?: Uint8Array;
}
export interface MessageResult {
  createdAddress?: Addr;
  execResult: { exceptionError?: { error: string }; returnValue: Uint8Array; executionGasUsed: bigint };
}

/** What the runner knows of the transaction (or call) once it has run. */
export interface TxSummary {
  from: Uint8Array;
  to?: Uint8Array;
  createdAddress?: Uint8Array;
  input: Uint8Array;
  value: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  error?: string;
  returnValue: Uint8Array;
  /** The transaction's line counts (for the lineCountTracer). */
  lineCounts?: LineCounts;
  /** Where a mined transaction sits (for the flatCallTracer). */
  blockHash?: Uint8Array;
  blockNumber?: bigint;
  txHash?: Uint8Array;
  txIndex?: number;
}

/** Reads accounts and slots from the state as it stood before or after the transaction. */
export interface StateReader {
  account(address: Uint8Array): Promise<{ balance: bigint; nonce: bigint; code: Uint8Array }>;
  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>;
}

export interface Tracer {
  /** The step event is needed (it is costly: only tracers that read steps ask for it). */
  readonly steps: boolean;
  /**
   * Called once the transaction has run: with the state after it, then with the state before it
   * (the runner rolls back for this, then runs the transaction again untraced).
   */
  capture?(phase: 'post' | 'pre', state: StateReader): Promise<void>;
  onStep?(step: StepEvent): void | Promise<void>;
  onEnter?(message: MessageEvent): void;
  onExit?(result: MessageResult): void;
  result(tx: TxSummary): unknown;
}

const quantity = (n: bigint) => `0x${n.toString(16)}`;

/**
 * Tracers see a LOG before its gas is checked; one larger than this could not pay for the memory
 * (2^24 bytes cost over 500 million gas), so its data is not copied.
 */
export const MAX_TRACED_LOG_BYTES = 1n << 24n;
const word = (b: Uint8Array) => `0x${bytesToUnprefixedHex(b).padStart(64, '0')}`;
const wordOf = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

/** ethereumjs's error texts (some carry a location after them) in geth's words (core/vm/errors.go). */
const GETH_ERRORS: [string, string][] = [
  ['revert', 'execution reverted'],
  ['out of gas', 'out of gas'],
  ['code store out of gas', 'contract creation code storage out of gas'],
  ['code size to deposit exceeds maximum code size', 'max code size exceeded'],
  ['initcode exceeds max initcode size', 'max initcode size exceeded'],
  ['invalid JUMP', 'invalid jump destination'],
  ['invalid opcode', 'invalid opcode'],
  ['static state change', 'write protection'],
  ['create collision', 'contract address collision'],
  ['insufficient balance', 'insufficient balance for transfer'],
  ['invalid bytecode deployed', 'invalid code: must not begin with 0xef'],
  ['stack underflow', 'stack underflow'],
  ['stack overflow', 'stack limit reached 1024 (1023)'],
];

export function gethError(error: string): string {
  for (const [ours, geth] of GETH_ERRORS) if (error === ours || error.startsWith(`${ours} `)) return geth;
  return error;
}

// ------------------------------------------------------------------------------ struct logger

export interface StructLoggerConfig {
  disableStack?: boolean;
  disableStorage?: boolean;
  enableMemory?: boolean;
  enableReturnData?: boolean;
  limit?: number;
}

class StructLogger implements Tracer {
  readonly steps = true;
  private readonly logs: Record<string, unknown>[] = [];
  private readonly storage = new Map<string, Record<string, string>>();
  private returnData: Uint8Array = new Uint8Array();
  private callLog: Record<string, unknown> | undefined;
  private readonly depths: number[] = [];

  constructor(private readonly config: StructLoggerConfig) {}

  async onStep(step: StepEvent): Promise<void> {
    const limit = this.config.limit ?? 0;
    if (limit > 0 && this.logs.length >= limit) return;
    const log: Record<string, unknown> = {
      pc: step.pc,
      op: step.opcode.name,
      gas: Number(step.gasLeft),
      gasCost: Number(step.opcode.dynamicFee ?? BigInt(step.opcode.fee)),
      depth: step.depth + 1,
    };
    if (this.config.disableStack !== true) log.stack = step.stack.map(quantity);
    if (this.config.enableMemory === true) {
      const words: string[] = [];
      for (let i = 0; i < step.memory.length; i += 32) words.push(word(step.memory.subarray(i, i + 32)));
      log.memory = words;
    }
    if (this.config.enableReturnData === true && this.returnData.length > 0)
      log.returnData = bytesToHex(this.returnData);
    const code = step.opcode.code;
    if (this.config.disableStorage !== true && (code === 0x54 || code === 0x55) && step.stack.length >= 1) {
      const address = bytesToUnprefixedHex(step.address.bytes);
      const slots = this.storage.get(address) ?? {};
      this.storage.set(address, slots);
      const key = step.stack[step.stack.length - 1];
      if (code === 0x54) {
        const value = await step.stateManager.getStorage(step.address, setLengthLeft(bigIntToBytes(key), 32));
        slots[wordOf(key)] = word(value);
      } else if (step.stack.length >= 2) slots[wordOf(key)] = wordOf(step.stack[step.stack.length - 2]);
      log.storage = { ...slots };
    }
    log.refund = Number(step.gasRefund);
    this.logs.push(log);
    this.callLog = [0xf1, 0xf2, 0xf4, 0xfa].includes(code) ? log : undefined;
  }

  /**
   * geth's cost of a CALL-family instruction includes the gas it passes on (less the stipend of a
   * value transfer); this EVM's step event does not, so it is added once the frame is entered.
   */
  onEnter(message: MessageEvent): void {
    this.depths.push(message.depth);
    const log = this.callLog;
    this.callLog = undefined;
    if (log === undefined || message.depth === 0) return;
    const stipend = (log.op === 'CALL' || log.op === 'CALLCODE') && message.value > 0n ? 2300n : 0n;
    log.gasCost = (log.gasCost as number) + Number(message.gasLimit - stipend);
  }

  onExit(result: MessageResult): void {
    this.returnData = result.execResult.returnValue;
    const depth = this.depths.pop();
    const error = result.execResult.exceptionError?.error;
    if (depth === undefined || error === undefined || error === 'revert') return;
    // geth marks the instruction that faulted: the last one of the frame.
    for (let i = this.logs.length - 1; i >= 0; i--) {
      if (this.logs[i].depth === depth + 1) {
        this.logs[i].error = gethError(error);
        break;
      }
      if ((this.logs[i].depth as number) < depth + 1) break;
    }
  }

  result(tx: TxSummary): unknown {
    return {
      failed: tx.error !== undefined,
      gas: Number(tx.gasUsed),
      returnValue: bytesToHex(tx.returnValue),
      structLogs: this.logs,
    };
  }
}

/** The log a LOG0…LOG4 step is about to emit; none for another instruction, or a size no LOG could pay for. */
export function logOfStep(step: StepEvent): Log | undefined {
  const code = step.opcode.code;
  if (code < 0xa0 || code > 0xa4) return undefined;
  const s = step.stack;
  const at = (i: number) => s[s.length - 1 - i];
  if (at(1) > MAX_TRACED_LOG_BYTES) return undefined;
  const offset = Number(at(0));
  const data = new Uint8Array(Number(at(1)));
  data.set(step.memory.subarray(offset, offset + data.length));
  const topics: Uint8Array[] = [];
  for (let i = 0; i < code - 0xa0; i++) topics.push(setLengthLeft(bigIntToBytes(at(2 + i)), 32));
  return { address: step.address.bytes, topics, data };
}

// ------------------------------------------------------------------------------- callTracer

export interface CallLog {
  address: string;
  topics: string[];
  data: string;
  position: string;
  /** Emission order within the transaction (left out of the answer). */
  seq: number;
  index?: string;
}

/** A callTracer frame, as geth's JSON gives it. */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  logs?: CallLog[];
}

export interface CallTracerConfig {
  onlyTopCall?: boolean;
  withLog?: boolean;
}

/** The frames of a transaction as the EVM enters and leaves them, with the opcode that opened each. */
const FRAME_OPCODES = new Set([0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa]);

/** The frames of a transaction as the EVM enters them, named by the opcode that opened each. */
class FrameTracker {
  protected lastOp = 'CALL';

  onStep(step: StepEvent): void | Promise<void> {
    if (FRAME_OPCODES.has(step.opcode.code)) this.lastOp = step.opcode.name;
  }

  protected frameType(message: MessageEvent): string {
    if (message.depth === 0) return message.to === undefined ? 'CREATE' : 'CALL';
    if (message.to === undefined) return message.salt !== undefined ? 'CREATE2' : 'CREATE';
    return this.lastOp;
  }
}

class CallTracer extends FrameTracker implements Tracer {
  readonly steps = true;
  private readonly stack: CallFrame[] = [];
  private root: CallFrame | undefined;
  private seq = 0;

  constructor(private readonly config: CallTracerConfig) {
    super();
  }

  override async onStep(step: StepEvent): Promise<void> {
    super.onStep(step);
    if (step.opcode.code === 0xff) return this.selfdestruct(step);
    const frame = this.stack[this.stack.length - 1];
    const log = this.config.withLog === true && frame !== undefined ? logOfStep(step) : undefined;
    if (frame === undefined || log === undefined) return;
    (frame.logs ??= []).push({
      address: bytesToHex(log.address),
      topics: log.topics.map(bytesToHex),
      data: bytesToHex(log.data),
      position: quantity(BigInt(frame.calls?.length ?? 0)),
      seq: this.seq++,
    });
  }

  /** geth adds a SELFDESTRUCT frame: the contract's balance going to the beneficiary. */
  private async selfdestruct(step: StepEvent): Promise<void> {
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined || this.config.onlyTopCall === true || step.stack.length === 0) return;
    const account = await step.stateManager.getAccount(step.address);
    const beneficiary = step.stack[step.stack.length - 1] & ((1n << 160n) - 1n);
    (parent.calls ??= []).push({
      type: 'SELFDESTRUCT',
      from: bytesToHex(step.address.bytes),
      to: `0x${beneficiary.toString(16).padStart(40, '0')}`,
      value: quantity(account?.balance ?? 0n),
      gas: '0x0',
      gasUsed: '0x0',
      input: '0x',
    });
  }

  onEnter(message: MessageEvent): void {
    const type = this.frameType(message);
    // A DELEGATECALL's caller is the contract that makes it (the message carries the original sender).
    const from = type === 'DELEGATECALL' && message.to !== undefined ? message.to : message.caller;
    const frame: CallFrame = {
      type,
      from: bytesToHex(from.bytes),
      gas: quantity(message.gasLimit),
      gasUsed: '0x0',
      input: bytesToHex(message.data),
    };
    const target = type === 'DELEGATECALL' || type === 'CALLCODE' ? message.codeAddress : message.to;
    if (target !== undefined) frame.to = bytesToHex(target.bytes);
    if (type !== 'STATICCALL') frame.value = quantity(message.value);
    if (this.stack.length === 0) this.root = frame;
    else if (this.config.onlyTopCall !== true) {
      const parent = this.stack[this.stack.length - 1];
      (parent.calls ??= []).push(frame);
    }
    this.stack.push(frame);
  }

  onExit(result: MessageResult): void {
    const frame = this.stack.pop();
    if (frame === undefined) return;
    const r = result.execResult;
    frame.gasUsed = quantity(r.executionGasUsed);
    if (result.createdAddress !== undefined && frame.type.startsWith('CREATE'))
      frame.to = bytesToHex(result.createdAddress.bytes);
    const error = r.exceptionError?.error;
    if (error === undefined || error === 'revert') frame.output = bytesToHex(r.returnValue);
    if (error !== undefined) {
      frame.error = gethError(error);
      if (error === 'revert') {
        const reason = revertReason(r.returnValue);
        if (reason !== undefined) frame.revertReason = reason;
      }
      // A failed frame's logs never happened.
      dropLogs(frame);
    }
    if (frame.type.startsWith('CREATE') && error !== undefined) delete frame.to;
  }

  result(tx: TxSummary): unknown {
    const root = this.root;
    if (root === undefined) {
      // No frame ran (a transfer to an account without code runs none in this EVM).
      return {
        type: 'CALL',
        from: bytesToHex(tx.from),
        to: tx.to === undefined ? undefined : bytesToHex(tx.to),
        value: quantity(tx.value),
        gas: quantity(tx.gasLimit),
        gasUsed: quantity(tx.gasUsed),
        input: bytesToHex(tx.input),
      };
    }
    // geth: the top frame carries the transaction's gas limit and the gas the receipt reports.
    root.gas = quantity(tx.gasLimit);
    root.gasUsed = quantity(tx.gasUsed);
    const all: CallLog[] = [];
    const collect = (f: CallFrame) => {
      all.push(...(f.logs ?? []));
      f.calls?.forEach(collect);
    };
    collect(root);
    all.sort((a, b) => a.seq - b.seq);
    all.forEach((log, i) => (log.index = quantity(BigInt(i))));
    return JSON.parse(JSON.stringify(root, (key, value) => (key === 'seq' ? undefined : value)));
  }
}

function dropLogs(frame: CallFrame): void {
  delete frame.logs;
  frame.calls?.forEach(dropLogs);
}

/** geth's abi.panicReasons. */
const PANIC_REASONS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

/** geth's abi.UnpackRevert: Error(string)'s text, or a Panic's reason. */
function revertReason(data: Uint8Array): string | undefined {
  const reason = decodeRevertReason(data);
  if (reason === undefined || !reason.startsWith('panic: ')) return reason;
  return PANIC_REASONS[Number(BigInt(reason.slice('panic: '.length)))] ?? `unknown panic code: ${reason.slice(7)}`;
}

// ------------------------------------------------------------------------------- 4byteTracer

class FourByteTracer extends FrameTracker implements Tracer {
  readonly steps = true;
  private readonly counts: Record<string, number> = {};

  constructor(private readonly isPrecompile: (address: Uint8Array) => boolean) {
    super();
  }

  onEnter(message: MessageEvent): void {
    const type = this.frameType(message);
    if (type.startsWith('CREATE') || message.data.length < 4) return;
    const target = message.codeAddress ?? message.to;
    // geth skips precompiles: "those are just fancy opcodes".
    if (target !== undefined && this.isPrecompile(target.bytes)) return;
    const key = `${bytesToHex(message.data.subarray(0, 4))}-${message.data.length - 4}`;
    this.counts[key] = (this.counts[key] ?? 0) + 1;
  }

  result(): unknown {
    return this.counts;
  }
}

// ------------------------------------------------------------------------------ lineCountTracer

/** A lineCountTracer frame. */
export interface LineFrame {
  type: string;
  from: string;
  to?: string;
  /** Lines the frame added, its sub-calls included. */
  lineCounts: LineCounts;
  calls?: LineFrame[];
}

/** Prover line counts per call frame: what each frame (with its sub-calls) added to each module. */
class LineCountTracer extends FrameTracker implements Tracer {
  readonly steps = true;
  private readonly stack: { frame: LineFrame; before: LineCounts }[] = [];
  private root: LineFrame | undefined;

  constructor(
    private readonly counts: () => LineCounts,
    private readonly tracerName: string,
  ) {
    super();
  }

  onEnter(message: MessageEvent): void {
    const type = this.frameType(message);
    const target = type === 'DELEGATECALL' || type === 'CALLCODE' ? message.codeAddress : message.to;
    const from = type === 'DELEGATECALL' && message.to !== undefined ? message.to : message.caller;
    const frame: LineFrame = { type, from: bytesToHex(from.bytes), lineCounts: {} };
    if (target !== undefined) frame.to = bytesToHex(target.bytes);
    if (this.stack.length === 0) this.root = frame;
    else (this.stack[this.stack.length - 1].frame.calls ??= []).push(frame);
    this.stack.push({ frame, before: this.counts() });
  }

  onExit(result: MessageResult): void {
    const top = this.stack.pop();
    if (top === undefined) return;
    if (result.createdAddress !== undefined && top.frame.type.startsWith('CREATE'))
      top.frame.to = bytesToHex(result.createdAddress.bytes);
    const now = this.counts();
    for (const [module, n] of Object.entries(now)) {
      const added = n - (top.before[module] ?? 0);
      if (added !== 0) top.frame.lineCounts[module] = added;
    }
  }

  result(tx: TxSummary): unknown {
    return { tracer: this.tracerName, lineCounts: tx.lineCounts ?? {}, frames: this.root ?? null };
  }
}

// ----------------------------------------------------------------------------- flatCallTracer

export interface FlatCallTracerConfig {
  convertParityErrors?: boolean;
  includePrecompiles?: boolean;
}

const PARITY_ERRORS: Record<string, string> = {
  'contract creation code storage out of gas': 'Out of gas',
  'out of gas': 'Out of gas',
  'max code size exceeded': 'Out of gas',
  'invalid jump destination': 'Bad jump destination',
  'execution reverted': 'Reverted',
  'return data out of bounds': 'Out of bounds',
  'stack limit reached 1024 (1023)': 'Out of stack',
  'invalid opcode': 'Bad instruction',
  'stack underflow': 'Stack underflow',
};

/** geth's flatCallTracer: the callTracer's frames as Parity-style flat traces. */
class FlatCallTracer implements Tracer {
  readonly steps = true;
  private readonly calls = new CallTracer({});

  constructor(
    private readonly config: FlatCallTracerConfig,
    private readonly isPrecompile: (address: Uint8Array) => boolean,
  ) {}

  onStep(step: StepEvent): Promise<void> {
    return this.calls.onStep(step);
  }
  onEnter(message: MessageEvent): void {
    this.calls.onEnter(message);
  }
  onExit(result: MessageResult): void {
    this.calls.onExit(result);
  }

  result(tx: TxSummary): unknown {
    const root = this.calls.result(tx) as CallFrame;
    const out: Record<string, unknown>[] = [];
    const walk = (f: CallFrame, address: number[]) => {
      const children = (f.calls ?? []).filter(
        (c) =>
          this.config.includePrecompiles === true ||
          !(
            (c.type === 'CALL' || c.type === 'STATICCALL') &&
            c.to !== undefined &&
            this.isPrecompile(hexToBytes(c.to as `0x${string}`))
          ),
      );
      const create = f.type.startsWith('CREATE');
      const value = f.value ?? '0x0';
      const context = {
        blockHash: tx.blockHash === undefined ? null : bytesToHex(tx.blockHash),
        blockNumber: Number(tx.blockNumber ?? 0n),
        transactionHash: tx.txHash === undefined ? null : bytesToHex(tx.txHash),
        transactionPosition: tx.txIndex ?? 0,
      };
      if (f.type === 'SELFDESTRUCT') {
        out.push({
          action: { address: f.from, balance: value, refundAddress: f.to },
          ...context,
          subtraces: 0,
          traceAddress: address,
          type: 'suicide',
        });
        return;
      }
      const frame: Record<string, unknown> = {
        action: create
          ? { creationMethod: f.type.toLowerCase(), from: f.from, gas: f.gas, init: f.input, value }
          : { callType: f.type.toLowerCase(), from: f.from, gas: f.gas, input: f.input, to: f.to, value },
        blockHash: tx.blockHash === undefined ? null : bytesToHex(tx.blockHash),
        blockNumber: Number(tx.blockNumber ?? 0n),
        result: create
          ? { address: f.to, code: f.output ?? '0x', gasUsed: f.gasUsed }
          : { gasUsed: f.gasUsed, output: f.output ?? '0x' },
        subtraces: children.length,
        traceAddress: address,
        transactionHash: tx.txHash === undefined ? null : bytesToHex(tx.txHash),
        transactionPosition: tx.txIndex ?? 0,
        type: create ? 'create' : 'call',
      };
      if (f.error !== undefined) {
        frame.error = this.config.convertParityErrors === true ? (PARITY_ERRORS[f.error] ?? f.error) : f.error;
        if (f.error !== 'execution reverted') delete frame.result;
      }
      out.push(frame);
      children.forEach((c, i) => walk(c, [...address, i]));
    };
    walk(root, []);
    return out;
  }
}

// ------------------------------------------------------------------------------ prestateTracer

export interface PrestateTracerConfig {
  diffMode?: boolean;
}

type AccountState = { balance?: string; nonce?: number; code?: string; storage?: Record<string, string> };

/**
 * The accounts and slots a transaction touched, as they were before it (geth's prestateTracer);
 * with diffMode, what changed: `pre` and `post` of the modified fields only.
 */
class PrestateTracer implements Tracer {
  readonly steps = true;
  private readonly touched = new Map<string, Set<string>>();
  private readonly states: Partial<Record<'pre' | 'post', Map<string, { account: AccountState; exists: boolean }>>> =
    {};

  constructor(
    private readonly config: PrestateTracerConfig,
    start: Uint8Array[],
  ) {
    for (const a of start) this.touch(a);
  }

  private touch(address: Uint8Array | bigint, slot?: bigint): void {
    const key =
      typeof address === 'bigint' ? wordOf(address & ((1n << 160n) - 1n)).slice(-40) : bytesToUnprefixedHex(address);
    const slots = this.touched.get(key) ?? new Set<string>();
    this.touched.set(key, slots);
    if (slot !== undefined) slots.add(wordOf(slot));
  }

  onStep(step: StepEvent): void {
    const s = step.stack;
    const top = (i: number) => s[s.length - 1 - i];
    switch (step.opcode.code) {
      case 0x54: // SLOAD
      case 0x55: // SSTORE
        if (s.length >= 1) this.touch(step.address.bytes, top(0));
        return;
      case 0x31: // BALANCE
      case 0x3b: // EXTCODESIZE
      case 0x3c: // EXTCODECOPY
      case 0x3f: // EXTCODEHASH
      case 0xff: // SELFDESTRUCT
        if (s.length >= 1) this.touch(top(0));
        return;
      case 0xf1: // CALL
      case 0xf2: // CALLCODE
      case 0xf4: // DELEGATECALL
      case 0xfa: // STATICCALL
        if (s.length >= 2) this.touch(top(1));
        return;
      default:
    }
  }

  onExit(result: MessageResult): void {
    if (result.createdAddress !== undefined) this.touch(result.createdAddress.bytes);
  }

  async capture(phase: 'post' | 'pre', state: StateReader): Promise<void> {
    const out = new Map<string, { account: AccountState; exists: boolean }>();
    for (const [address, slots] of this.touched) {
      const bytes = hexToBytes(`0x${address}`);
      const a = await state.account(bytes);
      const account: AccountState = { balance: quantity(a.balance) };
      if (a.nonce > 0n) account.nonce = Number(a.nonce);
      if (a.code.length > 0) account.code = bytesToHex(a.code);
      if (slots.size > 0) {
        account.storage = {};
        for (const slot of slots)
          account.storage[slot] = word(await state.storage(bytes, hexToBytes(slot as `0x${string}`)));
      }
      out.set(address, { account, exists: a.balance !== 0n || a.nonce !== 0n || a.code.length > 0 });
    }
    this.states[phase] = out;
  }

  result(): unknown {
    type States = Map<string, { account: AccountState; exists: boolean }>;
    const pre: States = this.states.pre ?? new Map();
    const post: States = this.states.post ?? new Map();
    if (this.config.diffMode !== true) return Object.fromEntries([...pre].map(([a, s]) => [`0x${a}`, s.account]));
    const preOut: Record<string, AccountState> = {};
    const postOut: Record<string, AccountState> = {};
    const ZERO = word(new Uint8Array(32));
    for (const [address, before] of pre) {
      const after = post.get(address);
      if (after === undefined) continue;
      const b = before.account;
      const a = after.account;
      const changed: AccountState = {};
      if (a.balance !== b.balance) changed.balance = a.balance;
      if (a.nonce !== b.nonce) changed.nonce = a.nonce;
      if (a.code !== b.code) changed.code = a.code;
      const preSlots: Record<string, string> = {};
      const postSlots: Record<string, string> = {};
      for (const [slot, value] of Object.entries(a.storage ?? {})) {
        const old = b.storage?.[slot] ?? ZERO;
        if (value === old) continue;
        if (value !== ZERO) postSlots[slot] = value;
        if (old !== ZERO) preSlots[slot] = old;
      }
      if (Object.keys(postSlots).length > 0) changed.storage = postSlots;
      const anyChange = Object.keys(changed).length > 0 || Object.keys(preSlots).length > 0;
      if (!anyChange) continue;
      if (Object.keys(changed).length > 0) postOut[`0x${address}`] = changed;
      if (before.exists) {
        const { storage: _all, ...rest } = b;
        void _all;
        preOut[`0x${address}`] = Object.keys(preSlots).length > 0 ? { ...rest, storage: preSlots } : rest;
      }
    }
    return { post: postOut, pre: preOut };
  }
}

// ---------------------------------------------------------------------------------- the others

class NoopTracer implements Tracer {
  readonly steps = false;
  result(): unknown {
    return {};
  }
}

class MuxTracer implements Tracer {
  readonly steps: boolean;
  constructor(private readonly tracers: [string, Tracer][]) {
    this.steps = tracers.some(([, t]) => t.steps);
    if (tracers.some(([, t]) => t.capture !== undefined))
      this.capture = async (phase, state) => {
        for (const [, t] of this.tracers) await t.capture?.(phase, state);
      };
  }
  async onStep(step: StepEvent): Promise<void> {
    for (const [, t] of this.tracers) await t.onStep?.(step);
  }
  readonly capture?: (phase: 'post' | 'pre', state: StateReader) => Promise<void>;
  onEnter(message: MessageEvent): void {
    for (const [, t] of this.tracers) t.onEnter?.(message);
  }
  onExit(result: MessageResult): void {
    for (const [, t] of this.tracers) t.onExit?.(result);
  }
  result(tx: TxSummary): unknown {
    return Object.fromEntries(this.tracers.map(([name, t]) => [name, t.result(tx)]));
  }
}

export interface TraceOptions {
  tracer?: string;
  tracerConfig?: Record<string, unknown>;
  /** Struct logger options (geth takes them at the top level). */
  disableStack?: boolean;
  disableStorage?: boolean;
  enableMemory?: boolean;
  enableReturnData?: boolean;
  limit?: number;
  /** How long the trace may run, in ms (geth's `timeout`; default the node's --rpc-evm-timeout). */
  timeout?: number;
  /** debug_traceCall's block overrides: the block context the call sees. */
  blockOverrides?: BlockOverrides;
}

export interface BlockOverrides {
  number?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  coinbase?: Uint8Array;
  random?: Uint8Array;
  baseFee?: bigint;
}

export interface TracerContext {
  /** The accounts every transaction touches first: sender, recipient, coinbase. */
  start: Uint8Array[];
  isPrecompile(address: Uint8Array): boolean;
  /** The line counts so far, mid-transaction. */
  counts(): LineCounts;
  profile: string;
}

/** A new tracer for one transaction, as named by geth's options. */
export function makeTracer(options: TraceOptions, ctx: TracerContext): Tracer {
  const config = options.tracerConfig ?? {};
  switch (options.tracer) {
    case undefined:
    case '':
      return new StructLogger(options);
    case 'callTracer':
      return new CallTracer(config as CallTracerConfig);
    case '4byteTracer':
      return new FourByteTracer(ctx.isPrecompile);
    case 'noopTracer':
      return new NoopTracer();
    case 'flatCallTracer':
      return new FlatCallTracer(config as FlatCallTracerConfig, ctx.isPrecompile);
    case 'prestateTracer':
      return new PrestateTracer(config as PrestateTracerConfig, ctx.start);
    case 'lineCountTracer':
      return new LineCountTracer(ctx.counts, ctx.profile);
    case 'muxTracer':
      return new MuxTracer(
        Object.entries(config).map(([name, sub]) => {
          if (name === 'muxTracer') throw new TracerError('muxTracer cannot contain muxTracer');
          return [name, makeTracer({ tracer: name, tracerConfig: (sub ?? {}) as Record<string, unknown> }, ctx)];
        }),
      );
    default:
      throw new TracerError(`tracer not found: ${options.tracer}`);
  }
}
