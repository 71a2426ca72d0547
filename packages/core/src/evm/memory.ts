/** A buffer larger than this is not kept for the next frame. */
const MAX_KEPT = 1 << 20;

/** A frame's memory: a byte buffer grown in place, its size counted in 32-byte words (MSIZE, gas). */
export class Memory {
  buf: Uint8Array;
  /** Active words: the memory's size is 32 × words. */
  words = 0;

  constructor(initial = 4096) {
    this.buf = new Uint8Array(initial);
  }

  /** Back to empty, for the next frame that takes it (a large buffer is let go). */
  reset(): void {
    if (this.buf.length > MAX_KEPT) this.buf = new Uint8Array(4096);
    else this.buf.fill(0, 0, this.words * 32);
    this.words = 0;
  }

  /** Makes `[offset, offset + size)` addressable (size > 0); the caller has paid for the words. */
  grow(words: number): void {
    if (words <= this.words) return;
    const bytes = words * 32;
    if (bytes > this.buf.length) {
      let n = this.buf.length * 2;
      while (n < bytes) n *= 2;
      const next = new Uint8Array(n);
      next.set(this.buf.subarray(0, this.words * 32));
      this.buf = next;
    }
    this.words = words;
  }

  /** A copy of `size` bytes at `offset`, zeros past the memory's end. */
  padded(offset: number, size: number): Uint8Array {
    const out = new Uint8Array(size);
    if (offset < this.buf.length) out.set(this.buf.subarray(offset, Math.min(offset + size, this.buf.length)));
    return out;
  }

  /** A copy of `size` bytes at `offset` (the range is inside the memory). */
  read(offset: number, size: number): Uint8Array {
    return this.buf.slice(offset, offset + size);
  }

  /** Writes `data[from, from + size)` at `offset`, zeros past the end of `data`. */
  write(offset: number, data: Uint8Array, from: number, size: number): void {
    const available = from >= data.length ? 0 : Math.min(size, data.length - from);
    if (available > 0) this.buf.set(data.subarray(from, from + available), offset);
    if (available < size) this.buf.fill(0, offset + available, offset + size);
  }
}
