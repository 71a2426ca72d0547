/**
 * What a tracer is: an object fed the EVM's `step`, `beforeMessage` and `afterMessage` events while one
 * transaction or call runs (simulator.ts attaches it), which then gives its result. Results are typed
 * values (bigint, Uint8Array); rpc's formatters write them as geth answers.
 */
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';

import type { LineCounts } from '../../lines/conflation';
import type { Log } from '../../types';

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
/** What an opcode hook reads: the interpreter's stack, memory, address and state. */
export interface OpcodeState {
  stack: { peek(n?: number): bigint[] };
  memory: { read(offset: number, size: number): Uint8Array };
  interpreter: { getAddress(): Addr };
  stateManager: StepEvent['stateManager'];
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
}
export interface MessageResult {
  createdAddress?: Addr;
  execResult: {
    exceptionError?: { error: string };
    returnValue: Uint8Array;
    executionGasUsed: bigint;
    /** The frame's interpreter state as it ended (absent for a precompile or an empty account). */
    runState?: EndState;
  };
}

/** What the EVM leaves of a frame's interpreter state when it ends. */
export interface EndState {
  programCounter: number;
  code: Uint8Array;
  gasLeft: bigint;
  gasRefund: bigint;
  stack: { getStack(): bigint[] };
  memory: { _store: Uint8Array };
  memoryWordCount: bigint;
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

/** One step of the struct logger (geth's default tracer). */
export interface StructLog {
  pc: number;
  op: string;
  gas: bigint;
  /** The step's cost; for a CALL-family instruction, with the gas it passes on (as geth counts). */
  gasCost: bigint;
  /** 1 for the transaction's own frame. */
  depth: number;
  stack?: bigint[];
  memory?: Uint8Array;
  returnData?: Uint8Array;
  /** The slots of the running contract read or written so far, after an SLOAD or SSTORE. */
  storage?: [slot: bigint, value: bigint][];
  refund: bigint;
  error?: string;
}

/** A callTracer frame. */
export interface CallFrame {
  type: string;
  from: Uint8Array;
  to?: Uint8Array;
  value?: bigint;
  gas: bigint;
  gasUsed: bigint;
  input: Uint8Array;
  output?: Uint8Array;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  logs?: CallLog[];
}

/** A log the callTracer saw (withLog): `position` is the number of calls its frame made before it. */
export interface CallLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  position: number;
  /** The log's index among the transaction's logs. */
  index: number;
}

/** One of the flatCallTracer's Parity-style traces. */
export interface FlatTrace {
  type: 'call' | 'create' | 'suicide';
  /** For a call or create: the callTracer frame it flattens (`callType`/`creationMethod` are its type). */
  frame: CallFrame;
  /** The error in Parity's words when convertParityErrors asked for them, else geth's. */
  error?: string;
  subtraces: number;
  traceAddress: number[];
  blockHash?: Uint8Array;
  blockNumber: bigint;
  transactionHash?: Uint8Array;
  transactionPosition: number;
}

/** A lineCountTracer frame: the lines it added, its sub-calls included. */
export interface LineFrame {
  type: string;
  from: Uint8Array;
  to?: Uint8Array;
  lineCounts: LineCounts;
  calls?: LineFrame[];
}

/** An account as the prestateTracer shows it: the fields it has (all of them, or those changed). */
export interface PrestateAccount {
  address: Uint8Array;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  storage?: [slot: bigint, value: bigint][];
}

/** A tracer's result, by the tracer that made it. */
export type TraceResult =
  | { tracer: 'structLogger'; failed: boolean; gas: bigint; returnValue: Uint8Array; structLogs: StructLog[] }
  | { tracer: 'callTracer'; frame: CallFrame }
  | { tracer: 'flatCallTracer'; traces: FlatTrace[] }
  | { tracer: '4byteTracer'; calls: { selector: Uint8Array; size: number; count: number }[] }
  | { tracer: 'prestateTracer'; accounts: PrestateAccount[] }
  | { tracer: 'prestateTracer'; diff: { pre: PrestateAccount[]; post: PrestateAccount[] } }
  | { tracer: 'lineCountTracer'; profile: string; lineCounts: LineCounts; frames: LineFrame | null }
  | { tracer: 'noopTracer' }
  | { tracer: 'muxTracer'; results: [name: string, result: TraceResult][] };

/** What follows a run's EVM events; a Tracer gives a result of them. */
export interface EvmObserver {
  /** The step event is needed (it is costly: only tracers that read steps ask for it). */
  readonly steps: boolean;
  /**
   * Called once the transaction has run: with the state after it, then with the state before it
   * (the runner rolls back for this, then runs the transaction again untraced).
   */
  capture?(phase: 'post' | 'pre', state: StateReader): Promise<void>;
  onStep?(step: StepEvent): void | Promise<void>;
  /**
   * A few opcodes seen without the step event: `onOpcode` runs as each one starts (its gas paid),
   * with the interpreter's state; it must not be async for an opcode whose handler is not.
   */
  readonly opcodes?: readonly number[];
  onOpcode?(code: number, state: OpcodeState): void | Promise<void>;
  onEnter?(message: MessageEvent): void;
  onExit?(result: MessageResult): void;
}

export interface Tracer extends EvmObserver {
  result(tx: TxSummary): TraceResult;
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

/**
 * Tracers see a LOG before its gas is checked; one larger than this could not pay for the memory
 * (2^24 bytes cost over 500 million gas), so its data is not copied.
 */
export const MAX_TRACED_LOG_BYTES = 1n << 24n;

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

/**
 * The log a LOG0..LOG4 about to run emits, from an opcode hook's interpreter state
 * (EvmObserver.onOpcode): its operands on the stack and its data in memory. None for another
 * instruction, or a size no LOG could pay for.
 */
export function logOfOpcode(code: number, state: OpcodeState): Log | undefined {
  if (code < 0xa0 || code > 0xa4) return undefined;
  // offset, size, then the topics: the stack's top first.
  const [offset, size, ...topics] = state.stack.peek(2 + code - 0xa0);
  if (size > MAX_TRACED_LOG_BYTES) return undefined;
  return {
    address: state.interpreter.getAddress().bytes,
    topics: topics.map((t) => setLengthLeft(bigIntToBytes(t), 32)),
    data: state.memory.read(Number(offset), Number(size)),
  };
}

/** The opcodes that open a call frame, by name. */
const FRAME_OPCODES = new Map([
  [0xf0, 'CREATE'],
  [0xf1, 'CALL'],
  [0xf2, 'CALLCODE'],
  [0xf4, 'DELEGATECALL'],
  [0xf5, 'CREATE2'],
  [0xfa, 'STATICCALL'],
]);

/**
 * The frames of a transaction as the EVM enters them, named by the opcode that opened each: seen
 * through opcode hooks (`opcodes`, `onOpcode`), not the step event, which a tracer built on this
 * does not need (its runs skip the interpreter's per-step event).
 */
export class FrameTracker {
  protected lastOp = 'CALL';
  readonly steps: boolean = false;
  opcodes: readonly number[] = [...FRAME_OPCODES.keys()];

  onOpcode(code: number, _state: OpcodeState): void | Promise<void> {
    const name = FRAME_OPCODES.get(code);
    if (name !== undefined) this.lastOp = name;
  }

  protected frameType(message: MessageEvent): string {
    if (message.depth === 0) return message.to === undefined ? 'CREATE' : 'CALL';
    // The opcode that opened it ran just before (its hook, on either engine).
    return this.lastOp;
  }
}
