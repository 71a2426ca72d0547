/**
 * What the node prints of its blocks, as Anvil and Foundry print them: each mined transaction (its
 * hash, the contract it created, its gas, an error) and its block, its contracts' console.log output
 * and its call tree, decoded with the ABIs found in `--artifacts DIR` (Foundry's out/ or Hardhat's
 * artifacts/), selectors otherwise; for an excluded transaction the module, count and limit, and the
 * call frame most of that module's lines came from.
 *
 *   (default)  each transaction and its block, as Anvil prints them; exclusions
 *   -vv        and what the contracts logged with console.log (unless --disable-console-log)
 *   -vvv       and the call tree of transactions that failed
 *   -vvvv      and the call tree of every transaction
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { bytesToHex, hexToBytes, toChecksumAddress } from '@ethereumjs/util';
import type { Chain, ExclusionRecord, LineFrame, LineOverflow, Receipt } from '@l2devnet/core';
import { formatCallFrame } from '@l2devnet/rpc';
import type { RpcCallFrame as CallFrame } from '@l2devnet/rpc';
import type { Block } from '@ethereumjs/block';
import type * as Viem from 'viem' with { 'resolution-mode': 'import' };

import { FlagError } from './flags';

// viem is an ES module that also ships a CommonJS build, which this CommonJS package loads, on
// first use: a node started without -v never pays for it.
let viemModule: typeof Viem | undefined;
const viem = (): typeof Viem => (viemModule ??= require('viem') as typeof Viem);
type Abi = Viem.Abi;
type AbiFunction = Viem.AbiFunction;
type AbiParameter = Viem.AbiParameter;

/** The address Hardhat's and Foundry's console library calls. */
const CONSOLE = '0x000000000000000000636f6e736f6c652e6c6f67';

/** What the artifacts tell about calls, events, errors and deployed code. */
export class Decoder {
  private readonly functions = new Map<string, Abi>();
  private readonly events: Abi = [];
  private readonly codes = new Map<string, string>();
  private readonly console = new Map<string, readonly AbiParameter[]>();

  constructor(dirs: string[] = []) {
    for (const dir of dirs) this.load(dir);
    for (const params of consoleSignatures()) {
      const signature = `log(${params.join(',')})`;
      this.console.set(
        viem().toFunctionSelector(signature),
        params.map((type) => ({ type: type === 'uint' ? 'uint256' : type === 'int' ? 'int256' : type })),
      );
    }
  }

  private load(dir: string): void {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (e) {
      throw new FlagError(`--artifacts ${dir}: ${(e as Error).message}`);
    }
    for (const name of entries) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'build-info' && name !== 'node_modules') this.load(path);
        continue;
      }
      if (!name.endsWith('.json') || name.endsWith('.dbg.json')) continue;
      let artifact: { abi?: unknown; contractName?: string; deployedBytecode?: unknown };
      try {
        artifact = JSON.parse(readFileSync(path, 'utf8')) as typeof artifact;
      } catch {
        continue;
      }
      if (!Array.isArray(artifact.abi)) continue;
      const abi = artifact.abi as Abi;
      const contract = artifact.contractName ?? name.replace(/\.json$/, '');
      for (const item of abi) {
        if (item.type === 'function' || item.type === 'error') {
          const selector = viem().toFunctionSelector(item as AbiFunction);
          if (!this.functions.has(selector)) this.functions.set(selector, [item]);
        } else if (item.type === 'event') (this.events as unknown[]).push(item);
      }
      const deployed = artifact.deployedBytecode;
      const code = typeof deployed === 'string' ? deployed : (deployed as { object?: string } | undefined)?.object;
      if (typeof code === 'string' && code.length > 2)
        this.codes.set((code.startsWith('0x') ? code : `0x${code}`).toLowerCase(), contract);
    }
  }

  /** A contract's name from its deployed code, when an artifact has that code. */
  contractOf(code: string): string | undefined {
    return this.codes.get(code.toLowerCase());
  }

  call(input: string): string {
    if (input === '0x') return 'fallback()';
    const abi = this.functions.get(input.slice(0, 10));
    if (abi !== undefined) {
      try {
        const { functionName, args } = viem().decodeFunctionData({ abi, data: input as `0x${string}` });
        return `${functionName}(${(args ?? []).map(show).join(', ')})`;
      } catch {
        // Arguments that do not decode are shown raw.
      }
    }
    return `${input.slice(0, 10)}(${input.slice(10)})`;
  }

  result(input: string, output: string): string {
    const abi = this.functions.get(input.slice(0, 10));
    if (abi !== undefined && output !== '0x') {
      try {
        const name = (abi[0] as AbiFunction).name;
        const value = viem().decodeFunctionResult({ abi, functionName: name, data: output as `0x${string}` });
        return show(value);
      } catch {
        // Shown raw below.
      }
    }
    return output;
  }

  event(log: { topics: string[]; data: string }): string {
    try {
      const { eventName, args } = viem().decodeEventLog({
        abi: this.events,
        topics: log.topics as [`0x${string}`],
        data: log.data as `0x${string}`,
      });
      const shown = Array.isArray(args)
        ? args.map(show)
        : Object.entries(args ?? {}).map(([k, v]) => `${k}: ${show(v)}`);
      return `emit ${eventName}(${shown.join(', ')})`;
    } catch {
      return `emit topics: [${log.topics.join(', ')}] data: ${log.data}`;
    }
  }

  /** A console.log call's arguments, joined as the library prints them. */
  consoleLog(input: string): string | undefined {
    const params = this.console.get(input.slice(0, 10));
    if (params === undefined) return undefined;
    try {
      const values = viem().decodeAbiParameters(params, `0x${input.slice(10)}`);
      return values.map((v) => (typeof v === 'string' ? v : show(v))).join(' ');
    } catch {
      return undefined;
    }
  }
}

/** Every console.log overload of Hardhat's and Foundry's console library (and the old `uint`). */
function consoleSignatures(): string[][] {
  const base = ['uint256', 'string', 'bool', 'address'];
  const out: string[][] = [[]];
  for (const t of ['uint256', 'int256', 'string', 'bool', 'address', 'bytes', 'uint', 'int']) out.push([t]);
  for (let n = 1; n <= 32; n++) out.push([`bytes${n}`]);
  const combos = (length: number, types: string[]): string[][] =>
    length === 0 ? [[]] : combos(length - 1, types).flatMap((rest) => types.map((t) => [...rest, t]));
  for (const length of [2, 3, 4]) {
    out.push(...combos(length, base));
    out.push(...combos(length, ['uint', 'string', 'bool', 'address']));
  }
  return out;
}

function show(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return value.startsWith('0x') ? value : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${k}: ${show(v)}`)
      .join(', ')} }`;
  return String(value);
}

export interface TracePrinterOptions {
  level: number;
  /** Print console.log output from level 2 (--disable-console-log: never). */
  consoleLog: boolean;
  /** The decoder (viem and the artifacts): asked for only when a trace is printed. */
  decoder: () => Decoder;
  write(text: string): void;
}

/** A block's time as Anvil prints it (RFC 2822, UTC): "Sat, 28 Nov 2026 04:06:56 +0000". */
function blockTime(seconds: bigint): string {
  return new Date(Number(seconds) * 1000).toUTCString().replace(/ GMT$/, ' +0000');
}

/** Prints every block's transactions at the level asked for, and every exclusion. */
export function printTraces(chain: Chain, opts: TracePrinterOptions): void {
  // Printed in order, one block after another, whatever the time each trace takes.
  let queue = Promise.resolve();
  const enqueue = (job: () => Promise<void>) => {
    queue = queue.then(job).catch((e: unknown) => opts.write(`trace printing failed: ${(e as Error).message}\n`));
  };
  // Nothing is replayed for printing while logging is off (anvil_setLoggingEnabled, --silent).
  chain.on('block', (block: Block, receipts: Receipt[]) => {
    if (chain.dev.loggingEnabled) enqueue(() => printBlock(chain, block, receipts, opts));
  });
  chain.on('excluded', (record: ExclusionRecord) => {
    if (chain.dev.loggingEnabled) enqueue(() => printExclusion(chain, record, opts));
  });
  // Linea's selector logs the same words (TraceLineLimitTransactionSelector.java).
  chain.on('blockFull', (n: bigint, o: LineOverflow) => {
    if (chain.dev.loggingEnabled)
      enqueue(async () =>
        opts.write(
          `Block ${n}: Cumulated line count for module ${o.module}=${o.count} is above the limit ${o.limit}, stopping selection\n`,
        ),
      );
  });
}

async function printBlock(chain: Chain, block: Block, receipts: Receipt[], opts: TracePrinterOptions) {
  // One replay of the block traces every transaction in it.
  const traces =
    ((opts.level >= 2 && opts.consoleLog) || opts.level >= 3) && block.transactions.length > 0
      ? ((await chain.traces.traceBlock(block.header.number, {
          tracer: 'callTracer',
          tracerConfig: { withLog: true },
        })) ?? [])
      : [];
  if (block.transactions.length === 0) return;
  const lines: string[] = [];
  for (const [i, tx] of block.transactions.entries()) {
    const receipt = receipts[i];
    const ok = receipt.status === 1;
    lines.push('', `    Transaction: ${bytesToHex(tx.hash())}`);
    if (receipt.contractAddress !== undefined)
      lines.push(`    Contract created: ${toChecksumAddress(bytesToHex(receipt.contractAddress))}`);
    lines.push(`    Gas used: ${receipt.gasUsed}`);
    const traced = traces[i]?.result;
    const frame = traced?.tracer === 'callTracer' ? formatCallFrame(traced.frame) : undefined;
    if (!ok)
      lines.push(`    Error: reverted${frame?.revertReason === undefined ? '' : ` with: ${frame.revertReason}`}`);
    if (frame !== undefined) {
      const decoder = opts.decoder();
      if (opts.consoleLog) for (const text of consoleLogs(frame, decoder)) lines.push(`    console.log: ${text}`);
      if (opts.level >= 4 || (opts.level >= 3 && !ok)) {
        const names = await contractNames(chain, frame, decoder);
        lines.push(...tree(frame, decoder, names).map((line) => `    ${line}`));
      }
    }
  }
  const h = block.header;
  lines.push('', `    Block Number: ${h.number}`, `    Block Hash: ${bytesToHex(block.hash())}`);
  lines.push(`    Block Time: "${blockTime(h.timestamp)}"`, '');
  opts.write(`${lines.join('\n')}\n`);
}

async function printExclusion(chain: Chain, record: ExclusionRecord, opts: TracePrinterOptions) {
  const [overflow] = record.overflows;
  const lines = [`Transaction ${bytesToHex(record.txHash)} excluded at stage ${record.stage}: ${record.reasonMessage}`];
  if (overflow !== undefined && opts.level >= 3) {
    const traced = await chain.traces.traceRawTransaction(record.rawTx, { tracer: 'lineCountTracer' });
    const frames = traced.tracer === 'lineCountTracer' ? traced.frames : null;
    const heaviest = frames === null ? undefined : heaviestFrame(frames, overflow.module);
    if (heaviest !== undefined)
      lines.push(
        `  most ${overflow.module} lines (${heaviest.own}) came from the ${heaviest.frame.type} to ${heaviest.frame.to === undefined ? '(creation)' : bytesToHex(heaviest.frame.to)}`,
      );
  }
  opts.write(`${lines.join('\n')}\n`);
}

/** The frame whose own execution (its sub-calls' lines taken out) added the most lines to `module`. */
function heaviestFrame(root: LineFrame, module: string): { frame: LineFrame; own: number } | undefined {
  let best: { frame: LineFrame; own: number } | undefined;
  const walk = (f: LineFrame) => {
    const children = f.calls ?? [];
    const own = (f.lineCounts[module] ?? 0) - children.reduce((s, c) => s + (c.lineCounts[module] ?? 0), 0);
    if (best === undefined || own > best.own) best = { frame: f, own };
    children.forEach(walk);
  };
  walk(root);
  return best;
}

function consoleLogs(frame: CallFrame, decoder: Decoder): string[] {
  const out: string[] = [];
  const walk = (f: CallFrame) => {
    if (f.to === CONSOLE) {
      const text = decoder.consoleLog(f.input);
      if (text !== undefined) out.push(text);
    }
    f.calls?.forEach(walk);
  };
  walk(frame);
  return out;
}

async function contractNames(chain: Chain, frame: CallFrame, decoder: Decoder): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const walk = async (f: CallFrame) => {
    if (f.to !== undefined && !names.has(f.to)) {
      const code = await chain.reads.getCode(hexToBytes(f.to as `0x${string}`), chain.headNumber);
      const name = decoder.contractOf(bytesToHex(code));
      if (name !== undefined) names.set(f.to, name);
    }
    for (const c of f.calls ?? []) await walk(c);
  };
  await walk(frame);
  return names;
}

/** A call tree as Foundry prints it: `[gas] Contract::function(args)`, events, and the outcome. */
function tree(f: CallFrame, decoder: Decoder, names: Map<string, string>): string[] {
  const target = f.to === undefined ? 'unknown' : (names.get(f.to) ?? f.to);
  const kind = f.type === 'CALL' ? '' : ` [${f.type.toLowerCase()}]`;
  const head = f.type.startsWith('CREATE')
    ? `[${BigInt(f.gasUsed)}] → new ${target}`
    : f.to === CONSOLE
      ? `[${BigInt(f.gasUsed)}] console::log(${decoder.consoleLog(f.input) ?? f.input})${kind}`
      : `[${BigInt(f.gasUsed)}] ${target}::${decoder.call(f.input)}${kind}`;
  // Events and calls in the order they happened: a log's position is the number of calls before it.
  const children: string[][] = [];
  const calls = f.calls ?? [];
  const logsAt = (i: number) => (f.logs ?? []).filter((log) => Number(log.position) === i);
  for (let i = 0; i <= calls.length; i++) {
    for (const log of logsAt(i)) children.push([decoder.event(log)]);
    if (i < calls.length) children.push(tree(calls[i], decoder, names));
  }
  const outcome =
    f.error === undefined
      ? `← [Return] ${f.type.startsWith('CREATE') ? `${(f.output ?? '0x').length / 2 - 1} bytes of code` : decoder.result(f.input, f.output ?? '0x')}`
      : `← [${f.error === 'execution reverted' ? 'Revert' : f.error}] ${f.revertReason ?? f.output ?? ''}`.trimEnd();
  children.push([outcome]);
  const lines = [head];
  children.forEach((child, i) => {
    const last = i === children.length - 1;
    child.forEach((line, j) => lines.push(`${j === 0 ? (last ? '└─ ' : '├─ ') : last ? '   ' : '│  '}${line}`));
  });
  return lines;
}
