/**
 * How a tracer is fed: the EVM's events while a run goes on (ethereumjs's, or the node's own engine's
 * hooks), and the state before and after it.
 */
import { Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

import { TracerError } from '../../errors';
import type { EngineHooks, FrameEnd, RunState, StepStart } from '../../evm/hooks';
import type { EndState, EvmObserver, MessageEvent, MessageResult, OpcodeState, StateReader, StepEvent } from './tracer';

/**
 * Feeds `evm`'s events to `tracer` until the returned function is called; that function throws what
 * the tracer threw, if it did.
 */
export function attach(evm: VM['evm'], tracer: EvmObserver): () => void {
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
  const on = evm.events as unknown as {
    on(name: string, fn: (...a: never[]) => void): void;
    off(name: string, fn: (...a: never[]) => void): void;
  };
  if (tracer.steps) on.on('step', step);
  on.on('beforeMessage', enter);
  on.on('afterMessage', exit);
  const unhook = hookOpcodes(evm, tracer, (e) => (failure ??= e));
  return () => {
    if (tracer.steps) on.off('step', step);
    on.off('beforeMessage', enter);
    on.off('afterMessage', exit);
    unhook();
    if (failure !== undefined) throw new TracerError(`the tracer failed: ${(failure as Error).message}`);
  };
}

/** An opcode's name and static fee as the EVM's opcode table has them for its fork (ethereumjs's step event reports them). */
export type OpcodeInfo = (op: number) => { name: string; fee: number };

/** `evm`'s opcode table, for engineObserver. */
export function opcodeInfo(evm: VM['evm']): OpcodeInfo {
  const table = (evm as unknown as { _opcodeMap: ({ opcodeInfo: { fullName: string; fee: number } } | undefined)[] })
    ._opcodeMap;
  return (op) => {
    const info = table[op]?.opcodeInfo;
    return info === undefined ? { name: 'INVALID', fee: 0 } : { name: info.fullName, fee: info.fee };
  };
}

/**
 * The same feeding on the node's own engine: its messages, its opcodes with the state as the run
 * sees it, and, for an observer that reads steps, each instruction as ethereumjs's step event has
 * it (named by `info`) and each frame's interpreter state as it ended. `done` throws what the
 * tracer threw, as attach's detach does.
 */
export function engineObserver(tracer: EvmObserver, info: OpcodeInfo): { hooks: EngineHooks; done(): void } {
  let failure: unknown;
  const wanted = new Uint8Array(256);
  for (const code of tracer.opcodes ?? []) wanted[code] = 1;
  const onOpcode = tracer.onOpcode;
  /** Per message open: its frame's code and how the frame ended (none for a message without code). */
  const frames: { code?: Uint8Array; end?: FrameEnd }[] = [];
  const steps = tracer.steps && tracer.onStep !== undefined;
  /** The run's state as a step's stateManager, made once (the run's state is the same for all its steps). */
  let stateManager: { state: RunState; view: StepEvent['stateManager'] } | undefined;
  const hooks: EngineHooks = {
    ...(steps && {
      step: (s) => {
        if (stateManager?.state !== s.state) {
          const state = s.state;
          stateManager = {
            state,
            view: {
              getStorage: (address, key) => state.storage(address.bytes, key),
              getAccount: async (address) => ({ balance: await state.balance(address.bytes) }),
            },
          };
        }
        const event = new EngineStep(s, info(s.op), stateManager.view);
        try {
          const r = tracer.onStep?.(event);
          if (r instanceof Promise) return r.catch((e: unknown) => void (failure ??= e));
        } catch (e) {
          failure ??= e;
        }
      },
    }),
    opcode: (op, stack, _gasLeft, state, frame) => {
      if (wanted[op] === 0 || onOpcode === undefined) return;
      const view: OpcodeState = {
        stack,
        memory: frame.memory,
        interpreter: { getAddress: () => ({ bytes: frame.address }) },
        stateManager: {
          getStorage: (address, key) => state.storage(address.bytes, key),
          getAccount: async (address) => ({ balance: await state.balance(address.bytes) }),
        },
      };
      try {
        const r = onOpcode.call(tracer, op, view);
        if (r instanceof Promise) return r.catch((e: unknown) => void (failure ??= e));
      } catch (e) {
        failure ??= e;
      }
    },
    enter: (m) => {
      if (steps) frames.push({});
      const message: MessageEvent = {
        caller: { bytes: m.caller },
        ...(m.to !== undefined && { to: { bytes: m.to } }),
        ...(m.codeAddress !== undefined && { codeAddress: { bytes: m.codeAddress } }),
        value: m.value,
        data: m.data,
        gasLimit: BigInt(m.gas),
        depth: m.depth,
        delegatecall: m.delegate,
        isStatic: m.isStatic,
      };
      tracer.onEnter?.(message);
    },
    exit: (_m, end) => {
      const frame = steps ? frames.pop() : undefined;
      const result: MessageResult = {
        ...(end.created !== undefined && { createdAddress: { bytes: end.created } }),
        execResult: {
          ...(end.error !== undefined && { exceptionError: { error: end.error } }),
          returnValue: end.returnData,
          executionGasUsed: BigInt(end.gasUsed),
          ...(frame?.code !== undefined && frame.end !== undefined && { runState: endState(frame.code, frame.end) }),
        },
      };
      tracer.onExit?.(result);
    },
    frameStart: () => {},
    frameEnd: () => {},
    precompile: () => {},
  };
  if (steps) {
    hooks.frameStart = (f) => void (frames[frames.length - 1].code = f.code);
    hooks.frameEnd = (f) => void (frames[frames.length - 1].end = f);
  }
  return {
    hooks,
    done: () => {
      if (failure !== undefined) throw new TracerError(`the tracer failed: ${(failure as Error).message}`);
    },
  };
}

type OpHandler = (state: OpcodeState, common: unknown) => unknown;
type OpEntry = { opcodeInfo: { isAsync: boolean }; opHandler: OpHandler };

type OpTable = (OpEntry | undefined)[];
/** Whoever listens to a hooked table's opcodes now: the attached tracer and where its failures go. */
interface HookSlot {
  tracer?: EvmObserver;
  fail: (e: unknown) => void;
}

/**
 * Per opcode table and set of opcodes: a copy of the table with those handlers calling the slot's
 * tracer first. Kept, so that the interpreter's analyses of each code under the copy (the evm
 * patch's jumpAnalyses, per table) serve every trace after the first.
 */
const hookedTables = new WeakMap<OpTable, Map<string, { copy: OpTable; slot: HookSlot }>>();

function hookedTable(base: OpTable, opcodes: readonly number[]): { copy: OpTable; slot: HookSlot } {
  const key = opcodes.join(',');
  let perSet = hookedTables.get(base);
  if (perSet === undefined) hookedTables.set(base, (perSet = new Map()));
  const known = perSet.get(key);
  if (known !== undefined && known.slot.tracer === undefined) return known;
  const slot: HookSlot = { fail: () => {} };
  const copy = base.slice();
  for (const code of opcodes) {
    const entry = copy[code];
    if (entry === undefined) continue;
    const inner = entry.opHandler;
    const opHandler: OpHandler = entry.opcodeInfo.isAsync
      ? async (state, common) => {
          try {
            await slot.tracer?.onOpcode?.(code, state);
          } catch (e) {
            slot.fail(e);
          }
          return inner(state, common);
        }
      : (state, common) => {
          try {
            void slot.tracer?.onOpcode?.(code, state);
          } catch (e) {
            slot.fail(e);
          }
          return inner(state, common);
        };
    copy[code] = { ...entry, opHandler };
  }
  const hooked = { copy, slot };
  // A table already in use (a trace inside a trace) gets a copy of its own, not kept.
  if (known === undefined) perSet.set(key, hooked);
  return hooked;
}

/**
 * Puts in the EVM's place a copy of its opcode table whose handlers of `tracer.opcodes` call the
 * tracer first, until the returned function puts the table back (a copy of the new table after a
 * fork change rebuilds it), so that a tracer that needs a few opcodes does not pay for the step
 * event of every instruction. A copy, not the table changed in place: the interpreter keeps each
 * code's analysed opcodes per table, which must not hold a handler of another tracer.
 */
function hookOpcodes(evm: VM['evm'], tracer: EvmObserver, fail: (e: unknown) => void): () => void {
  const { opcodes, onOpcode } = tracer;
  if (opcodes === undefined || onOpcode === undefined) return () => {};
  const internals = evm as unknown as { _opcodeMap: OpTable };
  /** The table the EVM had, and our copy in its place. */
  let current: { base: OpTable; copy: OpTable; slot: HookSlot } | undefined;
  const unhook = () => {
    if (current === undefined) return;
    current.slot.tracer = undefined;
    if (internals._opcodeMap === current.copy) internals._opcodeMap = current.base;
    current = undefined;
  };
  const hook = () => {
    if (current !== undefined && internals._opcodeMap === current.copy) return;
    unhook();
    const base = internals._opcodeMap;
    const { copy, slot } = hookedTable(base, opcodes);
    slot.tracer = tracer;
    slot.fail = fail;
    internals._opcodeMap = copy;
    current = { base, copy, slot };
  };
  hook();
  evm.common.events.on('hardforkChanged', hook);
  return () => {
    evm.common.events.off('hardforkChanged', hook);
    unhook();
  };
}

/** An engine's step as ethereumjs's step event has it; its memory copied only when read. */
class EngineStep implements StepEvent {
  readonly pc: number;
  readonly gasLeft: bigint;
  readonly gasRefund: bigint;
  readonly opcode: StepEvent['opcode'];
  readonly stack: bigint[];
  readonly depth: number;
  readonly address: { bytes: Uint8Array };

  constructor(
    private readonly s: StepStart,
    { name, fee }: { name: string; fee: number },
    readonly stateManager: StepEvent['stateManager'],
  ) {
    this.pc = s.pc;
    this.gasLeft = BigInt(s.gasLeft);
    this.gasRefund = BigInt(s.refund);
    this.opcode = { name, code: s.op, fee, dynamicFee: s.cost };
    this.stack = s.stack;
    this.depth = s.depth;
    this.address = { bytes: s.address };
  }

  get memory(): Uint8Array {
    return this.s.memory.read(0, this.s.memoryWords * 32);
  }
}

/** A frame's interpreter state as it ended, as ethereumjs's result carries it (copies: the engine reuses its stacks and memories). */
function endState(code: Uint8Array, end: FrameEnd): EndState {
  const stack = end.stack.length === 0 ? [] : end.stack.peek(end.stack.length).reverse();
  const memory = end.memory.read(0, end.memoryWords * 32);
  return {
    programCounter: end.pc,
    code,
    gasLeft: BigInt(end.gasLeft),
    gasRefund: BigInt(end.refund),
    stack: { getStack: () => stack },
    memory: { _store: memory },
    memoryWordCount: BigInt(end.memoryWords),
  };
}

/** Accounts and slots as `sm` holds them now. */
export function stateReader(sm: VM['stateManager']): StateReader {
  return {
    account: async (bytes) => {
      const address = new Address(bytes);
      const account = await sm.getAccount(address);
      return { balance: account?.balance ?? 0n, nonce: account?.nonce ?? 0n, code: await sm.getCode(address) };
    },
    storage: (bytes, slot) => sm.getStorage(new Address(bytes), slot),
  };
}
