/**
 * `l2devnet lines SCENARIO --snapshot FILE [--check] [--tolerance PERCENT]`: a line-count snapshot
 * for CI, as `forge snapshot` is for gas. The scenario names calls and transactions; each runs on a
 * fresh in-memory chain and its prover line counts per module are recorded in FILE, or, with
 * `--check`, compared with FILE: a module that grew past the tolerance (or a name the snapshot
 * lacks) fails the check with a diff table.
 *
 * A scenario is JSON — `{ "steps": [ { "name", "send" | "call", "as"? } ] }`, where `send` and
 * `call` are eth_sendTransaction / eth_call objects, `from` may be a dev account's index, and a
 * `to` of "$alias" names the contract a step created (`"as": "alias"`) — or a CommonJS module
 * exporting `async ({ send, call, accounts, provider }) => { ... }`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { COUNTERS, Chain, DEFAULT_LIMITS, LineLimits, TRACER_PROFILES, counterRefusal } from '@l2devnet/core';
import type { CallResult, CounterName, LineCounts, TracerProfileName } from '@l2devnet/core';
import { createProvider, createRpc, params, RemoteNode, replayRemoteTransaction } from '@l2devnet/rpc';
import type { Eip1193Provider, ReplaySettings } from '@l2devnet/rpc';

import { FlagError, parseCommandArgs } from './flags';
import { defaultForkCache } from './options';
import { rpc } from './rpcClient';

export const LINES_HELP = `Usage: l2devnet lines SCENARIO --snapshot FILE [--check] [--tolerance PERCENT]
       l2devnet lines TXHASH [--rpc URL]
       l2devnet lines TXHASH --fork-url URL [--limits FILE] [--tracer NAME] [--counter NAME]

With a transaction hash: asks a node (--rpc, default http://127.0.0.1:8545) for the lines that mined
transaction added to its block (l2_traceLineCounts) and prints each module's count against its limit,
with a bar on a terminal, the first module over its limit and the module that binds.

With --fork-url: the transaction is any node's (a Linea mainnet node's, say). Its block is run again
here on a fork of its parent block, with the block's transactions before it, under the block's
coinbase, base fee, gas limit and time; its counts are printed against --limits (default the
tracer's default limits): would this transaction overflow at these limits? The fork's state is
cached as the node's is (--fork-cache, --no-fork-cache).

Runs the named calls and transactions of SCENARIO (JSON, or a CommonJS module) on a fresh in-memory
chain and records each one's prover line counts per module in FILE. With --check, compares them with
FILE instead: a module that grew by more than PERCENT (default 0), or a name FILE lacks, fails.

  --snapshot FILE           the snapshot file (JSON)
  --check                   compare with FILE instead of writing it; exit 1 on a failure
  --tolerance PERCENT       growth allowed before --check fails (default 0)
  --hardfork NAME           hardfork of the chain the scenario runs on (default: the node's)
  --tracer NAME             the Linea tracer to count with: osaka (default) or london
  --counter NAME            the line counter: tracer (ZkTracer, default) or limitless (ZkCounter, osaka only)
  --rpc URL                 the node to ask about TXHASH (default http://127.0.0.1:8545)
  --fork-url URL            run TXHASH again on a fork of this node's chain instead
  --limits FILE             with --fork-url: the line limits to count against
  --fork-cache DIR          with --fork-url: where the fork's state is kept (default ~/.cache/l2devnet/fork)
  --no-fork-cache           with --fork-url: keep it in memory only
`;

interface LineReport {
  tracer: string;
  blockNumber: string;
  modules: Record<string, { count: number; limit: number | null; exact: boolean }>;
  overflow: { module: string; count: number; limit: number } | null;
  binding: string | null;
}

const BAR = 30;

/** A line-count report as a table: modules with lines, a bar against the limit when `bars`. */
export function formatLineReport(hash: string, report: LineReport, bars: boolean): string {
  const rows = Object.entries(report.modules).filter(([, m]) => m.count > 0);
  const width = Math.max(6, ...rows.map(([name]) => name.length));
  const lines = [
    `transaction ${hash}, block ${BigInt(report.blockNumber)}, tracer ${report.tracer}`,
    `${'module'.padEnd(width)}  ${'count'.padStart(10)}  ${'limit'.padStart(10)}    use`,
  ];
  for (const [name, m] of rows) {
    const share = m.limit === null ? undefined : m.limit === 0 ? Infinity : m.count / m.limit;
    const use = share === undefined ? '' : share === Infinity ? 'over' : `${(share * 100).toFixed(1)}%`;
    const bar = bars && share !== undefined ? `  ${'█'.repeat(Math.min(BAR, Math.ceil(share * BAR)))}` : '';
    const mark = m.exact ? ' ' : '~';
    lines.push(
      `${name.padEnd(width)} ${mark}${String(m.count).padStart(10)}  ${String(m.limit ?? '-').padStart(10)}  ${use.padStart(7)}${bar}${share !== undefined && share > 1 ? '  over' : ''}`,
    );
  }
  lines.push('~ approximate in this profile; modules without lines are not shown');
  lines.push(
    report.overflow === null
      ? `no module over its limit; the binding one is ${report.binding ?? '-'}`
      : `first over its limit: ${report.overflow.module}=${report.overflow.count} above ${report.overflow.limit}`,
  );
  return `${lines.join('\n')}\n`;
}

/** An exclusion record (l2_getTransactionExclusionStatusV1) as lines of text. */
export function formatExclusionRecord(hash: string, r: Record<string, string>): string {
  const lines = [
    `transaction ${hash} was excluded at stage ${r.txRejectionStage}${r.blockNumber === undefined ? '' : ` in block ${BigInt(r.blockNumber)}`}, ${r.timestamp}`,
    `from ${r.from}, nonce ${BigInt(r.nonce)}`,
    `reason: ${r.reasonMessage}`,
  ];
  const over = / line count for module (\S+)=(\d+) is above the limit (\d+)/.exec(r.reasonMessage);
  if (over !== null) lines.push(`${over[1]}: ${over[2]} lines against a limit of ${over[3]}`);
  return `${lines.join('\n')}\n`;
}

async function transactionLines(hash: string, url: string, out: (text: string) => void, bars: boolean) {
  const report = (await rpc(url, 'l2_traceLineCounts', [hash])) as LineReport | null;
  if (report !== null) {
    out(formatLineReport(hash, report, bars));
    return 0;
  }
  // Not mined: excluded by its line counts, perhaps; the record says why.
  const record = (await rpc(url, 'l2_getTransactionExclusionStatusV1', [hash])) as Record<string, string> | null;
  if (record === null) throw new FlagError(`${hash} is neither a mined nor an excluded transaction on ${url}`);
  out(formatExclusionRecord(hash, record));
  return 0;
}

/** A remote transaction's lines, run again here on a fork of its block's parent (rpc's forkReplay.ts). */
async function remoteTransactionLines(
  hash: string,
  url: string,
  settings: ReplaySettings,
  out: (text: string) => void,
  bars: boolean,
): Promise<number> {
  const remote = new RemoteNode(url);
  const replay = await replayRemoteTransaction(remote, hash, settings);
  if (replay === undefined) throw new FlagError(`${hash} is not a mined transaction of ${remote.name}`);
  const where = remote.name.replace(/^the fork remote /, '');
  out(
    `run again on a fork of ${where} at block ${replay.blockNumber - 1n}, after the block's ${replay.before} transaction(s) before it\n`,
  );
  if (replay.remoteGasUsed !== undefined && replay.remoteGasUsed !== replay.gasUsed)
    out(
      `warning: it used ${replay.gasUsed} gas here and ${replay.remoteGasUsed} there: the block's context differs (PREVRANDAO, the fork's rules)\n`,
    );
  out(formatLineReport(hash, replay.report as LineReport, bars));
  return 0;
}

/** Module counts per step name, as the snapshot file holds them (zero counts left out). */
export type Snapshot = Record<string, Record<string, number>>;

type Request = Record<string, unknown>;

/** What a JavaScript scenario is given. */
export interface ScenarioApi {
  /** Sends a transaction, mines it, records its counts under `name`; its hash and created contract. */
  send(name: string, tx: Request): Promise<{ hash: string; contractAddress: string | null }>;
  /** Runs a call on the head state and records its counts under `name`; its return data. */
  call(name: string, req: Request): Promise<string>;
  accounts: string[];
  provider: Eip1193Provider;
}

interface JsonStep {
  name: string;
  send?: Request;
  call?: Request;
  as?: string;
}

/** Runs a scenario; returns each step's counts. */
export async function runScenario(
  file: string,
  hardfork?: string,
  tracer?: TracerProfileName,
  counter?: CounterName,
): Promise<Snapshot> {
  const chain = await Chain.create({ mining: { mode: 'manual' }, hardfork, tracer, counter });
  const provider = createProvider(createRpc(chain, { requireCallFrom: false }));
  const accounts = chain.accounts.map((a) => bytesToHex(a.address));
  const snapshot: Snapshot = {};
  const record = (name: string, counts: LineCounts | undefined) => {
    if (snapshot[name] !== undefined) throw new FlagError(`scenario ${file}: the name "${name}" is used twice`);
    if (counts === undefined) throw new FlagError(`scenario ${file}: "${name}" could not run on the chain`);
    snapshot[name] = Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
  };
  const request = async (name: string, method: string, args: unknown[]): Promise<unknown> => {
    try {
      return await provider.request({ method, params: args });
    } catch (e) {
      throw new FlagError(`scenario ${file}: "${name}": ${(e as Error).message}`);
    }
  };
  const withFrom = (req: Request): Request => ({
    ...req,
    from: typeof req.from === 'number' ? accounts[req.from] : (req.from ?? accounts[0]),
  });
  const api: ScenarioApi = {
    accounts,
    provider,
    async send(name, tx) {
      // Into the pool, counted on the head state as the next block's only transaction, then mined.
      const hash = (await request(name, 'eth_sendTransaction', [withFrom(tx)])) as string;
      const pooled = chain.reads.pooled(hexToBytes(hash as `0x${string}`));
      record(name, pooled === undefined ? undefined : await chain.lines.transactionLineCounts(pooled.tx));
      await chain.mine();
      const receipt = (await request(name, 'eth_getTransactionReceipt', [hash])) as {
        status: string;
        contractAddress: string | null;
      };
      if (receipt.status !== '0x1') throw new FlagError(`scenario ${file}: the transaction "${name}" reverted`);
      return { hash, contractAddress: receipt.contractAddress };
    },
    async call(name, req) {
      let result: CallResult;
      try {
        const parsed = params.callObject()(withFrom(req), { position: 1, name: 'call' });
        result = await chain.calls.call(parsed, chain.headNumber, { countLines: true });
      } catch (e) {
        throw new FlagError(`scenario ${file}: "${name}": ${(e as Error).message}`);
      }
      record(name, result.lineCounts);
      return bytesToHex(result.returnValue);
    },
  };
  try {
    if (/\.[cm]?js$/.test(file)) {
      const run = require(resolve(file)) as ((api: ScenarioApi) => Promise<void>) | { default: never };
      await (typeof run === 'function' ? run : run.default)(api);
    } else {
      await runJsonScenario(file, api);
    }
  } finally {
    await chain.close();
  }
  return snapshot;
}

async function runJsonScenario(file: string, api: ScenarioApi): Promise<void> {
  let scenario: { steps?: JsonStep[] };
  try {
    scenario = JSON.parse(readFileSync(file, 'utf8')) as { steps?: JsonStep[] };
  } catch (e) {
    throw new FlagError(`scenario ${file}: ${(e as Error).message}`);
  }
  if (!Array.isArray(scenario.steps)) throw new FlagError(`scenario ${file}: expected { "steps": [ ... ] }`);
  const aliases = new Map<string, string>();
  const resolveTo = (req: Request): Request => {
    if (typeof req.to !== 'string' || !req.to.startsWith('$')) return req;
    const to = aliases.get(req.to.slice(1));
    if (to === undefined) throw new FlagError(`scenario ${file}: no step created "${req.to}"`);
    return { ...req, to };
  };
  for (const step of scenario.steps) {
    if (typeof step.name !== 'string' || (step.send === undefined) === (step.call === undefined)) {
      throw new FlagError(`scenario ${file}: each step needs a "name" and one of "send" or "call"`);
    }
    if (step.send !== undefined) {
      const { contractAddress } = await api.send(step.name, resolveTo(step.send));
      if (step.as !== undefined && contractAddress !== null) aliases.set(step.as, contractAddress);
    } else {
      await api.call(step.name, resolveTo(step.call as Request));
    }
  }
}

/** A row of the check: one module of one name that changed. */
export interface LineDiff {
  name: string;
  module: string;
  before: number | undefined;
  now: number;
  fails: boolean;
}

/** What changed between a snapshot and a new run; a module that grew past `tolerance` % fails. */
export function compareSnapshots(before: Snapshot, now: Snapshot, tolerance: number): LineDiff[] {
  const rows: LineDiff[] = [];
  for (const [name, counts] of Object.entries(now)) {
    const old = before[name];
    const modules = new Set([...Object.keys(counts), ...Object.keys(old ?? {})]);
    for (const module of [...modules].sort()) {
      const was = old === undefined ? undefined : (old[module] ?? 0);
      const is = counts[module] ?? 0;
      if (was === is) continue;
      const fails = was === undefined || is > was * (1 + tolerance / 100);
      rows.push({ name, module, before: was, now: is, fails });
    }
  }
  return rows;
}

export function formatDiff(rows: LineDiff[]): string {
  const table = [['name', 'module', 'snapshot', 'now', 'change', '']];
  for (const r of rows) {
    const change =
      r.before === undefined
        ? 'new'
        : r.before === 0
          ? '+∞'
          : `${r.now >= r.before ? '+' : ''}${((100 * (r.now - r.before)) / r.before).toFixed(1)}%`;
    table.push([
      r.name,
      r.module,
      r.before === undefined ? '-' : String(r.before),
      String(r.now),
      change,
      r.fails ? 'FAIL' : '',
    ]);
  }
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  return table
    .map((row) =>
      row
        .map((cell, i) => (i >= 2 && i <= 4 ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function serialize(snapshot: Snapshot): string {
  const sorted: Snapshot = {};
  for (const name of Object.keys(snapshot).sort()) {
    sorted[name] = Object.fromEntries(Object.entries(snapshot[name]).sort(([a], [b]) => (a < b ? -1 : 1)));
  }
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

/** The `lines` subcommand; returns the exit code. */
export async function linesCommand(argv: string[], out: (text: string) => void, terminal = false): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    rpc: { type: 'string' },
    'fork-url': { type: 'string' },
    'fork-cache': { type: 'string' },
    'no-fork-cache': { type: 'boolean' },
    limits: { type: 'string' },
    snapshot: { type: 'string' },
    check: { type: 'boolean' },
    tolerance: { type: 'string' },
    hardfork: { type: 'string' },
    tracer: { type: 'string' },
    counter: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    out(LINES_HELP);
    return 0;
  }
  const [first] = positionals;
  if (positionals.length === 1 && /^0x[0-9a-fA-F]*$/.test(first) && !/^0x[0-9a-fA-F]{64}$/.test(first))
    throw new FlagError(
      `${first} is not a transaction hash: a hash is 0x and 64 hex digits (${first.length - 2} given)`,
    );
  const tracerOption = values.tracer as TracerProfileName | undefined;
  if (tracerOption !== undefined && !TRACER_PROFILES.includes(tracerOption))
    throw new FlagError(`--tracer must be one of ${TRACER_PROFILES.join(', ')}; got "${tracerOption}"`);
  const forkUrl = values['fork-url'] as string | undefined;
  if (positionals.length === 1 && /^0x[0-9a-fA-F]{64}$/.test(first) && forkUrl !== undefined) {
    const counter = values.counter as CounterName | undefined;
    if (counter !== undefined && !COUNTERS.includes(counter))
      throw new FlagError(`--counter must be one of ${COUNTERS.join(', ')}; got "${counter}"`);
    const tracer = tracerOption ?? 'osaka';
    const limitsFile = (values.limits as string | undefined) ?? DEFAULT_LIMITS[tracer];
    let limits: LineLimits;
    try {
      limits = LineLimits.fromFile(limitsFile, tracer, counter);
    } catch (e) {
      throw new FlagError(`--limits ${limitsFile}: ${(e as Error).message}`);
    }
    const cacheDir =
      values['no-fork-cache'] === true
        ? undefined
        : resolve((values['fork-cache'] as string | undefined) ?? defaultForkCache());
    const hardfork = values.hardfork as string | undefined;
    return remoteTransactionLines(first, forkUrl, { limits, tracer, counter, hardfork, cacheDir }, out, terminal);
  }
  if (positionals.length === 1 && /^0x[0-9a-fA-F]{64}$/.test(first))
    return transactionLines(
      positionals[0],
      (values.rpc as string | undefined) ?? 'http://127.0.0.1:8545',
      out,
      terminal,
    );
  const snapshotFile = values.snapshot as string | undefined;
  if (positionals.length !== 1 || snapshotFile === undefined)
    throw new FlagError('lines needs a scenario file and --snapshot FILE');
  const tolerance = Number(values.tolerance ?? '0');
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new FlagError(`--tolerance must be a percentage of at least 0; got "${String(values.tolerance)}"`);
  const tracer = tracerOption;
  const counter = values.counter as CounterName | undefined;
  if (counter !== undefined && !COUNTERS.includes(counter))
    throw new FlagError(`--counter must be one of ${COUNTERS.join(', ')}; got "${counter}"`);
  const refusal = counterRefusal(tracer ?? 'osaka', counter ?? 'tracer');
  if (refusal !== undefined) throw new FlagError(`--counter ${refusal}`);
  const now = await runScenario(positionals[0], values.hardfork as string | undefined, tracer, counter);
  if (values.check !== true) {
    writeFileSync(snapshotFile, serialize(now));
    out(`wrote the line counts of ${Object.keys(now).length} calls and transactions to ${snapshotFile}\n`);
    return 0;
  }
  if (!existsSync(snapshotFile))
    throw new FlagError(`--check: no snapshot at ${snapshotFile}; run without --check first`);
  let before: Snapshot;
  try {
    before = JSON.parse(readFileSync(snapshotFile, 'utf8')) as Snapshot;
  } catch (e) {
    throw new FlagError(`--snapshot ${snapshotFile}: ${(e as Error).message}`);
  }
  const rows = compareSnapshots(before, now, tolerance);
  const failures = rows.filter((r) => r.fails).length;
  if (rows.length > 0) out(`${formatDiff(rows)}\n`);
  out(
    failures === 0
      ? `line counts match ${snapshotFile} (${Object.keys(now).length} entries, tolerance ${tolerance}%)\n`
      : `${failures} module count(s) grew past the tolerance of ${tolerance}% (snapshot ${snapshotFile})\n`,
  );
  return failures === 0 ? 0 : 1;
}
