/**
 * A hash map from byte keys to byte values that keeps every key and value in a few large buffers:
 * the in-memory database's point tables (state nodes, blocks, receipts), which hold hundreds of
 * thousands of small entries on a long chain. As a `Map` of `Uint8Array`s each entry cost about
 * 350 bytes of objects around ~300 bytes of data, and the garbage collector walked every one of
 * them; here an entry costs its bytes, a 5-byte header and 20 to 28 bytes of index in typed arrays.
 *
 * Values are copied in; a read returns a view into the buffer, which callers do not change (as
 * with the `Map` before, where a read returned the stored array itself). Overwritten and deleted
 * entries leave their bytes behind until those are most of the buffers, when everything live is
 * copied into new ones.
 *
 * With a memory limit, once the buffers and the index pass it, the oldest buffers are written to a
 * temporary file, whole, and their entries are read from there (a read of the file's pages from the
 * kernel's cache, not the process's memory). Only the index stays in memory. Old entries are the
 * ones a chain writes and rarely reads again: earlier blocks' state, blocks, receipts.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHUNK_BYTES = 8 << 20;
/** Entry header: key length (1 byte), value length (4 bytes, little-endian). */
const HEADER = 5;
const EMPTY_SLOT = 0;
const DELETED_SLOT = -1;
/** The `entryChunk` of an entry whose bytes are in the file (its `entryOffset` is where). */
const IN_FILE = -1;
const EMPTY_CHUNK = new Uint8Array(0);

/** FNV-1a over the key's bytes. */
function hashOf(key: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key[i], 0x01000193);
  return h | 0;
}

export interface ByteMapOptions {
  /** Bytes of buffers and index kept in memory; past it the oldest buffers go to a file. Default no limit. */
  memoryLimit?: number;
  /** The size of a buffer (tests use small ones). */
  chunkBytes?: number;
  /** Where the file's directory is made; default the system's temporary directory. */
  fileDir?: string;
}

export class ByteMap {
  private readonly chunkBytes: number;
  private memoryLimit: number;
  private chunks: Uint8Array[] = [];
  /** The first entry written to each chunk: a chunk's entries are a run (less those adopted by `compact`). */
  private chunkFirst: number[] = [];
  /** The chunks before this one are in the file. */
  private firstHeld = 0;
  /** Bytes of the chunks in memory. */
  private heldBytes = 0;
  /** Where the next entry goes in the last chunk. */
  private chunkEnd: number;
  /**
   * Entry `i` starts at chunk `entryChunk[i]`, byte `entryOffset[i]`, or at `entryOffset[i]` in the
   * file (`entryChunk[i]` IN_FILE); `entryOffset[i]` is -1 when the entry is gone.
   */
  private entryChunk: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private entryOffset: Float64Array<ArrayBuffer> = new Float64Array(1024);
  private entryHash: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private entries = 0;
  /** Open addressing, linear probing: entry index + 1, or EMPTY_SLOT / DELETED_SLOT. */
  private slots = new Int32Array(2048);
  private used = 0; // slots not EMPTY_SLOT
  private live = 0;
  /** Bytes of the live and of the gone entries in memory. */
  private liveBytes = 0;
  private deadBytes = 0;
  private file: SpillFile | undefined;
  private readonly fileDir: string | undefined;

  constructor(opts: ByteMapOptions = {}) {
    this.chunkBytes = opts.chunkBytes ?? CHUNK_BYTES;
    this.fileDir = opts.fileDir;
    this.memoryLimit = opts.memoryLimit ?? Infinity;
    this.chunkEnd = this.chunkBytes;
  }

  get size(): number {
    return this.live;
  }

  /** The memory the map holds: its buffers and its index. */
  get bytes(): number {
    return (
      this.heldBytes +
      this.slots.byteLength +
      this.entryChunk.byteLength +
      this.entryOffset.byteLength +
      this.entryHash.byteLength
    );
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
      const entry = this.slots[slot] - 1;
      // Content-addressed rows (state nodes, code) are written again with the same bytes: kept as
      // they are (in memory; one in the file comes back into memory).
      if (this.entryChunk[entry] !== IN_FILE && this.valueIs(entry, value)) return;
      this.forget(entry);
      this.slots[slot] = this.append(key, value, hash) + 1;
      this.compactIfMostlyGone();
      return;
    }
    this.add(hash, this.append(key, value, hash));
  }

  delete(key: Uint8Array): void {
    const slot = this.find(key, hashOf(key));
    if (slot < 0) return;
    this.forget(this.slots[slot] - 1);
    this.slots[slot] = DELETED_SLOT;
    this.live--;
    this.compactIfMostlyGone();
  }

  /** Closes the file, if one was opened. */
  close(): void {
    this.file?.close();
    this.file = undefined;
  }

  /** A new entry's slot. */
  private add(hash: number, entry: number): void {
    // Grown when half full; rebuilt at the same size when deleted slots made it so.
    if ((this.used + 1) * 2 > this.slots.length)
      this.rehash(this.live * 4 >= this.slots.length ? this.slots.length * 2 : this.slots.length);
    this.insertSlot(hash, entry);
    this.live++;
  }

  private compactIfMostlyGone(): void {
    if (this.deadBytes > this.chunkBytes && this.deadBytes > this.liveBytes) this.compact();
  }

  /** The slot holding `key`, or -1. */
  private find(key: Uint8Array, hash: number): number {
    const mask = this.slots.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const s = this.slots[i];
      if (s === EMPTY_SLOT) return -1;
      if (s !== DELETED_SLOT && this.entryHash[s - 1] === hash && this.keyIs(s - 1, key)) return i;
    }
  }

  private keyIs(entry: number, key: Uint8Array): boolean {
    let bytes: Uint8Array;
    let at: number;
    if (this.entryChunk[entry] === IN_FILE) {
      bytes = this.file!.read(this.entryOffset[entry], HEADER + key.length);
      at = 0;
    } else {
      bytes = this.chunks[this.entryChunk[entry]];
      at = this.entryOffset[entry];
    }
    if (bytes[at] !== key.length) return false;
    const keyAt = at + HEADER;
    for (let i = 0; i < key.length; i++) if (bytes[keyAt + i] !== key[i]) return false;
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
    if (this.entryChunk[entry] === IN_FILE) {
      const at = this.entryOffset[entry];
      const header = this.file!.read(at, HEADER);
      return this.file!.read(at + HEADER + header[0], readU32(header, 1), true);
    }
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
    if (this.chunkEnd + size > this.chunkBytes || this.chunks.length === 0) {
      this.keepUnderLimit();
      // A value larger than a chunk gets a chunk of its own size.
      const chunk = new Uint8Array(Math.max(this.chunkBytes, size));
      this.chunks.push(chunk);
      this.chunkFirst.push(this.entries);
      this.heldBytes += chunk.length;
      this.chunkEnd = 0;
    }
    const chunk = this.chunks[this.chunks.length - 1];
    const at = this.chunkEnd;
    chunk[at] = key.length;
    writeU32(chunk, at + 1, value.length);
    chunk.set(key, at + HEADER);
    chunk.set(value, at + HEADER + key.length);
    this.chunkEnd = size > this.chunkBytes ? this.chunkBytes : at + size;
    this.liveBytes += size;
    return this.newEntry(this.chunks.length - 1, at, hash);
  }

  private newEntry(chunk: number, offset: number, hash: number): number {
    if (this.entries === this.entryChunk.length) {
      this.entryChunk = grow(this.entryChunk, new Int32Array(this.entries * 2));
      this.entryOffset = grow(this.entryOffset, new Float64Array(this.entries * 2));
      this.entryHash = grow(this.entryHash, new Int32Array(this.entries * 2));
    }
    this.entryChunk[this.entries] = chunk;
    this.entryOffset[this.entries] = offset;
    this.entryHash[this.entries] = hash;
    return this.entries++;
  }

  private sizeAt(chunk: Uint8Array, at: number): number {
    return HEADER + chunk[at] + readU32(chunk, at + 1);
  }

  private forget(entry: number): void {
    // An entry in the file leaves its bytes there (the file only grows).
    if (this.entryChunk[entry] !== IN_FILE) {
      const size = this.sizeAt(this.chunks[this.entryChunk[entry]], this.entryOffset[entry]);
      this.liveBytes -= size;
      this.deadBytes += size;
    }
    this.entryOffset[entry] = -1;
  }

  /**
   * Past the memory limit, writes the oldest chunks but the one being filled to the file. If the
   * file cannot be written, the chunks stay and the limit is dropped, with a warning.
   */
  private keepUnderLimit(): void {
    while (this.bytes + this.chunkBytes > this.memoryLimit && this.firstHeld < this.chunks.length) {
      try {
        this.spill(this.firstHeld);
      } catch (e) {
        this.memoryLimit = Infinity;
        process.emitWarning(
          `l2devnet: the chain's rows past the memory limit cannot be written to a temporary file, so they stay in memory (${(e as Error).message})`,
        );
      }
    }
  }

  /** Writes chunk `c` to the end of the file, and its entries point there. */
  private spill(c: number): void {
    const chunk = this.chunks[c];
    this.file ??= new SpillFile(this.fileDir ?? tmpdir());
    const base = this.file.append(chunk);
    const end = c + 1 < this.chunkFirst.length ? this.chunkFirst[c + 1] : this.entries;
    // The chunk's entries are laid out in the order written; those adopted by a compaction are elsewhere.
    for (let at = 0, e = this.chunkFirst[c]; e < end; e++) {
      if (this.entryChunk[e] !== c) continue;
      const size = this.sizeAt(chunk, at);
      if (this.entryOffset[e] === at) {
        this.liveBytes -= size;
        this.entryChunk[e] = IN_FILE;
        this.entryOffset[e] = base + at;
      } else this.deadBytes -= size;
      at += size;
    }
    this.chunks[c] = EMPTY_CHUNK;
    this.heldBytes -= chunk.length;
    this.firstHeld = c + 1;
  }

  private rehash(capacity: number): void {
    const old = this.slots;
    this.slots = new Int32Array(capacity);
    this.used = 0;
    for (const s of old) if (s > 0) this.insertSlot(this.entryHash[s - 1], s - 1);
  }

  /** Copies the live entries in memory into new buffers, dropping the bytes of the gone ones; those in the file stay there. */
  private compact(): void {
    const fresh = new ByteMap({ chunkBytes: this.chunkBytes, memoryLimit: this.memoryLimit, fileDir: this.fileDir });
    fresh.file = this.file;
    for (let e = 0; e < this.entries; e++) {
      if (this.entryOffset[e] < 0) continue;
      if (this.entryChunk[e] === IN_FILE)
        fresh.add(this.entryHash[e], fresh.newEntry(IN_FILE, this.entryOffset[e], this.entryHash[e]));
      else fresh.set(this.keyOf(e), this.valueOf(e));
    }
    Object.assign(this, fresh);
  }
}

/**
 * A file in a new temporary directory that only grows. On Linux and macOS the file is unlinked once
 * open, so nothing is left behind however the process ends; elsewhere it is removed on close or exit.
 */
class SpillFile {
  private readonly fd: number;
  private end = 0;
  private readonly scratch = new Uint8Array(HEADER + 255);
  private remove: (() => void) | undefined;

  constructor(parent: string) {
    const dir = mkdtempSync(join(parent, 'l2devnet-rows-'));
    this.fd = openSync(join(dir, 'rows'), 'w+');
    const remove = () => rmSync(dir, { recursive: true, force: true });
    try {
      remove();
    } catch {
      this.remove = remove;
      process.once('exit', remove);
    }
  }

  /** Writes `bytes` at the end; where they start. */
  append(bytes: Uint8Array): number {
    const at = this.end;
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, at + done);
    this.end += bytes.length;
    return at;
  }

  /** `n` bytes at `at`, in a new array if `own`, else perhaps in a scratch buffer the next read reuses. */
  read(at: number, n: number, own = false): Uint8Array {
    const into = own || n > this.scratch.length ? new Uint8Array(n) : this.scratch;
    for (let done = 0; done < n;) {
      const got = readSync(this.fd, into, done, n - done, at + done);
      if (got === 0) throw new Error(`the rows file ends before byte ${at + n}`);
      done += got;
    }
    return into.subarray(0, n);
  }

  close(): void {
    closeSync(this.fd);
    if (this.remove !== undefined) {
      process.off('exit', this.remove);
      this.remove();
    }
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

function grow<T extends Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(a: T, b: T): T {
  b.set(a);
  return b;
}
