/**
 * A conflation's line counts: what the tracer has counted since it started (a block being built, or
 * one simulation), with the current transaction's part kept apart until it is selected (commitTx) or
 * not (popTx). Deduplicating modules count an equal operation once per conflation (addOnce).
 *
 * Counts are kept in arrays by module (the profile's modules first, in its order, then any other
 * module met), not in objects keyed by name: a block's conflation is made, counted into, summed
 * and read for every transaction.
 */
import type { TracerProfile } from './lineProfiles';

export type LineCounts = Record<string, number>;

export interface ConflationMark {
  committed: Float64Array;
  seen: Set<string>;
}

/** A profile's modules by index, and its per-module constants as arrays in that order. */
interface ModuleTable {
  index: Map<string, number>;
  /** The profile's modules, then the others met so far (added as met). */
  names: string[];
  /** Of the profile's modules: 1 where the counter reports 0 (unchecked). */
  unchecked: Uint8Array;
  spillage: Float64Array;
  blockEndRows: Float64Array;
}

const tables = new WeakMap<TracerProfile, ModuleTable>();

function tableOf(profile: TracerProfile): ModuleTable {
  let table = tables.get(profile);
  if (table === undefined) {
    const { modules } = profile;
    table = {
      index: new Map(modules.map((m, i) => [m, i])),
      names: [...modules],
      unchecked: Uint8Array.from(modules, (m) => (profile.unchecked.has(m) ? 1 : 0)),
      spillage: Float64Array.from(modules, (m) => profile.spillage[m] ?? 0),
      blockEndRows: Float64Array.from(modules, (m) => profile.blockEndRows[m] ?? 0),
    };
    tables.set(profile, table);
  }
  return table;
}

/** Counts per module for one conflation, with the current transaction's part kept apart. */
export class Conflation {
  private readonly table: ModuleTable;
  private committed: Float64Array;
  private bundle: Float64Array;
  private readonly seen = new Set<string>();
  private bundleSeen = new Set<string>();

  /** `missingSystemRows`: the block's system transactions' HUB rows its state leaves out (systemStorageRows). */
  constructor(
    readonly profile: TracerProfile,
    missingSystemRows = 0,
  ) {
    this.table = tableOf(profile);
    this.committed = new Float64Array(this.table.names.length);
    this.bundle = new Float64Array(this.table.names.length);
    for (const [m, n] of Object.entries(profile.conflationRows)) this.committed[this.id(m)] += n;
    for (const [m, n] of Object.entries(profile.blockRows)) this.committed[this.id(m)] += n;
    if (missingSystemRows > 0) this.committed[this.id('HUB')] -= missingSystemRows;
  }

  add(module: string, n: number): void {
    let i = this.table.index.get(module);
    if (i === undefined || i >= this.bundle.length) i = this.id(module);
    this.bundle[i] += n;
  }

  /**
   * Adds an operation of a deduplicating module: nothing when an equal one is in the conflation (its
   * rows, when given as a function, are not worked out then). Answers whether the operation is new.
   */
  addOnce(key: string, module: string, rows: number | (() => number)): boolean {
    if (this.seen.has(key) || this.bundleSeen.has(key)) return false;
    this.bundleSeen.add(key);
    this.add(module, typeof rows === 'number' ? rows : rows());
    return true;
  }

  /** The current transaction is selected: its lines and operations stay. */
  commitTx(): void {
    const { committed, bundle } = this;
    for (let i = 0; i < bundle.length; i++) committed[i] += bundle[i];
    for (const key of this.bundleSeen) this.seen.add(key);
    this.popTx();
  }

  /** The current transaction is not selected: its lines and operations are dropped. */
  popTx(): void {
    this.bundle.fill(0);
    if (this.bundleSeen.size > 0) this.bundleSeen = new Set();
  }

  /** What the conflation holds now, to come back to when a bundle of transactions is not selected whole. */
  mark(): ConflationMark {
    return { committed: this.committed.slice(), seen: new Set(this.seen) };
  }

  /** Back to `mark`: the transactions committed since are dropped. */
  rollback(mark: ConflationMark): void {
    this.committed = new Float64Array(this.committed.length);
    this.committed.set(mark.committed);
    this.seen.clear();
    for (const key of mark.seen) this.seen.add(key);
    this.popTx();
  }

  /**
   * The conflation's count per module, spillage included, as the tracer reports it (0 for a module
   * the counter does not check). With `ended`, the rows the block adds when it ends are in.
   */
  counts(ended = false): LineCounts {
    const { names, unchecked, spillage, blockEndRows } = this.table;
    const { committed, bundle } = this;
    const out: LineCounts = {};
    for (let i = 0; i < unchecked.length; i++)
      out[names[i]] = unchecked[i] === 1 ? 0 : committed[i] + bundle[i] + spillage[i] + (ended ? blockEndRows[i] : 0);
    return out;
  }

  /** The index of `module`, a module outside the profile's given the next one (in every conflation of the profile). */
  private id(module: string): number {
    const { index, names } = this.table;
    let i = index.get(module);
    if (i === undefined) {
      i = names.length;
      names.push(module);
      index.set(module, i);
    }
    if (i >= this.committed.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(names.length);
        b.set(a);
        return b;
      };
      this.committed = grow(this.committed);
      this.bundle = grow(this.bundle);
    }
    return i;
  }
}
