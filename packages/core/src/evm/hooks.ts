/**
 * What the engine tells an observer as code runs (the line counter today): the same points, in the
 * same order, with the same values, as the hooks it has in ethereumjs (lines/lineCounter.ts), so an
 * observer counts the same on either engine. A run without hooks pays one branch per step.
 */
import type { Precompile, PrecompileResult } from './machine';

/** A frame's stack as an observer reads it: `peek(n)` gives the top n words, top first. */
export interface StackView {
  readonly length: number;
  /** Throws the frame's stack underflow (it halts the frame) when fewer than n words are there. */
  peek(n?: number): bigint[];
}

/** A frame with code starts (ethereumjs's runInterpreter). */
export interface FrameStart {
  code: Uint8Array;
  isCreate: boolean;
  /** A creation's new address; a call's code address. */
  address: Uint8Array;
  /** Its call data (empty for a creation). */
  data: Uint8Array;
  depth: number;
}

/** A frame with code ends: its own outcome, before a creation's code deposit is checked. */
export interface FrameEnd {
  error: string | undefined;
  gasLeft: number;
  returnData: Uint8Array;
  /** The opcode that ended it or raised its error; the last one run when it ran off its code. */
  opCode: number;
  /** The stack as it was then (an instruction that failed its checks has popped nothing). */
  stack: StackView;
  memoryWords: number;
}

export type CodeReader = (address: Uint8Array) => Promise<Uint8Array>;

export interface TransactionStart {
  caller: Uint8Array;
  /** Undefined for a creation. */
  to: Uint8Array | undefined;
  coinbase: Uint8Array;
  gasPrice: bigint;
}

export interface EngineHooks {
  /** The run's first message is about to start. */
  transactionStart?(tx: TransactionStart): Promise<void> | void;
  /**
   * An instruction passed its checks and was charged its gas (`gasLeft` is what is left): it runs
   * next, with its operands still on the stack. `code` reads an account's code as the run sees it
   * now. A promise given is waited for.
   */
  opcode(op: number, stack: StackView, gasLeft: number, code: CodeReader): Promise<void> | void;
  /** A message (the run's own, or a CALL's or CREATE's that passed its depth and balance checks) starts. */
  enter(depth: number): void;
  /** That message ended; `error` as its result has it (`revert` for REVERT). */
  exit(depth: number, error: string | undefined): void;
  frameStart(frame: FrameStart): void;
  frameEnd(frame: FrameEnd): void;
  /** A precompile ran. */
  precompile(fn: Precompile, data: Uint8Array, result: PrecompileResult): void;
}
