/**
 * The l2devnet command's flags, read into a node's options (options.ts checks their values, as it
 * does createDevnet's). Here each flag's text becomes its option's type; every flag is documented in
 * HELP, which `--help` prints.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

import {
  DEFAULT_CHAIN_ID,
  DEFAULT_GAS_LIMIT,
  DEFAULT_HARDFORK,
  DEFAULT_DERIVATION_PATH,
  DEFAULT_MNEMONIC,
  hardforkNamed,
  parseDuration,
  randomMnemonic,
  SUPPORTED_HARDFORKS,
} from '@l2devnet/core';

import { OptionError } from './options';
import type { NodeOptions } from './options';

export const HELP = `l2devnet: a layer-2 EVM node emulator with a prover line-count checker

Usage: l2devnet [options]
       l2devnet lines SCENARIO --snapshot FILE [--check]   line-count snapshot (l2devnet lines --help)
       l2devnet lines TXHASH [--rpc URL]                  a mined transaction's line counts, per module
       l2devnet proof verify ...                          check an eth_getProof or linea_getProof answer (proof --help)
       l2devnet export FILE [--from N] [--to M]           write the chain as geth export does (l2devnet export --help)
       l2devnet import FILE [start flags]                 import blocks as geth import does (l2devnet import --help)

Network
  --host HOST               address to listen on (default 127.0.0.1)
  -p, --port PORT           port for HTTP and WebSocket; 0 picks a free one (default 8545)
  --api-key KEY             accept only this API key (repeatable); keyed mode: /v3/<KEY>, /ws/v3/<KEY>
  --api-keys FILE           read API keys from FILE, one per line (# comments allowed)
  --daily-credits N         credits each key may spend per UTC day (default: unlimited, still counted)
  --max-body-bytes N        largest HTTP request body (default 5242880)
  --max-batch N             most requests in one batch (default 1000)
  --allow-origin ORIGIN     the origin browsers may call from (default *)
  --no-cors                 send no CORS headers
  --allow-host NAME         also answer requests whose Host is NAME (repeatable; * for any): listening on
                            loopback, the node answers only loopback names and IP addresses, as geth's
                            --http.vhosts (a web page cannot reach it by re-pointing its own name);
                            listening elsewhere, any name
  --no-request-size-limit   no limit on a request body's size (--max-body-bytes)

Chain
  --chain-id ID             chain id (default ${DEFAULT_CHAIN_ID})
  --hardfork NAME           hardfork (default ${DEFAULT_HARDFORK}); one of ${SUPPORTED_HARDFORKS.join(', ')}
  --gas-limit GAS           block gas limit (default ${DEFAULT_GAS_LIMIT})
  --genesis FILE            geth-style genesis.json (alloc, config.chainId, fork blocks/times) (alias --init)
  -m, --mnemonic WORDS      BIP-39 mnemonic for the dev accounts (default "${DEFAULT_MNEMONIC}")
  --mnemonic-random [N]     a new random mnemonic of N words (default 12) for the dev accounts
  --derivation-path PATH    where the dev accounts are derived, each one's index appended
                            (default ${DEFAULT_DERIVATION_PATH})
  -a, --accounts N          number of dev accounts (default 10, at most 10000)
  --balance ETH             balance of each dev account in ETH (default 10000)
  --timestamp SECONDS       a new chain's genesis timestamp (default now)
  --block-base-fee-per-gas WEI
                            a new chain's genesis base fee (alias --base-fee)
  --code-size-limit BYTES   largest deployed contract code (default 24576, EIP-170; init code twice it)
  --disable-code-size-limit no limit on deployed code or init code
  --disable-default-create2-deployer
                            leave the CREATE2 deployer (0x4e59b448…956C) out of a new chain's genesis; its
                            other contracts (Multicall3, Permit2, Safe's factory) stay (alias --no-create2)
  --finality-depth N        "finalized" is N blocks behind "latest" (default 64)
  --safe-depth N            "safe" is N blocks behind "latest" (default 32)
  --slots-in-an-epoch N     Anvil's name for the two: "safe" N blocks behind, "finalized" 2N

Fork (state fetched from the remote as it is read, each account and slot proven against the fork
block's state root; see docs/forking.md)
  -f, --fork-url URL        start from this node's chain at --fork-block-number (default its latest block);
                            the blocks up to it are the remote's, new blocks are built here on top;
                            URL@N forks at block N (alias --rpc-url)
  --fork-block-number N     the block to fork at; -N: N blocks before the remote's latest
  --fork-chain-id ID        the chain id the remote must have (default: --chain-id or the preset's, if given)
  --fork-header "NAME: VALUE"
                            an HTTP header for the remote (repeatable)
  --fork-cache DIR          keep fetched state here between starts (default DATA_DIR/fork-cache, or
                            ~/.cache/l2devnet/fork with --in-memory)
  --no-fork-cache           keep fetched state in memory only (alias --no-storage-caching)
  --fork-timeout MS         how long one request to the remote may take (default 45000; alias --timeout)
  --fork-retries N          how many times a failed request to the remote is tried again (default 5;
                            alias --retries)
  --no-rate-limit           taken for Anvil's command lines: requests to the remote are not rate-limited here
                            (alias --no-rpc-rate-limit)

L1 (a plain Ethereum dev chain beside the L2, on the same port)
  --l1                      also run an L1: HTTP at /l1 and /l1/v3/<KEY>, WebSocket at /l1/ws and
                            /l1/ws/v3/<KEY>; the same dev accounts, funded; none of Linea's rules; in
                            DATA_DIR/l1 (default off: most work needs the L2 alone)
  --l1-chain-id ID          the L1's chain id (default 31338)
  --l1-block-time SECONDS   mine the L1 every SECONDS (default: automine)
  --auto-claim              claim every message between the two once it can be, as Linea's postman
  --message-anchoring-delay DELAY
                            anchor L1 messages on the L2 DELAY after their L1 block: N L1 blocks on top
                            of it, Ns seconds after the node saw it, or manual (l2_anchorMessages only)
                            (default 0: right after it)
  --finalization-interval INTERVAL
                            finalize the L2 on the L1 (its message roots, so L2 messages can be claimed
                            there) at every N-th L2 block (N from 1), every Ns seconds, or manual
                            (l2_finalize only) (default 1: after every L2 block that sends a message)

Mining
  -b, --block-time SECONDS  mine every SECONDS with all pending transactions that fit (default: automine,
                            one block per transaction) (alias --blockTime)
  --no-mining               mine only on request (evm_mine) (alias --no-mine)
  --max-transactions N      most transactions in a block (default: as many as fit)
  --coinbase ADDRESS        the blocks' beneficiary (default Linea mainnet's coinbase, 0x8F81…1c9E;
                            Linea Sepolia's on chain 59141; a fork's, its fork block's; zero with
                            --genesis)
  --enable-tx-gas-limit     taken for Anvil's command lines: EIP-7825's cap on a transaction's gas applies
                            from Osaka (the default fork) here; refused on an earlier --hardfork (alias
                            --tx-gas-limit)
  --order fees|fifo         how blocks take pool transactions: highest tip first (default) or by arrival
  --auto-impersonate        eth_sendTransaction may send from any address (anvil_autoImpersonateAccount)
                            (alias --auto-unlock)
  --disable-pool-balance-checks
                            take transactions whose sender cannot pay for them into the pool (a block
                            still drops them if the sender cannot pay when it runs them)

Storage
  --data-dir DIR            database directory (default ./.l2devnet); an existing one is resumed
  --in-memory               keep the chain in memory; nothing is kept on disk after it stops
  --memory-limit MB         with --in-memory: the MiB of blocks, receipts and state held in memory; the
                            older ones go to a temporary file, removed when the node stops (default 64)
  --import FILE             import FILE's blocks (as geth export writes them) before serving; as
                            l2devnet import does (l2devnet import --help). The node then follows the
                            chain: safe and finalized at its tip (l2_setFinality moves them), and no
                            mining until asked (evm_mine, evm_setAutomine) unless --block-time is given
  --head N                  with --import: import up to block N
  --load-state FILE         merge FILE's state into the head state at start (anvil_dumpState's blob, or an
                            Anvil JSON state's accounts)
  --dump-state FILE         write the head state to FILE (as anvil_dumpState) when the node stops
  -s, --state-interval SECONDS
                            with --dump-state: write it every SECONDS too
  --state FILE              --load-state FILE if it exists, and --dump-state FILE

Prover line counts
  --tracer NAME             which Linea tracer the line counter follows: osaka (today's, the default) or
                            london (beta-v2.1, the one Linea's published line counts were measured with)
  --counter NAME            which of Linea's line counters: tracer (the full tracer, ZkTracer, as Linea's
                            mainnet profile runs it; the default) or limitless (the light ZkCounter that
                            --plugin-linea-limitless-enabled selects; osaka only)
  --limits FILE             per-module line limits, TOML [traces-limits] (default: for osaka the file Linea
                            ships for mainnet, fixtures/limits/linea-mainnet.toml; for london
                            fixtures/limits/linea-london.toml)
  --no-rpc-line-check       do not refuse overflowing transactions at submission; the sequencer still
                            excludes them while building blocks
  --l1l2-bridge-contract ADDRESS
                            the contract whose L2-to-L1 message logs BLOCK_L2_L1_LOGS counts (default the
                            zero address, as Linea's sequencer: none counted; --preset: the network's)
  --l1l2-bridge-topic HEX   their first topic (default zero; with --preset, MessageSent's)

Linea's sequencer rules (a dev chain follows them; a chain from --genesis does not, unless asked)
  --preset NETWORK          linea-mainnet or linea-sepolia: that network's chain id (59144, 59141), limits
                            file, gas limit (61000000), rules and prices; other flags override them
  --sequencer-rules on|off  refuse what Linea's sequencer refuses at submission (blob transactions, a
                            precompile as recipient, the gas and calldata limits below) and leave out of
                            blocks what its selectors leave out (default on; off with --genesis)
  --max-tx-calldata-size N  largest transaction calldata, bytes (default 60000, Linea mainnet's)
  --max-block-calldata-size N
                            largest calldata of a block's transactions together (default 109000)
  --max-tx-gas GAS          largest transaction gas limit (default 24000000)
  --max-block-gas GAS       most gas a block's transactions use together (default 55000000)
  --events-deny-list FILE   events that keep a transaction out of blocks, a line each:
                            address,topic0,topic1,topic2,topic3 (an empty field matches any)
  --tx-pool-priority-senders ADDRESS[,ADDRESS...]
                            senders whose transactions go first in blocks and are not priced, as Besu's
                            option that Linea's profiles give their own services (with --l1 the message
                            services' operator is one); line counts still apply

Printed output (as Anvil prints it: each request's method, each mined transaction with its gas, block
and created contract, each refusal and exclusion with its module, count and limit)
  -v, -vv, -vvv, -vvvv      and what the contracts console.log (-vv), the call tree of failed transactions
                            (-vvv) or of every one (-vvvv); at -vvv, the call an excluded one's lines came from
  --print-traces            the call tree of every transaction, as -vvvv (alias --enable-trace-printing)
  --disable-console-log     leave console.log out of what -vv and up print (alias --no-console-log)
  --artifacts DIR           Foundry (out/) or Hardhat (artifacts/) output whose ABIs decode the traces;
                            repeatable
  --silent                  print nothing (no banner, notices or traces) until anvil_setLoggingEnabled(true)
                            (alias -q, --quiet)
  --json                    notices and warnings as JSON lines (requests and transactions print as text,
                            as Anvil's do)
  --color WHEN, --md        taken for Anvil's command lines; nothing printed here has colour or markdown
  --config-out FILE         write the accounts, keys, wallet and chain as JSON to FILE once started, as Anvil

RPC
  --call-from-optional      let eth_call run without "from" on /v3/<KEY> too (the spec requires it there;
                            / and /ws never do: a call without it runs from the zero address)
  --log-query-timeout-ms N  eth_getLogs time limit (default 10000)
  --rpc-evm-timeout TIME    how long eth_call, eth_estimateGas and eth_createAccessList may run, as geth's
                            --rpc.evmtimeout: 5s, 500ms, 2m or seconds; 0 for no limit (default 5s)
  --rpc-gas-cap GAS         the gas eth_call, eth_estimateGas and an eth_simulateV1 request may use, as
                            geth's --rpc.gascap (default 10x the block gas limit)
  --workers N               threads that run calls (eth_call, gas estimates, eth_simulateV1) and traces
                            while another runs, beside the one that serves; 0 runs them all on that one
                            (default 0: a call on the node's engine costs less than the hop)
  --engine l2devnet|ethereumjs
                            the EVM that runs calls and blocks: the node's own where it can (default),
                            or ethereumjs throughout, the reference it is checked against
  -j, --threads N           Anvil's name: N threads in all, the serving one and N-1 workers; 0 the default
                            (alias --jobs)
  --steps-tracing           taken for Anvil's command lines: every trace is always available (alias --tracing)

Methods beyond Ethereum's: linea_estimateGas, linea_getTransactionExclusionStatusV1, linea_sendBundle,
linea_getBlockTracesCountersV2, l2_traceLineCounts, l2_traceCallLineCounts, l2_getExclusions,
l2_setLineLimits and the rest in docs/methods.md; Anvil's anvil_*, evm_* and hardhat_* methods.

  -V, --version             print the version
  -h, --help                print this help
`;

/** A flag that cannot be read; the command prints it and exits with code 2. */
export class FlagError extends OptionError {}

/** A subcommand's flags and positionals (`lines`, `proof`); a bad flag is a FlagError (exit 2). */
export function parseCommandArgs(
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
): { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] } {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: true, options });
  } catch (e) {
    throw new FlagError((e as Error).message);
  }
}

/** The command's flags as a node's options, and what else they ask for. */
export interface ParsedFlags {
  options: NodeOptions & { listen: { host: string; port: number } };
  help: boolean;
  version: boolean;
}

/** The default data directory: ./.l2devnet, resumed on the next start. */
export const DEFAULT_DATA_DIR = '.l2devnet';

function int(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new FlagError(`--${name} must be an integer of at least ${min}; got "${value}"`);
  }
  return Number(value);
}

function big(name: string, value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value))
    throw new FlagError(`--${name} must be a decimal or 0x-hex integer; got "${value}"`);
  return BigInt(value);
}

/** `on` or `off`. */
function onOff(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new FlagError(`--${name} must be on or off; got "${value}"`);
  return value === 'on';
}

/** A duration as geth's flags take it (5s, 500ms, 2m) or a number of seconds; in milliseconds. */
function duration(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value, true);
  if (ms === undefined) throw new FlagError(`--${name} must be a duration like 5s, 500ms or 2m; got "${value}"`);
  return ms;
}

/** A number of seconds, positive (checked with the other options). */
function seconds(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new FlagError(`--${name} must be a positive number of seconds; got "${value}"`);
  return n;
}

/** --no-request-size-limit: the longest string V8 holds, so a body is never refused for its size. */
const NO_BODY_LIMIT = 2 ** 29 - 24;

/** Anvil's --dump-state DIR writes DIR/state.json. */
function stateFile(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return statSync(path).isDirectory() ? join(path, 'state.json') : path;
  } catch {
    return path;
  }
}

/**
 * The fork's URL and block: Anvil's URL@BLOCK form, and a negative --fork-block-number (that many
 * blocks before the remote's latest).
 */
function fork(url: string | undefined, block: string | undefined): { url?: string; block?: bigint } {
  const at = url === undefined ? null : /^(.*)@(\d+)$/.exec(url);
  if (at !== null && block !== undefined)
    throw new FlagError('--fork-url URL@BLOCK and --fork-block-number cannot be combined');
  if (at !== null) return { url: at[1], block: BigInt(at[2]) };
  if (block !== undefined && /^-\d+$/.test(block)) return { url, block: BigInt(block) };
  return { url, block: big('fork-block-number', block) };
}

/** The start command's flags, as node's parseArgs reads them. */
const START_FLAGS: NonNullable<ParseArgsConfig['options']> = {
  host: { type: 'string' },
  port: { type: 'string', short: 'p' },
  'api-key': { type: 'string', multiple: true },
  'api-keys': { type: 'string' },
  'daily-credits': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'max-batch': { type: 'string' },
  'allow-origin': { type: 'string' },
  'no-cors': { type: 'boolean' },
  'allow-host': { type: 'string', multiple: true },
  'no-request-size-limit': { type: 'boolean' },
  'chain-id': { type: 'string' },
  hardfork: { type: 'string' },
  'gas-limit': { type: 'string' },
  genesis: { type: 'string' },
  init: { type: 'string' },
  mnemonic: { type: 'string', short: 'm' },
  'derivation-path': { type: 'string' },
  accounts: { type: 'string', short: 'a' },
  balance: { type: 'string' },
  timestamp: { type: 'string' },
  'block-base-fee-per-gas': { type: 'string' },
  'base-fee': { type: 'string' },
  'code-size-limit': { type: 'string' },
  'disable-code-size-limit': { type: 'boolean' },
  'disable-default-create2-deployer': { type: 'boolean' },
  'finality-depth': { type: 'string' },
  'safe-depth': { type: 'string' },
  'slots-in-an-epoch': { type: 'string' },
  'block-time': { type: 'string', short: 'b' },
  blockTime: { type: 'string' },
  'no-mining': { type: 'boolean' },
  'no-mine': { type: 'boolean' },
  'max-transactions': { type: 'string' },
  coinbase: { type: 'string' },
  'disable-pool-balance-checks': { type: 'boolean' },
  order: { type: 'string' },
  'tx-pool-priority-senders': { type: 'string', multiple: true },
  'auto-impersonate': { type: 'boolean' },
  'auto-unlock': { type: 'boolean' },
  'data-dir': { type: 'string' },
  'memory-limit': { type: 'string' },
  'in-memory': { type: 'boolean' },
  state: { type: 'string' },
  'load-state': { type: 'string' },
  'dump-state': { type: 'string' },
  'state-interval': { type: 'string', short: 's' },
  limits: { type: 'string' },
  tracer: { type: 'string' },
  counter: { type: 'string' },
  'l1l2-bridge-contract': { type: 'string' },
  'l1l2-bridge-topic': { type: 'string' },
  verbose: { type: 'boolean', short: 'v', multiple: true },
  'print-traces': { type: 'boolean' },
  'enable-trace-printing': { type: 'boolean' },
  'disable-console-log': { type: 'boolean' },
  'no-console-log': { type: 'boolean' },
  silent: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  json: { type: 'boolean' },
  color: { type: 'string' },
  md: { type: 'boolean' },
  'config-out': { type: 'string' },
  import: { type: 'string' },
  head: { type: 'string' },
  artifacts: { type: 'string', multiple: true },
  'no-rpc-line-check': { type: 'boolean' },
  'sequencer-rules': { type: 'string' },
  preset: { type: 'string' },
  'max-tx-calldata-size': { type: 'string' },
  'max-block-calldata-size': { type: 'string' },
  'max-tx-gas': { type: 'string' },
  'max-block-gas': { type: 'string' },
  'events-deny-list': { type: 'string' },
  'call-from-optional': { type: 'boolean' },
  'log-query-timeout-ms': { type: 'string' },
  'rpc-evm-timeout': { type: 'string' },
  'rpc-gas-cap': { type: 'string' },
  workers: { type: 'string' },
  engine: { type: 'string' },
  threads: { type: 'string', short: 'j' },
  jobs: { type: 'string' },
  'steps-tracing': { type: 'boolean' },
  tracing: { type: 'boolean' },
  'enable-tx-gas-limit': { type: 'boolean' },
  'tx-gas-limit': { type: 'boolean' },
  l1: { type: 'boolean' },
  'l1-chain-id': { type: 'string' },
  'l1-block-time': { type: 'string' },
  'auto-claim': { type: 'boolean' },
  'message-anchoring-delay': { type: 'string' },
  'finalization-interval': { type: 'string' },
  'fork-url': { type: 'string', short: 'f' },
  'rpc-url': { type: 'string' },
  'fork-block-number': { type: 'string' },
  'fork-chain-id': { type: 'string' },
  'fork-header': { type: 'string', multiple: true },
  'fork-cache': { type: 'string' },
  'no-fork-cache': { type: 'boolean' },
  'fork-timeout': { type: 'string' },
  'fork-retries': { type: 'string' },
  // Anvil's names of the same
  timeout: { type: 'string' },
  retries: { type: 'string' },
  'no-storage-caching': { type: 'boolean' },
  'no-create2': { type: 'boolean' },
  'no-rate-limit': { type: 'boolean' },
  'no-rpc-rate-limit': { type: 'boolean' },
  version: { type: 'boolean', short: 'V' },
  help: { type: 'boolean', short: 'h' },
};

/**
 * Anvil's flags this node does not take, and why: said in one line rather than "Unknown option"
 * (docs/coming-from-anvil.md's table says the same).
 */
const ANVIL_ONLY: Record<string, string> = {
  'gas-price':
    'the gas price follows the base fee here (eth_gasPrice is the next base fee plus the suggested tip); set the floor with anvil_setMinGasPrice or the base fee with --block-base-fee-per-gas',
  'disable-block-gas-limit': 'a block holds what its gas limit allows; raise --gas-limit, and --rpc-gas-cap for calls',
  'prune-history': 'the node keeps every block and its state (in memory with --in-memory); there is no pruning',
  'max-persisted-states': 'the node keeps every state, in --data-dir or in memory (--memory-limit)',
  'transaction-block-keeper': 'the node keeps every block and its transactions',
  'cache-path': 'states are kept with the chain: use --data-dir',
  'preserve-historical-states':
    '--dump-state writes the head state; a chain with its history is kept in --data-dir, or written with l2devnet export',
  'fork-transaction-hash': 'a fork starts at a whole block: give its --fork-block-number',
  'fork-retry-backoff':
    'failed requests to the remote are tried again after 250 ms, 1 s, 4 s, ...; --fork-retries sets how many times',
  'compute-units-per-second': 'requests to the remote are not rate-limited here',
  'mixed-mining': 'blocks are mined one per transaction (the default) or every --block-time, not both',
  number: 'a chain starts at block 0 here (a fork at its --fork-block-number)',
  'mnemonic-seed-unsafe': 'give the mnemonic (--mnemonic) or ask for a new one (--mnemonic-random)',
  'disable-min-priority-fee':
    "the suggested tip is what Linea's profitability rule needs of a transfer (1 gwei unless the pricing asks more); with --sequencer-rules off any tip is taken",
  'no-priority-fee':
    "the suggested tip is what Linea's profitability rule needs of a transfer (1 gwei unless the pricing asks more); with --sequencer-rules off any tip is taken",
  ipc: 'no IPC socket: JSON-RPC is served over HTTP and WebSocket on --port',
  ipcpath: 'no IPC socket: JSON-RPC is served over HTTP and WebSocket on --port',
  celo: 'this node emulates Linea, not Celo',
  network: 'this node emulates Linea (an Ethereum-style chain): no other network family',
};
/** Anvil's short flags this node does not take (-n, --network). */
const ANVIL_ONLY_SHORT: Record<string, string> = { n: 'network' };

/**
 * A value that starts with a dash (a negative number) is taken as the flag's value, not as another
 * flag, so that its check can say what is wrong with it: `--chain-id -5` reads as `--chain-id=-5`.
 */
function joinDashValues(argv: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    const short =
      arg.length === 2 && arg[0] === '-' ? Object.keys(options).find((k) => options[k].short === arg[1]) : undefined;
    const flag = name ?? short;
    const next = argv[i + 1];
    if (flag !== undefined && options[flag]?.type === 'string' && next !== undefined && /^-[0-9.]/.test(next)) {
      out.push(`--${flag}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * Anvil's --mnemonic-random takes an optional word count, which node's parseArgs cannot: it is read
 * here, the flag and its count taken out of `argv`.
 */
function takeMnemonicRandom(argv: string[]): { argv: string[]; words: number | undefined } {
  const at = argv.findIndex((a) => a === '--mnemonic-random' || a.startsWith('--mnemonic-random='));
  if (at < 0) return { argv, words: undefined };
  const inline = argv[at].includes('=') ? argv[at].slice(argv[at].indexOf('=') + 1) : undefined;
  const next = argv[at + 1];
  const count = inline ?? (next !== undefined && /^\d+$/.test(next) ? next : undefined);
  const words = count === undefined ? 12 : Number(count);
  if (![12, 15, 18, 21, 24].includes(words))
    throw new FlagError(`--mnemonic-random takes 12, 15, 18, 21 or 24 words; got "${count}"`);
  const taken = inline === undefined && count !== undefined ? 2 : 1;
  return { argv: [...argv.slice(0, at), ...argv.slice(at + taken)], words };
}

export function parseFlags(argv: string[]): ParsedFlags {
  for (const arg of argv) {
    const name = /^--([a-z-]+)/.exec(arg)?.[1] ?? ANVIL_ONLY_SHORT[/^-([a-z])$/.exec(arg)?.[1] ?? ''];
    if (name !== undefined && ANVIL_ONLY[name] !== undefined) throw new FlagError(`--${name}: ${ANVIL_ONLY[name]}`);
  }
  const random = takeMnemonicRandom(argv);
  argv = random.argv;
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    values = parseArgs({
      args: joinDashValues(argv, START_FLAGS),
      strict: true,
      allowPositionals: false,
      options: START_FLAGS,
    }).values;
  } catch (e) {
    throw new FlagError((e as Error).message);
  }
  const s = (name: string) => values[name] as string | undefined;
  const flag = (name: string) => values[name] === true;
  if (flag('in-memory') && s('data-dir') !== undefined)
    throw new FlagError('--in-memory and --data-dir cannot be combined');
  if (s('memory-limit') !== undefined && !flag('in-memory'))
    throw new FlagError('--memory-limit applies with --in-memory (a chain in --data-dir is on disk already)');
  const verbosity = ((values.verbose as boolean[] | undefined) ?? []).length;
  const state = s('state');
  if (state !== undefined && (s('load-state') !== undefined || s('dump-state') !== undefined))
    throw new FlagError('--state is --load-state and --dump-state together; give one or the others');
  if (s('code-size-limit') !== undefined && flag('disable-code-size-limit'))
    throw new FlagError('--code-size-limit and --disable-code-size-limit cannot be combined');
  if (s('allow-origin') !== undefined && flag('no-cors'))
    throw new FlagError('--allow-origin and --no-cors cannot be combined');
  const noForkCache = flag('no-fork-cache') || flag('no-storage-caching');
  if (s('fork-cache') !== undefined && noForkCache)
    throw new FlagError('--fork-cache and --no-fork-cache cannot be combined');
  const forkFlags = fork(s('fork-url') ?? s('rpc-url'), s('fork-block-number'));
  if (noForkCache && forkFlags.url === undefined)
    throw new FlagError(`--${flag('no-fork-cache') ? 'no-fork-cache' : 'no-storage-caching'} goes with --fork-url`);
  if (s('max-body-bytes') !== undefined && flag('no-request-size-limit'))
    throw new FlagError('--max-body-bytes and --no-request-size-limit cannot be combined');
  if (random.words !== undefined && s('mnemonic') !== undefined)
    throw new FlagError('--mnemonic and --mnemonic-random cannot be combined');
  if (s('color') !== undefined && !['auto', 'always', 'never'].includes(s('color') as string))
    throw new FlagError(`--color must be auto, always or never; got "${s('color')}"`);
  const gasCap = flag('enable-tx-gas-limit')
    ? 'enable-tx-gas-limit'
    : flag('tx-gas-limit')
      ? 'tx-gas-limit'
      : undefined;
  const namedFork = s('hardfork') === undefined ? undefined : hardforkNamed(s('hardfork') as string);
  if (
    gasCap !== undefined &&
    namedFork !== undefined &&
    SUPPORTED_HARDFORKS.indexOf(namedFork) < SUPPORTED_HARDFORKS.indexOf('osaka')
  )
    throw new FlagError(
      `--${gasCap}: EIP-7825's cap comes with Osaka here, and --hardfork ${s('hardfork')} is before it`,
    );
  const baseFee = s('block-base-fee-per-gas') ?? s('base-fee');
  const slots = big('slots-in-an-epoch', s('slots-in-an-epoch'));
  const threads = int('threads', s('threads') ?? s('jobs'), 0);
  return {
    options: {
      // Anvil reads the listening address from ANVIL_IP_ADDR too.
      listen: { host: s('host') ?? process.env.ANVIL_IP_ADDR ?? '127.0.0.1', port: int('port', s('port'), 0) ?? 8545 },
      apiKeys: (values['api-key'] as string[] | undefined) ?? [],
      apiKeysFile: s('api-keys'),
      dailyCredits: int('daily-credits', s('daily-credits'), 0),
      // No limit: the largest body a JavaScript string holds.
      maxBodyBytes: flag('no-request-size-limit') ? NO_BODY_LIMIT : int('max-body-bytes', s('max-body-bytes'), 1),
      maxBatch: int('max-batch', s('max-batch'), 1),
      allowOrigin: flag('no-cors') ? null : s('allow-origin'),
      allowHosts: values['allow-host'] as string[] | undefined,
      timestamp: big('timestamp', s('timestamp')),
      baseFee: big('block-base-fee-per-gas', baseFee),
      codeSizeLimit: flag('disable-code-size-limit') ? null : int('code-size-limit', s('code-size-limit'), 1),
      create2Deployer: flag('disable-default-create2-deployer') || flag('no-create2') ? false : undefined,
      order: s('order') as NodeOptions['order'],
      txPoolPrioritySenders: (values['tx-pool-priority-senders'] as string[] | undefined)?.flatMap((v) => v.split(',')),
      autoImpersonate: flag('auto-impersonate') || flag('auto-unlock'),
      poolBalanceChecks: flag('disable-pool-balance-checks') ? false : undefined,
      maxTransactions: int('max-transactions', s('max-transactions'), 1),
      coinbase: s('coinbase'),
      // --state: loaded if the file is there, written at the stop.
      loadState: state !== undefined ? (existsSync(state) ? state : undefined) : s('load-state'),
      dumpState: stateFile(state ?? s('dump-state')),
      stateInterval: seconds('state-interval', s('state-interval')),
      silent: flag('silent') || flag('quiet'),
      console: true,
      consoleLog: flag('disable-console-log') || flag('no-console-log') ? false : undefined,
      logFormat: flag('json') ? 'json' : undefined,
      configOut: s('config-out'),
      chainId: big('chain-id', s('chain-id')),
      hardfork: s('hardfork'),
      gasLimit: big('gas-limit', s('gas-limit')),
      genesis: s('genesis') ?? s('init'),
      mnemonic: s('mnemonic') ?? (random.words === undefined ? undefined : randomMnemonic(random.words)),
      derivationPath: s('derivation-path'),
      accounts: int('accounts', s('accounts'), 0),
      balance: s('balance'),
      // Anvil's epoch: "safe" an epoch behind the head, "finalized" two.
      finalityDepth: big('finality-depth', s('finality-depth')) ?? (slots === undefined ? undefined : 2n * slots),
      safeDepth: big('safe-depth', s('safe-depth')) ?? slots,
      mining: flag('no-mining') || flag('no-mine') ? false : undefined,
      blockTime: seconds('block-time', s('block-time') ?? s('blockTime')),
      dataDir: flag('in-memory') ? undefined : (s('data-dir') ?? DEFAULT_DATA_DIR),
      memoryLimit: int('memory-limit', s('memory-limit'), 1),
      import: s('import'),
      head: big('head', s('head')),
      tracer: s('tracer') as NodeOptions['tracer'],
      counter: s('counter') as NodeOptions['counter'],
      l1l2BridgeContract: s('l1l2-bridge-contract'),
      l1l2BridgeTopic: s('l1l2-bridge-topic'),
      limits: s('limits'),
      rpcLineCheck: !flag('no-rpc-line-check'),
      preset: s('preset') as NodeOptions['preset'],
      sequencerRules: onOff('sequencer-rules', s('sequencer-rules')),
      maxTxCalldataSize: int('max-tx-calldata-size', s('max-tx-calldata-size'), 0),
      maxBlockCalldataSize: int('max-block-calldata-size', s('max-block-calldata-size'), 0),
      maxTxGas: big('max-tx-gas', s('max-tx-gas')),
      maxBlockGas: big('max-block-gas', s('max-block-gas')),
      eventsDenyList: s('events-deny-list'),
      verbosity:
        flag('print-traces') || flag('enable-trace-printing')
          ? Math.max(verbosity, 4)
          : verbosity > 0
            ? verbosity
            : undefined,
      artifacts: values.artifacts as string[] | undefined,
      callFromOptional: flag('call-from-optional'),
      logQueryTimeoutMs: int('log-query-timeout-ms', s('log-query-timeout-ms'), 1),
      rpcEvmTimeout: duration('rpc-evm-timeout', s('rpc-evm-timeout')),
      rpcGasCap: big('rpc-gas-cap', s('rpc-gas-cap')),
      // Anvil's -j counts every thread: the serving one and the workers (0: the default).
      engine: s('engine') as NodeOptions['engine'],
      workers: int('workers', s('workers'), 0) ?? (threads === undefined || threads === 0 ? undefined : threads - 1),
      l1: flag('l1') ? true : undefined,
      l1ChainId: big('l1-chain-id', s('l1-chain-id')),
      l1BlockTime: seconds('l1-block-time', s('l1-block-time')),
      autoClaim: flag('auto-claim') ? true : undefined,
      messageAnchoringDelay: s('message-anchoring-delay'),
      finalizationInterval: s('finalization-interval'),
      forkUrl: forkFlags.url,
      forkBlockNumber: forkFlags.block,
      forkChainId: big('fork-chain-id', s('fork-chain-id')),
      forkHeaders: values['fork-header'] as string[] | undefined,
      forkCache: noForkCache ? false : s('fork-cache'),
      forkTimeout: int('fork-timeout', s('fork-timeout') ?? s('timeout'), 1),
      forkRetries: int('fork-retries', s('fork-retries') ?? s('retries'), 0),
    },
    help: flag('help'),
    version: flag('version'),
  };
}
