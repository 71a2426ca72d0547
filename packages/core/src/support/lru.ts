/**
 * A size-bounded map that forgets the least recently used entry first. Bounded by entry count, and
 * optionally by a total weight as well (`weigh` gives an entry's weight), for values whose size
 * varies widely, such as decoded blocks.
 *
 * The order of use is a doubly linked list through typed arrays, over slots that a `Map` indexes by
 * key: a read moves its slot to the front and leaves the `Map` as it is. (Kept as the order of a
 * `Map`, by a delete and a set on every read, a large cache paid for the holes that left in its
 * table, and its oldest key was found by walking past them: ~3% of an automined transfer.)
 */
export interface LruWeight<V> {
  weigh: (value: V) => number;
  maxWeight: number;
}

const NONE = -1;

export class LruCache<K, V> {
  private readonly index = new Map<K, number>();
  private keys: (K | undefined)[] = [];
  private values: (V | undefined)[] = [];
  /** Toward the newer and the older entry, by slot. */
  private newer = new Int32Array(0);
  private older = new Int32Array(0);
  private newest = NONE;
  private oldest = NONE;
  /** Slots given back by deletes, to reuse. */
  private free: number[] = [];
  private weight = 0;

  constructor(
    private readonly capacity: number,
    private readonly limit?: LruWeight<V>,
  ) {}

  get size(): number {
    return this.index.size;
  }

  /** The entries' total weight (their count without a `weigh`). */
  get totalWeight(): number {
    return this.limit === undefined ? this.index.size : this.weight;
  }

  get(key: K): V | undefined {
    const slot = this.index.get(key);
    if (slot === undefined) return undefined;
    if (slot !== this.newest) {
      this.unlink(slot);
      this.pushNewest(slot);
    }
    return this.values[slot];
  }

  set(key: K, value: V): void {
    let slot = this.index.get(key);
    if (slot === undefined) {
      slot = this.allocate();
      this.keys[slot] = key;
      this.index.set(key, slot);
    } else {
      if (this.limit !== undefined) this.weight -= this.limit.weigh(this.values[slot] as V);
      this.unlink(slot);
    }
    this.values[slot] = value;
    this.pushNewest(slot);
    if (this.limit !== undefined) this.weight += this.limit.weigh(value);
    // The newest entry stays even when it alone is over the weight limit.
    while (
      this.index.size > this.capacity ||
      (this.limit !== undefined && this.weight > this.limit.maxWeight && this.index.size > 1)
    )
      this.delete(this.keys[this.oldest] as K);
  }

  delete(key: K): void {
    const slot = this.index.get(key);
    if (slot === undefined) return;
    this.index.delete(key);
    this.unlink(slot);
    if (this.limit !== undefined) this.weight -= this.limit.weigh(this.values[slot] as V);
    this.keys[slot] = undefined;
    this.values[slot] = undefined;
    this.free.push(slot);
  }

  clear(): void {
    this.index.clear();
    this.keys = [];
    this.values = [];
    this.newer = new Int32Array(0);
    this.older = new Int32Array(0);
    this.newest = this.oldest = NONE;
    this.free = [];
    this.weight = 0;
  }

  /** A slot for a new entry: a freed one, or the next, the links grown to hold it. */
  private allocate(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    const slot = this.keys.length;
    this.keys.push(undefined);
    this.values.push(undefined);
    if (slot === this.newer.length) {
      const size = Math.max(16, slot * 2);
      const newer = new Int32Array(size);
      const older = new Int32Array(size);
      newer.set(this.newer);
      older.set(this.older);
      this.newer = newer;
      this.older = older;
    }
    return slot;
  }

  private unlink(slot: number): void {
    const newer = this.newer[slot];
    const older = this.older[slot];
    if (newer === NONE) this.newest = older;
    else this.older[newer] = older;
    if (older === NONE) this.oldest = newer;
    else this.newer[older] = newer;
  }

  private pushNewest(slot: number): void {
    this.newer[slot] = NONE;
    this.older[slot] = this.newest;
    if (this.newest === NONE) this.oldest = slot;
    else this.newer[this.newest] = slot;
    this.newest = slot;
  }
}
