/**
 * The rows of a frame and of a message, by the counter's rules, as the counter's frame and message
 * hooks (lineCounter.ts, on either engine) reach them:
 *  - a frame with code starts: its code's ROM and ROM_LEX rows once per conflation, a creation's
 *    address trimmed (TRM), London's call data into memory (ImcFragment.forTxInit,
 *    ExoToRamTransplants.java);
 *  - it ends: ZkTracer's context exit (Hub.traceContextExit, TraceSections.lineCount: the
 *    exceptional row, the rows of an instruction that raised before it ran, the undo rows taken or
 *    handed to the caller), GAS, London's STOP comparisons (GasOperation.java), a deployment's OOB,
 *    ROM, SHAKIRA_DATA and BLOCK_KECCAK rows; the light counter's (ZkCounter.tracePreExecution for
 *    an instruction that raised first, traceAccountCreationResult for a deployment);
 *  - a message ends: ZkTracer's CALL and CREATE sections settled by where it went and how it ended
 *    (hub/section/call/CallSection.java, CreateSection.java), ZkCounter's HUB and GAS row for
 *    every context exit (ZkCounter.traceContextExit).
 * The counter hands them its conflation, its frames, its opcode counts and its shared operations
 * (FrameCounting).
 */
import type { Conflation } from './conflation';
import type { Frame, InstructionCounting, Stack } from './instructionRows';
import {
  clampedToInt,
  hubRowsOfException,
  keccakBlocks,
  LEQ,
  LIMITLESS_STOP_IN_DEPLOYMENT,
  limbRows,
  LT,
  romRows,
  shakiraRows,
} from './lineProfiles';
import { OOB } from './precompileRows';

/** What the frames' and messages' rows need of the counter, beyond what an instruction's need. */
export interface FrameCounting extends InstructionCounting {
  /** The frames running, innermost last. */
  readonly frames: Frame[];
  /** Executions per opcode in the current transaction. */
  readonly ops: Uint32Array;
  /** Per opcode: what its hook reads from the stack and counts (instructionHook). */
  readonly measures: readonly (((stack: Stack) => void) | undefined)[];
  /** Per opcode: its gas is worked out by a handler that reads the stack first (ethereumjs). */
  readonly dynamicGas: Uint8Array;
  /** The current transaction's frames with code, and London's exceptional ones (transactionRows.ts reads them). */
  readonly tally: { codeFrames: number; exceptionalFrames: number };
}

/** A frame as the counter reads it at its start (ethereumjs's message, or the engine's frame). */
export interface FrameStarted {
  code: Uint8Array;
  isCreate: boolean;
  /** Unprefixed hex: a creation's new address, a call's code address. */
  address: string;
  data: Uint8Array;
}

/** A frame's end as ethereumjs's runInterpreter gives it (the engine's frame end is put in this shape). */
export type InterpreterResult = {
  exceptionError?: { error?: string };
  /** The gas left at its end. */
  gas?: bigint;
  returnValue?: Uint8Array;
  /** Built when read (a pinned patch makes it lazy): read only at a frame's exceptional or deployment end. */
  runState?: { programCounter: number; opCode: number; stack: Stack; memoryWordCount: bigint };
};

/** A message started: the frame that sent it and what it sent, settled at its end. */
export interface MessageEntered {
  caller: Frame | undefined;
  kind: 'call' | 'create' | undefined;
}

/** ROM and ROM_LEX: a code fragment, counted once per conflation. */
export function fragment(c: Conflation, key: string, size: number): void {
  if (size === 0) return;
  c.addOnce(`rom:${key}`, 'ROM', () => romRows(size));
  c.addOnce(`romlex:${key}`, 'ROM_LEX', 1);
}

/** A frame with code starts: its code's rows, and the frame the counter follows (pushed). */
export function frameStarted(k: FrameCounting, message: FrameStarted): Frame {
  const { code, address } = message;
  k.tally.codeFrames++;
  const caller = k.frames.at(-1);
  if (caller !== undefined) caller.child = 'smc';
  const frame: Frame = { deploying: message.isCreate, halted: false, undo: 0 };
  if (k.mode === 'london') {
    // A transaction's call data goes to its recipient's memory through the MMU (ImcFragment.forTxInit,
    // ExoToRamTransplants.java: its size, as 4 bytes, divided by 16) when the recipient has code.
    const size = message.data.length;
    if (k.frames.length === 0 && !message.isCreate && size > 0) k.euc(BigInt(size), 16n, 4);
    frame.codeSize = code.length;
    frame.callDataSize = size;
    frame.callDataOffset = message.isCreate ? 0n : (k.nextCallDataOffset ?? 0n);
    k.nextCallDataOffset = undefined;
  }
  if (k.mode !== 'limitless') {
    if (message.isCreate) {
      fragment(k.c, `${address}:init`, code.length);
      k.trm(BigInt(`0x${address}`));
    } else fragment(k.c, `${address}:code`, code.length);
  }
  k.frames.push(frame);
  return frame;
}

/** That frame ended (and was popped): its exit's rows. */
export function frameFinished(k: FrameCounting, message: FrameStarted, result: InterpreterResult, frame: Frame): void {
  // A frame that ran off the end of its code executes the virtual STOP.
  if (result.exceptionError === undefined && !frame.halted) {
    k.ops[0x00]++;
    deploymentStop(k, frame);
  }
  if (k.mode === 'limitless') limitlessFrameEnded(k, message, result);
  else frameEnded(k, message, result, frame);
}

/**
 * STOP in a deployment, explicit or at the end of the init code: the instruction table has a
 * message call's 3 rows; ZkTracer's section has 4 and an undo ACC, ZkCounter's bound is 5.
 */
export function deploymentStop(k: FrameCounting, frame: Frame): void {
  if (!frame.deploying || k.mode === 'london') return;
  if (k.mode === 'limitless') k.c.add('HUB', LIMITLESS_STOP_IN_DEPLOYMENT - 3);
  else {
    k.c.add('HUB', 1);
    frame.undo++;
  }
}

/** A message starts: its caller's pending CALL or CREATE (undefined: nothing to do at its end). */
export function messageEntered(k: FrameCounting, top: boolean): MessageEntered | undefined {
  const caller = top ? undefined : k.frames.at(-1);
  if (k.mode !== 'limitless' && caller === undefined) return undefined;
  const kind = caller?.pending;
  if (caller !== undefined) caller.pending = caller.child = undefined;
  return { caller, kind };
}

/** That message ended: ZkCounter's context exit, or ZkTracer's section settled. */
export function messageExited(k: FrameCounting, { caller, kind }: MessageEntered, failed: boolean): void {
  if (k.mode === 'limitless') {
    k.c.add('HUB', 1);
    k.c.add('GAS', 1);
  } else if (caller !== undefined && kind !== undefined) settle(k, caller, kind, failed);
}

/**
 * ZkTracer's CALL and CREATE sections once the message ran (hub/section/call/CallSection.java,
 * CreateSection.java): the rows a child adds at entry or at the parent's re-entry, and the undo
 * rows the section takes if the caller's frame is rolled back. The instruction's table rows assume
 * an aborted message (CALL 9 rows, 2 undo; CREATE 7, none).
 */
function settle(k: FrameCounting, caller: Frame, kind: 'call' | 'create', failed: boolean): void {
  if (kind === 'create') {
    // Failure condition, empty init code or a child that succeeds: 8; a child that fails: 10.
    k.c.add('HUB', 1 + (caller.child === 'smc' && failed ? 2 : 0));
    caller.undo += 2;
  } else if (caller.child === 'smc') {
    // The child failed: 3 undo ACC rows at re-entry now, 2 later; else 3 later.
    if (failed) k.c.add('HUB', 3);
    else caller.undo += 1;
  } else if (caller.child === 'prc')
    caller.undo += failed ? -2 : 1; // CALL_PRC_FAILURE: no undo
  else caller.undo += 1; // an account without code
}

/**
 * A frame of the light counter ended. An exception raised before its instruction ran (out of gas,
 * stack, invalid opcode) still counts that instruction (tracePreExecution sees it first); a
 * deployment that ends well hashes its memory (traceAccountCreationResult), and feeds SHAKIRA_DATA
 * when it ends with RETURN.
 */
function limitlessFrameEnded(k: FrameCounting, message: FrameStarted, result: InterpreterResult): void {
  const error = result.exceptionError?.error;
  const state = error !== undefined || message.isCreate ? result.runState : undefined;
  if (error !== undefined && error !== 'revert' && state !== undefined && !ran(k, state.opCode, error)) {
    k.ops[state.opCode]++;
    k.measures[state.opCode]?.(state.stack);
    return;
  }
  if (!message.isCreate || error !== undefined || state === undefined) return;
  const memory = clampedToInt(state.memoryWordCount * 32n);
  if (state.opCode === 0xf3) k.c.add('SHAKIRA_DATA', limbRows(memory) + 2); // it ended with RETURN
  k.c.add('BLOCK_KECCAK', keccakBlocks(memory));
}

/**
 * Whether the instruction that raised `error` ran (its handler, and so its hook, was reached):
 * ethereumjs raises out of gas, invalid opcodes and static-call violations before the handler, and
 * a stack short of operands in the gas handler of an instruction with dynamic gas; the rest (a bad
 * jump, returned data out of bounds, a stack error of a static-gas instruction) from the handler.
 */
function ran(k: FrameCounting, op: number, error: string): boolean {
  if (error === 'out of gas' || error === 'invalid opcode' || error === 'static state change') return false;
  return !(error.startsWith('stack') && k.dynamicGas[op] === 1);
}

/**
 * ZkTracer at a frame's exit (Hub.traceContextExit, TraceSections.lineCount): an exception adds the
 * exceptional context row, and the rows of the instruction that raised it when it never ran; a
 * frame that reverts or fails takes the undo rows of its sections and its children's
 * (resolveUponRollback), a frame that succeeds hands them to its caller.
 */
function rollOrPass(
  k: FrameCounting,
  frame: Frame,
  error: string | undefined,
  exceptional: InterpreterResult | undefined,
): void {
  const state = exceptional?.runState;
  if (state !== undefined) {
    const didRun = ran(k, state.opCode, error ?? '');
    k.c.add('HUB', didRun ? 1 : hubRowsOfException(state.opCode, error ?? ''));
  }
  const caller = k.frames.at(-1);
  if (error !== undefined) k.c.add('HUB', frame.undo);
  else if (caller !== undefined) caller.undo += frame.undo;
}

/** The full tracer's rows at a frame's end (ZkTracer's, or London's). */
function frameEnded(k: FrameCounting, message: FrameStarted, result: InterpreterResult, frame: Frame): void {
  const c = k.c;
  const london = k.mode === 'london';
  const error = result.exceptionError?.error;
  const exceptional = error !== undefined && error !== 'revert';
  if (!london) rollOrPass(k, frame, error, exceptional ? result : undefined);
  if (exceptional) {
    if (london) k.tally.exceptionalFrames++;
    c.add('GAS', london ? (error === 'out of gas' ? 3 : 2) : 1);
    return;
  }
  c.add('GAS', london ? 3 : 1);
  // London's GAS module compares, at a STOP (explicit or past the code's end), the gas left and the
  // STOP's cost 0 (GasOperation.java, 658ab6d1): LEQ(0, gas), LEQ(0, 0), LT(gas, 0).
  if (london && error === undefined && (frame.stopped === true || !frame.halted) && result.gas !== undefined) {
    k.wcp(LEQ, 0n, result.gas);
    k.wcp(LEQ, 0n, 0n);
    k.wcp(LT, result.gas, 0n);
  }
  const deployed = result.returnValue;
  if (message.isCreate && error === undefined && deployed !== undefined && deployed.length > 0) {
    c.add('OOB', OOB.DEPLOYMENT);
    fragment(c, `${message.address}:code`, deployed.length);
    c.add('SHAKIRA_DATA', shakiraRows(deployed.length));
    c.add('BLOCK_KECCAK', keccakBlocks(deployed.length));
  }
}
