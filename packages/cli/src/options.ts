/**
 * A node's options, as the command's flags and createDevnet's fields both give them, checked in one
 * place. The command reads its flags into NodeOptions (flags.ts turns each string into the option's
 * type), createDevnet takes NodeOptions as they are; `resolveNodeOptions` checks every value and
 * turns them into the chain's, the RPC's and the server's settings. A bad value is an OptionError
 * naming the option as its user wrote it: `--chain-id` for the command, `createDevnet: option chainId`
 * for the library.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

import {
  DEFAULT_CHAIN_ID,
  DEFAULT_LIMITS,
  LINEA_MAINNET_PRICING,
  LineLimits,
  parseEventFilters,
  SEPOLIA_LIMITS,
  parseDuration,
  parseEther,
  SUPPORTED_HARDFORKS,
  hardforkNamed,
  TRACER_PROFILES,
  COUNTERS,
  counterRefusal,
  derivationPathIndexes,
  MESSAGE_SENT_TOPIC,
  NO_BRIDGE,
  L2_MESSAGE_SERVICE,
  operatorAddress,
} from '@l2devnet/core';
import type { Cadence, EventFilter, ForkOptions, L1L2Bridge } from '@l2devnet/core';
import { RemoteNode } from '@l2devnet/rpc';
import type { ChainOptions, CounterName, MiningMode, TracerProfileName } from '@l2devnet/core';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';

/** More call threads than this only share the same cores. */
const MAX_WORKERS = 64;

/**
 * A chain in memory holds this many MiB of its rows, the rest in a temporary file: the head's
 * state stays in memory, and 20,000 blocks (about 5 KB of system contract state each) stay under it.
 */
const DEFAULT_MEMORY_LIMIT_MB = 64;

/** Every option of a node, by group, as the command's flags and createDevnet's fields name them. */
export interface NodeOptions {
  // Network
  /** Serve HTTP and WebSocket: `true` on 127.0.0.1 and a free port, or where given. `--host`, `--port` */
  listen?: boolean | { host?: string; port?: number };
  /** Accept only these API keys (/v3/<KEY>, /ws/v3/<KEY>). `--api-key` */
  apiKeys?: string[];
  /** Read more API keys from this file, one per line (# comments allowed). `--api-keys` */
  apiKeysFile?: string;
  /** Credits each key may spend per UTC day (default unlimited, still counted). `--daily-credits` */
  dailyCredits?: number;
  /** Largest HTTP body in bytes. `--max-body-bytes` */
  maxBodyBytes?: number;
  /** Most requests in one batch. `--max-batch` */
  maxBatch?: number;
  /** Largest WebSocket message in bytes. */
  maxWsMessageBytes?: number;
  /** How many bytes a slow WebSocket client may leave unread before it is dropped. */
  maxWsBackpressureBytes?: number;
  /** The origin browsers may call from (default `*`); `null` sends no CORS headers. `--allow-origin`, `--no-cors` */
  allowOrigin?: string | null;
  /** With `listen`: Host names answered besides loopback names and IP addresses ('*' for any; default: any when listening elsewhere than loopback). `--allow-host` */
  allowHosts?: string[];
  // Chain
  /** Chain id (default 31337); ignored when `genesis` gives one. `--chain-id` */
  chainId?: number | bigint;
  /** Hardfork (default osaka). `--hardfork` */
  hardfork?: string;
  /** Block gas limit (default 30,000,000). `--gas-limit` */
  gasLimit?: number | bigint;
  /** A geth-style genesis.json: its path, or the parsed object. `--genesis` */
  genesis?: string | object;
  /** BIP-39 mnemonic of the dev accounts (default `test test … junk`). `--mnemonic` */
  mnemonic?: string;
  /** The path the dev accounts are derived under, each one's index appended (default m/44'/60'/0'/0/). `--derivation-path` */
  derivationPath?: string;
  /** Number of dev accounts (default 10). `--accounts` */
  accounts?: number;
  /** Balance of each dev account in ETH: 10000, '0.5' (default 10000). `--balance` */
  balance?: number | bigint | string;
  /** A new chain's genesis timestamp, seconds (default now). `--timestamp` */
  timestamp?: number | bigint;
  /** A new chain's genesis base fee, wei. `--block-base-fee-per-gas` */
  baseFee?: number | bigint;
  /** Largest deployed contract code, bytes (default the fork's, 24576); `null` for no limit. `--code-size-limit`, `--disable-code-size-limit` */
  codeSizeLimit?: number | null;
  /** `false` leaves the CREATE2 deployer (0x4e59…956C) out of a new chain's genesis; the other predeploys stay. `--disable-default-create2-deployer` */
  create2Deployer?: boolean;
  /** `finalized` is this many blocks behind `latest` (default 64). `--finality-depth` */
  finalityDepth?: number | bigint;
  /** `safe` is this many blocks behind `latest` (default 32). `--safe-depth` */
  safeDepth?: number | bigint;
  // Fork
  /** Start from this remote node's chain, at `forkBlockNumber` (default its latest block). `--fork-url` */
  forkUrl?: string;
  /** With `forkUrl`: the block to fork at. `--fork-block-number` */
  forkBlockNumber?: number | bigint;
  /** With `forkUrl`: the chain id the remote must have. `--fork-chain-id` */
  forkChainId?: number | bigint;
  /** With `forkUrl`: HTTP headers for the remote, "Name: value" each. `--fork-header` */
  forkHeaders?: string[];
  /** With `forkUrl`: where fetched state is kept between starts; `false` for nowhere (default under `dataDir`, else ~/.cache/l2devnet/fork). `--fork-cache`, `--no-fork-cache` */
  forkCache?: string | false;
  /** With `forkUrl`: how long one request to the remote may take, ms (default 45000). `--fork-timeout` */
  forkTimeout?: number;
  /** With `forkUrl`: how many times a failed request to the remote is tried again (default 5). `--fork-retries` */
  forkRetries?: number;
  // L1
  /** Also run an L1 (a plain Ethereum dev chain) beside the L2, at /l1 on the same port. `--l1` */
  l1?: boolean;
  /** With `l1`: its chain id (default 31338). `--l1-chain-id` */
  l1ChainId?: number | bigint;
  /** With `l1`: mine it every this many seconds instead of automining. `--l1-block-time` */
  l1BlockTime?: number;
  /** With `l1`: the node claims every message once it can, as Linea's postman. `--auto-claim` */
  autoClaim?: boolean;
  /**
   * With `l1`: when L1 messages are anchored on the L2: this many L1 blocks after the one holding
   * them (a number, or "3"), seconds after the node saw them ("10s"), or "manual" (l2_anchorMessages
   * only). Default 0: right after their L1 block. `--message-anchoring-delay`
   */
  messageAnchoringDelay?: number | string;
  /**
   * With `l1`: when L2 blocks are finalized on the L1: at every N-th L2 block (a number, or "10"),
   * every N seconds ("30s"), or "manual" (l2_finalize only). Default 1: after every block that sends
   * a message. `--finalization-interval`
   */
  finalizationInterval?: number | string;
  // Mining
  /** `false` mines only on request (evm_mine); default automine, one block per transaction. `--no-mining` */
  mining?: boolean;
  /** Mine every `blockTime` seconds instead of automining. `--block-time` */
  blockTime?: number;
  /** How blocks take pool transactions: 'fees' (highest tip first, default) or 'fifo'. `--order` */
  order?: 'fees' | 'fifo';
  /** eth_sendTransaction may send from any address without its key. `--auto-impersonate` */
  autoImpersonate?: boolean;
  /** `false` takes transactions whose sender cannot pay for them into the pool (a block still drops them). `--disable-pool-balance-checks` */
  poolBalanceChecks?: boolean;
  /** Most transactions in a block (default: as many as fit). `--max-transactions` */
  maxTransactions?: number;
  /** The blocks' beneficiary (default Linea mainnet's coinbase, Linea Sepolia's on chain 59141; a fork's, its fork block's; zero on a chain from a genesis file). `--coinbase` */
  coinbase?: string;
  /** Senders whose transactions go first in blocks and are not priced (with `l1`, the message services' operator too). `--tx-pool-priority-senders` */
  txPoolPrioritySenders?: string[];
  // Storage
  /** Database directory; without it everything stays in memory. `--data-dir`, `--in-memory` */
  dataDir?: string;
  /** Without `dataDir`: MiB of blocks, receipts and state held in memory, the older ones in a temporary file (default 64). `--memory-limit` */
  memoryLimit?: number;
  /** Import this file's blocks (as geth export writes them) before serving. `--import` */
  import?: string;
  /** With `import`: import up to this block. `--head` */
  head?: number | bigint;
  /** Load the head state from this file at start (anvil_dumpState's blob, or Anvil's JSON state). `--load-state` */
  loadState?: string;
  /** Write the head state to this file when the node stops (and every `stateInterval` seconds). `--dump-state` */
  dumpState?: string;
  /** Seconds between writes of `dumpState`. `--state-interval` */
  stateInterval?: number;
  // Prover line counts
  /** Which Linea tracer the line counter follows: 'osaka' (default) or 'london'. `--tracer` */
  tracer?: TracerProfileName;
  /**
   * Which of Linea's line counters: 'tracer' (the full tracer, ZkTracer; default, as Linea's mainnet
   * profile runs it) or 'limitless' (the light ZkCounter, osaka only). `--counter`
   */
  counter?: CounterName;
  /** Per-module line limits file, TOML (default: the tracer's default limits). `--limits` */
  limits?: string;
  /** `false` stops refusing overflowing transactions at submission (default true). `--no-rpc-line-check` */
  rpcLineCheck?: boolean;
  /** The contract whose message logs BLOCK_L2_L1_LOGS counts (default the zero address, as Linea's). `--l1l2-bridge-contract` */
  l1l2BridgeContract?: string;
  /** Their first topic, 32 bytes of hex (default zero; MessageSent's with a preset). `--l1l2-bridge-topic` */
  l1l2BridgeTopic?: string;
  // Linea's sequencer rules
  /** A Linea network's settings (chain id, limits file, tracer, gas limit, rules and pricing); other options override them. `--preset` */
  preset?: 'linea-mainnet' | 'linea-sepolia';
  /** Refuse and leave out what Linea's sequencer does (default true; false with `genesis`). `--sequencer-rules` */
  sequencerRules?: boolean;
  /** File of events (`address,topic0,topic1,topic2,topic3` a line) that keep a transaction out of blocks. `--events-deny-list` */
  eventsDenyList?: string;
  /** Largest transaction calldata, bytes (default 60,000). `--max-tx-calldata-size` */
  maxTxCalldataSize?: number;
  /** Largest calldata of a block's transactions together, bytes (default 109,000). `--max-block-calldata-size` */
  maxBlockCalldataSize?: number;
  /** Largest transaction gas limit (default 24,000,000). `--max-tx-gas` */
  maxTxGas?: number | bigint;
  /** Most gas a block's transactions use together (default 55,000,000). `--max-block-gas` */
  maxBlockGas?: number | bigint;
  // Printed traces
  /** Print each mined transaction (1), and its console.log output (2), failed call trees (3), every call tree (4). `-v` … `-vvvv` */
  verbosity?: number;
  /** Foundry (out/) or Hardhat (artifacts/) output whose ABIs decode the printed traces. `--artifacts` */
  artifacts?: string[];
  /** Print nothing: no banner, no notices, no traces (until anvil_setLoggingEnabled). `--silent` */
  silent?: boolean;
  /** Print what Anvil prints: each request's method, each mined transaction, each refusal and exclusion (the command's default; off in createDevnet). */
  console?: boolean;
  /** `false` leaves console.log out of what verbosity 2 and up print. `--disable-console-log` */
  consoleLog?: boolean;
  /** 'json': notices and warnings as JSON lines (default 'text'). `--json` */
  logFormat?: 'text' | 'json';
  /** Write the accounts, keys, wallet and chain as JSON to this file once started, as Anvil. `--config-out` */
  configOut?: string;
  // RPC
  /** Let eth_call run without `from` on /v3/<KEY> too (the spec requires it there). `--call-from-optional` */
  callFromOptional?: boolean;
  /** eth_getLogs time limit in milliseconds (default 10000). `--log-query-timeout-ms` */
  logQueryTimeoutMs?: number;
  /** Time limit of eth_call, eth_estimateGas, eth_createAccessList: ms, or '5s', '500ms', '2m'; 0 for none (default 5 s). `--rpc-evm-timeout` */
  rpcEvmTimeout?: number | string;
  /** Threads that run calls (eth_call, gas estimates, eth_createAccessList, eth_simulateV1) and traces when another call runs; 0 for the main thread alone (the default; one per core but the serving one is the most that helps). `--workers` */
  workers?: number;
  /** Which EVM runs calls and blocks: the node's own where it can (`l2devnet`, the default) or ethereumjs throughout (`ethereumjs`), the reference it is checked against. `--engine` */
  engine?: 'l2devnet' | 'ethereumjs';
  /** Gas eth_call, eth_estimateGas and an eth_simulateV1 request may use (default 10× the block gas limit). `--rpc-gas-cap` */
  rpcGasCap?: number | bigint;
}

export type OptionName = keyof NodeOptions | 'host' | 'port';

/** What a node is started with, every option checked. */
export interface NodeConfig {
  chain: ChainOptions;
  /** The L1 beside the L2 (--l1); undefined: none. */
  l1: ChainOptions | undefined;
  /** With the L1: the node claims messages itself (--auto-claim). */
  autoClaim: boolean;
  /** With the L1: when messages are anchored (--message-anchoring-delay) and blocks finalized (--finalization-interval). */
  anchoringDelay: Cadence | undefined;
  finalizationInterval: Cadence | undefined;
  /** The line limits file read (for the banner). */
  limitsFile: string;
  /** Where to listen; undefined: no server. */
  listen: { host: string; port: number } | undefined;
  apiKeys: string[];
  dailyCredits: number | undefined;
  maxBodyBytes: number | undefined;
  maxBatch: number | undefined;
  maxWsMessageBytes: number | undefined;
  maxWsBackpressureBytes: number | undefined;
  allowOrigin: string | null;
  /** Host names answered besides loopback ones (server.ts hostCheck). */
  allowHosts: string[] | undefined;
  /** Spec rule on /v3/<KEY>: eth_call needs `from`. */
  requireCallFrom: boolean;
  verbosity: number;
  artifacts: string[];
  importFile: string | undefined;
  importHead: bigint | undefined;
  loadState: string | undefined;
  dumpState: string | undefined;
  /** Milliseconds between writes of `dumpState`; undefined: only at the stop. */
  stateIntervalMs: number | undefined;
  silent: boolean;
  /** Print what Anvil prints (requests, mined transactions, refusals); console.log lines at verbosity 2 and up. */
  console: boolean;
  consoleLog: boolean;
  logFormat: 'text' | 'json';
  configOut: string | undefined;
}

/** The most dev accounts a node derives: each takes ~80 µs to derive, and a start stays under a second. */
export const MAX_ACCOUNTS = 10_000;

/** An option that cannot be used; the message names it as its user wrote it. */
export class OptionError extends Error {}

/** How messages name options: as the command's flags, or as createDevnet's fields. */
export interface OptionStyle {
  name(option: OptionName): string;
  /** Two options given together that exclude each other (the first one's value is what excludes). */
  exclusive(a: OptionName, b: OptionName): string;
  /** An option given without the one it goes with. */
  needs(a: OptionName, b: OptionName): string;
}

const FLAGS: Record<OptionName, string> = {
  listen: '--port',
  host: '--host',
  port: '--port',
  apiKeys: '--api-key',
  apiKeysFile: '--api-keys',
  dailyCredits: '--daily-credits',
  maxBodyBytes: '--max-body-bytes',
  maxBatch: '--max-batch',
  maxWsMessageBytes: 'maxWsMessageBytes',
  maxWsBackpressureBytes: 'maxWsBackpressureBytes',
  allowOrigin: '--allow-origin',
  allowHosts: '--allow-host',
  poolBalanceChecks: '--disable-pool-balance-checks',
  maxTransactions: '--max-transactions',
  coinbase: '--coinbase',
  console: '--silent',
  consoleLog: '--disable-console-log',
  logFormat: '--json',
  configOut: '--config-out',
  timestamp: '--timestamp',
  baseFee: '--block-base-fee-per-gas',
  codeSizeLimit: '--code-size-limit',
  create2Deployer: '--disable-default-create2-deployer',
  order: '--order',
  autoImpersonate: '--auto-impersonate',
  txPoolPrioritySenders: '--tx-pool-priority-senders',
  loadState: '--load-state',
  dumpState: '--dump-state',
  stateInterval: '--state-interval',
  silent: '--silent',
  chainId: '--chain-id',
  hardfork: '--hardfork',
  gasLimit: '--gas-limit',
  genesis: '--genesis',
  mnemonic: '--mnemonic',
  derivationPath: '--derivation-path',
  accounts: '--accounts',
  balance: '--balance',
  finalityDepth: '--finality-depth',
  safeDepth: '--safe-depth',
  mining: '--no-mining',
  blockTime: '--block-time',
  dataDir: '--data-dir',
  memoryLimit: '--memory-limit',
  import: '--import FILE',
  head: '--head',
  tracer: '--tracer',
  counter: '--counter',
  limits: '--limits',
  rpcLineCheck: '--no-rpc-line-check',
  l1l2BridgeContract: '--l1l2-bridge-contract',
  l1l2BridgeTopic: '--l1l2-bridge-topic',
  preset: '--preset',
  sequencerRules: '--sequencer-rules',
  eventsDenyList: '--events-deny-list',
  maxTxCalldataSize: '--max-tx-calldata-size',
  maxBlockCalldataSize: '--max-block-calldata-size',
  maxTxGas: '--max-tx-gas',
  maxBlockGas: '--max-block-gas',
  verbosity: '-v',
  artifacts: '--artifacts',
  callFromOptional: '--call-from-optional',
  logQueryTimeoutMs: '--log-query-timeout-ms',
  rpcEvmTimeout: '--rpc-evm-timeout',
  workers: '--workers',
  engine: '--engine',
  rpcGasCap: '--rpc-gas-cap',
  forkUrl: '--fork-url',
  forkBlockNumber: '--fork-block-number',
  forkChainId: '--fork-chain-id',
  forkHeaders: '--fork-header',
  forkCache: '--fork-cache',
  forkTimeout: '--fork-timeout',
  forkRetries: '--fork-retries',
  l1: '--l1',
  l1ChainId: '--l1-chain-id',
  l1BlockTime: '--l1-block-time',
  autoClaim: '--auto-claim',
  messageAnchoringDelay: '--message-anchoring-delay',
  finalizationInterval: '--finalization-interval',
};

/** The command's flags. */
export const FLAG_STYLE: OptionStyle = {
  name: (o) => FLAGS[o],
  exclusive: (a, b) => `${FLAGS[a]} and ${FLAGS[b]} cannot be combined`,
  needs: (a, b) => `${FLAGS[a]} goes with ${FLAGS[b]}`,
};

/** createDevnet's fields. */
export const LIBRARY_STYLE: OptionStyle = {
  name: (o) => `createDevnet: option ${o}`,
  exclusive: (a, b) => `createDevnet: options ${a === 'mining' ? 'mining: false' : a} and ${b} exclude each other`,
  needs: (a, b) => `createDevnet: option ${a} goes with option ${b}`,
};

/**
 * The coinbase Linea's blocks carry: each network's in its prover configuration, which refuses a block
 * with another (prover/config/config-mainnet-limitless.toml and config-sepolia-limitless.toml,
 * `[layer2] coin_base`; checked in prover/backend/execution/craft.go, in Consensys/linea-monorepo
 * cb180134). A Linea chain's blocks get mainnet's unless it is Sepolia's: counts that read the
 * coinbase (TRM and WCP trim it) are then the ones Linea's sequencer sees.
 */
const LINEA_COINBASE = {
  mainnet: '0x8F81e2E3F8b46467523463835F965fFE476E1c9E',
  sepolia: '0xA27342f1b74c0cfB2cda74bac1628d0C1A9752f2',
} as const;

/**
 * What `--preset` sets, as those networks run (linea-besu/package/linea-besu/profiles/advanced-*.toml
 * in Consensys/linea-monorepo cb180134, and the genesis chain ids): the chain id, the limits file, the
 * Osaka tracer, the target gas limit (61,000,000), the sequencer rules with the network's prices.
 */
const PRESETS = {
  'linea-mainnet': {
    chainId: 59144n,
    limits: DEFAULT_LIMITS.osaka,
    fixedCostWei: 30_000_000n,
    bridge: '0x508Ca82Df566dCD1B0DE8296e70a96332cD644ec',
  },
  'linea-sepolia': {
    chainId: 59141n,
    limits: SEPOLIA_LIMITS,
    fixedCostWei: 0n,
    bridge: '0x33bf916373159A8c1b54b025202517BfDbB7863D',
  },
} as const;
const PRESET_GAS_LIMIT = 61_000_000n;

/** Checks every option and turns them into the node's settings; throws OptionError naming a bad one. */
export function resolveNodeOptions(opts: NodeOptions, style: OptionStyle): NodeConfig {
  const bad = (option: OptionName, rule: string, value: unknown) =>
    new OptionError(`${style.name(option)} ${rule}; got ${JSON.stringify(String(value))}`);
  const integer = (option: OptionName, value: number | bigint | undefined, min = 0): bigint | undefined => {
    if (value === undefined) return undefined;
    if (typeof value === 'number' && !Number.isSafeInteger(value)) throw bad(option, 'must be an integer', value);
    if (BigInt(value) < BigInt(min)) throw bad(option, `must be at least ${min}`, value);
    return BigInt(value);
  };
  const count = (option: OptionName, value: number | undefined, min = 0) =>
    value === undefined ? undefined : Number(integer(option, value, min));

  if (opts.memoryLimit !== undefined && opts.dataDir !== undefined)
    throw new OptionError(style.exclusive('memoryLimit', 'dataDir'));
  if (opts.workers !== undefined && opts.workers > MAX_WORKERS)
    throw bad('workers', `must be at most ${MAX_WORKERS}`, opts.workers);
  if (opts.preset !== undefined && !(opts.preset in PRESETS))
    throw bad('preset', `must be one of ${Object.keys(PRESETS).join(', ')}`, opts.preset);
  const preset = opts.preset === undefined ? undefined : PRESETS[opts.preset];
  const tracer = (opts.tracer ?? 'osaka') as TracerProfileName;
  if (!TRACER_PROFILES.includes(tracer)) throw bad('tracer', `must be one of ${TRACER_PROFILES.join(', ')}`, tracer);
  const counter = (opts.counter ?? 'tracer') as CounterName;
  if (!COUNTERS.includes(counter)) throw bad('counter', `must be one of ${COUNTERS.join(', ')}`, counter);
  const refusal = counterRefusal(tracer, counter);
  if (refusal !== undefined) throw new OptionError(`${style.name('counter')} ${refusal}`);
  const hardfork = opts.hardfork === undefined ? undefined : hardforkNamed(opts.hardfork);
  if (opts.hardfork !== undefined && hardfork === undefined)
    throw bad('hardfork', `must be one of ${SUPPORTED_HARDFORKS.join(', ')} (any case), or latest`, opts.hardfork);
  const mnemonic = opts.mnemonic;
  if (mnemonic !== undefined && mnemonic.trim().split(/\s+/).length % 3 !== 0)
    throw new OptionError(`${style.name('mnemonic')} must be a BIP-39 phrase of 12, 15, 18, 21 or 24 words`);
  if (opts.derivationPath !== undefined && derivationPathIndexes(opts.derivationPath) === undefined)
    throw bad('derivationPath', "must be a BIP-32 path such as m/44'/60'/0'/0/", opts.derivationPath);
  if (opts.head !== undefined && opts.import === undefined) throw new OptionError(style.needs('head', 'import'));
  const limitsFile =
    opts.limits ?? (preset !== undefined && tracer === 'osaka' ? preset.limits : DEFAULT_LIMITS[tracer]);
  const apiKeys = [
    ...(opts.apiKeys ?? []),
    ...(opts.apiKeysFile === undefined ? [] : readKeys(opts.apiKeysFile, style)),
  ];
  for (const k of apiKeys) {
    if (!/^[A-Za-z0-9_.~-]+$/.test(k)) throw new OptionError('API keys may contain only letters, digits and _ . ~ -');
  }
  let listen: NodeConfig['listen'];
  if (opts.listen !== undefined && opts.listen !== false) {
    const where = opts.listen === true ? {} : opts.listen;
    const port = where.port ?? 0;
    if (!Number.isSafeInteger(port) || port < 0 || port > 65535)
      throw bad('port', 'must be an integer from 0 to 65535', port);
    listen = { host: where.host ?? '127.0.0.1', port };
  }
  const chainId = integer('chainId', opts.chainId, 1) ?? preset?.chainId;
  const fork = forkOf(opts, chainId, style, bad, integer, count);
  const chain: ChainOptions = {
    chainId: fork === undefined ? chainId : undefined,
    fork,
    hardfork,
    gasLimit: integer('gasLimit', opts.gasLimit, 21_000) ?? (preset === undefined ? undefined : PRESET_GAS_LIMIT),
    mnemonic,
    derivationPath: opts.derivationPath,
    accounts: accountCount(opts.accounts, bad, count),
    timestamp: integer('timestamp', opts.timestamp),
    baseFee: integer('baseFee', opts.baseFee),
    codeSizeLimit: opts.codeSizeLimit === null ? null : count('codeSizeLimit', opts.codeSizeLimit ?? undefined, 1),
    create2Deployer: opts.create2Deployer,
    order: orderOf(opts.order, bad),
    autoImpersonate: opts.autoImpersonate === true,
    poolBalanceChecks: opts.poolBalanceChecks,
    maxTransactions: count('maxTransactions', opts.maxTransactions, 1),
    ...coinbaseOf(opts, chainId, bad),
    prioritySenders: prioritySenders(opts, bad),
    balance: ether(opts.balance, bad, integer),
    genesis: genesisOf(opts.genesis, style),
    dataDir: opts.dataDir === undefined ? undefined : resolve(opts.dataDir),
    memoryLimitMb:
      opts.dataDir === undefined ? (count('memoryLimit', opts.memoryLimit, 1) ?? DEFAULT_MEMORY_LIMIT_MB) : undefined,
    mining: miningMode(opts, style, bad),
    finalizedDepth: integer('finalityDepth', opts.finalityDepth),
    safeDepth: integer('safeDepth', opts.safeDepth),
    logQueryTimeoutMs: count('logQueryTimeoutMs', opts.logQueryTimeoutMs, 1),
    lineLimits: LineLimits.fromFile(limitsFile, tracer, counter),
    tracer,
    counter,
    rpcLineCheck: opts.rpcLineCheck !== false,
    // The network's message service with a preset, the devnet's own with an L1 (the same address).
    l1l2Bridge: bridgeOf(opts, preset?.bridge ?? (opts.l1 === true ? bytesToHex(L2_MESSAGE_SERVICE) : undefined), bad),
    sequencerRules: presetRules(sequencerRules(opts, integer, count), preset),
    rpcEvmTimeoutMs: milliseconds(opts.rpcEvmTimeout, bad, count),
    rpcGasCap: integer('rpcGasCap', opts.rpcGasCap, 1),
    workers: count('workers', opts.workers),
    engine: engineOf(opts.engine, bad),
  };
  const l1 = l1Of(opts, chain, style, bad, integer);
  // With an L1, a new L2's genesis holds its message service and token bridge too.
  if (l1 !== undefined) chain.messaging = { layer: 'l2', peerChainId: l1.chainId! };
  return {
    chain,
    l1,
    autoClaim: opts.autoClaim === true,
    anchoringDelay: cadenceOf('messageAnchoringDelay', opts.messageAnchoringDelay, 0, bad),
    finalizationInterval: cadenceOf('finalizationInterval', opts.finalizationInterval, 1, bad),
    limitsFile,
    listen,
    apiKeys,
    dailyCredits: count('dailyCredits', opts.dailyCredits),
    maxBodyBytes: count('maxBodyBytes', opts.maxBodyBytes, 1),
    maxBatch: count('maxBatch', opts.maxBatch, 1),
    maxWsMessageBytes: count('maxWsMessageBytes', opts.maxWsMessageBytes, 1),
    maxWsBackpressureBytes: count('maxWsBackpressureBytes', opts.maxWsBackpressureBytes, 1),
    allowOrigin: opts.allowOrigin === undefined ? '*' : opts.allowOrigin,
    allowHosts: opts.allowHosts,
    requireCallFrom: opts.callFromOptional !== true,
    verbosity: count('verbosity', opts.verbosity) ?? 0,
    artifacts: opts.artifacts ?? [],
    importFile: opts.import,
    importHead: integer('head', opts.head),
    loadState: opts.loadState,
    dumpState: opts.dumpState,
    stateIntervalMs: stateInterval(opts, style, bad),
    silent: opts.silent === true,
    console: opts.console === true,
    consoleLog: opts.consoleLog !== false,
    logFormat: logFormatOf(opts.logFormat, bad),
    configOut: opts.configOut,
  };
}

function engineOf(value: NodeOptions['engine'], bad: Bad): NodeOptions['engine'] {
  if (value === undefined || value === 'l2devnet' || value === 'ethereumjs') return value;
  throw bad('engine', 'must be l2devnet or ethereumjs', value);
}

function logFormatOf(value: NodeOptions['logFormat'], bad: Bad): 'text' | 'json' {
  if (value === undefined || value === 'text' || value === 'json') return value ?? 'text';
  throw bad('logFormat', 'must be text or json', value);
}

/** The longest timer Node keeps (2^31 - 1 ms); a longer one fires at once. */
const MAX_CADENCE_SECONDS = 2_147_483;

/**
 * A messaging cadence: a whole number of blocks from `minBlocks` (a number or its digits), seconds
 * ("10s", "0.5s", at most MAX_CADENCE_SECONDS), or "manual".
 */
function cadenceOf(
  option: OptionName,
  value: number | string | undefined,
  minBlocks: number,
  bad: Bad,
): Cadence | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (text === 'manual') return 'manual';
  const blocks = Number(text);
  if (/^\d+$/.test(text) && Number.isSafeInteger(blocks) && blocks >= minBlocks) return { blocks };
  const seconds = /^(\d+(?:\.\d+)?)s$/.exec(text);
  if (seconds !== null && Number(seconds[1]) > 0 && Number(seconds[1]) <= MAX_CADENCE_SECONDS)
    return { seconds: Number(seconds[1]) };
  const count = minBlocks === 0 ? 'a number of blocks' : `a number of blocks from ${minBlocks}`;
  throw bad(option, `must be ${count} (3), of seconds (10s, at most ${MAX_CADENCE_SECONDS}s) or manual`, value);
}

/** The L1's chain id when none is given: next to the L2's default, and no public network's. */
export const DEFAULT_L1_CHAIN_ID = 31338n;

/**
 * The L1 beside the L2 (--l1): a plain Ethereum dev chain with the same dev accounts, hardfork and
 * gas limit, none of Linea's rules or line counts, in DATA_DIR/l1 (or in memory with the L2).
 */
function l1Of(
  opts: NodeOptions,
  l2: ChainOptions,
  style: OptionStyle,
  bad: Bad,
  integer: (o: OptionName, v: number | bigint | undefined, min?: number) => bigint | undefined,
): ChainOptions | undefined {
  if (opts.l1 !== true) {
    const stray = (
      ['l1ChainId', 'l1BlockTime', 'autoClaim', 'messageAnchoringDelay', 'finalizationInterval'] as const
    ).find((o) => opts[o] !== undefined);
    if (stray !== undefined) throw new OptionError(style.needs(stray, 'l1'));
    return undefined;
  }
  const chainId = integer('l1ChainId', opts.l1ChainId, 1) ?? DEFAULT_L1_CHAIN_ID;
  if (chainId === (l2.chainId ?? DEFAULT_CHAIN_ID) && l2.fork === undefined && l2.genesis === undefined)
    throw bad('l1ChainId', "must differ from the L2's chain id", chainId);
  if (opts.l1BlockTime !== undefined && !(opts.l1BlockTime > 0))
    throw bad('l1BlockTime', 'must be a positive number of seconds', opts.l1BlockTime);
  return {
    chainId,
    hardfork: l2.hardfork,
    gasLimit: l2.gasLimit,
    mnemonic: l2.mnemonic,
    derivationPath: l2.derivationPath,
    accounts: l2.accounts,
    balance: l2.balance,
    create2Deployer: l2.create2Deployer,
    dataDir: l2.dataDir === undefined ? undefined : join(l2.dataDir, 'l1'),
    memoryLimitMb: l2.memoryLimitMb,
    mining:
      opts.l1BlockTime === undefined
        ? { mode: 'auto' }
        : { mode: 'interval', intervalMs: Math.round(opts.l1BlockTime * 1000) },
    // Its blocks final at once, so that a finalization of the L2 reaches the L2's tags when it is mined
    // (l2_setFinality on /l1 holds them back).
    finalizedDepth: 0n,
    safeDepth: 0n,
    lineCounting: false,
    rpcLineCheck: false,
    sequencerRules: false,
    messaging: { layer: 'l1', peerChainId: l2.chainId ?? DEFAULT_CHAIN_ID },
    autoImpersonate: l2.autoImpersonate,
    rpcEvmTimeoutMs: l2.rpcEvmTimeoutMs,
    workers: l2.workers,
    engine: l2.engine,
  };
}

/** Where a fork's fetched state is kept without a data directory: the user's cache directory, as Anvil's ~/.foundry/cache. */
export function defaultForkCache(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'l2devnet', 'fork');
}

/** The remote a chain forks from, and how it is asked; undefined without `forkUrl`. */
function forkOf(
  opts: NodeOptions,
  chainId: bigint | undefined,
  style: OptionStyle,
  bad: Bad,
  integer: (o: OptionName, v: number | bigint | undefined, min?: number) => bigint | undefined,
  count: (o: OptionName, v: number | undefined, min?: number) => number | undefined,
): ForkOptions | undefined {
  const url = opts.forkUrl;
  if (url === undefined) {
    const stray = (
      ['forkBlockNumber', 'forkChainId', 'forkHeaders', 'forkCache', 'forkTimeout', 'forkRetries'] as const
    ).find((o) => opts[o] !== undefined);
    if (stray !== undefined) throw new OptionError(style.needs(stray, 'forkUrl'));
    return undefined;
  }
  if (opts.genesis !== undefined) throw new OptionError(style.exclusive('forkUrl', 'genesis'));
  if (opts.import !== undefined) throw new OptionError(style.exclusive('forkUrl', 'import'));
  const headers: Record<string, string> = {};
  for (const h of opts.forkHeaders ?? []) {
    const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):\s*(.*)$/.exec(h);
    if (m === null) throw bad('forkHeaders', 'must be "Name: value"', h);
    headers[m[1]] = m[2];
  }
  let source: RemoteNode;
  try {
    source = new RemoteNode(url, {
      headers,
      timeoutMs: count('forkTimeout', opts.forkTimeout, 1),
      retries: count('forkRetries', opts.forkRetries),
    });
  } catch (e) {
    throw bad('forkUrl', (e as Error).message.replace(/^the fork URL /, ''), url);
  }
  const cacheDir =
    opts.forkCache === false
      ? undefined
      : opts.forkCache !== undefined
        ? resolve(opts.forkCache)
        : opts.dataDir !== undefined
          ? join(resolve(opts.dataDir), 'fork-cache')
          : defaultForkCache();
  return {
    source,
    // Negative: that many blocks before the remote's latest (Anvil's --fork-block-number -N).
    blockNumber: integer('forkBlockNumber', opts.forkBlockNumber, Number.MIN_SAFE_INTEGER),
    chainId: integer('forkChainId', opts.forkChainId, 1) ?? chainId,
    cacheDir,
  };
}

function accountCount(
  value: number | undefined,
  bad: Bad,
  count: (o: OptionName, v: number | undefined) => number | undefined,
): number | undefined {
  const n = count('accounts', value);
  if (n !== undefined && n > MAX_ACCOUNTS) throw bad('accounts', `must be at most ${MAX_ACCOUNTS}`, value);
  return n;
}

function orderOf(value: string | undefined, bad: Bad): 'fees' | 'fifo' | undefined {
  if (value === undefined || value === 'fees' || value === 'fifo') return value;
  throw bad('order', 'must be fees or fifo', value);
}

function stateInterval(opts: NodeOptions, style: OptionStyle, bad: Bad): number | undefined {
  if (opts.stateInterval === undefined) return undefined;
  if (opts.dumpState === undefined) throw new OptionError(style.needs('stateInterval', 'dumpState'));
  if (!(opts.stateInterval > 0)) throw bad('stateInterval', 'must be a positive number of seconds', opts.stateInterval);
  return Math.round(opts.stateInterval * 1000);
}

type Bad = (option: OptionName, rule: string, value: unknown) => OptionError;

/** ETH (number, decimal string or whole bigint) to wei. */
function ether(
  value: number | bigint | string | undefined,
  bad: Bad,
  integer: (o: OptionName, v: number | bigint) => bigint | undefined,
): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'bigint') return (integer('balance', value) as bigint) * 10n ** 18n;
  const wei = parseEther(String(value));
  if (wei === undefined) throw bad('balance', 'must be an amount of ETH like 10000 or "0.5"', value);
  return wei;
}

/**
 * Linea's sequencer rules: off when asked, else the limits given over mainnet's; left to the chain
 * (on for a dev chain, off for a genesis file's) when nothing is said.
 */
function sequencerRules(
  opts: NodeOptions,
  integer: (o: OptionName, v: number | bigint | undefined, min?: number) => bigint | undefined,
  count: (o: OptionName, v: number | undefined, min?: number) => number | undefined,
): ChainOptions['sequencerRules'] {
  const limits = {
    maxTxCalldataSize: count('maxTxCalldataSize', opts.maxTxCalldataSize),
    maxBlockCalldataSize: count('maxBlockCalldataSize', opts.maxBlockCalldataSize),
    maxTxGasLimit: integer('maxTxGas', opts.maxTxGas, 1),
    maxBlockGas: integer('maxBlockGas', opts.maxBlockGas, 1),
    deniedEvents: opts.eventsDenyList === undefined ? undefined : eventFilters(opts.eventsDenyList),
  };
  if (opts.sequencerRules === false) return false;
  const given = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length === 0) return opts.sequencerRules;
  return given;
}

/** The events deny list file, read and checked as the sequencer reads it (a bad line stops the start). */
function eventFilters(path: string): EventFilter[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new OptionError(
      `cannot read the events deny list ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  try {
    return parseEventFilters(text);
  } catch (e) {
    throw new OptionError(`events deny list ${path}: ${(e as Error).message}`);
  }
}

/**
 * The blocks' beneficiary: the one given; else Linea's (LINEA_COINBASE) on a Linea chain that is not
 * a fork (a fork's blocks carry its fork block's, also after anvil_reset onto one), none (zero) on a
 * genesis file's.
 */
function coinbaseOf(
  opts: NodeOptions,
  chainId: bigint | undefined,
  bad: Bad,
): Pick<ChainOptions, 'coinbase' | 'defaultCoinbase'> {
  if (opts.coinbase !== undefined) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(opts.coinbase))
      throw bad('coinbase', 'must be an address, 0x and 40 hex digits', opts.coinbase);
    return { coinbase: hexToBytes(opts.coinbase as `0x${string}`) };
  }
  if (opts.genesis !== undefined) return {};
  return { defaultCoinbase: hexToBytes(chainId === 59141n ? LINEA_COINBASE.sepolia : LINEA_COINBASE.mainnet) };
}

/** The priority senders given, and with an L1 the operator of the message services, which anchors and finalizes. */
function prioritySenders(opts: NodeOptions, bad: Bad): Uint8Array[] {
  const given = (opts.txPoolPrioritySenders ?? []).map((a) => a.trim());
  const wrong = given.find((a) => !/^0x[0-9a-fA-F]{40}$/.test(a));
  if (wrong !== undefined) throw bad('txPoolPrioritySenders', 'must be addresses, 0x and 40 hex digits', wrong);
  const senders = given.map((a) => hexToBytes(a as `0x${string}`));
  return opts.l1 === true ? [...senders, operatorAddress()] : senders;
}

/**
 * Where BLOCK_L2_L1_LOGS counts messages from: the flags', else the preset network's message service
 * and MessageSent's topic (its profile's plugin-linea-l1l2-bridge-*), else zero, as Linea's defaults.
 */
function bridgeOf(
  opts: NodeOptions,
  presetContract: string | undefined,
  bad: (option: OptionName, rule: string, value: unknown) => OptionError,
): L1L2Bridge {
  const contract = opts.l1l2BridgeContract ?? presetContract;
  if (contract !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(contract))
    throw bad('l1l2BridgeContract', 'must be an address, 0x and 40 hex digits', contract);
  const topic = opts.l1l2BridgeTopic ?? (presetContract === undefined ? undefined : bytesToHex(MESSAGE_SENT_TOPIC));
  if (topic !== undefined && !/^(0x)?[0-9a-fA-F]{64}$/.test(topic))
    throw bad('l1l2BridgeTopic', 'must be 32 bytes of hex (64 digits)', topic);
  return {
    contract: contract === undefined ? NO_BRIDGE.contract : hexToBytes(contract as `0x${string}`),
    topic: topic === undefined ? NO_BRIDGE.topic : hexToBytes(`0x${topic.replace(/^0x/, '')}`),
  };
}

/** A preset's prices under the rules asked for (a preset turns them on, unless they are turned off). */
function presetRules(
  rules: ChainOptions['sequencerRules'],
  preset: (typeof PRESETS)[keyof typeof PRESETS] | undefined,
): ChainOptions['sequencerRules'] {
  if (preset === undefined || rules === false) return rules;
  const pricing = { ...LINEA_MAINNET_PRICING, fixedCostWei: preset.fixedCostWei };
  return { ...(typeof rules === 'object' ? rules : {}), pricing };
}

/** Milliseconds, or a duration as geth's flags write it (5s, 500ms, 2m). */
function milliseconds(
  value: number | string | undefined,
  bad: Bad,
  count: (o: OptionName, v: number) => number | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return count('rpcEvmTimeout', value);
  const ms = parseDuration(value, false);
  if (ms === undefined) throw bad('rpcEvmTimeout', 'must be milliseconds or a duration like 5s, 500ms or 2m', value);
  return ms;
}

function miningMode(opts: NodeOptions, style: OptionStyle, bad: Bad): MiningMode {
  if (opts.blockTime !== undefined) {
    if (opts.mining === false) throw new OptionError(style.exclusive('mining', 'blockTime'));
    if (!(opts.blockTime > 0)) throw bad('blockTime', 'must be a positive number of seconds', opts.blockTime);
    return { mode: 'interval', intervalMs: Math.round(opts.blockTime * 1000) };
  }
  // An imported chain is followed, not mined: blocks come on request only.
  if (opts.mining === false || opts.import !== undefined) return { mode: 'manual' };
  return { mode: 'auto' };
}

/** A genesis file's parsed JSON, or the object given. */
function genesisOf(genesis: string | object | undefined, style: OptionStyle): unknown {
  if (typeof genesis !== 'string') return genesis;
  try {
    return JSON.parse(readFileSync(genesis, 'utf8'));
  } catch (e) {
    throw new OptionError(`${style.name('genesis')} ${genesis}: ${(e as Error).message}`);
  }
}

/** API keys from a file, one per line; `#` starts a comment. */
function readKeys(file: string, style: OptionStyle): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new OptionError(`${style.name('apiKeysFile')} ${file}: ${(e as Error).message}`);
  }
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l !== '');
}
