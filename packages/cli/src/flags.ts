/**
 * The l2devnet command's flags: parsed, validated and turned into typed options. Every flag is
 * documented in HELP, which `--help` prints.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

import {
  DEFAULT_CHAIN_ID,
  DEFAULT_GAS_LIMIT,
  DEFAULT_HARDFORK,
  DEFAULT_MNEMONIC,
  LineLimits,
  parseDuration,
  parseEther,
  DEFAULT_LIMITS,
  SUPPORTED_HARDFORKS,
  TRACER_PROFILES,
} from '@l2devnet/core';
import type { ChainOptions, MiningMode, TracerProfileName } from '@l2devnet/core';

export { DEFAULT_LIMITS };

export const HELP = `l2devnet: a layer-2 EVM node emulator with a prover line-count checker

Usage: l2devnet [options]
       l2devnet lines SCENARIO --snapshot FILE [--check]   line-count snapshot (l2devnet lines --help)
       l2devnet lines TXHASH [--rpc URL]                  a mined transaction's line counts, per module
       l2devnet proof verify ...                          check an eth_getProof answer (l2devnet proof --help)
       l2devnet export FILE [--from N] [--to M]           write the chain as geth export does (l2devnet export --help)
       l2devnet import FILE [start flags]                 import blocks as geth import does (l2devnet import --help)

Network
  --host HOST               address to listen on (default 127.0.0.1)
  --port PORT               port for HTTP and WebSocket; 0 picks a free one (default 8545)
  --api-key KEY             accept only this API key (repeatable); keyed mode: /v3/<KEY>, /ws/v3/<KEY>
  --api-keys FILE           read API keys from FILE, one per line (# comments allowed)
  --daily-credits N         credits each key may spend per UTC day (default: unlimited, still counted)
  --max-body-bytes N        largest HTTP request body (default 5242880)
  --max-batch N             most requests in one batch (default 1000)

Chain
  --chain-id ID             chain id (default ${DEFAULT_CHAIN_ID})
  --hardfork NAME           hardfork (default ${DEFAULT_HARDFORK}); one of ${SUPPORTED_HARDFORKS.join(', ')}
  --gas-limit GAS           block gas limit (default ${DEFAULT_GAS_LIMIT})
  --genesis FILE            geth-style genesis.json (alloc, config.chainId, fork blocks/times)
  --mnemonic WORDS          BIP-39 mnemonic for the dev accounts (default "${DEFAULT_MNEMONIC}")
  --accounts N              number of dev accounts, path m/44'/60'/0'/0/i (default 10)
  --balance ETH             balance of each dev account in ETH (default 10000)
  --finality-depth N        "finalized" is N blocks behind "latest" (default 64)
  --safe-depth N            "safe" is N blocks behind "latest" (default 32)

Mining
  --block-time SECONDS      mine every SECONDS with all pending transactions that fit (default: automine,
                            one block per transaction)
  --no-mining               mine only on request (evm_mine)

Storage
  --data-dir DIR            database directory (default ./.l2devnet); an existing one is resumed
  --in-memory               keep everything in memory; nothing is written to disk
  --import FILE             import FILE's blocks (as geth export writes them) before serving; as
                            l2devnet import does (l2devnet import --help). The node then follows the
                            chain: safe and finalized at its tip (l2_setFinality moves them), and no
                            mining until asked (evm_mine, evm_setAutomine) unless --block-time is given
  --head N                  with --import: import up to block N

Prover line counts
  --tracer NAME             which Linea tracer the line counter follows: osaka (today's, the default) or
                            london (beta-v2.1, the one Linea's published line counts were measured with)
  --limits FILE             per-module line limits, TOML [traces-limits] (default: for osaka the file Linea
                            ships for mainnet, fixtures/limits/linea-mainnet.toml; for london
                            fixtures/limits/linea-london.toml)
  --no-rpc-line-check       do not refuse overflowing transactions at submission; the sequencer still
                            excludes them while building blocks

Printed traces
  -v, -vv, -vvv, -vvvv      print each mined transaction (-v), and what its contracts console.log (-vv), and
                            the call tree of failed ones (-vvv) or of every one (-vvvv); an excluded
                            transaction's module, count and limit (and at -vvv the call it came from)
  --artifacts DIR           Foundry (out/) or Hardhat (artifacts/) output whose ABIs decode the traces;
                            repeatable

RPC
  --call-from-optional      let eth_call run without "from" on /v3/<KEY> too (the spec requires it there;
                            / and /ws never do: a call without it runs from the zero address)
  --log-query-timeout-ms N  eth_getLogs time limit (default 10000)
  --rpc-evm-timeout TIME    how long eth_call, eth_estimateGas and eth_createAccessList may run, as geth's
                            --rpc.evmtimeout: 5s, 500ms, 2m or seconds; 0 for no limit (default 5s)

  --version                 print the version
  -h, --help                print this help
`;

export class FlagError extends Error {}

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

export interface CliConfig {
  chain: ChainOptions;
  dataDir: string | undefined;
  limitsFile: string;
  host: string;
  port: number;
  apiKeys: string[];
  dailyCredits: number | undefined;
  maxBodyBytes: number | undefined;
  maxBatch: number | undefined;
  requireCallFrom: boolean;
  /** -v … -vvvv: how much of each transaction to print (traces.ts). */
  verbosity: number;
  /** Directories of Foundry or Hardhat artifacts whose ABIs decode printed traces. */
  artifacts: string[];
  /** Blocks to import (as geth export writes them) before serving. */
  importFile: string | undefined;
  /** With importFile: the last block to import. */
  importHead: bigint | undefined;
  help: boolean;
  version: boolean;
}

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

function ether(value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  const wei = parseEther(value);
  if (wei === undefined) throw new FlagError(`--balance must be an amount of ETH like 10000 or 0.5; got "${value}"`);
  return wei;
}

/** A duration as geth's flags take it (5s, 500ms, 2m) or a number of seconds; in milliseconds. */
function duration(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value, true);
  if (ms === undefined) throw new FlagError(`--${name} must be a duration like 5s, 500ms or 2m; got "${value}"`);
  return ms;
}

function readJson(path: string, flag: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new FlagError(`--${flag} ${path}: ${(e as Error).message}`);
  }
}

export function parseFlags(argv: string[]): CliConfig {
  let values: Record<string, string | string[] | boolean | boolean[] | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        'api-key': { type: 'string', multiple: true },
        'api-keys': { type: 'string' },
        'daily-credits': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        'max-batch': { type: 'string' },
        'chain-id': { type: 'string' },
        hardfork: { type: 'string' },
        'gas-limit': { type: 'string' },
        genesis: { type: 'string' },
        mnemonic: { type: 'string' },
        accounts: { type: 'string' },
        balance: { type: 'string' },
        'finality-depth': { type: 'string' },
        'safe-depth': { type: 'string' },
        'block-time': { type: 'string' },
        'no-mining': { type: 'boolean' },
        'data-dir': { type: 'string' },
        'in-memory': { type: 'boolean' },
        limits: { type: 'string' },
        tracer: { type: 'string' },
        verbose: { type: 'boolean', short: 'v', multiple: true },
        import: { type: 'string' },
        head: { type: 'string' },
        artifacts: { type: 'string', multiple: true },
        'no-rpc-line-check': { type: 'boolean' },
        'call-from-optional': { type: 'boolean' },
        'log-query-timeout-ms': { type: 'string' },
        'rpc-evm-timeout': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    throw new FlagError((e as Error).message);
  }
  const s = (name: string) => values[name] as string | undefined;
  if (values['in-memory'] === true && s('data-dir') !== undefined)
    throw new FlagError('--in-memory and --data-dir cannot be combined');
  if (values['no-mining'] === true && s('block-time') !== undefined)
    throw new FlagError('--no-mining and --block-time cannot be combined');
  const hardfork = s('hardfork');
  if (hardfork !== undefined && !SUPPORTED_HARDFORKS.includes(hardfork)) {
    throw new FlagError(`--hardfork must be one of ${SUPPORTED_HARDFORKS.join(', ')}; got "${hardfork}"`);
  }
  const blockTime = s('block-time');
  let mining: MiningMode = { mode: 'auto' };
  if (values['no-mining'] === true) mining = { mode: 'manual' };
  if (blockTime !== undefined) {
    const seconds = Number(blockTime);
    if (!Number.isFinite(seconds) || seconds <= 0)
      throw new FlagError(`--block-time must be a positive number of seconds; got "${blockTime}"`);
    mining = { mode: 'interval', intervalMs: Math.round(seconds * 1000) };
  } else if (s('import') !== undefined) mining = { mode: 'manual' };
  const apiKeys = [...((values['api-key'] as string[] | undefined) ?? [])];
  const keysFile = s('api-keys');
  if (keysFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(keysFile, 'utf8');
    } catch (e) {
      throw new FlagError(`--api-keys ${keysFile}: ${(e as Error).message}`);
    }
    apiKeys.push(
      ...text
        .split(/\r?\n/)
        .map((l) => l.replace(/#.*/, '').trim())
        .filter((l) => l !== ''),
    );
  }
  for (const k of apiKeys) {
    if (!/^[A-Za-z0-9_.~-]+$/.test(k)) throw new FlagError('API keys may contain only letters, digits and _ . ~ -');
  }
  const accounts = int('accounts', s('accounts'), 0);
  const tracer = (s('tracer') ?? 'osaka') as TracerProfileName;
  if (!TRACER_PROFILES.includes(tracer))
    throw new FlagError(`--tracer must be one of ${TRACER_PROFILES.join(', ')}; got "${tracer}"`);
  const limitsFile = s('limits') ?? DEFAULT_LIMITS[tracer];
  const dataDir = values['in-memory'] === true ? undefined : resolve(s('data-dir') ?? '.l2devnet');
  const genesisFile = s('genesis');
  const chain: ChainOptions = {
    chainId: big('chain-id', s('chain-id')),
    hardfork,
    gasLimit: big('gas-limit', s('gas-limit')),
    mnemonic: s('mnemonic'),
    accounts,
    balance: ether(s('balance')),
    genesis: genesisFile === undefined ? undefined : readJson(genesisFile, 'genesis'),
    dataDir,
    mining,
    finalizedDepth: big('finality-depth', s('finality-depth')),
    safeDepth: big('safe-depth', s('safe-depth')),
    logQueryTimeoutMs: int('log-query-timeout-ms', s('log-query-timeout-ms'), 1),
    lineLimits: LineLimits.fromFile(limitsFile, tracer),
    tracer,
    rpcLineCheck: values['no-rpc-line-check'] !== true,
    rpcEvmTimeoutMs: duration('rpc-evm-timeout', s('rpc-evm-timeout')),
  };
  const mnemonic = chain.mnemonic;
  if (mnemonic !== undefined && mnemonic.trim().split(/\s+/).length % 3 !== 0) {
    throw new FlagError('--mnemonic must be a BIP-39 phrase of 12, 15, 18, 21 or 24 words');
  }
  const port = int('port', s('port'), 0) ?? 8545;
  if (port > 65535) throw new FlagError(`--port must be at most 65535; got ${port}`);
  return {
    chain,
    dataDir,
    limitsFile,
    host: s('host') ?? '127.0.0.1',
    port,
    apiKeys,
    dailyCredits: int('daily-credits', s('daily-credits'), 0),
    maxBodyBytes: int('max-body-bytes', s('max-body-bytes'), 1),
    maxBatch: int('max-batch', s('max-batch'), 1),
    requireCallFrom: values['call-from-optional'] !== true,
    verbosity: ((values.verbose as boolean[] | undefined) ?? []).length,
    artifacts: (values.artifacts as string[] | undefined) ?? [],
    importFile: s('import'),
    importHead: big('head', s('head')),
    help: values.help === true,
    version: values.version === true,
  };
}
