/** How a tracer is fed: the EVM's events while a run goes on, and the state before and after it. */
import { Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

import { TracerError } from '../../errors';
import type { EvmObserver, MessageEvent, MessageResult, OpcodeState, StateReader, StepEvent } from './tracer';

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

type OpHandler = (state: OpcodeState, common: unknown) => unknown;
type OpEntry = { opcodeInfo: { isAsync: boolean }; opHandler: OpHandler };

/**
 * Wraps the handlers of `tracer.opcodes` in the EVM's opcode table until the returned function is
 * called (again after a fork change rebuilds the table), so that a tracer that needs a few opcodes
 * does not pay for the step event of every instruction.
 */
function hookOpcodes(evm: VM['evm'], tracer: EvmObserver, fail: (e: unknown) => void): () => void {
  const { opcodes, onOpcode } = tracer;
  if (opcodes === undefined || onOpcode === undefined) return () => {};
  const internals = evm as unknown as { _opcodeMap: (OpEntry | undefined)[] };
  /** Per opcode: our entry in the table, and the one it replaced. */
  const ours = new Map<number, { wrapped: OpEntry; original: OpEntry }>();
  const hook = () => {
    const map = internals._opcodeMap;
    for (const code of opcodes) {
      const entry = map[code];
      if (entry === undefined || ours.get(code)?.wrapped === entry) continue;
      const inner = entry.opHandler;
      const opHandler: OpHandler = entry.opcodeInfo.isAsync
        ? async (state, common) => {
            try {
              await onOpcode.call(tracer, code, state);
            } catch (e) {
              fail(e);
            }
            return inner(state, common);
          }
        : (state, common) => {
            try {
              void onOpcode.call(tracer, code, state);
            } catch (e) {
              fail(e);
            }
            return inner(state, common);
          };
      const wrapped = { ...entry, opHandler };
      map[code] = wrapped;
      ours.set(code, { wrapped, original: entry });
    }
  };
  hook();
  evm.common.events.on('hardforkChanged', hook);
  return () => {
    evm.common.events.off('hardforkChanged', hook);
    const map = internals._opcodeMap;
    for (const [code, { wrapped, original }] of ours) if (map[code] === wrapped) map[code] = original;
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
