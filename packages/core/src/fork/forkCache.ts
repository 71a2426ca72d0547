/**
 * The fork cache on disk: what a forked chain fetched from its remote, kept for the next start. One
 * append-only file per remote chain id; every entry is checked when the file is read, so a torn
 * write (a killed process) or a changed byte costs a fetch, never a wrong value (a file that does
 * not check to its end is rewritten with the entries before the first bad one):
 *  - trie nodes and contract code, keyed by their keccak-256 (valid at every block of the chain),
 *    each checked against its key;
 *  - block headers by number, as RLP: the entry's hash is the header's, looked up by number.
 * Several nodes may append to one file at once: each entry is one `write` of a whole record.
 */
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { bytesToUnprefixedHex, equalsBytes, unprefixedHexToBytes } from '@ethereumjs/util';

import { keccak256 } from '../config/fastCrypto';

const KIND_STATE = 1;
const KIND_HEADER = 2;
/** kind (1), key length (1), value length (4), key, value, then keccak-256 of all before it, cut to 4 bytes. */
const HEAD_BYTES = 6;
const CHECK_BYTES = 4;

export interface ForkCacheEntries {
  /** Trie nodes and code by the state database's key (hex of the hash, code's with its prefix). */
  state: Map<string, Uint8Array>;
  /** Header RLP by block number. */
  headers: Map<bigint, Uint8Array>;
}

export class ForkCache {
  private fd: number | undefined;

  private constructor(
    /** Where the file is; undefined keeps the entries in memory only (--no-fork-cache). */
    readonly file: string | undefined,
    readonly entries: ForkCacheEntries,
  ) {}

  /** The cache for remote chain `chainId` in `dir`, read whole; none on disk when `dir` is undefined. */
  static open(dir: string | undefined, chainId: bigint): ForkCache {
    const entries: ForkCacheEntries = { state: new Map(), headers: new Map() };
    if (dir === undefined) return new ForkCache(undefined, entries);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `chain-${chainId}.bin`);
    let bytes: Uint8Array;
    try {
      // A copy as a plain Uint8Array: a Buffer's `slice` would share its memory.
      bytes = new Uint8Array(readFileSync(file));
    } catch {
      bytes = new Uint8Array(0);
    }
    const good = readEntries(bytes, entries);
    if (good < bytes.length) {
      writeFileSync(`${file}.tmp`, bytes.subarray(0, good));
      renameSync(`${file}.tmp`, file);
    }
    return new ForkCache(file, entries);
  }

  putState(key: string, value: Uint8Array): void {
    if (this.entries.state.has(key)) return;
    this.entries.state.set(key, value);
    this.append(KIND_STATE, unprefixedHexToBytes(key), value);
  }

  putHeader(number: bigint, rlp: Uint8Array): void {
    if (this.entries.headers.has(number)) return;
    this.entries.headers.set(number, rlp);
    const key = new Uint8Array(8);
    new DataView(key.buffer).setBigUint64(0, number);
    this.append(KIND_HEADER, key, rlp);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private append(kind: number, key: Uint8Array, value: Uint8Array): void {
    if (this.file === undefined) return;
    const record = new Uint8Array(HEAD_BYTES + key.length + value.length + CHECK_BYTES);
    record[0] = kind;
    record[1] = key.length;
    new DataView(record.buffer).setUint32(2, value.length);
    record.set(key, HEAD_BYTES);
    record.set(value, HEAD_BYTES + key.length);
    const end = HEAD_BYTES + key.length + value.length;
    record.set(keccak256(record.subarray(0, end)).subarray(0, CHECK_BYTES), end);
    this.fd ??= openSync(this.file, 'a');
    appendFileSync(this.fd, record);
  }
}

/**
 * The file's records into `entries`; reading stops at the first record that does not check. The
 * length of the records that did.
 */
function readEntries(bytes: Uint8Array, entries: ForkCacheEntries): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  while (at + HEAD_BYTES <= bytes.length) {
    const kind = bytes[at];
    const keyLength = bytes[at + 1];
    const valueLength = view.getUint32(at + 2);
    const end = at + HEAD_BYTES + keyLength + valueLength;
    if (end + CHECK_BYTES > bytes.length) return at;
    if (
      !equalsBytes(keccak256(bytes.subarray(at, end)).subarray(0, CHECK_BYTES), bytes.subarray(end, end + CHECK_BYTES))
    )
      return at;
    const key = bytes.slice(at + HEAD_BYTES, at + HEAD_BYTES + keyLength);
    const value = bytes.slice(at + HEAD_BYTES + keyLength, end);
    if (kind === KIND_STATE) {
      // A node's key is its hash; code's is a one-byte prefix and its hash.
      if (!equalsBytes(keccak256(value), key.subarray(key.length - 32))) return at;
      entries.state.set(bytesToUnprefixedHex(key), value);
    } else if (kind === KIND_HEADER && keyLength === 8)
      entries.headers.set(new DataView(key.buffer).getBigUint64(0), value);
    at = end + CHECK_BYTES;
  }
  return at;
}
