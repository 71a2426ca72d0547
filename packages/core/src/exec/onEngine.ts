/**
 * The node's own engine (evm/) inside an ethereumjs VM: the state it reads, the block it runs in, and
 * transactions. A transaction of any type runs whole here (runTransaction), in runTx's steps:
 * checks, gas and blob gas bought, nonce, EIP-7702's authorizations, the message on the engine,
 * refunds, the fee recipient's tip, self-destructs, EIP-161's cleanup, the receipt. Any other
 * (before Byzantium, on a proof-of-authority chain, failing a check) keeps ethereumjs's runTx around
 * its execution, and the message it hands to `evm.runCall` runs on the engine. Either way what the
 * message changed is written back through the VM's journal, so checkpoints, reverts and the line
 * counter's transaction rows stay ethereumjs's.
 */
import type { Block } from '@ethereumjs/block';
import { ConsensusType, Hardfork } from '@ethereumjs/common';
import { EVMError } from '@ethereumjs/evm';
import type { EVMResult } from '@ethereumjs/evm';
import { Capability, getCalldataFloorGas, isBlob4844Tx, isEOACode7702Tx, TransactionType } from '@ethereumjs/tx';
import type { AccessList2930Tx, EOACode7702Tx, FeeMarket1559Tx, LegacyTx } from '@ethereumjs/tx';
import {
  Account,
  Address,
  bigIntToBytes,
  bytesToBigInt,
  concatBytes,
  eoaCode7702RecoverAuthority,
  equalsBytes,
  hexToBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  MAX_UINT64,
  SECP256K1_ORDER_DIV_2,
} from '@ethereumjs/util';
import type { PrefixedHexString } from '@ethereumjs/util';
import { Bloom, runTx } from '@ethereumjs/vm';
import type { RunTxOpts, RunTxResult, VM } from '@ethereumjs/vm';

import { FramePool, MAX_ENGINE_GAS, rulesOf, runMessage, World } from '../evm/engine';
import { DELEGATION, isDelegation } from '../evm/machine';
import { bothHooks } from '../evm/hooks';
import type { BlockEnv, EngineHooks, Precompile, StateBackend } from '../evm/engine';
import type { ForkRules } from '../evm/rules';
import type { LineCounter } from '../lines/lineCounter';
import type { ExecutionGuard } from './executionGuard';
import { attach, engineObserver, opcodeInfo } from './tracers/attach';
import type { EvmObserver } from './tracers/tracer';
import type { FlatStateManager } from '../state/flatState';
import { hexOf, keyOf, wordBytes } from '../evm/world';

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

/**
 * `backend` read once per account, code and slot: for runs one after another on a state that none of
 * them changes (an estimate's tries), which then read it once between them.
 */
export function readOnce(backend: StateBackend): StateBackend {
  const accounts = new Map<string, ReturnType<StateBackend['account']>>();
  const codes = new Map<string, Promise<Uint8Array>>();
  const slots = new Map<string, Promise<Uint8Array>>();
  return {
    account: (address) => {
      const key = keyOf(address);
      let read = accounts.get(key);
      if (read === undefined) accounts.set(key, (read = backend.account(address)));
      return read;
    },
    code: (address, codeHash) => {
      const key = keyOf(address);
      let read = codes.get(key);
      if (read === undefined) codes.set(key, (read = backend.code(address, codeHash)));
      return read;
    },
    storage: (address, slot) => {
      const key = keyOf(address) + hexOf(slot);
      let read = slots.get(key);
      if (read === undefined) slots.set(key, (read = backend.storage(address, slot)));
      return read;
    },
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
  /** A blob transaction's versioned hashes (hex, as ethereumjs keeps them). */
  blobVersionedHashes?: PrefixedHexString[];
}

type Journal = {
  alwaysWarmJournal: Map<string, Set<string>>;
  journal: Map<string, Set<string>>;
  touchAccount(address: string): void;
  putAccount(address: Address, account: Account): Promise<void>;
};

/** Addresses and slots warm as a transaction starts (EIP-2929), besides the precompiles. */
interface WarmSet {
  addresses: Uint8Array[];
  slots: [address: Uint8Array, slots: Uint8Array[]][];
}

/** A transaction runTx below takes whole, once its checks have passed: what they worked out. */
interface WholeTransaction {
  caller: Address;
  /** The sender's account before the transaction. */
  sender: Account;
  intrinsic: bigint;
  /** EIP-7623's floor (0 before Prague). */
  floor: bigint;
  gasPrice: bigint;
  /** Of the price, what the fee recipient gets per gas from London on. */
  tip: bigint;
  /** A blob transaction's blob gas, its price in the block and the transaction's cap on that price. */
  blob: { gas: bigint; price: bigint; feeCap: bigint } | undefined;
  rules: ForkRules;
}

/** Each VM's transactions on the engine, for runTransaction. */
const onEngine = new WeakMap<VM, EngineTransactions>();

/**
 * Runs a transaction as ethereumjs's runTx does (the same state after it, the same result and
 * receipt, the same errors), on the node's engine where `vm` has one (EngineTransactions.runTx).
 * `sender`: the transaction's, when known (else it is recovered). `observer`: a tracer fed the run's
 * events, on the engine's hooks where the engine takes the transaction whole, else on ethereumjs's
 * events (tracers/attach.ts). Throws what the tracer threw.
 */
export async function runTransaction(
  vm: VM,
  opts: RunTxOpts,
  sender?: Uint8Array,
  observer?: EvmObserver,
): Promise<RunTxResult> {
  const engine = onEngine.get(vm);
  if (engine !== undefined) return engine.runTx(opts, sender, observer);
  const detach = observer === undefined ? undefined : attach(vm.evm, observer);
  try {
    return await runTx(vm, opts);
  } finally {
    detach?.();
  }
}

/**
 * Runs the transactions of `vm` on the engine where it can: no tracer listens to the EVM, the fork
 * is one it implements. A common transaction runs whole without runTx (runTx below); any other
 * runs on runTx, whose message to `evm.runCall` runs on the engine. Installed on the VM before its
 * line counter and its guard, which wrap `evm.runCall` around it (so the counter's
 * transaction-level hooks stay where they are); `connect` gives it theirs once they exist.
 */
export class EngineTransactions {
  /** The execution guard's check (evm/engine.ts EngineOptions.check). */
  private check: () => Promise<void> | undefined = () => undefined;
  /** The line counter's hooks for one run below the transaction's own message, if it counts. */
  private hooks: (baseFee: bigint | undefined) => EngineHooks | undefined = () => undefined;

  /** The engine's stacks and memories, reused by this VM's transactions (one at a time). */
  private readonly pool = new FramePool();

  /**
   * The message of the transaction runTx below is running: its fork's rules and warm set, worked out
   * there (a message of ethereumjs's runTx has its rules looked up and its warm set read from the journal).
   */
  private whole: { rules: ForkRules; warm: WarmSet; observer?: EngineHooks } | undefined;

  /** `own`: false runs every transaction on ethereumjs (`--engine ethereumjs`). */
  constructor(
    private readonly vm: VM,
    private readonly own: boolean,
  ) {
    onEngine.set(vm, this);
    const evm = vm.evm as unknown as { runCall(opts: unknown): Promise<EVMResult> };
    const runCall = evm.runCall.bind(evm);
    evm.runCall = (opts) => {
      const m = opts as TxMessage;
      const whole = this.whole;
      if (whole !== undefined) return this.run(m, whole.rules, whole.warm, whole.observer);
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
      return this.run(m, rules, this.journalWarmSet());
    };
  }

  /** The VM's guard and line counter, once they wrap its runCall around this. */
  connect(guard: ExecutionGuard, counter: LineCounter): void {
    this.check = guard.engineCheck;
    this.hooks = (baseFee) => counter.engineHooks(baseFee, false);
  }

  /**
   * A transaction as ethereumjs's runTx runs it (vm/src/runTx.ts: checks, gas and blob gas bought,
   * nonce, EIP-7702's authorizations, the message, refunds capped by maxRefundQuotient, the EIP-7623
   * floor, the fee recipient's tip, self-destructs (EIP-6780), EIP-161's cleanup, the receipt),
   * without runTx, when the engine takes it whole: a transaction that passes runTx's checks, from
   * Byzantium on, before Amsterdam, with no transaction listener or tracer on ethereumjs's events.
   * Any other (a check that fails, whose error is runTx's) runs on runTx. The message goes through
   * `evm.runCall` all the same, where the line counter and the guard wrap it and the engine runs it.
   */
  async runTx(opts: RunTxOpts, sender?: Uint8Array, observer?: EvmObserver): Promise<RunTxResult> {
    const { vm } = this;
    const { tx, block } = opts;
    const rules = block === undefined ? null : this.rulesTakingWhole(opts);
    if (block === undefined || rules === null) {
      // A tracer then reads ethereumjs's events.
      const detach = observer === undefined ? undefined : attach(vm.evm, observer);
      try {
        return await runTx(vm, opts);
      } finally {
        detach?.();
      }
    }
    const common = vm.common;
    const sm = vm.stateManager;
    const header = block.header;
    const caller = sender === undefined ? tx.getSenderAddress() : new Address(sender);
    const baseFee = header.baseFeePerGas ?? 0n;
    const london = common.isActivatedEIP(1559);
    const feeMarket = tx.supports(Capability.EIP1559FeeMarket);
    const feeCap = feeMarket ? (tx as FeeMarket1559Tx).maxFeePerGas : (tx as LegacyTx).gasPrice;
    const intrinsic = tx.getIntrinsicGas();
    const floor = getCalldataFloorGas(tx, caller);
    const account = (await sm.getAccount(caller)) ?? new Account();
    // EIP-4844: the blob gas, bought at the block's blob gas price, within the blob fee cap.
    const blob = isBlob4844Tx(tx)
      ? {
          gas: common.param('blobGasPerBlob') * BigInt(tx.numBlobs()),
          price: header.getBlobGasPrice(),
          feeCap: tx.maxFeePerBlobGas,
        }
      : undefined;
    if (
      header.gasLimit < tx.gasLimit ||
      tx.gasLimit < (intrinsic > floor ? intrinsic : floor) ||
      (london && feeCap < baseFee) ||
      !(equalsBytes(account.codeHash, KECCAK256_NULL) || (await this.delegated(caller))) ||
      account.balance < tx.getUpfrontCost(baseFee) ||
      account.balance < tx.value + (feeMarket ? tx.gasLimit * feeCap : 0n) + (blob ? blob.gas * blob.feeCap : 0n) ||
      (blob !== undefined && blob.feeCap < blob.price) ||
      (opts.skipNonce !== true && account.nonce !== tx.nonce)
    )
      return runTx(vm, opts); // which throws its error (a tracer sees nothing of a transaction that is not valid)
    // The price paid, and the tip the fee recipient gets of it (before London: none, it gets the whole fee).
    const tip = feeMarket ? (tx as FeeMarket1559Tx).getEffectivePriorityFee(baseFee) : london ? feeCap - baseFee : 0n;
    const gasPrice = feeMarket ? tip + baseFee : feeCap;
    const journal = vm.evm.journal;
    await journal.cleanup();
    await journal.checkpoint();
    const observed = observer === undefined ? undefined : engineObserver(observer, opcodeInfo(vm.evm));
    try {
      const results = await this.runWhole(
        opts,
        block,
        { caller, sender: account, intrinsic, floor, gasPrice, tip, blob, rules },
        observed?.hooks,
      );
      await journal.commit();
      return results;
    } catch (e) {
      await journal.revert();
      throw e;
    } finally {
      if (common.isActivatedEIP(2929)) journal.cleanJournal();
      sm.originalStorageCache.clear();
      observed?.done();
    }
  }

  /** EIP-3607 as EIP-7702 amends it: a sender with code may send if the code is a delegation. */
  private async delegated(address: Address): Promise<boolean> {
    if (!this.vm.common.isActivatedEIP(7702)) return false;
    return isDelegation(await this.vm.stateManager.getCode(address));
  }

  /** The fork's rules when runTx below takes `opts` whole (its other checks aside), else null. */
  private rulesTakingWhole(opts: RunTxOpts): ForkRules | null {
    const { vm } = this;
    const { tx } = opts;
    const common = vm.common;
    const events = vm.events as unknown as { listenerCount(name: string): number };
    const whole =
      this.own &&
      (tx.type === TransactionType.Legacy ||
        (tx.type === TransactionType.AccessListEIP2930 && common.isActivatedEIP(2930)) ||
        (tx.type === TransactionType.FeeMarketEIP1559 && common.isActivatedEIP(1559)) ||
        (tx.type === TransactionType.BlobEIP4844 && common.isActivatedEIP(4844)) ||
        (tx.type === TransactionType.EOACodeEIP7702 && common.isActivatedEIP(7702))) &&
      opts.skipHardForkValidation === true &&
      opts.skipBalance !== true &&
      opts.skipBlockGasLimitValidation !== true &&
      opts.reportAccessList !== true &&
      opts.reportPreimages !== true &&
      tx.gasLimit <= MAX_ENGINE_GAS &&
      common.gteHardfork(Hardfork.Byzantium) &&
      common.consensusType() !== ConsensusType.ProofOfAuthority &&
      // Amsterdam's EIP-7778 block gas; its EIP-8037 (state gas) has no engine rules (engineRules: null).
      !common.isActivatedEIP(7778) &&
      events.listenerCount('beforeTx') === 0 &&
      events.listenerCount('afterTx') === 0 &&
      !tracerListening(vm);
    return whole ? engineRules(vm) : null;
  }

  /**
   * runTx's _runTx from the gas purchase on, for a transaction whose checks have passed; `observer`:
   * a tracer's hooks, called before the line counter's.
   */
  private async runWhole(
    opts: RunTxOpts,
    block: Block,
    t: WholeTransaction,
    observer: EngineHooks | undefined,
  ): Promise<RunTxResult> {
    const { vm } = this;
    const { tx } = opts;
    const { caller, sender, intrinsic, gasPrice } = t;
    const common = vm.common;
    const sm = vm.stateManager;
    const journal = vm.evm.journal;
    const header = block.header;
    // The gas (and blob gas) bought and the nonce taken, before the message runs.
    sender.balance -= tx.gasLimit * gasPrice + (t.blob === undefined ? 0n : t.blob.gas * t.blob.price);
    sender.nonce += 1n;
    await journal.putAccount(caller, sender);
    const warm = common.isActivatedEIP(2929)
      ? warmSet(tx, caller, common.isActivatedEIP(3651) ? header.coinbase : undefined)
      : { addresses: [], slots: [] };
    const authorityRefund = isEOACode7702Tx(tx) ? await this.authorize(tx, warm) : 0n;
    this.whole = { rules: t.rules, warm, observer };
    let results: RunTxResult;
    try {
      results = (await vm.evm.runCall({
        block,
        gasPrice,
        caller,
        gasLimit: tx.gasLimit - intrinsic,
        to: tx.to,
        value: tx.value,
        data: tx.data,
        ...(isBlob4844Tx(tx) && { blobVersionedHashes: tx.blobVersionedHashes }),
        skipNonceIncrement: true,
      })) as RunTxResult;
    } finally {
      this.whole = undefined;
    }
    const exec = results.execResult;
    let spent = exec.executionGasUsed + intrinsic;
    const refund = authorityRefund + (exec.gasRefund ?? 0n);
    results.gasRefund = refund;
    if (refund !== 0n) {
      const max = spent / common.param('maxRefundQuotient');
      spent -= refund < max ? refund : max;
    }
    if (common.isActivatedEIP(7623) && spent < t.floor) {
      results.gasRefund = 0n;
      spent = t.floor;
    }
    results.totalGasSpent = spent;
    results.blockGasSpent = spent;
    if (t.blob !== undefined) results.blobGasUsed = t.blob.gas;
    results.amountSpent = spent * gasPrice;
    // The gas not used back to the sender, the tip (or, before London, the whole fee) to the fee recipient.
    const after = (await sm.getAccount(caller)) ?? new Account();
    after.balance += (tx.gasLimit - spent) * gasPrice;
    await journal.putAccount(caller, after);
    const miner = (await sm.getAccount(header.coinbase)) ?? new Account();
    results.minerValue = common.isActivatedEIP(1559) ? spent * t.tip : results.amountSpent;
    miner.balance += results.minerValue;
    await journal.putAccount(header.coinbase, miner);
    // Self-destructed accounts go, since EIP-6780 only those created in the transaction.
    for (const key of [...(exec.selfdestruct?.keys() ?? [])].sort()) {
      if (common.isActivatedEIP(6780) && exec.createdAddresses?.has(key) !== true) continue;
      await journal.deleteAccount(new Address(hexToBytes(key as `0x${string}`)));
    }
    const bloom = new Bloom(undefined, common);
    for (const [address, topics] of exec.logs ?? []) {
      bloom.add(address);
      for (const topic of topics) bloom.add(topic);
    }
    results.bloom = bloom;
    // EIP-161: the touched accounts left empty are deleted.
    await journal.cleanup();
    results.receipt = {
      ...(t.blob !== undefined && { blobGasUsed: t.blob.gas, blobGasPrice: t.blob.price }),
      status: exec.exceptionError === undefined ? 1 : 0,
      cumulativeBlockGasUsed: (opts.blockGasUsed ?? header.gasUsed) + spent,
      bitvector: bloom.bitvector,
      logs: exec.logs ?? [],
    };
    return results;
  }

  /**
   * EIP-7702's authorizations, as runTx's processAuthorizationList does before Amsterdam (EIP-8037):
   * each valid one takes its authority's nonce and sets its code to a delegation (none for the zero
   * address); an authority recovered is warm whether its authorization holds or not (into `warm`).
   * Returns the refund of the authorities that existed (perEmptyAccountCost - perAuthBaseGas each).
   */
  private async authorize(tx: EOACode7702Tx, warm: WarmSet): Promise<bigint> {
    const { common, stateManager: sm } = this.vm;
    const journal = this.vm.evm.journal;
    let refund = 0n;
    for (const item of tx.authorizationList) {
      const [chainId, address, nonce, yParity, , s] = item;
      const chain = bytesToBigInt(chainId);
      if (
        (chain !== 0n && chain !== common.chainId()) ||
        bytesToBigInt(nonce) >= MAX_UINT64 ||
        bytesToBigInt(s) > SECP256K1_ORDER_DIV_2 ||
        bytesToBigInt(yParity) > 1n
      )
        continue;
      let authority: Address;
      try {
        authority = eoaCode7702RecoverAuthority(item);
      } catch {
        continue;
      }
      const stored = await sm.getAccount(authority);
      const account = stored ?? new Account();
      warm.addresses.push(authority.bytes);
      if (account.isContract() && !isDelegation(await sm.getCode(authority))) continue;
      if (account.nonce !== bytesToBigInt(nonce)) continue;
      if (stored !== undefined) refund += common.param('perEmptyAccountCost') - common.param('perAuthBaseGas');
      account.nonce++;
      await journal.putAccount(authority, account);
      await sm.putCode(authority, address.every((b) => b === 0) ? new Uint8Array() : concatBytes(DELEGATION, address));
    }
    return refund;
  }

  /** Warm as runTx left the journal: the sender, the recipient, the coinbase, the access list, the authorities. */
  private journalWarmSet(): WarmSet {
    const journal = this.vm.evm.journal as unknown as Journal;
    const precompiles = (this.vm.evm as unknown as { _precompiles: Map<string, Precompile> })._precompiles;
    // (The precompiles it lists are warm through their map already.)
    const warm: WarmSet = { addresses: [], slots: [] };
    for (const map of [journal.alwaysWarmJournal, journal.journal])
      for (const [key, slots] of map) {
        if (slots.size === 0 && precompiles.has(key)) continue;
        const address = hexToBytes(`0x${key}`);
        if (slots.size === 0) warm.addresses.push(address);
        else warm.slots.push([address, [...slots].map((s) => hexToBytes(`0x${s.padStart(64, '0')}`))]);
      }
    return warm;
  }

  private async run(m: TxMessage, rules: ForkRules, warm: WarmSet, observer?: EngineHooks): Promise<EVMResult> {
    const vm = this.vm;
    const precompiles = (vm.evm as unknown as { _precompiles: Map<string, Precompile> })._precompiles;
    const backend = stateBackend(vm);
    const world = new World(backend);
    const run = await runMessage(
      {
        rules,
        backend,
        block: blockEnv(vm, m.block),
        tx: {
          origin: m.caller.bytes,
          gasPrice: m.gasPrice,
          blobHashes: m.blobVersionedHashes?.map((h) => hexToBytes(h)) ?? [],
        },
        precompiles,
        warmPrecompiles: precompiles,
        precompileContext: { common: vm.common, _EVM: vm.evm },
        check: this.check,
        hooks: bothHooks(observer, this.hooks(m.block.header.baseFeePerGas)),
        pool: this.pool,
      },
      {
        caller: m.caller.bytes,
        to: m.to?.bytes,
        value: m.value,
        data: m.data,
        gasLimit: m.gasLimit,
        warmAddresses: warm.addresses,
        warmSlots: warm.slots,
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

/** runTx's warm set (EIP-2929, EIP-3651), the precompiles aside. */
function warmSet(tx: RunTxOpts['tx'], caller: Address, coinbase: Address | undefined): WarmSet {
  const warm: WarmSet = { addresses: [caller.bytes], slots: [] };
  if (tx.to !== undefined) warm.addresses.push(tx.to.bytes);
  if (coinbase !== undefined) warm.addresses.push(coinbase.bytes);
  if (tx.type !== TransactionType.Legacy)
    for (const [address, slots] of (tx as AccessList2930Tx).accessList)
      if (slots.length === 0) warm.addresses.push(address);
      else warm.slots.push([address, slots]);
  return warm;
}
