/**
 * Opening a chain: a new database gets its genesis (a dev chain's, or a genesis file's) and the
 * configuration it was created with; an existing one resumes at its last committed block, with the
 * chain id, accounts and genesis it was created with, its edited head state and its pool.
 */

import { Block, createBlock, createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import type { BlockHeader, HeaderData } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import type { Common } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';
import type { EVMOpts } from '@ethereumjs/evm';
import { Account, Address, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import { createVM } from '@ethereumjs/vm';

import { DEFAULT_DERIVATION_PATH, deriveAccounts, DEFAULT_MNEMONIC } from '../config/accounts';
import type { DevAccount } from '../config/accounts';
import {
  applyAlloc,
  chainCommon,
  DEFAULT_BALANCE,
  DEFAULT_CHAIN_ID,
  DEFAULT_GAS_LIMIT,
  DEFAULT_HARDFORK,
  devCommon,
  INITIAL_BASE_FEE,
} from '../config/genesis';
import type { GenesisSpec } from '../config/genesis';
import { predeployAllocs } from '../config/predeploys';
import { systemContractAllocs } from '../config/systemContracts';
import { DatabaseOpenError, ForkError, InvalidArgumentError, InvalidLimitsError } from '../errors';
import { ExecutionGuard } from '../exec/executionGuard';
import { openForkState } from '../fork/forkState';
import { messagingAlloc } from '../messaging/services';
import type { ForkOptions } from '../fork/forkState';
import { Simulator } from '../exec/simulator';
import type { SimulatorOptions } from '../exec/simulator';
import { CallPool } from '../exec/workers/callPool';
import type { CallSession } from '../exec/workers/callPool';
import { LineCounter } from '../lines/lineCounter';
import type { L1L2Bridge } from '../lines/lineCounter';
import type { LineLimits } from '../lines/lineLimits';
import { counterRefusal } from '../lines/lineProfiles';
import type { CounterName, TracerProfileName } from '../lines/lineProfiles';
import { LINEA_MAINNET_RULES, SequencerRules } from '../pool/sequencerRules';
import type { SequencerRulesConfig } from '../pool/sequencerRules';
import { flatStateManager } from '../state/flatState';
import { ownEngine } from '../evm/engine';
import type { EngineName } from '../evm/engine';
import { EngineTransactions } from '../exec/onEngine';
import { StateDB, stateCaches } from '../state/stateDb';
import { ChainStore } from '../store/chainStore';
import type { KvOp, KvStore } from '../store/kvStore';
import type { NodeClock } from './clock';
import { ChainHead } from './head';

const META_CONFIG = new Uint8Array([0x6d, ...new TextEncoder().encode('config')]);

/**
 * A database that holds rows but no chain configuration was written by another program: it is not
 * taken over. (An empty one is new.)
 */
export async function refuseForeignDatabase(kv: KvStore, dir: string): Promise<void> {
  if ((await kv.get(META_CONFIG)) !== undefined) return;
  for await (const row of kv.range(new Uint8Array(0), new Uint8Array(64).fill(0xff), 1)) {
    void row;
    throw new DatabaseOpenError(
      `${dir} is not an l2devnet database: it holds a LevelDB database written by another program; start with ` +
        'another --data-dir, or an empty or new directory',
    );
  }
}

/**
 * No call workers by default: on the node's own engine a call costs less than its hop to a thread.
 * On 2 cores (peers benchmark, wrk, balanceOf): 4,533/s at 1 connection, 5,555/s at 16 and 7,940/s
 * at 64 with one worker; 5,979, 9,004 and 9,852/s with none; RSS after the run 288 and 259 MiB.
 * `--workers N` starts them (a core for each but the serving one is the most that helps).
 */
const DEFAULT_WORKERS = 0;

/** What a chain is created with, kept in its database: a reopened chain is the same chain. */
interface PersistedConfig {
  chainId: string;
  hardfork: string | null;
  mnemonic: string;
  /** The dev accounts' derivation path, when not DEFAULT_DERIVATION_PATH. */
  derivationPath?: string;
  accounts: number;
  genesis: unknown;
  /** A forked chain's fork block (its first block), and the state it started with (dev accounts funded). */
  fork?: { number: string; hash: string; startRoot?: string };
}

/** What a new chain is made of; a reopened chain keeps what it was created with (PersistedConfig). */
export interface GenesisOptions {
  /** Default DEFAULT_CHAIN_ID. Ignored when `genesis` is given (its config.chainId wins). */
  chainId?: bigint;
  /** Default DEFAULT_HARDFORK. With `genesis`, a fixed fork overriding its schedule. */
  hardfork?: string;
  /** Block gas limit; default DEFAULT_GAS_LIMIT (a reopened chain: its head's, unless given). */
  gasLimit?: bigint;
  mnemonic?: string;
  /** Where the dev accounts are derived, each one's index appended; default m/44'/60'/0'/0/ (Anvil's --derivation-path). */
  derivationPath?: string;
  /** Dev accounts derived and funded; default 10. */
  accounts?: number;
  /** Wei per dev account; default DEFAULT_BALANCE. */
  balance?: bigint;
  /** A parsed geth-style genesis.json. */
  genesis?: unknown;
  /** A new dev chain's genesis timestamp (seconds); default now (Anvil's --timestamp). */
  timestamp?: bigint;
  /** A new dev chain's genesis base fee (wei); default the initial one (Anvil's --block-base-fee-per-gas). */
  baseFee?: bigint;
  /**
   * Whether a new dev chain's genesis carries the CREATE2 deployer among its predeploys
   * (config/predeploys.ts); default true, false as Anvil's --disable-default-create2-deployer.
   */
  create2Deployer?: boolean;
  /**
   * The largest contract code a creation may deploy (EIP-170; init code twice that, EIP-3860);
   * null for no limit. Default the fork's (Anvil's --code-size-limit, --disable-code-size-limit).
   */
  codeSizeLimit?: number | null;
  /** Count lines at all; default true. Off only to measure what counting costs. */
  lineCounting?: boolean;
  /** Which Linea tracer the line counter follows; default the line limits' profile, else osaka. */
  tracer?: TracerProfileName;
  /**
   * Which of Linea's line counters: the full tracer (ZkTracer, the default, as Linea's mainnet
   * profile runs it) or the light one (ZkCounter, `--plugin-linea-limitless-enabled`; Osaka only).
   */
  counter?: CounterName;
  /**
   * The contract and first topic of the L2→L1 message logs BLOCK_L2_L1_LOGS counts (Linea's
   * --plugin-linea-l1l2-bridge-contract and -topic); default both zero, as Linea's, which counts none.
   */
  l1l2Bridge?: L1L2Bridge;
  /**
   * Start from a remote chain's state at one of its blocks (--fork-url): the remote block is the
   * first block here, its state fetched as it is read (fork/forkState.ts).
   */
  fork?: ForkOptions;
  /**
   * With an L1 beside the L2 (--l1): which layer this chain is, and the other chain's id; a new dev
   * chain's genesis then holds that layer's message service, token bridge and operator
   * (messaging/services.ts).
   */
  messaging?: { layer: 'l1' | 'l2'; peerChainId: bigint };
  /** How long eth_call, eth_estimateGas and eth_createAccessList may run (ms); 0 for no limit. Default 5 s. */
  rpcEvmTimeoutMs?: number;
  /** The gas calls may use (eth_call, eth_estimateGas, eth_simulateV1 in all); default 10× the block gas limit. */
  rpcGasCap?: bigint;
  /**
   * Threads that run calls (eth_call, the gas estimates, eth_createAccessList, eth_simulateV1, line
   * counts of calls) and traces (exec/workers/) when they arrive while another runs (one alone runs
   * on the main thread); default one per core beside the main thread's (DEFAULT_WORKERS), 0 for the
   * main thread alone. A forked chain's calls run on the main thread, which fetches the remote state.
   */
  workers?: number;
  /**
   * Linea's sequencer rules beyond line counts (pool/sequencerRules.ts): on a dev chain by default,
   * with mainnet's values; off on a chain from a genesis file (an Ethereum chain) unless given.
   */
  sequencerRules?: boolean | Partial<SequencerRulesConfig>;
  /**
   * Which EVM runs what the node executes (calls, estimates, line counts of calls, every block's
   * transactions): its own where it can (`l2devnet`, the default) or ethereumjs throughout
   * (`ethereumjs`), the reference it is checked against. Traces run on ethereumjs either way.
   */
  engine?: EngineName;
  /** The beneficiary of the blocks mined (anvil_setCoinbase changes it), fork or not. */
  coinbase?: Uint8Array;
  /** The blocks' beneficiary when `coinbase` is not given, except on a fork: its fork block's. Default the zero address. */
  defaultCoinbase?: Uint8Array;
}

export interface OpenedChain {
  head: ChainHead;
  accounts: DevAccount[];
  mnemonic: string;
  /** Where the dev accounts are derived (m/44'/60'/0'/0/ unless made with another). */
  derivationPath: string;
  simulator: Simulator;
  /** The mining VM's line counter. */
  counter: LineCounter;
  /** The chain's session in the call workers; none with `workers: 0` or on a forked chain. */
  workers: CallSession | undefined;
  /** Options given that a reopened chain keeps its own value of (its creation fixed them). */
  kept: KeptOption[];
}

/** An option a reopened chain does not take: its stored value is kept. */
export interface KeptOption {
  option: 'hardfork' | 'mnemonic' | 'derivationPath' | 'accounts' | 'balance' | 'genesis' | 'timestamp' | 'baseFee';
  /** What the chain keeps, where it is one value (not for balances or a genesis file). */
  stored: string | undefined;
}

/** The tracer profile the chain counts with; its line limits must be for the same one. */
export function tracerOf(tracer: TracerProfileName | undefined, limits: LineLimits | undefined): TracerProfileName {
  const name = tracer ?? limits?.profile ?? 'osaka';
  if (limits !== undefined && limits.profile !== name)
    throw new InvalidLimitsError(`the line limits are for the ${limits.profile} tracer, not ${name}`);
  return name;
}

/** Keeps `chainId` as the chain's own in its database: a reopened chain has it (anvil_setChainId). */
export async function storeChainId(kv: KvStore, chainId: bigint): Promise<void> {
  const stored = await kv.get(META_CONFIG);
  if (stored === undefined) return;
  const persisted = JSON.parse(new TextDecoder().decode(stored)) as PersistedConfig;
  persisted.chainId = String(chainId);
  await kv.batch([{ type: 'put', key: META_CONFIG, value: new TextEncoder().encode(JSON.stringify(persisted)) }]);
}

/** Opens the chain in `kv`, writing its genesis if it is new. */
export async function openChain(
  kv: KvStore,
  opts: GenesisOptions & { lineLimits?: LineLimits },
  clock: NodeClock,
): Promise<OpenedChain> {
  const tracer = tracerOf(opts.tracer, opts.lineLimits);
  const refusal = counterRefusal(tracer, opts.counter ?? 'tracer');
  if (refusal !== undefined) throw new InvalidArgumentError(`counter ${refusal}`);
  const stored = await kv.get(META_CONFIG);
  const reopened = stored === undefined ? undefined : (JSON.parse(new TextDecoder().decode(stored)) as PersistedConfig);
  const forked = await openFork(opts, reopened);
  const persisted: PersistedConfig = reopened ?? {
    chainId: String(forked?.chainId ?? opts.chainId ?? DEFAULT_CHAIN_ID),
    hardfork: forked?.hardfork ?? opts.hardfork ?? null,
    mnemonic: opts.mnemonic ?? DEFAULT_MNEMONIC,
    ...(opts.derivationPath === undefined || opts.derivationPath === DEFAULT_DERIVATION_PATH
      ? {}
      : { derivationPath: opts.derivationPath }),
    accounts: opts.accounts ?? 10,
    genesis: opts.genesis ?? null,
    ...(forked === undefined
      ? {}
      : { fork: { number: String(forked.header.number), hash: bytesToHex(forked.header.hash()) } }),
  };
  const kept: KeptOption[] = [];
  if (stored !== undefined) {
    // A reopened chain is the chain it was made as: another chain id is refused, the rest said.
    if (opts.chainId !== undefined && String(opts.chainId) !== persisted.chainId && opts.genesis === undefined)
      throw new DatabaseOpenError(
        `the chain in this data directory has chain id ${persisted.chainId}, not ${opts.chainId}: start without a chain id, or with another data directory for a new chain`,
      );
    const differs = (option: KeptOption['option'], given: unknown, was: unknown) => {
      if (given !== undefined && String(given) !== String(was))
        kept.push({ option, stored: was === null ? 'none' : String(was) });
    };
    differs('hardfork', opts.hardfork, persisted.hardfork ?? DEFAULT_HARDFORK);
    differs('mnemonic', opts.mnemonic, persisted.mnemonic);
    differs('derivationPath', opts.derivationPath, persisted.derivationPath ?? DEFAULT_DERIVATION_PATH);
    differs('accounts', opts.accounts, persisted.accounts);
    if (opts.balance !== undefined) kept.push({ option: 'balance', stored: undefined });
    if (opts.genesis !== undefined && JSON.stringify(opts.genesis) !== JSON.stringify(persisted.genesis))
      kept.push({ option: 'genesis', stored: undefined });
  }
  const { common, spec, scheduled } = chainCommon(persisted.chainId, persisted.hardfork, persisted.genesis);
  const stateDb = new StateDB(kv);
  stateDb.flat.fork = forked?.fork;
  const store = new ChainStore(kv, common, scheduled);
  if (persisted.fork !== undefined) store.first = BigInt(persisted.fork.number);
  const headNumber = await store.open();

  const sm = flatStateManager(stateDb, stateDb.flat, common, stateCaches());
  const blockchain = {
    getBlock: async (n: number) => {
      const hash =
        (await store.getBlockHash(BigInt(n))) ??
        (forked !== undefined && BigInt(n) < forked.fork.number
          ? (await forked.fork.header(BigInt(n)))?.hash()
          : undefined);
      return { hash: () => hash ?? new Uint8Array(32) };
    },
    putBlock: async () => {},
    shallowCopy() {
      return this;
    },
  };
  const evmOpts = codeSizeOptions(opts.codeSizeLimit);
  const vm = await createVM({ common, stateManager: sm, blockchain, evmOpts });
  // Before the line counter and the guard, which wrap the EVM's runCall around it.
  const engine = new EngineTransactions(vm, ownEngine(opts.engine));
  const lineCounting = opts.lineCounting ?? true;
  const simulatorOpts: SimulatorOptions = {
    evmOpts,
    scheduled,
    lineCounting,
    tracer,
    counter: opts.counter,
    bridge: opts.l1l2Bridge,
    daoForkBlock: spec?.daoForkBlock,
    evmTimeoutMs: opts.rpcEvmTimeoutMs,
    engine: opts.engine,
  };
  // The simulator's Common is its own: it runs each use under that use's block's fork.
  const simulator = await Simulator.create(common.copy(), stateDb, blockchain, simulatorOpts);
  const counter = new LineCounter(vm.evm, {
    enabled: lineCounting,
    tracer,
    counter: opts.counter,
    bridge: opts.l1l2Bridge,
  });
  // Mining runs to the end of every transaction, but lets the event loop in between slices.
  engine.connect(new ExecutionGuard(vm.evm), counter);
  const head = new ChainHead(common, scheduled, kv, store, stateDb, vm, clock, spec?.daoForkBlock);
  const accounts = deriveAccounts(persisted.mnemonic, persisted.accounts, persisted.derivationPath);
  head.rpcGasCap = opts.rpcGasCap;
  const rules = opts.sequencerRules ?? spec === undefined;
  head.rules =
    rules === false
      ? undefined
      : new SequencerRules({ ...LINEA_MAINNET_RULES, ...(rules === true ? {} : rules) }, (sender) =>
          head.pool.hasPriority(sender),
        );

  if (headNumber < 0n && forked !== undefined) {
    await writeForkBlock(head, forked, opts, persisted, accounts);
  } else if (headNumber < 0n) {
    await writeGenesis(head, spec, opts, persisted, accounts);
  } else {
    const headBlock = await head.block();
    head.setForkAt(headBlock.header.number + 1n, headBlock.header.timestamp);
    if (forked !== undefined) await forked.fork.proveAccount(new Uint8Array(20)); // the fork block's root node
    await head.resumeWorkingRoot(headBlock);
    const first = ((await store.getBlock(store.first)) as Block).header;
    head.startRoot =
      persisted.fork?.startRoot !== undefined ? hexToBytes(persisted.fork.startRoot as `0x${string}`) : first.stateRoot;
    // The genesis block's timestamp and base fee are its own (Anvil's --timestamp, --block-base-fee-per-gas).
    if (opts.timestamp !== undefined && opts.timestamp !== first.timestamp)
      kept.push({ option: 'timestamp', stored: String(first.timestamp) });
    if (opts.baseFee !== undefined && opts.baseFee !== first.baseFeePerGas)
      kept.push({ option: 'baseFee', stored: String(first.baseFeePerGas ?? 0n) });
    head.gasLimit = opts.gasLimit ?? headBlock.header.gasLimit;
    await head.restorePool();
  }
  // The blocks' beneficiary: the one given; else a fork's fork block's, another chain's default.
  if (opts.coinbase !== undefined) head.coinbase = opts.coinbase;
  else if (forked !== undefined) head.coinbase = ((await store.getBlock(store.first)) as Block).header.coinbase.bytes;
  else if (opts.defaultCoinbase !== undefined) head.coinbase = opts.defaultCoinbase;
  const workerCount = opts.workers ?? DEFAULT_WORKERS;
  const workers =
    workerCount === 0 || forked !== undefined
      ? undefined
      : CallPool.open(
          workerCount,
          {
            chainId: persisted.chainId,
            hardfork: persisted.hardfork,
            genesis: persisted.genesis,
            simulator: simulatorOpts,
          },
          {
            get: (key) => stateDb.get(key),
            blockHash: async (n) => (await blockchain.getBlock(Number(n))).hash(),
          },
        );
  const derivationPath = persisted.derivationPath ?? DEFAULT_DERIVATION_PATH;
  return { head, accounts, mnemonic: persisted.mnemonic, derivationPath, simulator, counter, workers, kept };
}

async function writeGenesis(
  head: ChainHead,
  spec: GenesisSpec | undefined,
  opts: GenesisOptions,
  persisted: PersistedConfig,
  accounts: DevAccount[],
): Promise<void> {
  const sm = head.state;
  const balance = opts.balance ?? DEFAULT_BALANCE;
  // A dev chain gets the system contracts of its fork, as geth's dev mode, and the contracts Linea
  // mainnet has at well-known addresses; a genesis file says its own.
  const alloc = spec?.alloc ?? [
    ...systemContractAllocs(head.common),
    ...predeployAllocs(BigInt(persisted.chainId), opts.create2Deployer),
    ...accounts.map((a) => ({ address: a.address, balance })),
    ...(opts.messaging === undefined
      ? []
      : messagingAlloc(opts.messaging.layer, BigInt(persisted.chainId), opts.messaging.peerChainId)),
  ];
  await sm.checkpoint();
  await applyAlloc(sm, alloc);
  await sm.commit();
  const stateRoot = await sm.getStateRoot();
  head.gasLimit = opts.gasLimit ?? spec?.gasLimit ?? DEFAULT_GAS_LIMIT;
  const timestamp = spec?.timestamp ?? opts.timestamp ?? head.clock.nowSeconds();
  head.setForkAt(0n, timestamp);
  const header: HeaderData = {
    number: 0n,
    gasLimit: head.gasLimit,
    timestamp,
    stateRoot,
    extraData: spec?.extraData ?? new TextEncoder().encode('l2devnet'),
    coinbase: spec?.coinbase,
    difficulty: spec?.difficulty ?? 0n,
    nonce: spec?.nonce,
    mixHash: spec?.mixHash,
  };
  const common: Common = head.common;
  if (common.isActivatedEIP(1559)) header.baseFeePerGas = spec?.baseFeePerGas ?? opts.baseFee ?? INITIAL_BASE_FEE;
  if (common.isActivatedEIP(4844)) {
    header.excessBlobGas = spec?.excessBlobGas ?? 0n;
    header.blobGasUsed = spec?.blobGasUsed ?? 0n;
  }
  const genesis = createBlock({ header }, { common });
  const ops: KvOp[] = [];
  head.stateDb.drainInto(ops);
  ops.push(...head.store.blockOps(genesis, []));
  ops.push({ type: 'put', key: META_CONFIG, value: new TextEncoder().encode(JSON.stringify(persisted)) });
  await head.store.commit(ops, genesis, []);
  head.workingRoot = stateRoot;
  head.startRoot = stateRoot;
}

/** The fork a forked chain starts from, checked against what a reopened chain was forked from. */
async function openFork(
  opts: GenesisOptions,
  reopened: PersistedConfig | undefined,
): Promise<(Awaited<ReturnType<typeof openForkState>> & { hardfork: string }) | undefined> {
  const was = reopened?.fork;
  if (reopened !== undefined && was === undefined) {
    if (opts.fork === undefined) return undefined;
    throw new DatabaseOpenError(
      'the chain in this data directory is not a fork: start without --fork-url, or with another data directory',
    );
  }
  if (opts.fork === undefined) {
    if (was === undefined) return undefined;
    throw new DatabaseOpenError(
      `the chain in this data directory is forked from chain ${reopened!.chainId} at block ${was.number}: start with --fork-url of a node of that chain`,
    );
  }
  // A relative block (-N) names the remote's head of the day: a reopened fork keeps its own block.
  const asked = opts.fork.blockNumber;
  if (was !== undefined && asked !== undefined && asked >= 0n && asked !== BigInt(was.number))
    throw new DatabaseOpenError(
      `the chain in this data directory is forked at block ${was.number}, not ${opts.fork.blockNumber}: start without --fork-block-number, or with another data directory`,
    );
  const forked = await openForkState(
    { ...opts.fork, blockNumber: was === undefined ? opts.fork.blockNumber : BigInt(was.number) },
    (chainId) => devCommon(chainId, DEFAULT_HARDFORK),
  );
  if (was !== undefined && bytesToHex(forked.header.hash()) !== was.hash)
    throw new ForkError(
      `${opts.fork.source.name}'s block ${was.number} is ${bytesToHex(forked.header.hash())}, not the block this chain was forked from (${was.hash})`,
    );
  const hardfork = reopened?.hardfork ?? opts.hardfork ?? forkHardfork(forked.header);
  return { ...forked, hardfork };
}

/** A fork's default hardfork: the default one for a header of its format, else the header's own. */
function forkHardfork(header: BlockHeader): string {
  return header.common.hardfork() === Hardfork.Prague ? DEFAULT_HARDFORK : header.common.hardfork();
}

/**
 * A forked chain's first block: the remote's fork block, header only (its transactions and receipts
 * are the remote's to serve). The dev accounts get their balance as an edit of the head state, as a
 * dev chain's genesis gives them theirs.
 */
async function writeForkBlock(
  head: ChainHead,
  forked: NonNullable<Awaited<ReturnType<typeof openFork>>>,
  opts: GenesisOptions,
  persisted: PersistedConfig,
  accounts: DevAccount[],
): Promise<void> {
  const common = head.common;
  // The fork's hardfork must read the remote header as it is: the same fields, the same hash.
  let header: BlockHeader | undefined;
  try {
    header = createBlockHeaderFromBytesArray(forked.header.raw(), { common, skipConsensusFormatValidation: true });
  } catch {
    header = undefined;
  }
  if (header === undefined || !equalsBytes(header.hash(), forked.header.hash()))
    throw new ForkError(
      `block ${forked.header.number} of ${forked.fork.source.name} has a ${forked.header.common.hardfork()} header, which hardfork ${common.hardfork()} cannot continue: start with a hardfork of that header format`,
    );
  const block = new Block(header, [], [], common.isActivatedEIP(4895) ? [] : undefined, { common });
  // The root node comes with any proof; the dev accounts' proofs go in one batch.
  const fork = forked.fork;
  await Promise.all([new Uint8Array(20), ...accounts.map((a) => a.address)].map((a) => fork.proveAccount(a)));
  const sm = head.state;
  await sm.setStateRoot(header.stateRoot);
  let startRoot = header.stateRoot;
  if (accounts.length > 0) {
    const balance = opts.balance ?? DEFAULT_BALANCE;
    await sm.checkpoint();
    for (const a of accounts) {
      const address = new Address(a.address);
      const account = (await sm.getAccount(address)) ?? new Account();
      account.balance = balance;
      await sm.putAccount(address, account);
    }
    await sm.commit();
    startRoot = await sm.getStateRoot();
  }
  persisted.fork = { ...persisted.fork!, startRoot: bytesToHex(startRoot) };
  const ops: KvOp[] = [];
  head.stateDb.drainInto(ops);
  ops.push(...head.store.blockOps(block, []));
  ops.push({ type: 'put', key: META_CONFIG, value: new TextEncoder().encode(JSON.stringify(persisted)) });
  await head.store.commit(ops, block, []);
  head.gasLimit = opts.gasLimit ?? header.gasLimit;
  head.workingRoot = header.stateRoot;
  head.startRoot = startRoot;
  if (!equalsBytes(startRoot, header.stateRoot)) await head.setWorkingRoot(startRoot);
}

/**
 * The EVM options for a code size limit: none for the fork's own; no limit at all for null; else the
 * limit as EIP-170's parameter (and EIP-3860's init code limit, twice it), set where the forks
 * define them.
 */
function codeSizeOptions(limit: number | null | undefined): EVMOpts {
  if (limit === undefined) return {};
  if (limit === null) return { allowUnlimitedContractSize: true, allowUnlimitedInitCodeSize: true };
  // ethereumjs takes its parameters whole when given any: all of them, with these changed.
  const params = JSON.parse(JSON.stringify(paramsEVM)) as Record<number, Record<string, number>>;
  params[607].maxCodeSize = limit;
  params[3860].maxInitCodeSize = 2 * limit;
  params[7954] = { ...params[7954], maxCodeSize: limit, maxInitCodeSize: 2 * limit };
  return { params };
}
