/**
 * The l2devnet library: `createDevnet(options)` starts the chain in this process and gives an
 * EIP-1193 provider over it (ethers' BrowserProvider, viem's `custom` transport and web3.js take it
 * as it is), optionally the HTTP + WebSocket server too. Options are the command's flags as typed
 * fields; the state is kept in memory unless `dataDir` is given.
 *
 * Every type this file exports is declared here in plain TypeScript, so the package's .d.ts stands
 * alone: it names no workspace package and no ethereumjs type.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import {
  Chain,
  DEFAULT_LIMITS,
  LineLimits,
  parseDuration,
  parseEther,
  SUPPORTED_HARDFORKS,
  TRACER_PROFILES,
} from '@l2devnet/core';
import type { ChainOptions, MiningMode } from '@l2devnet/core';
import { createProvider, createRpc } from '@l2devnet/rpc';

export interface DevnetOptions {
  /** Chain id (default 31337); ignored when `genesis` gives one. `--chain-id` */
  chainId?: number | bigint;
  /** Hardfork (default osaka). `--hardfork` */
  hardfork?: string;
  /** Block gas limit (default 30,000,000). `--gas-limit` */
  gasLimit?: number | bigint;
  /** BIP-39 mnemonic of the dev accounts (default `test test … junk`). `--mnemonic` */
  mnemonic?: string;
  /** Number of dev accounts (default 10). `--accounts` */
  accounts?: number;
  /** Balance of each dev account in ETH, like the flag: 10000, '0.5' (default 10000). `--balance` */
  balance?: number | bigint | string;
  /** A geth-style genesis.json: its path, or the parsed object. `--genesis` */
  genesis?: string | object;
  /** Database directory; without it everything stays in memory (the command's `--in-memory`). `--data-dir` */
  dataDir?: string;
  /** `false` mines only on request (evm_mine); default automine, one block per transaction. `--no-mining` */
  mining?: boolean;
  /** Mine every `blockTime` seconds instead of automining. `--block-time` */
  blockTime?: number;
  /** `finalized` is this many blocks behind `latest` (default 64). `--finality-depth` */
  finalityDepth?: number;
  /** `safe` is this many blocks behind `latest` (default 32). `--safe-depth` */
  safeDepth?: number;
  /** Per-module line limits file, TOML (default: the tracer's default limits the package ships). `--limits` */
  limits?: string;
  /** Which Linea tracer the line counter follows: 'osaka' (default) or 'london'. `--tracer` */
  tracer?: 'osaka' | 'london';
  /** `false` stops refusing overflowing transactions at submission (default true). `--no-rpc-line-check` */
  rpcLineCheck?: boolean;
  /** Time limit of eth_call, eth_estimateGas, eth_createAccessList: milliseconds, or '5s', '500ms', '2m'; 0 for none (default 5 s). `--rpc-evm-timeout` */
  rpcEvmTimeout?: number | string;
  /** eth_getLogs time limit in milliseconds (default 10000). `--log-query-timeout-ms` */
  logQueryTimeoutMs?: number;
  /** Also serve HTTP and WebSocket: `true` on 127.0.0.1 and a free port, or where given. Off by default. */
  listen?: boolean | { host?: string; port?: number };
  /** With `listen`: accept only these API keys (/v3/<KEY>, /ws/v3/<KEY>). `--api-key` */
  apiKeys?: string[];
  /** With `listen`: credits each key may spend per UTC day (default unlimited). `--daily-credits` */
  dailyCredits?: number;
  /** With `listen`: largest HTTP body in bytes. `--max-body-bytes` */
  maxBodyBytes?: number;
  /** With `listen`: most requests in one batch. `--max-batch` */
  maxBatch?: number;
  /** Where the server's log lines and mining errors go (default: stderr). */
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
  /** evm_snapshot: an id for `revertTo`. */
  snapshot(): Promise<bigint>;
  /** evm_revert: false when the id is unknown or used up. */
  revertTo(id: bigint): Promise<boolean>;
}

export interface Devnet {
  provider: DevnetProvider;
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

function optionError(name: string, rule: string, value: unknown): DevnetOptionError {
  return new DevnetOptionError(`createDevnet: option ${name} ${rule}; got ${JSON.stringify(String(value))}`);
}

function integer(name: string, value: number | bigint | undefined, min = 0): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw optionError(name, 'must be an integer', value);
  if (BigInt(value) < BigInt(min)) throw optionError(name, `must be at least ${min}`, value);
  return BigInt(value);
}

/** ETH (number, decimal string or whole bigint) to wei, as the command's --balance. */
function ether(value: number | bigint | string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'bigint') return integer('balance', value)! * 10n ** 18n;
  const wei = parseEther(String(value));
  if (wei === undefined) throw optionError('balance', 'must be an amount of ETH like 10000 or "0.5"', value);
  return wei;
}

function milliseconds(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return Number(integer('rpcEvmTimeout', value));
  const ms = parseDuration(value, false);
  if (ms === undefined)
    throw optionError('rpcEvmTimeout', 'must be milliseconds or a duration like 5s, 500ms or 2m', value);
  return ms;
}

function miningMode(opts: DevnetOptions): MiningMode {
  if (opts.blockTime !== undefined) {
    if (opts.mining === false)
      throw new DevnetOptionError('createDevnet: options mining: false and blockTime exclude each other');
    if (!(opts.blockTime > 0)) throw optionError('blockTime', 'must be a positive number of seconds', opts.blockTime);
    return { mode: 'interval', intervalMs: Math.round(opts.blockTime * 1000) };
  }
  return opts.mining === false ? { mode: 'manual' } : { mode: 'auto' };
}

function chainOptions(opts: DevnetOptions): ChainOptions {
  const tracer = opts.tracer ?? 'osaka';
  if (!TRACER_PROFILES.includes(tracer))
    throw optionError('tracer', `must be one of ${TRACER_PROFILES.join(', ')}`, tracer);
  if (opts.hardfork !== undefined && !SUPPORTED_HARDFORKS.includes(opts.hardfork)) {
    throw optionError('hardfork', `must be one of ${SUPPORTED_HARDFORKS.join(', ')}`, opts.hardfork);
  }
  let genesis = opts.genesis;
  if (typeof genesis === 'string') {
    try {
      genesis = JSON.parse(readFileSync(genesis, 'utf8')) as object;
    } catch (e) {
      throw new DevnetOptionError(`createDevnet: option genesis ${genesis}: ${(e as Error).message}`);
    }
  }
  return {
    chainId: integer('chainId', opts.chainId, 1),
    hardfork: opts.hardfork,
    gasLimit: integer('gasLimit', opts.gasLimit, 1),
    mnemonic: opts.mnemonic,
    accounts: opts.accounts === undefined ? undefined : Number(integer('accounts', opts.accounts)),
    balance: ether(opts.balance),
    genesis,
    dataDir: opts.dataDir === undefined ? undefined : resolve(opts.dataDir),
    mining: miningMode(opts),
    finalizedDepth: integer('finalityDepth', opts.finalityDepth),
    safeDepth: integer('safeDepth', opts.safeDepth),
    logQueryTimeoutMs:
      opts.logQueryTimeoutMs === undefined
        ? undefined
        : Number(integer('logQueryTimeoutMs', opts.logQueryTimeoutMs, 1)),
    lineLimits: LineLimits.fromFile(opts.limits ?? DEFAULT_LIMITS[tracer], tracer),
    tracer,
    rpcLineCheck: opts.rpcLineCheck !== false,
    rpcEvmTimeoutMs: milliseconds(opts.rpcEvmTimeout),
  };
}

/** Starts a devnet in this process; see DevnetOptions for what each option does. */
export async function createDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const options = chainOptions(opts);
  for (const warning of options.lineLimits?.warnings ?? []) log(`warning: ${warning}`);
  const chain = await Chain.create(options);
  // An interval block that fails to build is reported through `log`, as the command does.
  chain.on('error', (e) => log(`mining error: ${e.stack ?? e.message}`));
  // The spec's rule that eth_call needs `from` holds on the hosted-API paths (/v3/<KEY>) only: the
  // provider, `/` and `/ws` let a call without it run from the zero address.
  const rpc = createRpc(chain);
  let server: { url: string; wsUrl: string; close(): Promise<void> } | undefined;
  try {
    if (opts.listen !== undefined && opts.listen !== false) {
      const where = opts.listen === true ? {} : opts.listen;
      // Loaded only when asked, so an in-process devnet never loads the native HTTP server.
      const { CreditLedger, startServer } = await import('@l2devnet/server');
      server = await startServer(rpc, {
        host: where.host ?? '127.0.0.1',
        port: where.port ?? 0,
        apiKeys: opts.apiKeys,
        ledger: await CreditLedger.open(chain.kv, opts.dailyCredits),
        maxBodyBytes: opts.maxBodyBytes,
        maxBatch: opts.maxBatch,
        health: () => ({
          blockNumber: `0x${chain.headNumber.toString(16)}`,
          chainId: `0x${chain.chainId.toString(16)}`,
        }),
        log,
      });
    }
  } catch (e) {
    rpc.close();
    await chain.close();
    throw e;
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await server?.close();
      rpc.close();
      await chain.close();
    })();
    return closing;
  };
  return {
    provider: createProvider(rpc),
    url: server?.url,
    wsUrl: server?.wsUrl,
    accounts: chain.accounts.map((a) => ({
      address: toChecksumAddress(bytesToHex(a.address)) as `0x${string}`,
      privateKey: bytesToHex(a.privateKey),
    })),
    chain,
    close,
    [asyncDispose]: close,
  };
}

/** An error `request` rejects with: JSON-RPC `code`, `message` and optional `data`. */
export interface DevnetRpcError extends Error {
  code: number;
  data?: string;
}
