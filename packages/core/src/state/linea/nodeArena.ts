/**
 * Content-addressed nodes in one growing byte buffer: each node is written once, after its 32-byte
 * hash, and found through an open-addressing table of offsets keyed by the hash's first bytes. A node
 * costs its bytes and about 40 more (a Map of Uint8Arrays by hex key cost about 300, and a garbage
 * collector's object per node); nothing is ever removed, as in the Merkle-Patricia store.
 */
export class NodeArena {
  private bytes = new Uint8Array(1 << 20);
  private end = 0;
  /** Each entry's offset + 1, at the slot its hash's first 4 bytes pick (0: free). */
  private slots = new Int32Array(1 << 16);
  private count = 0;

  get(hash: Uint8Array): Uint8Array | undefined {
    const at = this.find(hash);
    if (this.slots[at] === 0) return undefined;
    const offset = this.slots[at] - 1;
    const length = this.bytes[offset + 32] * 32;
    return this.bytes.subarray(offset + 33, offset + 33 + length);
  }

  /** Holds `node` (a multiple of 32 bytes, at most 255 words) under `hash`, unless held already. */
  put(hash: Uint8Array, node: Uint8Array): void {
    const at = this.find(hash);
    if (this.slots[at] !== 0) return;
    const need = 33 + node.length;
    if (this.end + need > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.end + need));
      grown.set(this.bytes.subarray(0, this.end));
      this.bytes = grown;
    }
    this.bytes.set(hash, this.end);
    this.bytes[this.end + 32] = node.length / 32;
    this.bytes.set(node, this.end + 33);
    this.slots[at] = this.end + 1;
    this.end += need;
    if (++this.count * 2 > this.slots.length) this.rehash();
  }

  /** The slot that holds `hash`, or the free one where it would go. */
  private find(hash: Uint8Array): number {
    const mask = this.slots.length - 1;
    let at = ((hash[0] << 24) | (hash[1] << 16) | (hash[2] << 8) | hash[3]) & mask;
    for (;;) {
      const entry = this.slots[at];
      if (entry === 0 || this.holds(entry - 1, hash)) return at;
      at = (at + 1) & mask;
    }
  }

  private holds(offset: number, hash: Uint8Array): boolean {
    for (let i = 0; i < 32; i++) if (this.bytes[offset + i] !== hash[i]) return false;
    return true;
  }

  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    for (const entry of old) if (entry !== 0) this.slots[this.find(this.bytes.subarray(entry - 1, entry + 31))] = entry;
  }
}
