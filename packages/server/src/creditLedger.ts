/**
 * Credits spent per API key per UTC day. Each key has a daily balance (`dailyCredits`, unlimited
 * when undefined, still counted) that resets at 00:00 UTC. Spending is kept in memory for the hot
 * path and written to the node's database every second and at shutdown, so a restart does not
 * reset a day's spending (at most the last second of it can be lost to a crash).
 *
 *   'c' ‖ utf8(day) ‖ 0x00 ‖ utf8(key) → credits used (decimal text)
 *
 * An unlimited balance is only reported, never enforced, and open mode accepts any made-up key: so
 * an unlimited ledger counts at most MAX_UNLIMITED_KEYS keys, and the least recently charged key's
 * count (and row) is dropped to make room. A key with a daily balance is never dropped, as that
 * would reset its balance.
 */
import type { KvOp, KvStore } from '@l2devnet/core';

const P_CREDITS = 0x63; // 'c'
const FLUSH_INTERVAL_MS = 1_000;
/**
 * Keys an unlimited ledger counts at once: far more than the clients of one devnet, and a bound on
 * what junk keys cost (each counted key is a Map entry and a database row for the rest of the day).
 */
export const MAX_UNLIMITED_KEYS = 10_000;
const enc = new TextEncoder();
const dec = new TextDecoder();

export interface ChargeResult {
  ok: boolean;
  used: number;
  /** Undefined when the balance is unlimited. */
  remaining: number | undefined;
}

/** The UTC date (YYYY-MM-DD) of `ms`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const DAY_MS = 24 * 60 * 60 * 1000;

function nextUtcMidnight(ms: number): number {
  return (Math.floor(ms / DAY_MS) + 1) * DAY_MS;
}

function rowKey(day: string, key: string): Uint8Array {
  return new Uint8Array([P_CREDITS, ...enc.encode(day), 0, ...enc.encode(key)]);
}

export class CreditLedger {
  private day: string;
  /** When the current UTC day ends (ms); the day is only recomputed past it. */
  private dayEndsAt: number;
  private used = new Map<string, number>();
  private dirty = new Set<string>();
  /** Keys dropped from an unlimited ledger since the last flush: their rows are deleted. */
  private dropped = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    /** The database the rows go to, asked each time: anvil_reset's `forking` gives an in-memory chain a new one. */
    private readonly store: () => KvStore,
    readonly dailyCredits: number | undefined,
    private readonly now: () => number,
  ) {
    this.day = utcDay(now());
    this.dayEndsAt = nextUtcMidnight(now());
  }

  /**
   * Loads today's spending from the database `store` answers and starts the periodic flush; it is
   * asked again at each write (a chain's `kv`, which a refork replaces).
   */
  static async open(
    store: () => KvStore,
    dailyCredits: number | undefined,
    now: () => number = Date.now,
  ): Promise<CreditLedger> {
    const ledger = new CreditLedger(store, dailyCredits, now);
    await ledger.load();
    ledger.timer = setInterval(() => void ledger.flush(), FLUSH_INTERVAL_MS);
    ledger.timer.unref();
    return ledger;
  }

  private async load(): Promise<void> {
    const prefix = new Uint8Array([P_CREDITS, ...enc.encode(this.day), 0]);
    const end = new Uint8Array([P_CREDITS, ...enc.encode(this.day), 1]);
    const limit = this.dailyCredits === undefined ? MAX_UNLIMITED_KEYS : undefined;
    for await (const [k, v] of this.store().range(prefix, end, limit)) {
      this.used.set(dec.decode(k.subarray(prefix.length)), Number(dec.decode(v)));
    }
  }

  private rollDay(): void {
    const now = this.now();
    if (now < this.dayEndsAt && now >= this.dayEndsAt - DAY_MS) return;
    const today = utcDay(now);
    this.dayEndsAt = nextUtcMidnight(now);
    if (today !== this.day) {
      void this.flush();
      this.day = today;
      this.used = new Map();
      this.dirty = new Set();
      this.dropped = new Set();
    }
  }

  /** What `key` has spent today and has left. */
  balance(key: string): ChargeResult {
    this.rollDay();
    const used = this.used.get(key) ?? 0;
    return {
      ok: true,
      used,
      remaining: this.dailyCredits === undefined ? undefined : Math.max(0, this.dailyCredits - used),
    };
  }

  /** Charges `credits` to `key` if its balance can pay for them; otherwise charges nothing. */
  charge(key: string, credits: number): ChargeResult {
    this.rollDay();
    const used = this.used.get(key) ?? 0;
    if (this.dailyCredits !== undefined && used + credits > this.dailyCredits) {
      return { ok: false, used, remaining: Math.max(0, this.dailyCredits - used) };
    }
    if (this.dailyCredits === undefined) {
      // Re-inserted last: the Map's order is then least recently charged first.
      this.used.delete(key);
      this.dropped.delete(key);
    }
    this.used.set(key, used + credits);
    this.dirty.add(key);
    if (this.used.size > MAX_UNLIMITED_KEYS && this.dailyCredits === undefined) {
      const oldest = this.used.keys().next().value as string;
      this.used.delete(oldest);
      this.dirty.delete(oldest);
      this.dropped.add(oldest);
    }
    return {
      ok: true,
      used: used + credits,
      remaining: this.dailyCredits === undefined ? undefined : this.dailyCredits - used - credits,
    };
  }

  /** How many keys have a count today. */
  get keys(): number {
    return this.used.size;
  }

  async flush(): Promise<void> {
    if (this.dirty.size === 0 && this.dropped.size === 0) return;
    const ops: KvOp[] = [...this.dirty].map((key) => ({
      type: 'put',
      key: rowKey(this.day, key),
      value: enc.encode(String(this.used.get(key) ?? 0)),
    }));
    for (const key of this.dropped) ops.push({ type: 'del', key: rowKey(this.day, key) });
    this.dirty = new Set();
    this.dropped = new Set();
    await this.store().batch(ops);
  }

  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.flush();
  }
}
