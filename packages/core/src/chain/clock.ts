/**
 * The node's clock: the wall clock plus an offset that time-travel methods move. Block timestamps and
 * exclusion-record retention read this one clock.
 */
export class NodeClock {
  /** Milliseconds added to the wall clock. */
  offset = 0;

  constructor(private readonly wallClock: () => number = Date.now) {}

  /** Milliseconds since the epoch, node time. */
  now(): number {
    return this.wallClock() + this.offset;
  }

  /** Seconds since the epoch, node time. */
  nowSeconds(): bigint {
    return BigInt(Math.floor(this.now() / 1000));
  }

  /** Moves node time forward (or back) by `ms`. */
  advance(ms: number): void {
    this.offset += ms;
  }

  /** Sets node time to `ms` since the epoch. */
  set(ms: number): void {
    this.offset = ms - this.wallClock();
  }
}
