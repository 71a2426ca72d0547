/**
 * `l2devnet export FILE [--from N] [--to M] [--data-dir DIR]` and `l2devnet import FILE [start flags]`:
 * chains exchanged as geth's `export` and `import` exchange them, one block's RLP after another.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { Chain } from '@l2devnet/core';

import { FlagError, parseCommandArgs, parseFlags } from './flags';

export const EXPORT_HELP = `Usage: l2devnet export FILE [--from N] [--to M] [--data-dir DIR]

Writes blocks N..M (default: all, genesis included) of the chain in DIR (default ./.l2devnet) to FILE
as geth export writes them: each block's RLP, one after another. geth import, and l2devnet import,
read it back.
`;

export const IMPORT_HELP = `Usage: l2devnet import FILE [--data-dir DIR | --in-memory] [--genesis FILE] [other start flags]

Imports the blocks of FILE (as geth export writes them) into the chain in DIR, started with the same
flags as the node (the chain's genesis must be the one the blocks were made on). Blocks the chain has
are skipped; every other block is run and must give the state root, receipts root, transactions root,
logs bloom and gas used its header says. A block that does not stops the import, naming the block and
the field; the blocks before it stay.
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
    const blocks = await chain.exportBlocks(from, to);
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
  const config = parseFlags(flags);
  // Read before the chain is opened: a missing file leaves no data directory behind.
  const rlp = readChainFile(file);
  const chain = await Chain.create({ ...config.chain, mining: { mode: 'manual' } });
  try {
    out(await importBlocks(chain, rlp, out, terminal));
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

/** Imports a chain file's blocks into `chain`, writing progress to `out`; returns the summary line. */
export async function importBlocks(
  chain: Chain,
  rlp: Uint8Array,
  out: (text: string) => void,
  terminal = false,
): Promise<string> {
  const started = performance.now();
  let last = started;
  let blocks = 0;
  const result = await chain.importBlocks(rlp, (block) => {
    blocks++;
    const now = performance.now();
    if (now - last < (terminal ? 200 : 5_000)) return;
    last = now;
    const rate = (blocks / (now - started)) * 1000;
    const line = `block ${block.header.number}: ${blocks} imported, ${rate.toFixed(0)} blocks/s`;
    out(terminal ? `\r${line}` : `${line}\n`);
  });
  const seconds = (performance.now() - started) / 1000;
  if (terminal && blocks > 0) out('\n');
  return (
    `imported ${result.imported} blocks (${result.skipped} already known) in ${seconds.toFixed(2)} s: ` +
    `${(result.imported / seconds).toFixed(0)} blocks/s, ${(Number(result.gas) / seconds / 1e6).toFixed(1)} Mgas/s; ` +
    `head is block ${chain.headNumber}\n`
  );
}
