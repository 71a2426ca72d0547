/** How a tracer is fed: the EVM's events while a run goes on, and the state before and after it. */
import { Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

import { TracerError } from '../../errors';
import type { EvmObserver, MessageEvent, MessageResult, StateReader, StepEvent } from './tracer';

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
  return () => {
    if (tracer.steps) on.off('step', step);
    on.off('beforeMessage', enter);
    on.off('afterMessage', exit);
    if (failure !== undefined) throw new TracerError(`the tracer failed: ${(failure as Error).message}`);
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
