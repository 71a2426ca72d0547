/**
 * Per-module line limits, read from a TOML file with one `[traces-limits]` table (the prover's own
 * format). Every module the counter knows must be given a limit and every key must name a known
 * module; either mistake is an error at start that names the module.
 */
import { readFileSync } from 'node:fs';

import { InvalidLimitsError } from './errors';
import { MODULES } from './lineModules';
import type { LineCounts } from './lineCounter';

export interface LineOverflow {
  module: string;
  count: number;
  limit: number;
}

export class LineLimits {
  private constructor(readonly limits: Readonly<Record<string, number>>) {}

  static parse(text: string, source: string): LineLimits {
    const table = parseTables(text, source)['traces-limits'];
    if (table === undefined) throw new InvalidLimitsError(`limits file ${source}: missing [traces-limits] table`);
    const limits: Record<string, number> = {};
    for (const [module, n] of Object.entries(table)) {
      if (!MODULES.includes(module)) throw new InvalidLimitsError(`limits file ${source}: unknown module ${module}`);
      limits[module] = n;
    }
    for (const module of MODULES) {
      if (limits[module] === undefined) {
        throw new InvalidLimitsError(`limits file ${source}: module ${module} has no limit (MODULE_NOT_DEFINED)`);
      }
    }
    return new LineLimits(limits);
  }

  static fromFile(path: string): LineLimits {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new InvalidLimitsError(`cannot read limits file ${path}: ${(e as Error).message}`);
    }
    return LineLimits.parse(text, path);
  }

  /** These limits with some modules' limits changed (l2_setLineLimits); every module must be known. */
  with(changes: Record<string, number>): LineLimits {
    for (const [module, n] of Object.entries(changes)) {
      if (!MODULES.includes(module)) throw new InvalidLimitsError(`unknown module ${module}`);
      if (!Number.isSafeInteger(n) || n < 0)
        throw new InvalidLimitsError(`the limit of ${module} must be an integer of at least 0; got ${n}`);
    }
    return new LineLimits({ ...this.limits, ...changes });
  }

  /** The first module (in the limits file's canonical order) whose count alone is above its limit. */
  txOverflow(counts: LineCounts): LineOverflow | undefined {
    for (const module of MODULES) {
      const count = counts[module] ?? 0;
      if (count > this.limits[module]) return { module, count, limit: this.limits[module] };
    }
    return undefined;
  }

  /** The first module whose block total would go above its limit if `counts` were added. */
  blockOverflow(totals: LineCounts, counts: LineCounts): LineOverflow | undefined {
    for (const module of MODULES) {
      const count = (totals[module] ?? 0) + (counts[module] ?? 0);
      if (count > this.limits[module]) return { module, count, limit: this.limits[module] };
    }
    return undefined;
  }
}

/**
 * The TOML this format uses: `[table]` headers, `KEY = integer` lines (underscores allowed), comments
 * and blank lines. Anything else is refused with its line number rather than guessed at.
 */
function parseTables(text: string, source: string): Record<string, Record<string, number>> {
  const tables: Record<string, Record<string, number>> = {};
  let current: Record<string, number> | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    const fail = (what: string) => {
      throw new InvalidLimitsError(`limits file ${source}: line ${i + 1}: ${what}: ${raw.trim()}`);
    };
    const header = /^\[\s*([A-Za-z0-9_-]+)\s*\]$/.exec(line);
    if (header !== null) {
      if (tables[header[1]] !== undefined) fail('table defined twice');
      current = tables[header[1]] = {};
      return;
    }
    const entry = /^"?([A-Za-z0-9_-]+)"?\s*=\s*([+]?[0-9][0-9_]*)$/.exec(line);
    if (entry === null) return fail('expected KEY = non-negative integer');
    if (current === undefined) return fail('key outside a table');
    if (current[entry[1]] !== undefined) fail(`${entry[1]} defined twice`);
    const n = Number(entry[2].replace(/_/g, ''));
    if (!Number.isSafeInteger(n)) fail('integer out of range');
    current[entry[1]] = n;
  });
  return tables;
}
