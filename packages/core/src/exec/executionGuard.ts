/**
 * Keeps one long execution from holding the node. ethereumjs runs every opcode on the one event
 * loop and, although it awaits a promise per step, never lets a timer or a socket in until the
 * whole call is done: an infinite loop in an `eth_call` would stall every client for as long as
 * its gas lasts (tens of seconds at the call gas cap).
 *
 * The guard wraps the opcodes every long execution must keep reaching — JUMPDEST (every loop lands
 * on one) and the call and create opcodes (every recursion goes through one) — in the EVM's own
 * opcode table. At every call or create, and every JUMPDESTS_PER_CHECK JUMPDESTs, it reads the clock:
 *  - when the event loop has not turned for a slice it pauses (`yieldIfBusy`), so timers and
 *    sockets are served meanwhile (a block being mined pauses the same way, and stays deterministic);
 *  - past the deadline of a simulation (`--rpc-evm-timeout`, as geth's `--rpc.evmtimeout`) it halts
 *    the frame as out of gas, and every frame above it halts at its next guarded opcode, so the
 *    journal unwinds as for any failed call; `timedOut` tells the caller why;
 *  - when the use's stop condition gives a reason (a line count past its limit, for
 *    linea_estimateGas) it halts the same way; `stopped` holds the reason.
 */
import { EVMError } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';

import { yieldIfBusy } from '../support/eventLoop';

/** JUMPDESTs between two clock reads (a clock read costs about as much as a cheap opcode). */
const JUMPDESTS_PER_CHECK = 64;
const JUMPDEST = 0x5b;
/** CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL: each opens a frame, a far larger cost than a clock read. */
const FRAME_OPCODES = [0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa];

type RunState = { gasLeft: bigint };
type OpHandler = (runState: RunState, common: unknown) => unknown;
type OpEntry = { opcodeInfo: { isAsync: boolean }; opHandler: OpHandler };
type EvmInternals = { _opcodeMap: (OpEntry | undefined)[] };

export class ExecutionGuard {
  /** performance.now() after which a simulation is halted; Infinity for none. */
  private deadline = Infinity;
  private countdown = JUMPDESTS_PER_CHECK;
  /** Why the current execution was halted: past its deadline, or its stop condition's reason. */
  private halted: 'timeout' | Error | undefined;
  private stopWhen: (() => Error | undefined) | undefined;

  constructor(evm: VM['evm']) {
    const internals = evm as unknown as EvmInternals;
    this.hook(internals);
    // A fork change rebuilds the EVM's opcode table: guard the new one.
    evm.common.events.on('hardforkChanged', () => this.hook(internals));
  }

  /** Starts an execution; `timeoutMs` of 0 or undefined sets no deadline. */
  begin(timeoutMs?: number): void {
    this.deadline = timeoutMs ? performance.now() + timeoutMs : Infinity;
    this.halted = undefined;
    this.stopWhen = undefined;
    this.countdown = JUMPDESTS_PER_CHECK;
  }

  /** Whether the current execution was halted for running past its deadline. */
  get timedOut(): boolean {
    return this.halted === 'timeout';
  }

  /** Why the current execution was halted by its stop condition, if it was. */
  get stopped(): Error | undefined {
    return this.halted instanceof Error ? this.halted : undefined;
  }

  /** From now on, halts the execution when `stop` gives a reason (read at each check); undefined ends it. */
  watch(stop: (() => Error | undefined) | undefined): void {
    this.stopWhen = stop;
  }

  /** Whether a stop condition is watched now. */
  get watching(): boolean {
    return this.stopWhen !== undefined;
  }

  /** Ends an execution: later ones run without its deadline. */
  end(): void {
    this.deadline = Infinity;
    this.stopWhen = undefined;
  }

  private hook(evm: EvmInternals): void {
    this.wrap(evm, JUMPDEST, (runState) => {
      if (this.halted === undefined && --this.countdown > 0) return undefined;
      this.countdown = JUMPDESTS_PER_CHECK;
      return this.check(runState);
    });
    for (const code of FRAME_OPCODES) this.wrap(evm, code, (runState) => this.check(runState));
  }

  /** Runs `guard` before opcode `code`'s handler, and lets the interpreter await it. */
  private wrap(evm: EvmInternals, code: number, guard: (runState: RunState) => Promise<void> | undefined): void {
    const entry = evm._opcodeMap[code];
    if (entry === undefined) return;
    const inner = entry.opHandler;
    const opHandler: OpHandler = (runState, common) => {
      const pause = guard(runState);
      return pause === undefined ? inner(runState, common) : pause.then(() => inner(runState, common));
    };
    // The interpreter awaits a handler only when its opcode is marked async.
    const opcodeInfo = Object.assign(
      Object.create(Object.getPrototypeOf(entry.opcodeInfo) as object),
      entry.opcodeInfo,
      {
        isAsync: true,
      },
    ) as OpEntry['opcodeInfo'];
    evm._opcodeMap[code] = { ...entry, opcodeInfo, opHandler };
  }

  /**
   * The node's own engine's check (evm/engine.ts), called as its code runs: throws to halt the run
   * (its deadline passed, or its stop condition gave a reason: `timedOut` and `stopped` say which, as
   * for ethereumjs's runs); otherwise a pause when the event loop has waited long enough.
   */
  readonly engineCheck = (): Promise<void> | undefined => {
    if (this.shouldHalt()) throw new EVMError(EVMError.errorMessages.OUT_OF_GAS);
    return yieldIfBusy();
  };

  /** Halts past the deadline; otherwise a pause when the event loop has waited long enough. */
  private check(runState: RunState): Promise<void> | undefined {
    return this.shouldHalt() ? this.halt(runState) : yieldIfBusy();
  }

  /** Whether the execution is to halt: its stop condition gave a reason, or its deadline passed (kept in `halted`). */
  private shouldHalt(): boolean {
    this.halted ??= this.stopWhen?.() ?? (performance.now() > this.deadline ? 'timeout' : undefined);
    return this.halted !== undefined;
  }

  private halt(runState: RunState): never {
    runState.gasLeft = 0n;
    throw new EVMError(EVMError.errorMessages.OUT_OF_GAS);
  }
}
