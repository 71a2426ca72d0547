/**
 * The node's own EVM: runs a message call or creation as ethereumjs's `evm.runCall` runs it (the same
 * result: return value, gas used, refund, error, logs), reading the state through a StateBackend and
 * writing nothing back. Used where a run's only product is its answer (eth_call, the gas estimates);
 * ethereumjs stays the reference it is checked against (L2DEVNET_ENGINE=ethereumjs runs it instead).
 */
import type { PrecompileInput } from '@ethereumjs/evm';

import type { EngineHooks } from './hooks';
import { createAddressOf, FramePool, Machine } from './machine';
import type { BlockEnv, Message, Precompile, TxEnv } from './machine';
import type { ForkRules } from './rules';
import type { Log, StateBackend } from './world';
import { keyOf, wordOf, World } from './world';

export type { BlockEnv, Precompile, TxEnv } from './machine';
export { FramePool } from './machine';
export type { EngineHooks } from './hooks';
export type { StateBackend } from './world';
export { World } from './world';
export { rulesOf } from './rules';

/**
 * Which EVM runs what the node executes: its own where it can (`l2devnet`, the default), or
 * ethereumjs's throughout, the reference it is checked against (`ethereumjs`: `--engine`,
 * `createDevnet({ engine })`).
 */
export type EngineName = 'l2devnet' | 'ethereumjs';

/**
 * Whether the process may run the node's own engine at all: not under `L2DEVNET_ENGINE=ethereumjs`,
 * nor with ethereumjs as published (`L2DEVNET_STOCK_EVM=1`), whatever a chain asks for.
 */
export const OWN_ENGINE = process.env.L2DEVNET_ENGINE !== 'ethereumjs' && process.env.L2DEVNET_STOCK_EVM !== '1';

/** Whether a chain that asks for `engine` runs the node's own. */
export const ownEngine = (engine: EngineName | undefined): boolean => OWN_ENGINE && engine !== 'ethereumjs';

export interface RunInput {
  caller: Uint8Array;
  /** Undefined for a creation. */
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
  /** Addresses and slots warm from the start (the transaction's own, its access list). */
  warmAddresses: Uint8Array[];
  warmSlots: [address: Uint8Array, slots: Uint8Array[]][];
  /** The sender's nonce was moved on before the run (a transaction's): a creation's address is at the one before. */
  nonceTaken?: boolean;
  /** Filled with the addresses and slots the run warms, `warmSlots` (the access list given) first. */
  accessed?: Map<string, Set<bigint>>;
}

/** What ethereumjs's runCall answers, in its shape (EVMResult). */
export interface RunResult {
  createdAddress?: { bytes: Uint8Array };
  execResult: {
    returnValue: Uint8Array;
    executionGasUsed: bigint;
    gasRefund: bigint;
    exceptionError?: { error: string; errorType: string };
    logs: [address: Uint8Array, topics: Uint8Array[], data: Uint8Array][];
  };
}

/** The largest gas a run takes on this engine (gas is a number in it; above this, ethereumjs runs). */
export const MAX_ENGINE_GAS = 2n ** 50n;

export interface EngineOptions {
  rules: ForkRules;
  backend: StateBackend;
  block: BlockEnv;
  tx: TxEnv;
  precompiles: ReadonlyMap<string, Precompile>;
  /** The fork's precompiles, warm throughout (they differ from `precompiles` when overrides move one). */
  warmPrecompiles: ReadonlyMap<string, unknown>;
  /** ethereumjs's EVM and Common, which its precompiles read. */
  precompileContext: Omit<PrecompileInput, 'data' | 'gasLimit'>;
  /** Called as code runs: it throws to halt the run, or gives a promise to pause on (the event loop). */
  check?: () => Promise<void> | undefined;
  /** What observes the run (the line counter), if anything does. */
  hooks?: EngineHooks;
  /** Stacks and memories to reuse (its owner's, who runs one run at a time); else the run's own. */
  pool?: FramePool;
}

/** Runs one message call or creation at depth 0, on `world` (read afterwards for what it changed) or a new one. */
export async function runMessage(
  opts: EngineOptions,
  input: RunInput,
  world = new World(opts.backend),
): Promise<RunResult> {
  world.accessed = input.accessed;
  for (const address of input.warmAddresses) world.preWarmAddress(keyOf(address));
  for (const [address, slots] of input.warmSlots) {
    const key = keyOf(address);
    world.preWarmAddress(key);
    if (input.accessed !== undefined) world.record(key);
    const account = await world.account(key, address);
    for (const bytes of slots) {
      const slot = wordOf(bytes);
      world.preWarmSlot(account, slot);
      if (input.accessed !== undefined) world.record(key, slot);
    }
  }
  const machine = new Machine(
    opts.rules,
    world,
    opts.block,
    opts.tx,
    opts.precompiles,
    opts.warmPrecompiles,
    opts.precompileContext,
    opts.check,
    opts.hooks,
    opts.pool,
  );
  const gas = Number(input.gasLimit);
  const caller = input.caller;
  const callerKey = keyOf(caller);
  await opts.hooks?.transactionStart?.({
    caller,
    to: input.to,
    coinbase: opts.block.coinbase,
    gasPrice: opts.tx.gasPrice,
  });
  let out;
  if (input.to === undefined) {
    const account = await world.account(callerKey, caller);
    const address = createAddressOf(caller, input.nonceTaken === true ? account.nonce - 1n : account.nonce);
    out = await machine.create(message(caller, callerKey, address, input, gas), address);
  } else {
    out = await machine.call(message(caller, callerKey, input.to, input, gas));
  }
  const failed = out.error !== undefined;
  const logs = failed
    ? []
    : world.logs.map((l: Log) => [l.address, l.topics, l.data] as RunResult['execResult']['logs'][number]);
  return {
    ...(out.created !== undefined && { createdAddress: { bytes: out.created } }),
    execResult: {
      returnValue: out.returnData,
      executionGasUsed: BigInt(gas - out.gasLeft),
      gasRefund: failed ? 0n : BigInt(world.refund),
      ...(failed && { exceptionError: { error: out.error as string, errorType: 'EVMError' } }),
      logs,
    },
  };
}

function message(caller: Uint8Array, callerKey: string, to: Uint8Array, input: RunInput, gas: number): Message {
  const key = keyOf(to);
  return {
    caller,
    callerKey,
    to,
    toKey: key,
    codeAddress: to,
    codeKey: key,
    value: input.value,
    apparentValue: input.value,
    data: input.data,
    gas,
    isStatic: false,
    depth: 0,
    delegate: false,
  };
}
