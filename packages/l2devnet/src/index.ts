/**
 * The l2devnet library: `createDevnet(options)` starts the chain in this process and gives an
 * EIP-1193 provider over it (ethers' BrowserProvider, viem's `custom` transport and web3.js take it
 * as it is), optionally the HTTP + WebSocket server too. Options are the command's flags as typed
 * fields; the state is kept in memory unless `dataDir` is given.
 *
 * Every type this file exports is declared here in plain TypeScript, so the package's .d.ts stands
 * alone: it names no workspace package and no ethereumjs type.
 */
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import { createNode, LIBRARY_STYLE, OptionError, resolveNodeOptions } from '@l2devnet/cli';
import type { NodeConfig, NodeOptions } from '@l2devnet/cli';
import { createProvider } from '@l2devnet/rpc';

export interface DevnetOptions {
  // --- Network
  /** Also serve HTTP and WebSocket: `true` on 127.0.0.1 and a free port, or where given. Off by default. `--host`, `--port` */
  listen?: boolean | { host?: string; port?: number };
  /** With `listen`: accept only these API keys (/v3/<KEY>, /ws/v3/<KEY>). `--api-key` */
  apiKeys?: string[];
  /** With `listen`: read more API keys from this file, one per line (# comments allowed). `--api-keys` */
  apiKeysFile?: string;
  /** With `listen`: credits each key may spend per UTC day (default unlimited). `--daily-credits` */
  dailyCredits?: number;
  /** With `listen`: largest HTTP body in bytes. `--max-body-bytes` */
  maxBodyBytes?: number;
  /** With `listen`: most requests in one batch. `--max-batch` */
  maxBatch?: number;
  /** With `listen`: largest WebSocket message in bytes. */
  maxWsMessageBytes?: number;
  /** With `listen`: bytes a slow WebSocket client may leave unread before it is dropped. */
  maxWsBackpressureBytes?: number;
  /** With `listen`: the origin browsers may call from (default `*`); `null` sends no CORS headers. `--allow-origin`, `--no-cors` */
  allowOrigin?: string | null;
  /** With `listen`: Host names answered besides loopback names and IP addresses ('*' for any; default: any when listening elsewhere than loopback). `--allow-host` */
  allowHosts?: string[];
  // --- Chain
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
  /** Balance of each dev account in ETH, like the flag: 10000, '0.5' (default 10000). `--balance` */
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
  // --- Fork
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
  // --- L1
  /** Also run an L1 (a plain Ethereum dev chain) beside the L2: `devnet.l1`, and /l1 when listening. `--l1` */
  l1?: boolean;
  /** With `l1`: its chain id (default 31338). `--l1-chain-id` */
  l1ChainId?: number | bigint;
  /** With `l1`: mine it every this many seconds instead of automining. `--l1-block-time` */
  l1BlockTime?: number;
  /** With `l1`: the node claims every message once it can, as Linea's postman. `--auto-claim` */
  autoClaim?: boolean;
  /**
   * With `l1`: when L1 messages are anchored on the L2: this many L1 blocks after the one holding
   * them (3), seconds after the node saw them ("10s"), or "manual" (l2_anchorMessages only).
   * Default 0: right after their L1 block. `--message-anchoring-delay`
   */
  messageAnchoringDelay?: number | string;
  /**
   * With `l1`: when L2 blocks are finalized on the L1: at every N-th L2 block (10), every N seconds
   * ("30s"), or "manual" (l2_finalize only). Default 1: after every block that sends a message.
   * `--finalization-interval`
   */
  finalizationInterval?: number | string;
  // --- Mining
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
  // --- Storage
  /** Database directory; without it everything stays in memory (the command's `--in-memory`). `--data-dir` */
  dataDir?: string;
  /** Without `dataDir`: MiB of blocks, receipts and state held in memory, the older ones in a temporary file (default 64). `--memory-limit` */
  memoryLimit?: number;
  /** Import this file's blocks (as geth export writes them) before starting; the chain is then followed, mined on request only. `--import` */
  import?: string;
  /** With `import`: import up to this block. `--head` */
  head?: number | bigint;
  /** Load the head state from this file at start (anvil_dumpState's blob, or Anvil's JSON state). `--load-state` */
  loadState?: string;
  /** Write the head state to this file when the node stops (and every `stateInterval` seconds). `--dump-state` */
  dumpState?: string;
  /** Seconds between writes of `dumpState`. `--state-interval` */
  stateInterval?: number;
  // --- Prover line counts
  /** Which Linea tracer the line counter follows: 'osaka' (default) or 'london'. `--tracer` */
  tracer?: 'osaka' | 'london';
  /**
   * Which of Linea's line counters: 'tracer' (the full tracer, ZkTracer; default, as Linea's mainnet
   * profile runs it) or 'limitless' (the light ZkCounter, osaka only). `--counter`
   */
  counter?: 'tracer' | 'limitless';
  /** The contract whose message logs BLOCK_L2_L1_LOGS counts (default the zero address, as Linea's). `--l1l2-bridge-contract` */
  l1l2BridgeContract?: string;
  /** Their first topic, 32 bytes of hex (default zero; MessageSent's with a preset). `--l1l2-bridge-topic` */
  l1l2BridgeTopic?: string;
  /** Per-module line limits file, TOML (default: the tracer's default limits the package ships). `--limits` */
  limits?: string;
  /** `false` stops refusing overflowing transactions at submission (default true). `--no-rpc-line-check` */
  rpcLineCheck?: boolean;
  // --- Linea's sequencer rules
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
  // --- Printed traces (through `log`)
  /** Print each mined transaction (1), and its console.log output (2), failed call trees (3), every call tree (4). `-v` … `-vvvv` */
  verbosity?: number;
  /** Foundry (out/) or Hardhat (artifacts/) output whose ABIs decode the printed traces. `--artifacts` */
  artifacts?: string[];
  /** Print nothing through `log`: no notices, no traces (until anvil_setLoggingEnabled). `--silent` */
  silent?: boolean;
  /** Print what Anvil prints: each request's method, each mined transaction, each refusal and exclusion (the command's default; off in createDevnet). */
  console?: boolean;
  /** `false` leaves console.log out of what verbosity 2 and up print. `--disable-console-log` */
  consoleLog?: boolean;
  /** 'json': notices and warnings as JSON lines (default 'text'). `--json` */
  logFormat?: 'text' | 'json';
  /** Write the accounts, keys, wallet and chain as JSON to this file once started, as Anvil. `--config-out` */
  configOut?: string;
  // --- RPC
  /** With `listen`: let eth_call run without `from` on /v3/<KEY> too (the spec requires it there). `--call-from-optional` */
  callFromOptional?: boolean;
  /** eth_getLogs time limit in milliseconds (default 10000). `--log-query-timeout-ms` */
  logQueryTimeoutMs?: number;
  /** Time limit of eth_call, eth_estimateGas, eth_createAccessList: milliseconds, or '5s', '500ms', '2m'; 0 for none (default 5 s). `--rpc-evm-timeout` */
  rpcEvmTimeout?: number | string;
  /** Threads that run calls (eth_call, gas estimates, eth_createAccessList, eth_simulateV1) and traces when another call runs; 0 for the main thread alone (the default; one per core but the serving one is the most that helps). `--workers` */
  workers?: number;
  /** Which EVM runs calls and blocks: the node's own where it can (`l2devnet`, the default) or ethereumjs throughout (`ethereumjs`), the reference it is checked against. `--engine` */
  engine?: 'l2devnet' | 'ethereumjs';
  /** Gas eth_call, eth_estimateGas and an eth_simulateV1 request may use (default 10× the block gas limit). `--rpc-gas-cap` */
  rpcGasCap?: number | bigint;
  /** Where log lines go: the server's notices, mining errors, printed traces, import progress (default: stderr). */
  log?: (line: string) => void;
}

/** EIP-1193: `request` resolves with the result or rejects with an error carrying `code`, `message`, `data`. */
export interface DevnetProvider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
  /** `message` events carry subscription notifications: `{ type: 'eth_subscription', data: { subscription, result } }`. */
  on(event: 'message', listener: (message: DevnetMessage) => void): this;
  removeListener(event: 'message', listener: (message: DevnetMessage) => void): this;
}

export interface DevnetMessage {
  type: 'eth_subscription';
  data: { subscription: string; result: unknown };
}

export interface DevnetAccount {
  /** Checksummed. */
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

/**
 * The chain itself, for what the provider does not cover. Typed by its plain members; the object is
 * the node's whole `Chain`.
 */
export interface DevnetChain {
  readonly chainId: bigint;
  readonly headNumber: bigint;
  readonly hardfork: string;
  gasLimit: bigint;
  /** Mines one block now (evm_mine). */
  mine(opts?: { timestamp?: bigint }): Promise<unknown>;
  /** This chain's state remembered (evm_snapshot of this chain alone: with `l1`, the RPC's evm_snapshot covers both chains): an id for `revertTo`. */
  snapshot(): Promise<bigint>;
  /** Back to a `snapshot` of this chain alone (evm_revert on the RPC takes both chains back with `l1`); false when the id is unknown or used up. */
  revertTo(id: bigint): Promise<boolean>;
}

/**
 * The devnet as viem's `Chain` (and wagmi's) describes a chain: pass it as `chain:` to a viem client.
 * A plain object of viem's shape; viem is not a dependency.
 */
export interface DevnetViemChain {
  id: number;
  name: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  /** The node's URLs when it listens; empty otherwise (use `custom(devnet.provider)` as the transport). */
  rpcUrls: { default: { http: string[]; webSocket?: string[] } };
  testnet: boolean;
}

/** The L1 beside the L2 (`l1: true`): a plain Ethereum dev chain with the same dev accounts. */
export interface DevnetL1 {
  provider: DevnetProvider;
  viemChain: DevnetViemChain;
  /** `http://host:port/l1` when listening; undefined otherwise. */
  url: string | undefined;
  /** `ws://host:port/l1/ws` when listening; undefined otherwise. */
  wsUrl: string | undefined;
  chain: DevnetChain;
  /** Resolves once the anchorings, finalizations and claims the node has started so far are submitted. */
  idle(): Promise<void>;
}

export interface Devnet {
  provider: DevnetProvider;
  /** The L1 beside it, with `l1: true`; undefined otherwise. */
  l1: DevnetL1 | undefined;
  /** The chain for viem clients (`chain: devnet.viemChain`); `chain` below is the node's own chain object. */
  viemChain: DevnetViemChain;
  /** HTTP URL (`http://host:port`) when listening; undefined otherwise. */
  url: string | undefined;
  /** WebSocket URL when listening; undefined otherwise. */
  wsUrl: string | undefined;
  /** The dev accounts, funded at genesis; eth_sendTransaction signs for them. */
  accounts: DevnetAccount[];
  chain: DevnetChain;
  /** Stops the server (if any) and closes the chain; safe to call twice. */
  close(): Promise<void>;
  /** `await using devnet = await createDevnet()` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Node 20 defines Symbol.asyncDispose as this registered symbol, but only in its main realm: a
 * test runner's realm (jest's node environment) lacks it, and the registered one is the same.
 */
const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose');

/** Raised for an option that cannot be used; the message names it. */
export class DevnetOptionError extends Error {
  override name = 'DevnetOptionError';
}

// The library's options are the node's options (cli/src/options.ts), declared again here so the
// package's types stand alone; this fails to compile when the two differ.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const optionsMatch: Same<Omit<DevnetOptions, 'log'>, NodeOptions> = true;
// Optional fields make the check above pass with one side missing a field: the names too.
const namesMatch: Same<keyof Omit<DevnetOptions, 'log'>, keyof NodeOptions> = true;
void optionsMatch;
void namesMatch;

/** Starts a devnet in this process; see DevnetOptions for what each option does. */
export async function createDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const { log = (line: string) => process.stderr.write(`${line}\n`), ...options } = opts;
  let config: NodeConfig;
  try {
    config = resolveNodeOptions(options, LIBRARY_STYLE);
  } catch (e) {
    throw e instanceof OptionError ? new DevnetOptionError(e.message) : e;
  }
  const node = await createNode(config, { log, out: lines(log) });
  const { chain } = node;
  const close = () => node.close();
  const { url, wsUrl } = node.server ?? {};
  const l1Url = url === undefined ? undefined : `${url}/l1`;
  const l1WsUrl = wsUrl === undefined ? undefined : `${wsUrl}/l1/ws`;
  return {
    provider: createProvider(node.rpc),
    viemChain: viemChainOf(chain.chainId, 'l2devnet', url, wsUrl),
    l1:
      node.l1 === undefined
        ? undefined
        : {
            provider: createProvider(node.l1.rpc),
            viemChain: viemChainOf(node.l1.chain.chainId, 'l2devnet L1', l1Url, l1WsUrl),
            url: l1Url,
            wsUrl: l1WsUrl,
            chain: node.l1.chain,
            idle: node.l1.relay.idle.bind(node.l1.relay),
          },
    url: node.server?.url,
    wsUrl: node.server?.wsUrl,
    accounts: chain.accounts.map((a) => ({
      address: toChecksumAddress(bytesToHex(a.address)) as `0x${string}`,
      privateKey: bytesToHex(a.privateKey),
    })),
    chain,
    close,
    [asyncDispose]: close,
  };
}

function viemChainOf(id: bigint, name: string, url: string | undefined, wsUrl: string | undefined): DevnetViemChain {
  return {
    id: Number(id),
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: {
      default: { http: url === undefined ? [] : [url], ...(wsUrl === undefined ? {} : { webSocket: [wsUrl] }) },
    },
    testnet: true,
  };
}

/** Text written in pieces, passed on a whole line at a time. */
function lines(log: (line: string) => void): (text: string) => void {
  let pending = '';
  return (text) => {
    const parts = (pending + text).split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) log(line);
  };
}

/** An error `request` rejects with: JSON-RPC `code`, `message` and optional `data`. */
export interface DevnetRpcError extends Error {
  code: number;
  data?: string;
}
