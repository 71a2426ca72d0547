/**
 * A hash map from byte keys to byte values that keeps every key and value in a few large buffers:
 * the in-memory database's point tables (state nodes, blocks, receipts), which hold hundreds of
 * thousands of small entries on a long chain. As a `Map` of `Uint8Array`s each entry cost about
 * 350 bytes of objects around ~300 bytes of data, and the garbage collector walked every one of
 * them; here an entry costs its bytes, a 9-byte header and its slots in two typed arrays.
 *
 * Values are copied in; a read returns a view into the buffer, which callers do not change (as
 * with the `Map` before, where a read returned the stored array itself). Overwritten and deleted
 * entries leave their bytes behind until those are most of the buffers, when everything live is
 * copied into new ones.
 */
const CHUNK_BYTES = 8 << 20;
/** Entry header: key length (1 byte), value length (4 bytes, little-endian), key hash (4 bytes). */
const HEADER = 9;
const EMPTY_SLOT = 0;
const DELETED_SLOT = -1;

/** FNV-1a over the key's bytes. */
function hashOf(key: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key[i], 0x01000193);
  return h | 0;
}

export class ByteMap {
  private chunks: Uint8Array[] = [];
  /** Where the next entry goes in the last chunk. */
  private chunkEnd = CHUNK_BYTES;
  /** Entry `i` starts at chunk `entryChunk[i]`, byte `entryOffset[i]` (-1 when gone). */
  private entryChunk: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private entryOffset: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private entries = 0;
  /** Open addressing, linear probing: entry index + 1, or EMPTY_SLOT / DELETED_SLOT. */
  private slots = new Int32Array(2048);
  private used = 0; // slots not EMPTY_SLOT
  private live = 0;
  private liveBytes = 0;
  private deadBytes = 0;

  get size(): number {
    return this.live;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    const slot = this.find(key, hashOf(key));
    return slot < 0 ? undefined : this.valueOf(this.slots[slot] - 1);
  }

  set(key: Uint8Array, value: Uint8Array): void {
    if (key.length > 255) throw new RangeError(`a ByteMap key is at most 255 bytes, not ${key.length}`);
    const hash = hashOf(key);
    const slot = this.find(key, hash);
    if (slot >= 0) {
      // Content-addressed rows (state nodes, code) are written again with the same bytes: kept as they are.
      if (this.valueIs(this.slots[slot] - 1, value)) return;
      this.forget(this.slots[slot] - 1);
      this.slots[slot] = this.append(key, value, hash) + 1;
      this.compactIfMostlyGone();
      return;
    }
    // Grown when half full; rebuilt at the same size when deleted slots made it so.
    if ((this.used + 1) * 2 > this.slots.length)
      this.rehash(this.live * 4 >= this.slots.length ? this.slots.length * 2 : this.slots.length);
    this.insertSlot(hash, this.append(key, value, hash));
    this.live++;
  }

  delete(key: Uint8Array): void {
    const slot = this.find(key, hashOf(key));
    if (slot < 0) return;
    this.forget(this.slots[slot] - 1);
    this.slots[slot] = DELETED_SLOT;
    this.live--;
    this.compactIfMostlyGone();
  }

  private compactIfMostlyGone(): void {
    if (this.deadBytes > CHUNK_BYTES && this.deadBytes > this.liveBytes) this.compact();
  }

  /** The slot holding `key`, or -1. */
  private find(key: Uint8Array, hash: number): number {
    const mask = this.slots.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const s = this.slots[i];
      if (s === EMPTY_SLOT) return -1;
      if (s !== DELETED_SLOT && this.keyIs(s - 1, key, hash)) return i;
    }
  }

  private keyIs(entry: number, key: Uint8Array, hash: number): boolean {
    const chunk = this.chunks[this.entryChunk[entry]];
    const at = this.entryOffset[entry];
    if (chunk[at] !== key.length || readU32(chunk, at + 5) !== hash >>> 0) return false;
    const keyAt = at + HEADER;
    for (let i = 0; i < key.length; i++) if (chunk[keyAt + i] !== key[i]) return false;
    return true;
  }

  private valueIs(entry: number, value: Uint8Array): boolean {
    const stored = this.valueOf(entry);
    if (stored.length !== value.length) return false;
    for (let i = 0; i < value.length; i++) if (stored[i] !== value[i]) return false;
    return true;
  }

  private keyOf(entry: number): Uint8Array {
    const chunk = this.chunks[this.entryChunk[entry]];
    const at = this.entryOffset[entry];
    return chunk.subarray(at + HEADER, at + HEADER + chunk[at]);
  }

  private valueOf(entry: number): Uint8Array {
    const chunk = this.chunks[this.entryChunk[entry]];
    const at = this.entryOffset[entry];
    const valueAt = at + HEADER + chunk[at];
    return chunk.subarray(valueAt, valueAt + readU32(chunk, at + 1));
  }

  /** Puts the entry in the first free slot of its probe sequence (an empty one counts as used now). */
  private insertSlot(hash: number, entry: number): void {
    const mask = this.slots.length - 1;
    let i = hash & mask;
    while (this.slots[i] > 0) i = (i + 1) & mask;
    if (this.slots[i] === EMPTY_SLOT) this.used++;
    this.slots[i] = entry + 1;
  }

  /** Writes the entry into the buffers; its index. */
  private append(key: Uint8Array, value: Uint8Array, hash: number): number {
    const size = HEADER + key.length + value.length;
    if (this.chunkEnd + size > CHUNK_BYTES || this.chunks.length === 0) {
      // A value larger than a chunk gets a chunk of its own size.
      this.chunks.push(new Uint8Array(Math.max(CHUNK_BYTES, size)));
      this.chunkEnd = 0;
    }
    const chunk = this.chunks[this.chunks.length - 1];
    const at = this.chunkEnd;
    chunk[at] = key.length;
    writeU32(chunk, at + 1, value.length);
    writeU32(chunk, at + 5, hash >>> 0);
    chunk.set(key, at + HEADER);
    chunk.set(value, at + HEADER + key.length);
    this.chunkEnd = size > CHUNK_BYTES ? CHUNK_BYTES : at + size;
    if (this.entries === this.entryChunk.length) {
      this.entryChunk = grow(this.entryChunk);
      this.entryOffset = grow(this.entryOffset);
    }
    this.entryChunk[this.entries] = this.chunks.length - 1;
    this.entryOffset[this.entries] = at;
    this.liveBytes += size;
    return this.entries++;
  }

  private forget(entry: number): void {
    const chunk = this.chunks[this.entryChunk[entry]];
    const at = this.entryOffset[entry];
    const size = HEADER + chunk[at] + readU32(chunk, at + 1);
    this.liveBytes -= size;
    this.deadBytes += size;
    this.entryOffset[entry] = -1;
  }

  private rehash(capacity: number): void {
    const old = this.slots;
    this.slots = new Int32Array(capacity);
    this.used = 0;
    for (const s of old) {
      if (s <= 0) continue;
      const entry = s - 1;
      const chunk = this.chunks[this.entryChunk[entry]];
      this.insertSlot(readU32(chunk, this.entryOffset[entry] + 5) | 0, entry);
    }
  }

  /** Copies the live entries into new buffers, dropping the bytes of the gone ones. */
  private compact(): void {
    const fresh = new ByteMap();
    for (let e = 0; e < this.entries; e++) if (this.entryOffset[e] >= 0) fresh.set(this.keyOf(e), this.valueOf(e));
    Object.assign(this, fresh);
  }
}

function readU32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

function writeU32(bytes: Uint8Array, at: number, n: number): void {
  bytes[at] = n;
  bytes[at + 1] = n >>> 8;
  bytes[at + 2] = n >>> 16;
  bytes[at + 3] = n >>> 24;
}

function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
