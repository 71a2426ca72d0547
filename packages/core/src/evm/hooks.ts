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
  /** Where it was then: past its code's end when it ran off it. */
  pc: number;
  /** The stack as it was then (an instruction that failed its checks has popped nothing). */
  stack: StackView;
  memoryWords: number;
  memory: MemoryView;
  /** The transaction's refund counter then. */
  refund: number;
}

/**
 * An instruction as it starts (ethereumjs's step event): its gas worked out but not yet charged.
 * Every instruction the frame reaches has one, the one that fails included: `cost` is what it is
 * charged; for one that fails, what ethereumjs's step reports (machine.ts failedCost: out of gas,
 * the whole cost its gas handler works out; else its static fee).
 */
export interface StepStart {
  pc: number;
  /** The opcode byte at pc. */
  op: number;
  /** The frame's gas before the instruction. */
  gasLeft: number;
  cost: bigint;
  /** 0 for the run's own message. */
  depth: number;
  /** The stack, bottom first (a copy). */
  stack: bigint[];
  /** The frame's memory, of which the instruction found `memoryWords` words in use (it may have grown them since). */
  memory: MemoryView;
  memoryWords: number;
  /** The transaction's refund counter (an SSTORE's own change to it in). */
  refund: number;
  /** The running contract (the caller's, in a DELEGATECALL or CALLCODE). */
  address: Uint8Array;
  state: RunState;
}

/** The state as the run sees it now (its own writes included). */
export interface RunState {
  code(address: Uint8Array): Promise<Uint8Array>;
  balance(address: Uint8Array): Promise<bigint>;
  /** A slot's value, as 32 bytes. */
  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>;
}

/** A frame's memory as an observer reads it: `size` bytes at `offset`, zeros past its end. */
export interface MemoryView {
  read(offset: number, size: number): Uint8Array;
}

/** A message as it starts (ethereumjs's beforeMessage). */
export interface MessageStart {
  depth: number;
  caller: Uint8Array;
  /** Undefined for a creation. */
  to: Uint8Array | undefined;
  /** Where the code comes from (a CALLCODE's or DELEGATECALL's target); undefined for a creation. */
  codeAddress: Uint8Array | undefined;
  value: bigint;
  /** Its call data, or a creation's init code. */
  data: Uint8Array;
  gas: number;
  delegate: boolean;
  isStatic: boolean;
}

/** How it ended (ethereumjs's afterMessage). */
export interface MessageEnd {
  error: string | undefined;
  returnData: Uint8Array;
  gasUsed: number;
  /** A creation's address. */
  created: Uint8Array | undefined;
}

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
   * Each instruction as it starts (StepStart), before `opcode`; costly (a copy of the stack each
   * time), so given only by an observer that reads every step. A promise given is waited for.
   */
  step?(step: StepStart): Promise<void> | void;
  /**
   * An instruction passed its checks and was charged its gas (`gasLeft` is what is left): it runs
   * next, with its operands still on the stack; `frame` is the running frame's address and memory,
   * `state` the state as the run sees it now. A promise given is waited for.
   */
  opcode(
    op: number,
    stack: StackView,
    gasLeft: number,
    state: RunState,
    frame: { address: Uint8Array; memory: MemoryView },
  ): Promise<void> | void;
  /** A message (the run's own, or a CALL's or CREATE's that passed its depth and balance checks) starts. */
  enter(message: MessageStart): void;
  /** That message ended; `error` as its result has it (`revert` for REVERT). */
  exit(message: MessageStart, end: MessageEnd): void;
  frameStart(frame: FrameStart): void;
  frameEnd(frame: FrameEnd): void;
  /** A precompile ran. */
  precompile(fn: Precompile, data: Uint8Array, result: PrecompileResult): void;
}

/** Two observers as one: each point reaches `first`, then `second` (either may be absent). */
export function bothHooks(first: EngineHooks | undefined, second: EngineHooks | undefined): EngineHooks | undefined {
  if (first === undefined || second === undefined) return first ?? second;
  return {
    transactionStart: (tx) => {
      const a = first.transactionStart?.(tx);
      if (a instanceof Promise) return a.then(() => second.transactionStart?.(tx));
      return second.transactionStart?.(tx);
    },
    ...((first.step !== undefined || second.step !== undefined) && {
      step: (step: StepStart) => {
        const a = first.step?.(step);
        if (a instanceof Promise) return a.then(() => second.step?.(step));
        return second.step?.(step);
      },
    }),
    opcode: (op, stack, gasLeft, state, frame) => {
      const a = first.opcode(op, stack, gasLeft, state, frame);
      if (a instanceof Promise) return a.then(() => second.opcode(op, stack, gasLeft, state, frame));
      return second.opcode(op, stack, gasLeft, state, frame);
    },
    enter: (message) => {
      first.enter(message);
      second.enter(message);
    },
    exit: (message, end) => {
      first.exit(message, end);
      second.exit(message, end);
    },
    frameStart: (frame) => {
      first.frameStart(frame);
      second.frameStart(frame);
    },
    frameEnd: (frame) => {
      first.frameEnd(frame);
      second.frameEnd(frame);
    },
    precompile: (fn, data, result) => {
      first.precompile(fn, data, result);
      second.precompile(fn, data, result);
    },
  };
}
