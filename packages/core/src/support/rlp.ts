/**
 * RLP decoding for trie nodes (every node read is decoded) and for reading a stored block's header
 * alone: the same items as @ethereumjs/rlp's decode (the tests compare them), as views into the input
 * instead of copies. Encoding is @ethereumjs/rlp's, patched to write into one array sized first
 * (patches/@ethereumjs+rlp+*.patch).
 */
import type { NestedUint8Array } from '@ethereumjs/util';

type Item = Uint8Array | NestedUint8Array;

function invalid(why: string): never {
  throw new Error(`invalid RLP: ${why}`);
}

function readLength(bytes: Uint8Array, at: number, k: number, end: number): number {
  if (at + k > end) invalid('truncated');
  if (bytes[at] === 0) invalid('length with a leading zero');
  let n = 0;
  for (let i = 0; i < k; i++) n = n * 256 + bytes[at + i];
  if (n <= 55) invalid('long form for a short length');
  return n;
}

/** The item at `at` and where it ends. */
function decodeAt(bytes: Uint8Array, at: number, end: number): [Item, number] {
  if (at >= end) invalid('truncated');
  const prefix = bytes[at];
  if (prefix < 0x80) return [bytes.subarray(at, at + 1), at + 1];
  let start: number;
  let length: number;
  if (prefix <= 0xbf) {
    if (prefix <= 0xb7) {
      start = at + 1;
      length = prefix - 0x80;
      if (length === 1 && bytes[start] < 0x80) invalid('single byte under 0x80 with a header');
    } else {
      const k = prefix - 0xb7;
      start = at + 1 + k;
      length = readLength(bytes, at + 1, k, end);
    }
    if (start + length > end) invalid('truncated');
    return [bytes.subarray(start, start + length), start + length];
  }
  if (prefix <= 0xf7) {
    start = at + 1;
    length = prefix - 0xc0;
  } else {
    const k = prefix - 0xf7;
    start = at + 1 + k;
    length = readLength(bytes, at + 1, k, end);
  }
  const listEnd = start + length;
  if (listEnd > end) invalid('truncated');
  const items: Item[] = [];
  for (let p = start; p < listEnd;) {
    const [child, next] = decodeAt(bytes, p, listEnd);
    items.push(child);
    p = next;
  }
  return [items as NestedUint8Array, listEnd];
}

/** The first item of the list `bytes` encode, without decoding the items after it (a block's header). */
export function decodeFirstItem(bytes: Uint8Array): Item {
  const prefix = bytes[0];
  if (prefix === undefined || prefix < 0xc0) invalid('not a list');
  const start = prefix <= 0xf7 ? 1 : 1 + (prefix - 0xf7);
  return decodeAt(bytes, start, bytes.length)[0];
}

/** The items `bytes` encode, as RLP.decode of @ethereumjs/rlp; byte strings are views into `bytes`. */
export function decodeRlp(bytes: Uint8Array): Item {
  if (bytes.length === 0) return new Uint8Array(0); // as the library answers
  const [item, end] = decodeAt(bytes, 0, bytes.length);
  if (end !== bytes.length) invalid('bytes after the item');
  return item;
}
