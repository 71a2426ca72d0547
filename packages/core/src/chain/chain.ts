/**
 * The chain: one EVM chain in one process. It owns the state trie over the embedded database, the
 * block store and its indexes, the transaction pool, the mining loop, the line counter and the
 * exclusion store. It speaks typed values only (bigint, Uint8Array, ethereumjs objects).
 *
 * Every change to the chain (accepting a transaction, mining, time travel) runs through one queue
 * (`exclusive`), so blocks are built one at a time. Reads never wait for it: they see the state of
 * the block they name, through tries rooted at that block's stateRoot.
 */
import { EventEmitter } from 'node:events';

import { createBlock, createBlockFromBytesArray, createBlockHeader } from '@ethereumjs/block';
import type { Block, BlockHeader, HeaderData } from '@ethereumjs/block';
import { ConsensusType } from '@ethereumjs/common';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { getMerkleStateProof, MerkleStateManager } from '@ethereumjs/statemanager';
import { createBlob4844TxFromSerializedNetworkWrapper, createTxFromRLP, TransactionType } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  Address,
  bytesToBigInt,
  bytesToHex,
  concatBytes,
  createAccount,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
} from '@ethereumjs/util';
import { createVM } from '@ethereumjs/vm';
import type { VM } from '@ethereumjs/vm';

import { deriveAccounts, DEFAULT_MNEMONIC } from '../config/accounts';
import type { DevAccount } from '../config/accounts';
import { blobGasOf, buildBlock, DAO_FORK_EXTRA } from '../exec/blockBuilder';
import type { BuildResult } from '../exec/blockBuilder';
import { ChainStore } from '../store/chainStore';
import { NodeClock } from './clock';
import {
  ChainError,
  ChainIdMismatchError,
  DatabaseOpenError,
  DeniedAddressError,
  FeeCapTooLowError,
  GasLimitExceededError,
  HeaderNotFoundError,
  ImportError,
  InsufficientFundsError,
  IntrinsicGasTooLowError,
  InvalidSenderError,
  InvalidTransactionError,
  LineLimitExceededError,
  NonceTooLowError,
  TipAboveFeeCapError,
  TxTypeNotSupportedError,
  BlobFeeCapTooLowError,
  UnderpricedError,
  UnknownAccountError,
  InvalidArgumentError,
  InvalidLimitsError,
  InvalidTimestampError,
  KnownLineCountOverflowError,
} from '../errors';
import { ExclusionControl } from '../lines/exclusionControl';
import type { ForcedExclusion } from '../lines/exclusionControl';
import { ExclusionStore } from '../lines/exclusionStore';
import { ExecutionGuard } from '../exec/executionGuard';
import { initFastCrypto, keccak256 } from '../config/fastCrypto';
import type { ExclusionRecord, RejectionStage } from '../lines/exclusionStore';
import {
  applyAlloc,
  DEFAULT_BALANCE,
  DEFAULT_CHAIN_ID,
  DEFAULT_GAS_LIMIT,
  DEFAULT_HARDFORK,
  devCommon,
  gethGenesisSpec,
  INITIAL_BASE_FEE,
} from '../config/genesis';
import type { GenesisSpec } from '../config/genesis';
import type { KvOp, KvStore } from '../store/kvStore';
import { openKvStore } from '../store/kvStore';
import { intrinsicGas } from '../pool/intrinsicGas';
import { LineCounter } from '../lines/lineCounter';
import type { LineCounts } from '../lines/lineCounter';
import type { LineLimits, LineOverflow } from '../lines/lineLimits';
import type { TracerProfileName } from '../lines/lineProfiles';
import type { TraceOptions } from '../exec/tracing';
import type { SimBlockInput, SimOptions, SimulatedBlock } from '../exec/simulate';
import { LruCache } from '../support/lru';
import { SerialQueue } from '../support/serialQueue';
import { Simulator } from '../exec/simulator';
import { dumpState, loadState } from '../state/stateDump';
import type { CallRequest, CallResult, StateOverride } from '../exec/simulator';
import { flatStateManager } from '../state/flatState';
import { StateDB, stateCaches } from '../state/stateDb';
import { maxFeeOf, maxTipOf, TxPool } from '../pool/txPool';
import type { PoolTx } from '../pool/txPool';
import { systemContractAllocs } from '../config/systemContracts';
import { forkConfigs } from '../config/forkConfig';
import type { ForkConfigs } from '../config/forkConfig';
import type { BlockRef, LocatedLog, LogFilter, Receipt } from '../types';

export type MiningMode = { mode: 'auto' } | { mode: 'interval'; intervalMs: number } | { mode: 'manual' };

export interface ChainOptions {
  /** Default DEFAULT_CHAIN_ID. Ignored when `genesis` is given (its config.chainId wins). */
  chainId?: bigint;
  /** Default DEFAULT_HARDFORK. With `genesis`, a fixed fork overriding its schedule. */
  hardfork?: string;
  /** Block gas limit; default DEFAULT_GAS_LIMIT. */
  gasLimit?: bigint;
  mnemonic?: string;
  /** Dev accounts derived and funded; default 10. */
  accounts?: number;
  /** Wei per dev account; default DEFAULT_BALANCE. */
  balance?: bigint;
  /** A parsed geth-style genesis.json. */
  genesis?: unknown;
  /** Where the database lives; undefined keeps everything in memory. */
  dataDir?: string;
  mining?: MiningMode;
  clock?: NodeClock;
  /** `finalized` is this many blocks behind `latest`; default 64 (as Anvil). */
  finalizedDepth?: bigint;
  /** `safe` is this many blocks behind `latest`; default 32 (as Anvil). */
  safeDepth?: bigint;
  /** eth_getLogs limits; defaults from the spec (10,000 results, 10 s). */
  maxLogResults?: number;
  logQueryTimeoutMs?: number;
  /** Line limits; undefined disables the line-count checks (counting still runs). */
  lineLimits?: LineLimits;
  /** Refuse overflowing transactions at submission (stage RPC); default true. */
  rpcLineCheck?: boolean;
  /** Count lines at all; default true. Off only to measure what counting costs. */
  lineCounting?: boolean;
  /** Which Linea tracer the line counter follows; default the line limits' profile, else osaka. */
  tracer?: TracerProfileName;
  /** How long eth_call, eth_estimateGas and eth_createAccessList may run (ms); 0 for no limit. Default 5 s. */
  rpcEvmTimeoutMs?: number;
}

/** The tracer profile the chain counts with; its line limits must be for the same one. */
function tracerOf(opts: ChainOptions): TracerProfileName {
  const tracer = opts.tracer ?? opts.lineLimits?.profile ?? 'osaka';
  if (opts.lineLimits !== undefined && opts.lineLimits.profile !== tracer)
    throw new InvalidLimitsError(`the line limits are for the ${opts.lineLimits.profile} tracer, not ${tracer}`);
  return tracer;
}

/** Spec, Limits: at most 10,000 results per eth_getLogs query. */
export const MAX_LOG_RESULTS = 10_000;
/** Spec, Limits: an eth_getLogs query must not run longer than 10 seconds. */
export const LOG_QUERY_TIMEOUT_MS = 10_000;
/** Spec, Limits: eth_call and eth_estimateGas gas is capped at 10× the block gas limit. */
export const CALL_GAS_CAP_FACTOR = 10n;
/** Linea's sequencer: `--plugin-linea-over-line-count-limit-cache-size` defaults to 10,000 hashes. */
const OVER_LINE_COUNT_CACHE_SIZE = 10_000;
/** Tip suggested to wallets (eth_maxPriorityFeePerGas), as Anvil: 1 gwei. */
export const SUGGESTED_TIP = 1_000_000_000n;

export interface AccountState {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storageRoot: Uint8Array;
}

export interface ChainTransaction {
  tx: TypedTransaction;
  sender: Uint8Array;
  /** Undefined while pending. */
  block?: Block;
  index?: number;
}

export interface AccountProof {
  address: Uint8Array;
  balance: bigint;
  nonce: bigint;
  codeHash: Uint8Array;
  storageHash: Uint8Array;
  accountProof: Uint8Array[];
  storageProof: { key: Uint8Array; value: bigint; proof: Uint8Array[] }[];
}

export interface ChainEvents {
  block: [block: Block, receipts: Receipt[]];
  pendingTransaction: [hash: Uint8Array];
  excluded: [record: ExclusionRecord];
  /** Blocks above `newHead` were dropped (rollback, reorg, snapshot revert); their logs, marked removed. */
  reorg: [newHead: bigint, removedLogs: LocatedLog[]];
  error: [error: Error];
}

const META_CONFIG = new Uint8Array([0x6d, ...new TextEncoder().encode('config')]);
const EMPTY_BYTES = new Uint8Array(0);
/** The state root reads at the head use when it differs from the head block's (state edited by anvil_set*). */
const META_WORKING_ROOT = new Uint8Array([0x6d, ...new TextEncoder().encode('root')]);
/** `safe` and `finalized` when set (l2_setFinality, an import) rather than depths behind the head. */
const META_FINALITY = new Uint8Array([0x6d, ...new TextEncoder().encode('finality')]);

/** The `safe` and `finalized` blocks of a chain followed rather than mined (an import, l2_setFinality). */
export interface Finality {
  safe: bigint;
  finalized: bigint;
}
const P_POOL = 0x70; // 'p' ‖ tx hash → sender ‖ raw transaction (pool contents survive a restart)

/**
 * The stand-in key that signs an impersonated address's transactions (their sender is set, not
 * recovered): one per address, so two addresses' identical transactions still differ in hash.
 */
function impersonationKey(sender: Uint8Array): Uint8Array {
  return keccak256(concatBytes(new TextEncoder().encode('l2devnet impersonation'), sender));
}

/**
 * `tx` with its sender fixed to `sender` (impersonation): ethereumjs asks the transaction for its
 * sender, so a proxy answers that question and passes everything else through (transactions are
 * frozen, so the method cannot be replaced on the object itself).
 */
export function withSender(tx: TypedTransaction, sender: Uint8Array): TypedTransaction {
  const address = new Address(sender);
  return new Proxy(tx, {
    get(target, prop) {
      if (prop === 'getSenderAddress') return () => address;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

interface Snapshot {
  head: bigint;
  root: Uint8Array;
  pool: PoolTx[];
  clockOffsetMs: number;
  nextTimestamp: bigint | undefined;
  nextBaseFee: bigint | undefined;
}

interface PersistedConfig {
  chainId: string;
  hardfork: string | null;
  mnemonic: string;
  accounts: number;
  genesis: unknown;
}

export class Chain extends EventEmitter<ChainEvents> {
  readonly pool = new TxPool();
  readonly clock: NodeClock;
  readonly exclusions: ExclusionStore;
  /**
   * Hashes the sequencer excluded for their own line count (TX_MODULE_LINE_COUNT_OVERFLOW): a
   * resubmission is refused at once, as by Linea's in-memory cache (its default size, 10,000).
   */
  private readonly overLineCountLimit = new LruCache<string, true>(OVER_LINE_COUNT_CACHE_SIZE);
  /** Forced exclusions and the deny list (set by tests through l2_forceExclusion, l2_setDenyList). */
  readonly exclusionControl = new ExclusionControl();
  readonly accounts: DevAccount[];
  readonly mnemonic: string;
  /** The limits in force: the file's, or as changed at run time (setLineLimits). */
  lineLimits: LineLimits | undefined;
  /** The limits the node started with, which resetLineLimits restores. */
  private readonly fileLineLimits: LineLimits | undefined;
  rpcLineCheck: boolean;
  mining: MiningMode;
  readonly finalizedDepth: bigint;
  readonly safeDepth: bigint;
  readonly maxLogResults: number;
  logQueryTimeoutMs: number;
  gasLimit: bigint;
  coinbase: Uint8Array = new Uint8Array(20);
  /** Transactions below this fee cap are refused (anvil_setMinGasPrice); 0 by default. */
  minGasPrice = 0n;
  /** Addresses eth_sendTransaction may send from without a key (anvil_impersonateAccount). */
  readonly impersonated = new Set<string>();
  /** `safe` and `finalized` as set; undefined: depths behind the head. */
  private finality: Finality | undefined;
  /** A genesis file's DAO fork block, when it supports the fork. */
  private daoForkBlock: bigint | undefined;
  /** One-shot overrides for the next block (evm_setNextBlockTimestamp, anvil_setNextBlockBaseFeePerGas). */
  private nextTimestamp: bigint | undefined;
  private nextBaseFeeOverride: bigint | undefined;
  /** The state at the head: the head block's stateRoot unless state was edited since. */
  private workingRoot: Uint8Array = new Uint8Array(32);
  private readonly snapshots = new Map<bigint, Snapshot>();
  private nextSnapshotId = 1n;

  private readonly queue = new SerialQueue();
  private miningTimer: NodeJS.Timeout | undefined;
  private readonly readers = new LruCache<string, MerkleStateManager>(32);
  private readonly lineCounter: LineCounter;
  private closed = false;

  private constructor(
    readonly common: Common,
    private readonly scheduled: boolean,
    readonly kv: KvStore,
    readonly store: ChainStore,
    private readonly stateDb: StateDB,
    private readonly vm: VM,
    readonly simulator: Simulator,
    opts: ChainOptions,
    persisted: PersistedConfig,
  ) {
    super();
    this.clock = opts.clock ?? new NodeClock();
    this.exclusions = new ExclusionStore(kv, () => this.clock.now());
    this.mnemonic = persisted.mnemonic;
    this.accounts = deriveAccounts(persisted.mnemonic, persisted.accounts);
    this.lineLimits = this.fileLineLimits = opts.lineLimits;
    this.rpcLineCheck = opts.rpcLineCheck ?? true;
    this.mining = opts.mining ?? { mode: 'auto' };
    this.finalizedDepth = opts.finalizedDepth ?? 64n;
    this.safeDepth = opts.safeDepth ?? 32n;
    this.maxLogResults = opts.maxLogResults ?? MAX_LOG_RESULTS;
    this.logQueryTimeoutMs = opts.logQueryTimeoutMs ?? LOG_QUERY_TIMEOUT_MS;
    this.gasLimit = 0n;
    // Each waiting eth_sendRawTransactionSync listens for blocks: no listener limit.
    this.setMaxListeners(0);
    this.lineCounter = new LineCounter(vm.evm, opts.lineCounting ?? true, tracerOf(opts));
    // Mining runs to the end of every transaction, but lets the event loop in between slices.
    new ExecutionGuard(vm.evm);
    if (opts.rpcEvmTimeoutMs !== undefined) simulator.evmTimeoutMs = opts.rpcEvmTimeoutMs;
  }

  /** Opens (or creates) the chain. */
  static async create(opts: ChainOptions = {}): Promise<Chain> {
    await initFastCrypto();
    const kv = await openKvStore(opts.dataDir);
    try {
      return await Chain.open(kv, opts);
    } catch (e) {
      await kv.close();
      if (opts.dataDir === undefined || e instanceof ChainError) throw e;
      // LevelDB opened it, but what it holds is not a chain this node can read.
      throw new DatabaseOpenError(
        `the database in ${opts.dataDir} cannot be read as an l2devnet chain (${(e as Error).message}): move the ` +
          'directory aside and start again to begin a new chain there, or start with another --data-dir',
      );
    }
  }

  private static async open(kv: KvStore, opts: ChainOptions): Promise<Chain> {
    const stored = await kv.get(META_CONFIG);
    const persisted: PersistedConfig =
      stored !== undefined
        ? (JSON.parse(new TextDecoder().decode(stored)) as PersistedConfig)
        : {
            chainId: String(opts.chainId ?? DEFAULT_CHAIN_ID),
            hardfork: opts.hardfork ?? null,
            mnemonic: opts.mnemonic ?? DEFAULT_MNEMONIC,
            accounts: opts.accounts ?? 10,
            genesis: opts.genesis ?? null,
          };
    const spec: GenesisSpec | undefined =
      persisted.genesis !== null ? gethGenesisSpec(persisted.genesis, persisted.hardfork ?? undefined) : undefined;
    const common = spec?.common ?? devCommon(BigInt(persisted.chainId), persisted.hardfork ?? DEFAULT_HARDFORK);
    if (spec?.scheduled === true) common.setHardforkBy({ blockNumber: 0n, timestamp: spec.timestamp ?? 0n });
    const stateDb = new StateDB(kv);
    const store = new ChainStore(kv, common, spec?.scheduled ?? false);
    const head = await store.open();

    const sm = flatStateManager(stateDb, stateDb.flat, common, stateCaches(100_000));
    const blockchain = {
      getBlock: async (n: number) => {
        const hash = await store.getBlockHash(BigInt(n));
        return { hash: () => hash ?? new Uint8Array(32) };
      },
      putBlock: async () => {},
      shallowCopy() {
        return this;
      },
    };
    const vm = await createVM({ common, stateManager: sm, blockchain });
    const simulator = await Simulator.create(common, stateDb, blockchain, opts.lineCounting ?? true, tracerOf(opts));
    const chain = new Chain(common, spec?.scheduled ?? false, kv, store, stateDb, vm, simulator, opts, persisted);
    chain.daoForkBlock = spec?.daoForkBlock;
    simulator.daoForkBlock = spec?.daoForkBlock;

    if (head < 0n) {
      await chain.writeGenesis(spec, opts, persisted);
    } else {
      const headBlock = (await store.getBlock(head)) as Block;
      chain.setForkAt(headBlock.header.number + 1n, headBlock.header.timestamp);
      chain.workingRoot = (await kv.get(META_WORKING_ROOT)) ?? headBlock.header.stateRoot;
      await sm.setStateRoot(chain.workingRoot);
      chain.gasLimit = opts.gasLimit ?? headBlock.header.gasLimit;
      const finality = await kv.get(META_FINALITY);
      if (finality !== undefined) {
        const { safe, finalized } = JSON.parse(new TextDecoder().decode(finality)) as Record<string, string>;
        chain.finality = { safe: BigInt(safe), finalized: BigInt(finalized) };
      }
      await chain.restorePool();
    }
    chain.setMining(chain.mining);
    return chain;
  }

  private async writeGenesis(
    spec: GenesisSpec | undefined,
    opts: ChainOptions,
    persisted: PersistedConfig,
  ): Promise<void> {
    const sm = this.vm.stateManager as MerkleStateManager;
    const balance = opts.balance ?? DEFAULT_BALANCE;
    // A dev chain gets the system contracts of its fork, as geth's dev mode; a genesis file says its own.
    const alloc = spec?.alloc ?? [
      ...systemContractAllocs(this.common),
      ...this.accounts.map((a) => ({ address: a.address, balance })),
    ];
    await sm.checkpoint();
    await applyAlloc(sm, alloc);
    await sm.commit();
    const stateRoot = await sm.getStateRoot();
    this.gasLimit = opts.gasLimit ?? spec?.gasLimit ?? DEFAULT_GAS_LIMIT;
    const timestamp = spec?.timestamp ?? this.clock.nowSeconds();
    this.setForkAt(0n, timestamp);
    const header: HeaderData = {
      number: 0n,
      gasLimit: this.gasLimit,
      timestamp,
      stateRoot,
      extraData: spec?.extraData ?? new TextEncoder().encode('l2devnet'),
      coinbase: spec?.coinbase,
      difficulty: spec?.difficulty ?? 0n,
      nonce: spec?.nonce,
      mixHash: spec?.mixHash,
    };
    if (this.common.isActivatedEIP(1559)) header.baseFeePerGas = spec?.baseFeePerGas ?? INITIAL_BASE_FEE;
    if (this.common.isActivatedEIP(4844)) {
      header.excessBlobGas = spec?.excessBlobGas ?? 0n;
      header.blobGasUsed = spec?.blobGasUsed ?? 0n;
    }
    const genesis = createBlock({ header }, { common: this.common });
    const ops: KvOp[] = [];
    this.stateDb.drainInto(ops);
    ops.push(...this.store.blockOps(genesis, []));
    ops.push({ type: 'put', key: META_CONFIG, value: new TextEncoder().encode(JSON.stringify(persisted)) });
    await this.store.commit(ops, genesis, []);
    this.workingRoot = stateRoot;
  }

  private async restorePool(): Promise<void> {
    for await (const [, row] of this.kv.range(Uint8Array.of(P_POOL), Uint8Array.of(P_POOL + 1))) {
      try {
        const sender = row.subarray(0, 20);
        const signed = createTxFromRLP(row.subarray(20), { common: this.common });
        const tx = equalsBytes(signed.getSenderAddress().bytes, sender) ? signed : withSender(signed, sender);
        this.pool.add({ tx, hash: tx.hash(), sender, nonce: tx.nonce, addedAt: this.clock.now() });
      } catch {
        // A transaction the pool accepted decodes; anything else is not worth keeping.
      }
    }
    if (this.pool.size > 0) await this.dropStale();
  }

  /** With a genesis file's fork schedule, selects the fork of the block at (number, timestamp). */
  private setForkAt(number: bigint, timestamp: bigint): void {
    if (this.scheduled) this.vm.common.setHardforkBy({ blockNumber: number, timestamp });
  }

  /** The chain's Common if it is at the fork of the block at (number, timestamp), else a copy that is. */
  private forkCommon(number: bigint, timestamp: bigint): Common {
    const common = this.vm.common;
    if (!this.scheduled) return common;
    const fork = common.getHardforkBy({ blockNumber: number, timestamp });
    if (fork === common.hardfork()) return common;
    const copy = common.copy();
    copy.setHardfork(fork);
    return copy;
  }

  /** Runs `fn` after every earlier change to the chain has finished. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(fn);
  }

  // ---------------------------------------------------------------- reads

  get headNumber(): bigint {
    return this.store.headNumber;
  }

  get chainId(): bigint {
    return this.common.chainId();
  }

  get hardfork(): string {
    return this.vm.common.hardfork();
  }

  async headBlock(): Promise<Block> {
    return (await this.store.getBlock(this.store.headNumber)) as Block;
  }

  /** The block number a tag or number stands for; undefined when no such block exists. */
  async resolveNumber(ref: BlockRef): Promise<bigint | undefined> {
    const head = this.store.headNumber;
    switch (ref.kind) {
      case 'latest':
      case 'pending':
        return head;
      case 'earliest':
        return 0n;
      case 'finalized':
        if (this.finality !== undefined) return this.finality.finalized < head ? this.finality.finalized : head;
        return head > this.finalizedDepth ? head - this.finalizedDepth : 0n;
      case 'safe':
        if (this.finality !== undefined) return this.finality.safe < head ? this.finality.safe : head;
        return head > this.safeDepth ? head - this.safeDepth : 0n;
      case 'number':
        return ref.number <= head && ref.number >= 0n ? ref.number : undefined;
      case 'hash':
        return this.store.getBlockNumber(ref.hash);
    }
  }

  async getBlock(ref: BlockRef): Promise<Block | undefined> {
    const n = await this.resolveNumber(ref);
    return n === undefined ? undefined : this.store.getBlock(n);
  }

  async getBlockByNumber(n: bigint): Promise<Block | undefined> {
    return this.store.getBlock(n);
  }

  /** The sum of the difficulties of blocks 0..n (proof of work; constant after the merge). */
  totalDifficulty(n: bigint): Promise<bigint> {
    return this.store.totalDifficulty(n);
  }

  async getReceipts(n: bigint): Promise<Receipt[] | undefined> {
    return this.store.getReceipts(n);
  }

  /** A mined transaction with its block, or a pending one from the pool. */
  async getTransaction(hash: Uint8Array): Promise<ChainTransaction | undefined> {
    const loc = await this.store.getTxLocation(hash);
    if (loc !== undefined) {
      const block = await this.store.getBlock(loc.blockNumber);
      const receipts = await this.store.getReceipts(loc.blockNumber);
      if (block !== undefined && receipts !== undefined) {
        return { tx: block.transactions[loc.index], sender: receipts[loc.index].from, block, index: loc.index };
      }
    }
    const pending = this.pool.get(hash);
    return pending === undefined ? undefined : { tx: pending.tx, sender: pending.sender };
  }

  async getReceipt(hash: Uint8Array): Promise<{ receipt: Receipt; block: Block; index: number } | undefined> {
    const loc = await this.store.getTxLocation(hash);
    if (loc === undefined) return undefined;
    const [block, receipts] = await Promise.all([
      this.store.getBlock(loc.blockNumber),
      this.store.getReceipts(loc.blockNumber),
    ]);
    if (block === undefined || receipts === undefined) return undefined;
    return { receipt: receipts[loc.index], block, index: loc.index };
  }

  /** A read-only view of the state after block `n`. */
  private async stateAt(n: bigint): Promise<MerkleStateManager> {
    const root = await this.stateRootAt(n);
    const key = bytesToHex(root);
    let sm = this.readers.get(key);
    if (sm === undefined) {
      sm = flatStateManager(this.stateDb, this.stateDb.flat, this.common, stateCaches(0), root);
      this.readers.set(key, sm);
    }
    return sm;
  }

  /** The state root reads at block `n` use: the working root at the head, the block's own otherwise. */
  async stateRootAt(n: bigint): Promise<Uint8Array> {
    return n === this.headNumber ? this.workingRoot : (await this.blockAndRoot(n)).root;
  }

  async getAccount(address: Uint8Array, n: bigint): Promise<AccountState> {
    const account = await (await this.stateAt(n)).getAccount(new Address(address));
    return {
      nonce: account?.nonce ?? 0n,
      balance: account?.balance ?? 0n,
      codeHash: account?.codeHash ?? KECCAK256_NULL,
      storageRoot: account?.storageRoot ?? KECCAK256_RLP,
    };
  }

  /** The head state through the mining VM's warm caches; only inside `exclusive`, where no block is half built. */
  private async headAccount(address: Uint8Array): Promise<{ nonce: bigint; balance: bigint }> {
    const account = await this.vm.stateManager.getAccount(new Address(address));
    return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
  }

  async getCode(address: Uint8Array, n: bigint): Promise<Uint8Array> {
    return (await this.stateAt(n)).getCode(new Address(address));
  }

  async getStorage(address: Uint8Array, slot: Uint8Array, n: bigint): Promise<Uint8Array> {
    return (await this.stateAt(n)).getStorage(new Address(address), slot);
  }

  /** The nonce the sender's next transaction should carry, counting pool transactions. */
  async pendingNonce(address: Uint8Array): Promise<bigint> {
    const { nonce } = await this.getAccount(address, this.headNumber);
    return this.pool.nextNonce(address, nonce);
  }

  private async pendingNonceLocked(address: Uint8Array): Promise<bigint> {
    return this.pool.nextNonce(address, (await this.headAccount(address)).nonce);
  }

  /** Whether a pool transaction can go into the next block: no nonce gap before it. */
  async isReady(ptx: PoolTx): Promise<boolean> {
    const { nonce } = await this.getAccount(ptx.sender, this.headNumber);
    return this.pool.nextNonce(ptx.sender, nonce) > ptx.nonce;
  }

  /** EIP-1186 proof of an account and storage slots at block `n`. */
  async getProof(address: Uint8Array, slots: Uint8Array[], n: bigint): Promise<AccountProof> {
    const sm = await this.stateAt(n);
    const proof = await getMerkleStateProof(sm, new Address(address), slots);
    const hex = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
    return {
      address,
      balance: BigInt(proof.balance),
      nonce: BigInt(proof.nonce),
      codeHash: hex(proof.codeHash),
      storageHash: hex(proof.storageHash),
      accountProof: proof.accountProof.map(hex),
      // An absent account has the empty storage trie: every slot is zero, with nothing to show.
      storageProof: slots.map((key, i) => {
        const s = proof.storageProof[i];
        return { key, value: s === undefined ? 0n : BigInt(s.value), proof: s === undefined ? [] : s.proof.map(hex) };
      }),
    };
  }

  async getLogs(filter: LogFilter): Promise<LocatedLog[]> {
    return this.store.queryLogs(filter, {
      maxResults: this.maxLogResults,
      deadline: performance.now() + this.logQueryTimeoutMs,
    });
  }

  /** Base fee of the next block. */
  async nextBaseFee(): Promise<bigint> {
    return this.baseFeeAfter((await this.headBlock()).header, this.vm.common);
  }

  /** The base fee of the block after `parent` under its fork (`common`): the override, else the rule's. */
  private baseFeeAfter(parent: BlockHeader, common: Common): bigint {
    if (!common.isActivatedEIP(1559)) return 0n;
    return this.nextBaseFeeOverride ?? ruleBaseFee(parent);
  }

  /** EIP-7910 (eth_config): the current, next and last fork's configuration. */
  async forkConfigs(): Promise<ForkConfigs> {
    const genesis = (await this.store.getBlock(0n)) as Block;
    const head = await this.headBlock();
    return forkConfigs(this.common, this.scheduled, genesis.header, head.header.timestamp);
  }

  /** Blob base fee of the next block (EIP-4844); 0 before Cancun. */
  async nextBlobBaseFee(): Promise<bigint> {
    const head = await this.headBlock();
    return this.vm.common.isActivatedEIP(4844) && head.header.excessBlobGas !== undefined
      ? head.header.calcNextBlobGasPrice(this.vm.common)
      : 0n;
  }

  // ---------------------------------------------------------------- simulation

  /** The tracer profile the line counter follows. */
  get tracer(): TracerProfileName {
    return this.lineCounter.profile.name;
  }

  /** Line counts of a call on the state after block `n`, as linea_estimateGas counts it, whatever its outcome. */
  async callLineCounts(req: CallRequest, n: bigint): Promise<LineCounts> {
    const { block, root } = await this.blockAndRoot(n);
    return this.simulator.countCall(req, block, root, this.callGasCap());
  }

  /**
   * Line counts of mined block `n`, its transactions run again on its parent's state as its builder
   * ran them: the block's totals and the lines each transaction added. Undefined for an unknown
   * block; genesis has no transactions.
   */
  async blockLineCounts(n: bigint): Promise<{ totals: LineCounts; added: LineCounts[] } | undefined> {
    if (n === 0n) return (await this.store.getBlock(0n)) === undefined ? undefined : { totals: {}, added: [] };
    const replay = await this.replayInputs(n);
    if (replay === undefined) return undefined;
    const { block, root, senders } = replay;
    return this.simulator.replayLines(root, buildFields(block.header), asCandidates(block.transactions, senders));
  }

  /** The lines a mined transaction added to its block; undefined for one not mined. */
  async transactionLinesInBlock(hash: Uint8Array): Promise<{ counts: LineCounts; blockNumber: bigint } | undefined> {
    const loc = await this.store.getTxLocation(hash);
    if (loc === undefined) return undefined;
    const lines = await this.blockLineCounts(loc.blockNumber);
    const counts = lines?.added[loc.index];
    return counts === undefined ? undefined : { counts, blockNumber: loc.blockNumber };
  }

  /**
   * debug_traceBlockByNumber: block `n`'s transactions run again on its parent's state, each traced;
   * undefined for an unknown block.
   */
  async traceBlock(n: bigint, options: TraceOptions): Promise<{ txHash: string; result: unknown }[] | undefined> {
    const replay = await this.replayInputs(n);
    if (replay === undefined) return undefined;
    return this.simulator.traceBlock(replay.root, replay.block, replay.senders, options);
  }

  /** debug_traceTransaction: a mined transaction traced on its block's state before it; undefined if not mined. */
  async traceTransaction(hash: Uint8Array, options: TraceOptions): Promise<unknown> {
    const loc = await this.store.getTxLocation(hash);
    if (loc === undefined) return undefined;
    const replay = await this.replayInputs(loc.blockNumber);
    if (replay === undefined) return undefined;
    const [traced] = await this.simulator.traceBlock(replay.root, replay.block, replay.senders, options, loc.index);
    return traced.result;
  }

  /**
   * A signed transaction that was not mined (an excluded one, say) traced as a call from its sender
   * on the head state.
   */
  async traceRawTransaction(raw: Uint8Array, options: TraceOptions): Promise<unknown> {
    const tx = createTxFromRLP(raw, { common: this.common });
    const req: CallRequest = {
      from: tx.getSenderAddress().bytes,
      to: tx.to?.bytes,
      value: tx.value,
      data: tx.data,
      gas: tx.gasLimit,
    };
    return this.traceCall(req, this.headNumber, [], options);
  }

  /** eth_simulateV1: blocks of calls simulated on top of block `n`. */
  async simulate(n: bigint, input: SimBlockInput<StateOverride>[], opts: SimOptions): Promise<SimulatedBlock[]> {
    const { block, root } = await this.blockAndRoot(n);
    return this.simulator.simulate(block, root, input, opts);
  }

  /** debug_traceCall: a call on the state after block `n`, with state overrides. */
  async traceCall(req: CallRequest, n: bigint, overrides: StateOverride[], options: TraceOptions): Promise<unknown> {
    const { block, root } = await this.blockAndRoot(n);
    return this.simulator.traceCall(req, block, root, this.callGasCap(), overrides, options);
  }

  /** What replaying block `n` needs: the block, its parent's state root, and each transaction's sender. */
  private async replayInputs(
    n: bigint,
  ): Promise<{ block: Block; root: Uint8Array; senders: Uint8Array[] } | undefined> {
    if (n === 0n) return undefined;
    const [block, parent, receipts] = await Promise.all([
      this.store.getBlock(n),
      this.store.getBlock(n - 1n),
      this.store.getReceipts(n),
    ]);
    if (block === undefined || parent === undefined || receipts === undefined) return undefined;
    return { block, root: parent.header.stateRoot, senders: receipts.map((r) => r.from) };
  }

  /** Runs a call on the state after block `n` without creating a transaction. */
  async call(
    req: CallRequest,
    n: bigint,
    opts: { countLines?: boolean; overrides?: StateOverride[] } = {},
  ): Promise<CallResult> {
    const { block, root } = await this.blockAndRoot(n);
    return this.simulator.call(req, block, root, this.callGasCap(), opts.countLines ?? false, opts.overrides);
  }

  async estimateGas(req: CallRequest, n: bigint): Promise<{ gas: bigint; lineCounts: LineCounts }> {
    const { block, root } = await this.blockAndRoot(n);
    return this.simulator.estimateGas(req, block, root, this.callGasCap(), (counts) => {
      const overflow = this.lineLimits?.txOverflow(counts);
      if (overflow !== undefined)
        throw new LineLimitExceededError(undefined, overflow.module, overflow.count, overflow.limit);
    });
  }

  async createAccessList(
    req: CallRequest,
    n: bigint,
  ): Promise<{ accessList: [Uint8Array, Uint8Array[]][]; gasUsed: bigint }> {
    const { block, root } = await this.blockAndRoot(n);
    return this.simulator.createAccessList(req, block, root, this.callGasCap());
  }

  /** Block `n` (the context a simulation sees) and the state root it runs on. */
  private async blockAndRoot(n: bigint): Promise<{ block: Block; root: Uint8Array }> {
    const block = await this.store.getBlock(n);
    if (block === undefined) throw new HeaderNotFoundError();
    return { block, root: n === this.headNumber ? this.workingRoot : block.header.stateRoot };
  }

  callGasCap(): bigint {
    return this.gasLimit * CALL_GAS_CAP_FACTOR;
  }

  // ---------------------------------------------------------------- transactions

  /** Decodes and submits a signed transaction; returns its hash once accepted (and mined, with automine). */
  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    const tx = this.decodeTransaction(raw);
    return this.submit(tx);
  }

  /**
   * Decodes a raw transaction. The checks ethereumjs would make while constructing it (chain id,
   * fee cap against tip, the EIP-7825 gas cap, supported type) are made first on the raw fields, so
   * each gets its own typed error.
   */
  decodeTransaction(raw: Uint8Array): TypedTransaction {
    const fields = peekTransaction(raw);
    const common = this.vm.common;
    const eip = [undefined, 2930, 1559, 4844, 7702][fields.type];
    if (fields.type !== 0 && (eip === undefined || !common.isActivatedEIP(eip)))
      throw new TxTypeNotSupportedError(fields.type);
    if (fields.chainId !== undefined && fields.chainId !== this.chainId) {
      throw new ChainIdMismatchError(this.chainId, fields.chainId);
    }
    // A blob transaction is sent with its blobs, commitments and proofs (the network form), which
    // are checked here; blocks and the pool keep the transaction without them.
    if (fields.type === TransactionType.BlobEIP4844 && !fields.sidecar)
      throw new InvalidTransactionError('blob transaction without blobs: send the network form with its sidecar');
    return this.constructTransaction(fields, () =>
      fields.sidecar ? createBlob4844TxFromSerializedNetworkWrapper(raw, { common }) : createTxFromRLP(raw, { common }),
    );
  }

  /**
   * Constructs a transaction (decoded, or built from eth_sendTransaction's fields) by `make`. The
   * checks ethereumjs makes while constructing one (fee cap against tip, the gas caps) are made
   * first on `fields`, so each gets its own typed error; any other refusal of ethereumjs's is an
   * invalid transaction (init code too large, say), never an internal error.
   */
  constructTransaction<T>(fields: { gasLimit: bigint; maxFee: bigint; maxTip: bigint }, make: () => T): T {
    if (fields.maxTip > fields.maxFee) throw new TipAboveFeeCapError(undefined, fields.maxTip, fields.maxFee);
    this.checkGasLimit(fields.gasLimit);
    try {
      return make();
    } catch (e) {
      throw new InvalidTransactionError(ethereumjsReason(e as Error));
    }
  }

  /** The block gas limit, and the EIP-7825 per-transaction cap where active. */
  private checkGasLimit(gasLimit: bigint): void {
    if (gasLimit > this.gasLimit) throw new GasLimitExceededError(gasLimit, this.gasLimit);
    if (this.vm.common.isActivatedEIP(7825)) {
      const cap = this.vm.common.param('maxTransactionGasLimit');
      if (gasLimit > cap) throw new GasLimitExceededError(gasLimit, cap, 'transaction gas limit cap');
    }
  }

  /** Whether the node can send from `from`: a dev account, or an impersonated address. */
  canSendFrom(from: Uint8Array): boolean {
    const hex = bytesToHex(from);
    return this.impersonated.has(hex) || this.accounts.some((a) => bytesToHex(a.address) === hex);
  }

  /**
   * Signs a transaction for `from`: with its key for a dev account; for an impersonated address
   * with a stand-in key, the sender being `from` whatever the signature says. Undefined when the
   * node cannot send from `from`.
   */
  signAs(tx: TypedTransaction, from: Uint8Array): TypedTransaction | undefined {
    const hex = bytesToHex(from);
    const account = this.accounts.find((a) => bytesToHex(a.address) === hex);
    if (account !== undefined) return tx.sign(account.privateKey);
    if (!this.impersonated.has(hex)) return undefined;
    return withSender(tx.sign(impersonationKey(from)), from);
  }

  /**
   * Validates a signed transaction against the latest state and the pool, runs the RPC-stage line
   * check, and adds it to the pool. With automine, the block that includes it is mined before this
   * returns.
   */
  submit(tx: TypedTransaction, sender?: Uint8Array): Promise<Uint8Array> {
    return this.exclusive(() => this.submitLocked(tx, sender ?? this.recoverSender(tx)));
  }

  /**
   * eth_sendTransaction: `build` makes the transaction given the sender's next nonce, which is
   * chosen inside the queue, so parallel sends from one account get consecutive nonces.
   */
  sendAs(from: Uint8Array, build: (nextNonce: bigint) => Promise<TypedTransaction>): Promise<Uint8Array> {
    return this.exclusive(async () => {
      const unsigned = await build(await this.pendingNonceLocked(from));
      const signed = this.signAs(unsigned, from);
      if (signed === undefined) throw new UnknownAccountError(from);
      return this.submitLocked(signed, from);
    });
  }

  private async submitLocked(tx: TypedTransaction, from: Uint8Array): Promise<Uint8Array> {
    const denied = this.exclusionControl.deniedReason(tx, from);
    if (denied !== undefined) throw new DeniedAddressError(denied);
    const hash = tx.hash();
    if (this.overLineCountLimit.get(bytesToHex(hash)) !== undefined) throw new KnownLineCountOverflowError(hash);
    await this.validate(tx, from);
    const ptx: PoolTx = { tx, hash, sender: from, nonce: tx.nonce, addedAt: this.clock.now() };
    const forced = this.exclusionControl.match(ptx, 'RPC', true);
    if (forced !== undefined) await this.refuseAtRpc(ptx, this.forcedOverflow(forced));
    const stateNonce = (await this.headAccount(from)).nonce;
    const automine = this.mining.mode === 'auto';
    const check = this.lineLimits !== undefined && this.rpcLineCheck;
    // With automine and an empty pool, the block about to be built runs the transaction on exactly
    // the pending state, so its count is the RPC-stage verdict: the transaction runs once, not twice.
    const checkInBlock = check && automine && this.pool.size === 0 && tx.nonce === stateNonce;
    if (check && !checkInBlock) await this.checkLinesAtRpc(ptx);
    this.pool.add(ptx);
    // With the check in the block, the transaction is announced once the check has passed.
    if (!checkInBlock) this.emit('pendingTransaction', ptx.hash);
    if (automine && this.pool.nextNonce(from, stateNonce) > ptx.nonce) {
      try {
        await this.mineLocked({ submitted: ptx, rpcStageFor: checkInBlock ? ptx : undefined });
      } catch (e) {
        // Not acknowledged: it must not be mined later either.
        this.pool.remove(ptx.hash);
        throw e;
      }
    } else {
      await this.store.write([{ type: 'put', key: poolKey(ptx.hash), value: poolRow(ptx) }]);
    }
    return ptx.hash;
  }

  /** The sender a signed transaction was signed by; InvalidSenderError when the signature does not hold. */
  recoverSender(tx: TypedTransaction): Uint8Array {
    try {
      if (!tx.isSigned() || !tx.verifySignature()) throw new InvalidSenderError();
      return tx.getSenderAddress().bytes;
    } catch {
      throw new InvalidSenderError();
    }
  }

  private async validate(tx: TypedTransaction, from: Uint8Array): Promise<void> {
    const minimum = intrinsicGas(tx);
    if (tx.gasLimit < minimum) throw new IntrinsicGasTooLowError(tx.gasLimit, minimum);
    this.checkGasLimit(tx.gasLimit);
    const maxFee = maxFeeOf(tx);
    if (maxTipOf(tx) > maxFee) throw new TipAboveFeeCapError(from, maxTipOf(tx), maxFee);
    const baseFee = await this.nextBaseFee();
    if (maxFee < baseFee) throw new FeeCapTooLowError(from, maxFee, baseFee);
    if (maxFee < this.minGasPrice) throw new UnderpricedError(maxFee, this.minGasPrice);
    const account = await this.headAccount(from);
    if (tx.nonce < account.nonce) throw new NonceTooLowError(from, tx.nonce, account.nonce);
    // A blob transaction also commits its blob gas at its blob fee cap (EIP-4844), as geth counts;
    // a cap under the minimum blob gas price is refused, one under the current price waits.
    const blobFee = (tx as { maxFeePerBlobGas?: bigint }).maxFeePerBlobGas ?? 0n;
    if (tx.type === TransactionType.BlobEIP4844 && blobFee < 1n) throw new BlobFeeCapTooLowError(blobFee, 1n);
    const cost = tx.gasLimit * maxFee + tx.value + blobGasOf(tx, this.vm.common) * blobFee;
    if (account.balance < cost) throw new InsufficientFundsError(from, account.balance, cost);
  }

  /** Stage RPC: simulate on the pending state; refuse and record a transaction that overflows. */
  private async checkLinesAtRpc(ptx: PoolTx): Promise<void> {
    const head = await this.headBlock();
    const counts = await this.simulator.countTransaction(ptx.tx, this.workingRoot, this.nextHeader(head));
    const overflow = counts === undefined ? undefined : this.lineLimits?.txOverflow(counts);
    if (overflow !== undefined) await this.refuseAtRpc(ptx, overflow);
  }

  /** The overflow a forced exclusion reports: its count, or the module's limit plus one. */
  private forcedOverflow(rule: ForcedExclusion): LineOverflow {
    const limit = this.lineLimits?.limits[rule.module] ?? 0;
    return { module: rule.module, count: rule.count ?? limit + 1, limit };
  }

  /**
   * Decides a pool transaction before a block runs it: dropped when its sender or recipient is
   * denied, excluded when a forced exclusion matches (used up only when `consume`).
   */
  private screen(consume: boolean): (ptx: PoolTx) => { overflow: LineOverflow } | { error: Error } | undefined {
    return (ptx) => {
      const denied = this.exclusionControl.deniedReason(ptx.tx, ptx.sender);
      if (denied !== undefined) return { error: new DeniedAddressError(denied) };
      const rule = this.exclusionControl.match(ptx, 'SEQUENCER', consume);
      return rule === undefined ? undefined : { overflow: this.forcedOverflow(rule) };
    };
  }

  /**
   * The line counts a signed transaction would have as the next block's first transaction, on the
   * head state; undefined when it cannot run there (e.g. its nonce is not the next one).
   */
  async transactionLineCounts(tx: TypedTransaction): Promise<LineCounts | undefined> {
    const head = await this.headBlock();
    return this.simulator.countTransaction(tx, this.workingRoot, this.nextHeader(head));
  }

  /** Records a stage-RPC exclusion and throws the refusal. */
  private async refuseAtRpc(ptx: PoolTx, overflow: LineOverflow): Promise<never> {
    const error = new LineLimitExceededError(ptx.hash, overflow.module, overflow.count, overflow.limit);
    const record = this.exclusionRecord(ptx, overflow, 'RPC', this.headNumber + 1n, error.message);
    await this.exclusions.put(record);
    this.emit('excluded', record);
    throw error;
  }

  private exclusionRecord(
    ptx: PoolTx,
    overflow: LineOverflow,
    stage: RejectionStage,
    /** The block being built (stage SEQUENCER) or the pending block (stage RPC). */
    blockNumber: bigint,
    reasonMessage = new LineLimitExceededError(undefined, overflow.module, overflow.count, overflow.limit).message,
  ): ExclusionRecord {
    return {
      txHash: ptx.hash,
      from: ptx.sender,
      nonce: ptx.nonce,
      stage,
      reasonMessage,
      blockNumber: stage === 'SEQUENCER' ? blockNumber : undefined,
      pendingBlock: blockNumber,
      timestamp: this.clock.now(),
      rawTx: ptx.tx.serialize(),
      overflows: [overflow],
    };
  }

  /** Changes some modules' limits until the next reset (l2_setLineLimits); from the next check on. */
  setLineLimits(changes: Record<string, number>): Promise<void> {
    return this.exclusive(async () => {
      if (this.lineLimits === undefined)
        throw new InvalidLimitsError('line-count checks are off: there are no limits to change');
      this.lineLimits = this.lineLimits.with(changes);
    });
  }

  /** Restores the limits the node started with (l2_resetLineLimits). */
  resetLineLimits(): Promise<void> {
    return this.exclusive(async () => {
      this.lineLimits = this.fileLineLimits;
    });
  }

  // ---------------------------------------------------------------- mining

  setMining(mode: MiningMode): void {
    this.mining = mode;
    if (this.miningTimer !== undefined) clearInterval(this.miningTimer);
    this.miningTimer = undefined;
    if (mode.mode === 'interval') {
      this.miningTimer = setInterval(() => {
        if (this.closed) return;
        this.mine().catch((e: Error) => {
          if (this.listenerCount('error') > 0) this.emit('error', e);
          else console.error('interval mining failed:', e);
        });
      }, mode.intervalMs);
    }
  }

  /** Mines one block with the pool's ready transactions that fit. */
  mine(opts: { timestamp?: bigint } = {}): Promise<Block> {
    return this.exclusive(() => this.mineLocked(opts));
  }

  private nextHeader(parent: Block, timestamp?: bigint): HeaderData {
    const now = this.clock.nowSeconds();
    const ts = timestamp ?? this.nextTimestamp ?? (now > parent.header.timestamp ? now : parent.header.timestamp + 1n);
    const number = parent.header.number + 1n;
    const header: HeaderData = {
      parentHash: parent.hash(),
      number,
      gasLimit: this.gasLimit,
      timestamp: ts,
      coinbase: this.coinbase,
      difficulty: 0n,
      // prevRandao: deterministic per block so runs repeat exactly.
      mixHash: numberWord(number),
    };
    if (this.inDaoExtraRange(number)) header.extraData = DAO_FORK_EXTRA;
    // The fields are those of the new block's own fork. Previews (the pending block, line counts)
    // run outside the chain's queue, so the shared Common is not moved here: mining moves it.
    const common = this.forkCommon(number, ts);
    if (common.consensusType() === ConsensusType.ProofOfWork)
      header.difficulty = createBlockHeader(header, { common }).ethashCanonicalDifficulty(parent.header);
    if (common.isActivatedEIP(1559)) header.baseFeePerGas = this.baseFeeAfter(parent.header, common);
    if (common.isActivatedEIP(4788)) header.parentBeaconBlockRoot = new Uint8Array(32);
    if (common.isActivatedEIP(4844)) {
      header.excessBlobGas = parent.header.calcNextExcessBlobGas(common);
      header.blobGasUsed = 0n;
    }
    return header;
  }

  /**
   * Builds and commits the next block. `rpcStageFor` is a transaction just submitted whose RPC-stage
   * check is this build: if it overflows, the block is thrown away and the transaction refused.
   */
  private async mineLocked(
    opts: { timestamp?: bigint; submitted?: PoolTx; rpcStageFor?: PoolTx } = {},
  ): Promise<Block> {
    const parent = await this.headBlock();
    if (opts.timestamp !== undefined && opts.timestamp <= parent.header.timestamp) {
      throw new InvalidTimestampError(opts.timestamp, parent.header.timestamp);
    }
    const header = this.nextHeader(parent, opts.timestamp);
    this.setForkAt(header.number as bigint, header.timestamp as bigint);
    const candidates = await this.pool.ordered(
      (header.baseFeePerGas as bigint | undefined) ?? 0n,
      async (sender) => (await this.headAccount(sender)).nonce,
    );
    let result: BuildResult;
    try {
      result = await buildBlock({
        vm: this.vm,
        header,
        candidates,
        lineCounter: this.lineCounter,
        limits: this.lineLimits,
        screen: this.screen(true),
        daoForkBlock: this.daoForkBlock,
      });
    } catch (e) {
      await this.discardBuild();
      throw e;
    }
    // A forced SEQUENCER exclusion of the transaction just submitted is not its RPC-stage verdict.
    const refused = result.excluded.find((e) => e.ptx === opts.rpcStageFor && e.forced !== true);
    if (refused !== undefined) {
      await this.discardBuild();
      this.pool.remove(refused.ptx.hash);
      return this.refuseAtRpc(refused.ptx, refused.overflow);
    }
    // The transaction just submitted could not run at all (e.g. EIP-3607: a sender with code): the
    // caller hears why instead of getting a hash that never gets a receipt.
    const failed = result.dropped.find((d) => d.ptx === opts.submitted);
    if (failed !== undefined) {
      await this.discardBuild();
      this.pool.remove(failed.ptx.hash);
      throw new InvalidTransactionError(ethereumjsReason(failed.error));
    }
    if (opts.rpcStageFor !== undefined) this.emit('pendingTransaction', opts.rpcStageFor.hash);
    const { block, receipts } = result;
    const ops: KvOp[] = [];
    this.stateDb.drainInto(ops);
    ops.push(...this.store.blockOps(block, receipts));
    const removed = [...result.included, ...result.excluded.map((e) => e.ptx), ...result.dropped.map((d) => d.ptx)];
    for (const ptx of removed) ops.push({ type: 'del', key: poolKey(ptx.hash) });
    // The transaction just acknowledged waits for a later block (this one is full): its pool row is
    // written with this block, so the hash the caller holds survives a restart.
    const { submitted } = opts;
    if (submitted !== undefined && !removed.includes(submitted))
      ops.push({ type: 'put', key: poolKey(submitted.hash), value: poolRow(submitted) });
    const records = result.excluded.map(({ ptx, overflow }) =>
      this.exclusionRecord(ptx, overflow, 'SEQUENCER', block.header.number),
    );
    for (const r of records) ops.push(...this.exclusions.ops(r));
    ops.push({ type: 'del', key: META_WORKING_ROOT });
    try {
      await this.store.commit(ops, block, receipts);
    } catch (e) {
      // Nothing of the block reached the disk: go back to the state that did.
      await this.discardBuild();
      throw e;
    }
    this.workingRoot = block.header.stateRoot;
    this.nextTimestamp = undefined;
    this.nextBaseFeeOverride = undefined;
    for (const ptx of removed) this.pool.remove(ptx.hash);
    await this.dropStale();
    for (const r of records) {
      this.overLineCountLimit.set(bytesToHex(r.txHash), true);
      this.emit('excluded', r);
    }
    this.emit('block', block, receipts);
    return block;
  }

  // ---------------------------------------------------------------- import and export

  /** Blocks `from`..`to` as `geth export` writes them: each block's RLP, one after another. */
  async exportBlocks(from: bigint, to: bigint): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    for (let n = from; n <= to; n++) {
      const block = await this.store.getBlock(n);
      if (block === undefined) throw new HeaderNotFoundError();
      out.push(block.serialize());
    }
    return out;
  }

  /**
   * Imports blocks as `geth import` reads them (concatenated block RLP). Blocks this chain already
   * has are skipped; each new one must extend the head, and is run under its own header: its state
   * root, receipts root, transactions root, logs bloom and gas used must come out as the block says.
   * A block that does not stops the import with an ImportError naming it; the blocks before it stay.
   */
  importBlocks(
    rlp: Uint8Array,
    onBlock?: (block: Block, progress: { bytesRead: number; bytes: number }) => void,
    opts: { head?: bigint } = {},
  ): Promise<{ imported: number; skipped: number; gas: bigint }> {
    // One hold on the chain for the whole file: no block is mined between two imported ones.
    return this.exclusive(async () => {
      const before = this.headNumber;
      try {
        return await this.importAll(rlp, onBlock, opts.head);
      } finally {
        // The chain is now one this node follows: safe and finalized at the imported tip, also when
        // a block stopped the import (the blocks before it stay).
        const tip = this.headNumber;
        if (tip > before) await this.setFinalityLocked({ safe: tip, finalized: tip });
      }
    });
  }

  private async importAll(
    rlp: Uint8Array,
    onBlock?: (block: Block, progress: { bytesRead: number; bytes: number }) => void,
    head?: bigint,
  ): Promise<{ imported: number; skipped: number; gas: bigint }> {
    let rest = rlp;
    let imported = 0;
    let skipped = 0;
    let gas = 0n;
    while (rest.length > 0 && (head === undefined || this.headNumber < head)) {
      let values: Uint8Array[];
      try {
        const decoded = RLP.decode(rest, true) as unknown as { data: Uint8Array[]; remainder: Uint8Array };
        values = decoded.data;
        rest = decoded.remainder;
      } catch (e) {
        throw new ImportError(`block ${this.headNumber + 1n}: not a block's RLP (${(e as Error).message})`);
      }
      const number = blockNumberOf(values);
      if (number <= this.headNumber) {
        const mine = await this.store.getBlock(number);
        const theirs = this.decodeBlock(values);
        if (mine !== undefined && number === 0n && this.headNumber === 0n && !equalsBytes(mine.hash(), theirs.hash())) {
          // A fresh chain with the same genesis state (a dev chain's genesis differs only by the time
          // it was made at): it takes the file's genesis block.
          if (equalsBytes(mine.header.stateRoot, theirs.header.stateRoot)) {
            await this.store.commit(this.store.replaceGenesisOps(mine, theirs), theirs, []);
            skipped++;
            continue;
          }
        }
        if (mine === undefined || !equalsBytes(mine.hash(), theirs.hash()))
          throw new ImportError(
            `block ${number}: hash ${bytesToHex(theirs.hash())} differs from this chain's ${bytesToHex(mine?.hash() ?? new Uint8Array())}; import into a chain started with the same genesis`,
          );
        skipped++;
        continue;
      }
      const block = await this.importLocked(values, number);
      gas += block.header.gasUsed;
      imported++;
      onBlock?.(block, { bytesRead: rlp.length - rest.length, bytes: rlp.length });
    }
    return { imported, skipped, gas };
  }

  /** A block from its RLP values, under the fork its number and timestamp select. */
  private decodeBlock(values: Uint8Array[]): Block {
    const number = blockNumberOf(values);
    try {
      const header = values[0] as unknown as Uint8Array[];
      this.setForkAt(number, bytesToBigIntOrZero(header[11]));
      // Ommers are read under their own fork (a pre-London ommer has no base fee), which needs setHardfork.
      const ommers = (values[2] as unknown as unknown[] | undefined)?.length ?? 0;
      return createBlockFromBytesArray(values as never, {
        common: this.common,
        setHardfork: ommers > 0 ? true : undefined,
      });
    } catch (e) {
      const message = (e as Error).message;
      const why = /chain ID/.test(message)
        ? `a transaction is signed for another chain than this one (chain id ${this.chainId})`
        : message.split('\n')[0];
      throw new ImportError(`block ${number}: ${why}`);
    }
  }

  private async importLocked(values: Uint8Array[], number: bigint): Promise<Block> {
    const parent = await this.headBlock();
    if (number !== parent.header.number + 1n)
      throw new ImportError(`block ${number}: does not extend the head (block ${parent.header.number})`);
    const block = this.decodeBlock(values);
    const h = block.header;
    if (!equalsBytes(h.parentHash, parent.hash()))
      throw new ImportError(
        `block ${number}: parentHash ${bytesToHex(h.parentHash)} is not block ${parent.header.number}'s hash ${bytesToHex(parent.hash())}`,
      );
    this.checkHeaderRules(h, parent.header);
    await this.checkOmmers(block);
    const senders = block.transactions.map((tx, i) => {
      try {
        return tx.getSenderAddress().bytes;
      } catch {
        throw new ImportError(`block ${number}: transaction ${i} has no valid signature`);
      }
    });
    const candidates = asCandidates(block.transactions, senders);
    let result: BuildResult;
    try {
      result = await buildBlock({
        vm: this.vm,
        header: buildFields(h),
        candidates,
        lineCounter: this.lineCounter,
        limits: undefined,
        body: { uncles: block.uncleHeaders, withdrawals: block.withdrawals ?? [] },
        daoForkBlock: this.daoForkBlock,
      });
    } catch (e) {
      await this.discardBuild();
      throw e;
    }
    const built = result.block.header;
    const mismatch = (
      [
        ['transactions', BigInt(block.transactions.length), BigInt(result.included.length)],
        ['gasUsed', h.gasUsed, built.gasUsed],
        ['stateRoot', h.stateRoot, built.stateRoot],
        ['receiptsRoot', h.receiptTrie, built.receiptTrie],
        ['transactionsRoot', h.transactionsTrie, built.transactionsTrie],
        ['logsBloom', h.logsBloom, built.logsBloom],
        ['sha3Uncles', h.uncleHash, built.uncleHash],
        ['withdrawalsRoot', h.withdrawalsRoot ?? EMPTY_BYTES, built.withdrawalsRoot ?? EMPTY_BYTES],
        ['blobGasUsed', h.blobGasUsed ?? 0n, built.blobGasUsed ?? 0n],
        ['requestsHash', h.requestsHash ?? EMPTY_BYTES, built.requestsHash ?? EMPTY_BYTES],
        ['hash', block.hash(), result.block.hash()],
      ] as [string, bigint | Uint8Array, bigint | Uint8Array][]
    ).find(([, a, b]) => (typeof a === 'bigint' ? a !== b : !equalsBytes(a, b as Uint8Array)));
    if (mismatch !== undefined) {
      await this.discardBuild();
      const show = (v: bigint | Uint8Array) => (typeof v === 'bigint' ? v.toString() : bytesToHex(v));
      const [field, expected, computed] = mismatch;
      const why = result.dropped[0] === undefined ? '' : ` (${ethereumjsReason(result.dropped[0].error)})`;
      throw new ImportError(
        `block ${number}: ${field} is ${show(expected)} in the block, ${show(computed)} when run${why}`,
      );
    }
    const ops: KvOp[] = [];
    this.stateDb.drainInto(ops);
    ops.push(...this.store.blockOps(block, result.receipts));
    for (const ptx of candidates) ops.push({ type: 'del', key: poolKey(ptx.hash) });
    ops.push({ type: 'del', key: META_WORKING_ROOT });
    try {
      await this.store.commit(ops, block, result.receipts);
    } catch (e) {
      await this.discardBuild();
      throw e;
    }
    this.workingRoot = block.header.stateRoot;
    for (const ptx of candidates) this.pool.remove(ptx.hash);
    await this.dropStale();
    this.emit('block', block, result.receipts);
    return block;
  }

  /**
   * The header rules a block's execution does not check, as geth's consensus engines: time after the
   * parent's; proof-of-work difficulty the canonical one (the seal itself is not checked), none after
   * the merge; the base fee and excess blob gas those the parent gives; gas used within the limit.
   * The gas limit's move from the parent's (1/1024 at most) is not checked: this node's own chains
   * change it at will (evm_setBlockGasLimit), as Anvil's and Hardhat's do.
   */
  private checkHeaderRules(h: BlockHeader, parent: BlockHeader): void {
    const common = this.vm.common;
    const expected: [string, bigint, bigint | undefined][] = [];
    if (h.timestamp <= parent.timestamp)
      throw new ImportError(
        `block ${h.number}: timestamp ${h.timestamp} is not after the parent's ${parent.timestamp}`,
      );
    expected.push([
      'difficulty',
      common.consensusType() === ConsensusType.ProofOfWork ? h.ethashCanonicalDifficulty(parent) : 0n,
      h.difficulty,
    ]);
    if (common.isActivatedEIP(1559)) expected.push(['baseFeePerGas', ruleBaseFee(parent), h.baseFeePerGas]);
    if (common.isActivatedEIP(4844))
      expected.push(['excessBlobGas', parent.calcNextExcessBlobGas(common), h.excessBlobGas]);
    for (const [field, want, got] of expected)
      if (got !== want)
        throw new ImportError(`block ${h.number}: ${field} is ${got} in the block, ${want} by the rules`);
    if (h.gasUsed > h.gasLimit)
      throw new ImportError(`block ${h.number}: gasUsed ${h.gasUsed} is above the gas limit ${h.gasLimit}`);
    // The DAO fork's extra data is checked as the block is decoded (ethereumjs's header rules).
  }

  /** The DAO fork's block and the nine after it carry "dao-hard-fork" (geth's VerifyDAOHeaderExtraData). */
  private inDaoExtraRange(number: bigint): boolean {
    return this.daoForkBlock !== undefined && number >= this.daoForkBlock && number < this.daoForkBlock + 10n;
  }

  /**
   * A block's ommers, as geth's ethash engine (VerifyUncles) and the yellow paper: at most two, each
   * 1 to 6 blocks back, a child of one of the block's last seven ancestors but neither an ancestor nor
   * a sibling of the block, not included before (by the block itself or those ancestors), and keeping
   * the difficulty and time rules with its parent. Their seals are not checked.
   */
  private async checkOmmers(block: Block): Promise<void> {
    const ommers = block.uncleHeaders;
    if (ommers.length === 0) return;
    const n = block.header.number;
    const fail = (why: string): never => {
      throw new ImportError(`block ${n}: ${why}`);
    };
    if (ommers.length > 2) fail(`${ommers.length} ommers; at most 2`);
    const ancestors = new Map<string, Block>();
    const included = new Set<string>();
    for (let k = n - 1n; k >= 0n && k >= n - 7n; k--) {
      const ancestor = (await this.store.getBlock(k)) as Block;
      ancestors.set(bytesToHex(ancestor.hash()), ancestor);
      for (const u of ancestor.uncleHeaders) included.add(bytesToHex(u.hash()));
    }
    for (const ommer of ommers) {
      const hash = bytesToHex(ommer.hash());
      const parent = ancestors.get(bytesToHex(ommer.parentHash));
      if (included.has(hash)) fail(`ommer ${hash} is included twice`);
      if (ancestors.has(hash)) fail(`ommer ${hash} is an ancestor of the block`);
      if (parent === undefined || equalsBytes(ommer.parentHash, block.header.parentHash) || n - ommer.number > 6n)
        return fail(`ommer ${hash} (block ${ommer.number}) is not a child of one of the block's last ancestors`);
      included.add(hash);
      if (ommer.number !== parent.header.number + 1n || ommer.timestamp <= parent.header.timestamp)
        fail(`ommer ${hash}: its number or time does not follow its parent's`);
      const difficulty = ommer.ethashCanonicalDifficulty(parent.header);
      if (ommer.difficulty !== difficulty)
        fail(`ommer ${hash}: difficulty is ${ommer.difficulty}, ${difficulty} by the rules`);
    }
  }

  /** Forgets a block that was built but will not be committed. */
  private async discardBuild(): Promise<void> {
    this.stateDb.discardPending();
    await (this.vm.stateManager as MerkleStateManager).setStateRoot(this.workingRoot);
  }

  /** Removes pool transactions whose nonce the chain has passed. */
  private async dropStale(): Promise<void> {
    const ops: KvOp[] = [];
    for (const ptx of this.pool.all()) {
      const { nonce } = await this.headAccount(ptx.sender);
      for (const dropped of this.pool.dropMined(ptx.sender, nonce))
        ops.push({ type: 'del', key: poolKey(dropped.hash) });
    }
    await this.store.write(ops);
  }

  /** The block that would be mined next from the pool, built on a scratch state and thrown away. */
  async pendingBlock(): Promise<{ block: Block; receipts: Receipt[] }> {
    const parent = await this.headBlock();
    const header = this.nextHeader(parent);
    const candidates = await this.pool.ordered(
      (header.baseFeePerGas as bigint | undefined) ?? 0n,
      async (sender) => (await this.getAccount(sender, parent.header.number)).nonce,
    );
    return this.simulator.preview(this.workingRoot, header, candidates, this.lineLimits, this.screen(false));
  }

  // ---------------------------------------------------------------- devnet control

  /**
   * Sets `safe` and `finalized` to these blocks (finalized ≤ safe ≤ head), kept across restarts, as a
   * node following a chain hears them from its consensus client; undefined goes back to depths
   * behind the head (--safe-depth, --finality-depth).
   */
  setFinality(finality: Finality | undefined): Promise<void> {
    return this.exclusive(() => this.setFinalityLocked(finality));
  }

  private async setFinalityLocked(finality: Finality | undefined): Promise<void> {
    if (finality !== undefined) {
      const { safe, finalized } = finality;
      if (finalized > safe || safe > this.headNumber || finalized < 0n)
        throw new InvalidArgumentError(
          `finalized (${finalized}) must not be after safe (${safe}), nor safe after the head (${this.headNumber})`,
        );
    }
    await this.store.write([finality === undefined ? { type: 'del', key: META_FINALITY } : finalityOp(finality)]);
    this.finality = finality;
  }

  /** Sets the timestamp of the next block (evm_setNextBlockTimestamp); it must be after the head's. */
  setNextBlockTimestamp(timestamp: bigint): Promise<void> {
    return this.exclusive(async () => {
      const head = await this.headBlock();
      if (timestamp <= head.header.timestamp) throw new InvalidTimestampError(timestamp, head.header.timestamp);
      this.nextTimestamp = timestamp;
      // Transactions sent from now on are checked under the next block's fork.
      this.setForkAt(head.header.number + 1n, timestamp);
    });
  }

  setNextBlockBaseFee(baseFee: bigint): Promise<void> {
    return this.exclusive(async () => {
      this.nextBaseFeeOverride = baseFee;
    });
  }

  /** Removes a transaction from the pool (anvil_dropTransaction); false if it was not there. */
  dropTransaction(hash: Uint8Array): Promise<boolean> {
    return this.exclusive(async () => {
      if (this.pool.remove(hash) === undefined) return false;
      await this.store.write([{ type: 'del', key: poolKey(hash) }]);
      return true;
    });
  }

  /** Rewrites the pool's rows to match the pool in memory (after a revert or a reorg rebuilt it). */
  private async persistPool(): Promise<void> {
    const ops: KvOp[] = [];
    for await (const [key] of this.kv.range(Uint8Array.of(P_POOL), Uint8Array.of(P_POOL + 1)))
      ops.push({ type: 'del', key });
    for (const ptx of this.pool.all()) ops.push({ type: 'put', key: poolKey(ptx.hash), value: poolRow(ptx) });
    await this.store.write(ops);
  }

  /**
   * Edits the head state directly (anvil_setBalance and friends). No block is mined: reads at the
   * head see the edit at once and the next block includes it. The edited root is kept in the
   * database with the nodes it created.
   */
  editState(edit: (sm: MerkleStateManager) => Promise<void>): Promise<void> {
    return this.exclusive(async () => {
      const sm = this.vm.stateManager as MerkleStateManager;
      await sm.checkpoint();
      try {
        await edit(sm);
        await sm.commit();
      } catch (e) {
        await sm.revert();
        throw e;
      }
      await this.setWorkingRoot(await sm.getStateRoot());
    });
  }

  private async setWorkingRoot(root: Uint8Array): Promise<void> {
    const ops: KvOp[] = [];
    this.stateDb.drainInto(ops);
    ops.push({ type: 'put', key: META_WORKING_ROOT, value: root });
    await this.store.write(ops);
    this.workingRoot = root;
    await (this.vm.stateManager as MerkleStateManager).setStateRoot(root);
  }

  /** Sets an account's balance and/or nonce, creating the account if need be. */
  async setAccount(address: Uint8Array, fields: { balance?: bigint; nonce?: bigint }): Promise<void> {
    await this.editState(async (sm) => {
      const a = new Address(address);
      const account = (await sm.getAccount(a)) ?? createAccount({});
      if (fields.balance !== undefined) account.balance = fields.balance;
      if (fields.nonce !== undefined) account.nonce = fields.nonce;
      await sm.putAccount(a, account);
    });
  }

  async setCode(address: Uint8Array, code: Uint8Array): Promise<void> {
    await this.editState((sm) => sm.putCode(new Address(address), code));
  }

  async setStorageAt(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
    await this.editState(async (sm) => {
      const a = new Address(address);
      if ((await sm.getAccount(a)) === undefined) await sm.putAccount(a, createAccount({}));
      await sm.putStorage(a, slot, value);
    });
  }

  /** The whole head state as one blob (anvil_dumpState). */
  dumpState(): Promise<Uint8Array> {
    return this.exclusive(() => dumpState(this.stateDb, this.common, this.workingRoot));
  }

  /** Merges a dump into the head state (anvil_loadState, as Anvil); returns the new state root. */
  loadState(blob: Uint8Array): Promise<Uint8Array> {
    return this.exclusive(async () => {
      let root: Uint8Array;
      try {
        root = await loadState(this.stateDb, this.common, blob, this.workingRoot);
      } catch (e) {
        this.stateDb.discardPending();
        throw e;
      }
      await this.setWorkingRoot(root);
      return root;
    });
  }

  /** Remembers the chain as it is now; `revertTo(id)` comes back to it (evm_snapshot). */
  snapshot(): Promise<bigint> {
    return this.exclusive(async () => {
      const id = this.nextSnapshotId++;
      this.snapshots.set(id, {
        head: this.headNumber,
        root: this.workingRoot,
        pool: this.pool.all(),
        clockOffsetMs: this.clock.offset,
        nextTimestamp: this.nextTimestamp,
        nextBaseFee: this.nextBaseFeeOverride,
      });
      return id;
    });
  }

  /**
   * Goes back to snapshot `id`: later blocks, their indexes and the pool are dropped, the clock
   * offset restored. The snapshot and every later one are used up (as in Hardhat and Anvil).
   * Returns false for an unknown id.
   */
  revertTo(id: bigint): Promise<boolean> {
    return this.exclusive(async () => {
      const snap = this.snapshots.get(id);
      if (snap === undefined) return false;
      for (const later of [...this.snapshots.keys()]) if (later >= id) this.snapshots.delete(later);
      await this.dropAbove(snap.head, snap.root);
      this.pool.clear();
      for (const ptx of snap.pool) this.pool.add(ptx);
      await this.persistPool();
      this.clock.offset = snap.clockOffsetMs;
      this.nextTimestamp = snap.nextTimestamp;
      this.nextBaseFeeOverride = snap.nextBaseFee;
      return true;
    });
  }

  /** Drops the last `depth` blocks (anvil_rollback). */
  rollback(depth: bigint): Promise<void> {
    return this.exclusive(() => this.dropLast(depth, 'roll back'));
  }

  /** Drops the last `depth` blocks, back to the state of the block below them. */
  private async dropLast(depth: bigint, what: string): Promise<void> {
    const target = this.headNumber - depth;
    if (depth <= 0n || target < 0n)
      throw new InvalidArgumentError(`cannot ${what} ${depth} blocks from block ${this.headNumber}`);
    const block = (await this.store.getBlock(target)) as Block;
    await this.dropAbove(target, block.header.stateRoot);
  }

  /**
   * Replaces the last `depth` blocks with `depth` new ones (anvil_reorg); `txs[i]` go into the
   * i-th new block.
   */
  reorg(depth: bigint, txs: { tx: TypedTransaction; sender: Uint8Array; block: number }[]): Promise<void> {
    return this.exclusive(async () => {
      await this.dropLast(depth, 'reorganise');
      const saved = this.pool.all();
      this.pool.clear();
      try {
        for (let i = 0; i < Number(depth); i++) {
          for (const t of txs.filter((x) => x.block === i)) {
            this.pool.add({
              tx: t.tx,
              hash: t.tx.hash(),
              sender: t.sender,
              nonce: t.tx.nonce,
              addedAt: this.clock.now(),
            });
          }
          await this.mineLocked();
        }
      } finally {
        for (const ptx of saved) {
          try {
            if (this.pool.get(ptx.hash) === undefined) this.pool.add(ptx);
          } catch {
            // Its (sender, nonce) slot was taken by a reorg transaction: the reorg wins.
          }
        }
        await this.dropStale();
        await this.persistPool();
      }
    });
  }

  private async dropAbove(n: bigint, root: Uint8Array): Promise<void> {
    const { ops, removedLogs } = await this.store.dropAboveOps(n);
    const block = (await this.store.getBlock(n)) as Block;
    if (equalsBytes(root, block.header.stateRoot)) ops.push({ type: 'del', key: META_WORKING_ROOT });
    else ops.push({ type: 'put', key: META_WORKING_ROOT, value: root });
    // safe and finalized set above the new head come down to it: they name blocks that exist.
    const f = this.finality;
    const clamped = f === undefined || f.safe <= n ? f : { safe: n, finalized: f.finalized < n ? f.finalized : n };
    if (clamped !== f && clamped !== undefined) ops.push(finalityOp(clamped));
    await this.store.dropAbove(n, ops);
    this.finality = clamped;
    this.setForkAt(n + 1n, this.nextTimestamp ?? block.header.timestamp);
    // Snapshots of blocks that no longer exist cannot be gone back to.
    for (const [id, snap] of this.snapshots) if (snap.head > n) this.snapshots.delete(id);
    this.workingRoot = root;
    await (this.vm.stateManager as MerkleStateManager).setStateRoot(root);
    this.emit('reorg', n, removedLogs);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.miningTimer !== undefined) clearInterval(this.miningTimer);
    await this.queue.idle();
    await this.kv.close();
  }
}

/** The base fee EIP-1559 gives the block after `parent`; London's first block has the initial one. */
function ruleBaseFee(parent: BlockHeader): bigint {
  return parent.baseFeePerGas === undefined ? INITIAL_BASE_FEE : parent.calcNextBaseFee();
}

/** The row that keeps `safe` and `finalized` across restarts. */
function finalityOp(f: Finality): KvOp {
  const json = JSON.stringify({ safe: String(f.safe), finalized: String(f.finalized) });
  return { type: 'put', key: META_FINALITY, value: new TextEncoder().encode(json) };
}

/** The fields of a raw transaction that are checked before ethereumjs constructs it. */
function peekTransaction(raw: Uint8Array): {
  type: number;
  chainId?: bigint;
  gasLimit: bigint;
  maxFee: bigint;
  maxTip: bigint;
  /** A blob transaction in its network form: [transaction, (version,) blobs, commitments, proofs]. */
  sidecar?: boolean;
} {
  if (raw.length === 0) throw new InvalidTransactionError('empty payload');
  let fields: Uint8Array[];
  const type = raw[0] >= 0xc0 ? 0 : raw[0];
  if (type > 0x7f) throw new InvalidTransactionError(`unknown transaction envelope 0x${type.toString(16)}`);
  try {
    fields = RLP.decode(type === 0 ? raw : raw.subarray(1)) as Uint8Array[];
  } catch (e) {
    throw new InvalidTransactionError(`rlp: ${(e as Error).message}`);
  }
  const sidecar = type === TransactionType.BlobEIP4844 && Array.isArray(fields) && Array.isArray(fields[0]);
  if (sidecar) fields = fields[0] as unknown as Uint8Array[];
  if (!Array.isArray(fields) || fields.some((f, i) => i < 5 && !(f instanceof Uint8Array))) {
    throw new InvalidTransactionError('rlp: expected a list of transaction fields');
  }
  const n = (i: number) => bytesToBigInt(fields[i] ?? new Uint8Array());
  if (type === 0) {
    const v = n(6);
    return { type, chainId: v >= 35n ? (v - 35n) / 2n : undefined, gasLimit: n(2), maxFee: n(1), maxTip: n(1) };
  }
  if (type === 1) return { type, chainId: n(0), gasLimit: n(3), maxFee: n(2), maxTip: n(2) };
  return { type, chainId: n(0), gasLimit: n(4), maxFee: n(3), maxTip: n(2), sidecar };
}

/** An ethereumjs error's message without the transaction and block dump it appends. */
function ethereumjsReason(error: Error): string {
  return error.message.split(' (tx type')[0].replace(/ -> block number.*$/, '');
}

/** A pool row: the sender (impersonated senders cannot be recovered) and the raw transaction. */
function poolRow(ptx: PoolTx): Uint8Array {
  return concatBytes(ptx.sender, ptx.tx.serialize());
}

function poolKey(hash: Uint8Array): Uint8Array {
  const key = new Uint8Array(33);
  key[0] = P_POOL;
  key.set(hash, 1);
  return key;
}

function numberWord(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  new DataView(out.buffer).setBigUint64(24, n);
  return out;
}

/** The fields a block's header was built from: all but what sealing it computes. */
function buildFields(h: BlockHeader): HeaderData {
  return {
    parentHash: h.parentHash,
    coinbase: h.coinbase,
    number: h.number,
    gasLimit: h.gasLimit,
    timestamp: h.timestamp,
    extraData: h.extraData,
    difficulty: h.difficulty,
    mixHash: h.mixHash,
    nonce: h.nonce,
    baseFeePerGas: h.baseFeePerGas,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
    excessBlobGas: h.excessBlobGas,
    blobGasUsed: h.blobGasUsed,
  };
}

/** A mined block's transactions as candidates to run again, with their senders. */
function asCandidates(txs: readonly TypedTransaction[], senders: Uint8Array[]): PoolTx[] {
  return txs.map((tx, i) => ({ tx, hash: tx.hash(), sender: senders[i], nonce: tx.nonce, addedAt: 0 }));
}

/** A block's number, read from its RLP (header field 8) before the block is decoded under a fork. */
function blockNumberOf(values: Uint8Array[]): bigint {
  const header = values[0] as unknown as Uint8Array[];
  const n = header?.[8];
  if (!(n instanceof Uint8Array)) throw new ImportError('not a block: no header number');
  return bytesToBigIntOrZero(n);
}

function bytesToBigIntOrZero(b: Uint8Array | undefined): bigint {
  if (b !== undefined && !(b instanceof Uint8Array)) throw new ImportError('not a block: a header field is a list');
  return b === undefined || b.length === 0 ? 0n : BigInt(bytesToHex(b));
}
