/**
 * The node's own engine (evm/) inside an ethereumjs VM: the state it reads, the block it runs in, and
 * transactions. For a transaction, ethereumjs's runTx keeps everything around its execution (checks,
 * fees, nonce, EIP-7702 authorizations, refunds, the miner's fee, self-destructs, EIP-161's cleanup,
 * the receipt); the message it hands to `evm.runCall` runs on the engine, and what it changed is
 * written back through the VM's journal, so checkpoints, reverts and the line counter's transaction
 * rows stay ethereumjs's.
 */
import type { Block } from '@ethereumjs/block';
import { EVMError } from '@ethereumjs/evm';
import type { EVMResult } from '@ethereumjs/evm';
import { Account, Address, bigIntToBytes, equalsBytes, hexToBytes, KECCAK256_RLP } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

import { FramePool, MAX_ENGINE_GAS, rulesOf, runMessage, World } from '../evm/engine';
import type { BlockEnv, EngineHooks, Precompile, StateBackend } from '../evm/engine';
import type { ForkRules } from '../evm/rules';
import type { LineCounter } from '../lines/lineCounter';
import type { ExecutionGuard } from './executionGuard';
import type { FlatStateManager } from '../state/flatState';
import { wordBytes } from '../evm/world';

type Blockchain = { getBlock(n: number): Promise<{ hash(): Uint8Array }> };

/** The state the engine reads: `vm`'s state manager as it is now (its root, its caches, its overrides). */
export function stateBackend(vm: VM): StateBackend {
  const sm = vm.stateManager as FlatStateManager;
  return {
    account: async (address) => {
      const at = new Address(address);
      const a = await sm.getAccount(at);
      if (a === undefined) return undefined;
      // Slots written since the last flush (a state override, an earlier transaction) are in the
      // cache, not under the root.
      const hasStorage = !equalsBytes(a.storageRoot, KECCAK256_RLP) || sm.hasCachedStorage(at);
      return { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash, hasStorage };
    },
    code: (address) => sm.getCode(new Address(address)),
    storage: (address, slot) => sm.getStorage(new Address(address), slot),
  };
}

/** What `block` gives the code the engine runs in it. */
export function blockEnv(vm: VM, block: Block): BlockEnv {
  const h = block.header;
  const chain = (vm.evm as unknown as { blockchain: Blockchain }).blockchain;
  return {
    number: h.number,
    timestamp: h.timestamp,
    coinbase: h.coinbase.bytes,
    gasLimit: h.gasLimit,
    baseFee: h.baseFeePerGas ?? 0n,
    prevRandao: h.mixHash,
    difficulty: h.difficulty,
    blobBaseFee: h.excessBlobGas === undefined ? 0n : h.getBlobGasPrice(),
    chainId: vm.common.chainId(),
    blockHash: async (n) => (await chain.getBlock(Number(n))).hash(),
  };
}

/** The engine's rules for `vm`'s fork now; null where it runs ethereumjs (a fork it does not implement). */
export function engineRules(vm: VM): ForkRules | null {
  const evm = vm.evm as unknown as { allowUnlimitedContractSize: boolean };
  return rulesOf(vm.evm.common, evm.allowUnlimitedContractSize);
}

/**
 * A tracer listens to `vm`'s EVM (tracers/attach.ts registers for its messages, and its steps if it
 * reads them): what runs then runs on ethereumjs, whose events it reads.
 */
export function tracerListening(vm: VM): boolean {
  const events = vm.evm.events as unknown as { listenerCount(name: string): number };
  return events.listenerCount('beforeMessage') > 0 || events.listenerCount('step') > 0;
}

/** The top-level message runTx hands to evm.runCall. */
interface TxMessage {
  message?: unknown;
  skipNonceIncrement?: boolean;
  caller: Address;
  to?: Address;
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
  gasPrice: bigint;
  block: Block;
  blobVersionedHashes?: Uint8Array[];
}

type Journal = {
  alwaysWarmJournal: Map<string, Set<string>>;
  journal: Map<string, Set<string>>;
  touchAccount(address: string): void;
  putAccount(address: Address, account: Account): Promise<void>;
};

/**
 * Runs the transactions of `vm` (runTx's message) on the engine where it can: no tracer listens to
 * the EVM, the fork is one it implements. Installed on the VM before its line counter and its
 * guard, which wrap `evm.runCall` around it (so the counter's transaction-level hooks stay where
 * they are); `connect` gives it theirs once they exist.
 */
export class EngineTransactions {
  /** The execution guard's check (evm/engine.ts EngineOptions.check). */
  private check: () => Promise<void> | undefined = () => undefined;
  /** The line counter's hooks for one run below the transaction's own message, if it counts. */
  private hooks: (baseFee: bigint | undefined) => EngineHooks | undefined = () => undefined;

  /** The engine's stacks and memories, reused by this VM's transactions (one at a time). */
  private readonly pool = new FramePool();

  /** `own`: false runs every transaction on ethereumjs (`--engine ethereumjs`). */
  constructor(
    private readonly vm: VM,
    own: boolean,
  ) {
    const evm = vm.evm as unknown as { runCall(opts: unknown): Promise<EVMResult> };
    const runCall = evm.runCall.bind(evm);
    evm.runCall = (opts) => {
      const m = opts as TxMessage;
      if (
        !own ||
        m.message !== undefined ||
        m.skipNonceIncrement !== true ||
        m.gasLimit > MAX_ENGINE_GAS ||
        tracerListening(vm)
      )
        return runCall(opts);
      const rules = engineRules(vm);
      if (rules === null) return runCall(opts);
      return this.run(m, rules);
    };
  }

  /** The VM's guard and line counter, once they wrap its runCall around this. */
  connect(guard: ExecutionGuard, counter: LineCounter): void {
    this.check = guard.engineCheck;
    this.hooks = (baseFee) => counter.engineHooks(baseFee, false);
  }

  private async run(m: TxMessage, rules: ForkRules): Promise<EVMResult> {
    const vm = this.vm;
    const journal = vm.evm.journal as unknown as Journal;
    const precompiles = (vm.evm as unknown as { _precompiles: Map<string, Precompile> })._precompiles;
    // Warm as runTx left the journal: the sender, the recipient, the coinbase, the access list, the
    // authorities (the precompiles it lists are warm through their map already).
    const warmAddresses: Uint8Array[] = [];
    const warmSlots: [Uint8Array, Uint8Array[]][] = [];
    for (const map of [journal.alwaysWarmJournal, journal.journal])
      for (const [key, slots] of map) {
        if (slots.size === 0 && precompiles.has(key)) continue;
        const address = hexToBytes(`0x${key}`);
        if (slots.size === 0) warmAddresses.push(address);
        else warmSlots.push([address, [...slots].map((s) => hexToBytes(`0x${s.padStart(64, '0')}`))]);
      }
    const backend = stateBackend(vm);
    const world = new World(backend);
    const run = await runMessage(
      {
        rules,
        backend,
        block: blockEnv(vm, m.block),
        tx: { origin: m.caller.bytes, gasPrice: m.gasPrice, blobHashes: m.blobVersionedHashes ?? [] },
        precompiles,
        warmPrecompiles: precompiles,
        precompileContext: { common: vm.common, _EVM: vm.evm },
        check: this.check,
        hooks: this.hooks(m.block.header.baseFeePerGas),
        pool: this.pool,
      },
      {
        caller: m.caller.bytes,
        to: m.to?.bytes,
        value: m.value,
        data: m.data,
        gasLimit: m.gasLimit,
        warmAddresses,
        warmSlots,
        nonceTaken: true,
      },
      world,
    );
    const failed = run.execResult.exceptionError !== undefined;
    if (!failed) await writeBack(vm, world);
    const selfdestruct = new Map<string, Uint8Array>();
    const createdAddresses = new Set<string>();
    if (!failed) {
      // runTx reads the keys alone (the accounts it deletes); the beneficiaries are not kept.
      for (const key of world.destructed) selfdestruct.set(`0x${key}`, new Uint8Array(20));
      for (const key of world.created) createdAddresses.add(`0x${key}`);
    }
    const { exceptionError } = run.execResult;
    return {
      ...(run.createdAddress !== undefined && { createdAddress: new Address(run.createdAddress.bytes) }),
      execResult: {
        ...run.execResult,
        exceptionError: exceptionError === undefined ? undefined : new EVMError(exceptionError.error as never),
        selfdestruct,
        createdAddresses,
      },
    } as unknown as EVMResult;
  }
}

/** A run's changes into `vm`'s state, through its journal (which touches what it writes, and what the run touched). */
export async function writeBack(vm: VM, world: World): Promise<void> {
  const sm = vm.stateManager;
  const journal = vm.evm.journal as unknown as Journal;
  const written = new Set<string>();
  for (const { account, fields, code, storage } of world.changes()) {
    const address = new Address(account.address);
    const stored = await sm.getAccount(address);
    if (fields || stored === undefined) {
      const next = stored ?? new Account();
      next.nonce = account.nonce;
      next.balance = account.balance;
      await journal.putAccount(address, next);
      written.add(account.key);
    }
    if (code !== undefined) await sm.putCode(address, code);
    for (const [slot, value] of storage)
      await sm.putStorage(address, wordBytes(slot), value === 0n ? new Uint8Array() : bigIntToBytes(value));
  }
  for (const key of world.touched) if (!written.has(key)) journal.touchAccount(key);
}
