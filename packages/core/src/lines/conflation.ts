/**
 * A conflation's line counts: what the tracer has counted since it started (a block being built, or
 * one simulation), with the current transaction's part kept apart until it is selected (commitTx) or
 * not (popTx). Deduplicating modules count an equal operation once per conflation (addOnce).
 */
import type { TracerProfile } from './lineProfiles';

export type LineCounts = Record<string, number>;

export interface ConflationMark {
  committed: Record<string, number>;
  seen: Set<string>;
}

/** Counts per module for one conflation, with the current transaction's part kept apart. */
export class Conflation {
  private readonly committed: Record<string, number> = {};
  private bundle: Record<string, number> = {};
  private readonly seen = new Set<string>();
  private bundleSeen = new Set<string>();

  /** `missingSystemRows`: the block's system transactions' HUB rows its state leaves out (systemStorageRows). */
  constructor(
    readonly profile: TracerProfile,
    missingSystemRows = 0,
  ) {
    Object.assign(this.committed, profile.conflationRows);
    for (const [m, n] of Object.entries(profile.blockRows)) this.committed[m] = (this.committed[m] ?? 0) + n;
    if (missingSystemRows > 0) this.committed.HUB -= missingSystemRows;
  }

  add(module: string, n: number): void {
    this.bundle[module] = (this.bundle[module] ?? 0) + n;
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
    for (const [m, n] of Object.entries(this.bundle)) this.committed[m] = (this.committed[m] ?? 0) + n;
    for (const key of this.bundleSeen) this.seen.add(key);
    this.popTx();
  }

  /** The current transaction is not selected: its lines and operations are dropped. */
  popTx(): void {
    this.bundle = {};
    this.bundleSeen = new Set();
  }

  /** What the conflation holds now, to come back to when a bundle of transactions is not selected whole. */
  mark(): ConflationMark {
    return { committed: { ...this.committed }, seen: new Set(this.seen) };
  }

  /** Back to `mark`: the transactions committed since are dropped. */
  rollback(mark: ConflationMark): void {
    for (const m of Object.keys(this.committed)) delete this.committed[m];
    Object.assign(this.committed, mark.committed);
    this.seen.clear();
    for (const key of mark.seen) this.seen.add(key);
    this.popTx();
  }

  /**
   * The conflation's count per module, spillage included, as the tracer reports it (0 for a module
   * the counter does not check). With `ended`, the rows the block adds when it ends are in.
   */
  counts(ended = false): LineCounts {
    const { modules, spillage, unchecked, blockEndRows } = this.profile;
    const out: LineCounts = {};
    for (const m of modules)
      out[m] = unchecked.has(m)
        ? 0
        : (this.committed[m] ?? 0) + (this.bundle[m] ?? 0) + (spillage[m] ?? 0) + (ended ? (blockEndRows[m] ?? 0) : 0);
    return out;
  }
}
