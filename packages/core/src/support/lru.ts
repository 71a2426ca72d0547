/**
 * A size-bounded map that forgets the least recently used entry first. Bounded by entry count, and
 * optionally by a total weight as well (`weigh` gives an entry's weight), for values whose size
 * varies widely, such as decoded blocks.
 */
export interface LruWeight<V> {
  weigh: (value: V) => number;
  maxWeight: number;
}

export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  private weight = 0;
  /**
   * The most recently used key: a read of it moves nothing. A Map reorders by delete and set, and a
   * large one pays for the holes that leaves (it rebuilds its table), so the same key read again and
   * again (one slot, one account, the head block, call after call) costs a lookup only.
   */
  private newest: K | undefined;
  constructor(
    private readonly capacity: number,
    private readonly limit?: LruWeight<V>,
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The entries' total weight (their count without a `weigh`). */
  get totalWeight(): number {
    return this.limit === undefined ? this.map.size : this.weight;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined && key !== this.newest) {
      this.map.delete(key);
      this.map.set(key, value);
      this.newest = key;
    }
    return value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    this.map.set(key, value);
    this.newest = key;
    if (this.limit !== undefined) this.weight += this.limit.weigh(value);
    // The newest entry stays even when it alone is over the weight limit.
    while (
      this.map.size > this.capacity ||
      (this.limit !== undefined && this.weight > this.limit.maxWeight && this.map.size > 1)
    ) {
      this.delete(this.map.keys().next().value as K);
    }
  }

  delete(key: K): void {
    if (key === this.newest) this.newest = undefined;
    const value = this.map.get(key);
    if (value === undefined) return;
    this.map.delete(key);
    if (this.limit !== undefined) this.weight -= this.limit.weigh(value);
  }

  clear(): void {
    this.newest = undefined;
    this.map.clear();
    this.weight = 0;
  }
}
