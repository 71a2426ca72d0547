/**
 * `l2devnet export FILE [--from N] [--to M] [--data-dir DIR]` and `l2devnet import FILE [start flags]`:
 * chains exchanged as geth's `export` and `import` exchange them, one block's RLP after another.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { Chain } from '@l2devnet/core';

import { FlagError, parseCommandArgs, parseFlags } from './flags';
import { FLAG_STYLE, resolveNodeOptions } from './options';

export const EXPORT_HELP = `Usage: l2devnet export FILE [--from N] [--to M] [--data-dir DIR]

Writes blocks N..M (default: all, genesis included) of the chain in DIR (default ./.l2devnet) to FILE
as geth export writes them: each block's RLP, one after another. geth import, and l2devnet import,
read it back.
`;

export const IMPORT_HELP = `Usage: l2devnet import FILE [--head N] [--data-dir DIR | --in-memory] [--genesis FILE] [other start flags]

Imports the blocks of FILE (as geth export writes them; up to block N with --head) into the chain in
DIR, started with the same flags as the node (the chain's genesis must be the one the blocks were made
on: --genesis FILE for a geth genesis). Blocks the chain has are skipped; every other block is run
under its own fork and must give the state root, receipts root, transactions root, logs bloom and gas
used its header says, and keep the header rules (time, difficulty, base fee, excess blob gas). A block
that does not stops the import, naming the block and the field; the blocks before it stay. Safe and
finalized are then the imported tip.
`;

function int(name: string, value: unknown): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value))
    throw new FlagError(`--${name} must be a block number; got "${String(value)}"`);
  return BigInt(value);
}

export async function exportCommand(argv: string[], out: (text: string) => void): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    from: { type: 'string' },
    to: { type: 'string' },
    'data-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    out(EXPORT_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new FlagError('export needs the file to write: l2devnet export FILE');
  const dataDir = resolve((values['data-dir'] as string | undefined) ?? '.l2devnet');
  const chain = await Chain.create({ dataDir, mining: { mode: 'manual' } });
  try {
    const from = int('from', values.from) ?? 0n;
    const to = int('to', values.to) ?? chain.headNumber;
    if (to > chain.headNumber) throw new FlagError(`--to ${to} is past the head (block ${chain.headNumber})`);
    if (from > to) throw new FlagError(`--from ${from} is after --to ${to}`);
    const blocks = await chain.imports.exportBlocks(from, to);
    writeFileSync(positionals[0], Buffer.concat(blocks));
    out(`exported blocks ${from}..${to} (${blocks.length}) of ${dataDir} to ${positionals[0]}\n`);
    return 0;
  } finally {
    await chain.close();
  }
}

export async function importCommand(argv: string[], out: (text: string) => void, terminal = false): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    out(IMPORT_HELP);
    return 0;
  }
  const [file, ...flags] = argv;
  if (file === undefined || file.startsWith('-'))
    throw new FlagError('import needs the file to read: l2devnet import FILE');
  const config = resolveNodeOptions({ ...parseFlags(flags).options, import: file }, FLAG_STYLE);
  // Read before the chain is opened: a missing file leaves no data directory behind.
  const rlp = readChainFile(file);
  const chain = await Chain.create({ ...config.chain, mining: { mode: 'manual' } });
  try {
    out(await importBlocks(chain, rlp, out, terminal, config.importHead));
    return 0;
  } finally {
    await chain.close();
  }
}

/** A chain file's bytes; a FlagError naming it when it cannot be read. */
export function readChainFile(file: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new FlagError(`import ${file}: ${(e as Error).message}`);
  }
}

/**
 * Imports a chain file's blocks into `chain` (up to block `head` when given), showing progress: a
 * bar with blocks, blocks/s and the time left on a terminal, a line every 5 s otherwise. The time
 * left is from the share of the file read. Returns the summary line.
 */
export async function importBlocks(
  chain: Chain,
  rlp: Uint8Array,
  out: (text: string) => void,
  terminal = false,
  head?: bigint,
): Promise<string> {
  const started = performance.now();
  let last = started;
  let blocks = 0;
  const bar = terminal ? progressBar() : undefined;
  bar?.start(rlp.length, 0, { block: '-', rate: '0' });
  let result: Awaited<ReturnType<Chain['imports']['importBlocks']>>;
  try {
    result = await chain.imports.importBlocks(
      rlp,
      (block, { bytesRead, bytes }) => {
        blocks++;
        const now = performance.now();
        const rate = (blocks / (now - started)) * 1000;
        if (bar !== undefined) {
          bar.update(bytesRead, { block: String(block.header.number), rate: rate.toFixed(0) });
          return;
        }
        if (now - last < 5_000) return;
        last = now;
        const left = ((now - started) / 1000) * (bytes / bytesRead - 1);
        out(
          `block ${block.header.number}: ${blocks} imported, ${rate.toFixed(0)} blocks/s, ` +
            `${((bytesRead / bytes) * 100).toFixed(0)}% of the file, about ${left.toFixed(0)} s left\n`,
        );
      },
      { head },
    );
  } finally {
    bar?.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  return (
    `imported ${result.imported} blocks (${result.skipped} already known) in ${seconds.toFixed(2)} s: ` +
    `${(result.imported / seconds).toFixed(0)} blocks/s, ${(Number(result.gas) / seconds / 1e6).toFixed(1)} Mgas/s; ` +
    `head is block ${chain.headNumber}\n`
  );
}

/** cli-progress's bar on the terminal (standard error), loaded only for an import. */
function progressBar(): import('cli-progress').SingleBar {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { SingleBar, Presets } = require('cli-progress') as typeof import('cli-progress');
  return new SingleBar(
    {
      format: 'importing |{bar}| {percentage}% | block {block} | {rate} blocks/s | ETA {eta_formatted}',
      hideCursor: true,
      etaBuffer: 50,
    },
    Presets.shades_classic,
  );
}
