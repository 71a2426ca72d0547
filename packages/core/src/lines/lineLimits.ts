/**
 * Per-module line limits, read from a TOML file with one `[traces-limits]` table (the prover's own
 * format), as Linea's sequencer reads it: every module the counter counts must be given a limit
 * (MODULE_NOT_DEFINED otherwise, naming it); keys the counter does not count are ignored with one
 * notice; a key given twice keeps its first value, with a warning naming the line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type * as Toml from 'smol-toml' with { 'resolution-mode': 'import' };

import { FIXTURES_DIR } from '../config/fixtures';
import { InvalidLimitsError, LineLimitExceededError } from '../errors';
import type { LineCounts } from './conflation';
import { PROFILES, TRACER_PROFILES, profileOf } from './lineProfiles';
import type { CounterName, TracerProfileName } from './lineProfiles';

// smol-toml is an ES module that also ships a CommonJS build, which this CommonJS package loads.
const { parse, TomlError } = require('smol-toml') as typeof Toml;

/**
 * The default line limits of each tracer profile (`--limits`, createDevnet's `limits`): for osaka the
 * file Linea ships for mainnet; for london a London-era production file.
 */
/** The limits file Linea ships for Sepolia (linea-besu/package/linea-besu/config/trace-limits.sepolia.toml). */
export const SEPOLIA_LIMITS = join(FIXTURES_DIR, 'limits', 'linea-sepolia.toml');

export const DEFAULT_LIMITS: Readonly<Record<TracerProfileName, string>> = {
  osaka: join(FIXTURES_DIR, 'limits', 'linea-mainnet.toml'),
  london: join(FIXTURES_DIR, 'limits', 'linea-london.toml'),
};

export interface LineOverflow {
  module: string;
  count: number;
  limit: number;
}

/** Limits as plain data: each module's, and the profile they are for. */
export interface LimitsSpec {
  limits: Readonly<Record<string, number>>;
  profile: TracerProfileName;
}

export class LineLimits {
  private constructor(
    readonly limits: Readonly<Record<string, number>>,
    /** The tracer profile whose modules these limits are for. */
    readonly profile: TracerProfileName,
    /** What the file had that was let through: keys given twice, keys the counter does not count. */
    readonly warnings: readonly string[] = [],
  ) {}

  /** The modules the profile counts, in the order the first failing one is reported. */
  get modules(): readonly string[] {
    return PROFILES[this.profile].modules;
  }

  /** `counter`: which of Linea's counters the limits are checked for (the order of its modules). */
  static parse(
    text: string,
    source: string,
    profile: TracerProfileName = 'osaka',
    counter: CounterName = 'tracer',
  ): LineLimits {
    const MODULES = PROFILES[profile].modules;
    const warnings: string[] = [];
    const table = readTables(text, source, warnings)['traces-limits'];
    if (typeof table !== 'object' || table === null || Array.isArray(table))
      throw new InvalidLimitsError(`limits file ${source}: missing [traces-limits] table`);
    const limits: Record<string, number> = {};
    const ignored: string[] = [];
    for (const [key, n] of Object.entries(table)) {
      if (!MODULES.includes(key)) {
        ignored.push(key);
        continue;
      }
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
        throw new InvalidLimitsError(
          `limits file ${source}: ${key} must be an integer of at least 0; got ${String(n)}`,
        );
      limits[key] = n;
    }
    // TraceLineLimitTransactionSelector's constructor: the first of getModulesToCount() without a limit.
    for (const module of profileOf(profile, counter).putOrder) {
      if (limits[module] === undefined) {
        // A file written for another tracer's modules says so: it loads under that tracer.
        const keys = Object.keys(table);
        const fits = TRACER_PROFILES.find(
          (other) => other !== profile && PROFILES[other].modules.every((m) => keys.includes(m)),
        );
        const hint =
          fits === undefined ? '' : `; the file gives every module of the ${fits} tracer: add --tracer ${fits}`;
        throw new InvalidLimitsError(
          `limits file ${source}: module ${module}, counted by the ${profile} tracer, has no limit (MODULE_NOT_DEFINED)${hint}`,
        );
      }
    }
    if (ignored.length > 0)
      warnings.push(`limits file ${source}: ignoring keys the line counter does not count: ${ignored.join(', ')}`);
    return new LineLimits(limits, profile, warnings);
  }

  static fromFile(path: string, profile: TracerProfileName = 'osaka', counter: CounterName = 'tracer'): LineLimits {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new InvalidLimitsError(`cannot read limits file ${path}: ${(e as Error).message}`);
    }
    return LineLimits.parse(text, path, profile, counter);
  }

  /** These limits with some modules' limits changed (l2_setLineLimits); every module must be known. */
  with(changes: Record<string, number>): LineLimits {
    for (const [module, n] of Object.entries(changes)) {
      if (!this.modules.includes(module))
        throw new InvalidLimitsError(`unknown module ${module} (the ${this.profile} tracer does not count it)`);
      if (!Number.isSafeInteger(n) || n < 0)
        throw new InvalidLimitsError(`the limit of ${module} must be an integer of at least 0; got ${n}`);
    }
    return new LineLimits({ ...this.limits, ...changes }, this.profile);
  }

  /** The first module (in the profile's order) whose count alone is above its limit. */
  txOverflow(counts: LineCounts): LineOverflow | undefined {
    for (const module of this.modules) {
      const count = counts[module] ?? 0;
      if (count > this.limits[module]) return { module, count, limit: this.limits[module] };
    }
    return undefined;
  }

  /** The refusal of a call whose counts overflow a module (linea_estimateGas); undefined if none does. */
  callRefusal(counts: LineCounts): LineLimitExceededError | undefined {
    const overflow = this.txOverflow(counts);
    return overflow && new LineLimitExceededError(undefined, overflow.module, overflow.count, overflow.limit);
  }

  /** The limits as they cross to a call worker (LineLimits.of makes them again there). */
  get spec(): LimitsSpec {
    return { limits: this.limits, profile: this.profile };
  }

  static of(spec: LimitsSpec): LineLimits {
    return new LineLimits(spec.limits, spec.profile);
  }

  /** The first module whose block total is above its limit. */
  blockOverflow(totals: LineCounts): LineOverflow | undefined {
    for (const module of this.modules) {
      const count = totals[module] ?? 0;
      if (count > this.limits[module]) return { module, count, limit: this.limits[module] };
    }
    return undefined;
  }
}

/**
 * The file's tables, by a TOML parser. TOML forbids a key given twice, but the real sequencer starts
 * with such a file: the repeated line is dropped (its first value kept) and named in a warning.
 */
function readTables(text: string, source: string, warnings: string[]): Record<string, unknown> {
  let lines = text.split(/\r?\n/);
  for (;;) {
    try {
      return parse(lines.join('\n'));
    } catch (e) {
      if (!(e instanceof TomlError)) throw e;
      const at = lines[e.line - 1]?.trim() ?? '';
      if (/redefine/.test(e.message) && at !== '') {
        warnings.push(
          `limits file ${source}: line ${e.line}: ${at.split(/\s*=/)[0]} is given again; the first value is kept`,
        );
        // Blank rather than removed, so later line numbers still match the file.
        lines = lines.map((l, i) => (i === e.line - 1 ? '' : l));
        continue;
      }
      throw new InvalidLimitsError(`limits file ${source}: line ${e.line}: ${e.message.split('\n')[0]}`);
    }
  }
}
