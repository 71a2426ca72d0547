/**
 * Linea's sparse Merkle trie, as its state manager Shomei keeps it (github.com/Consensys/shomei,
 * trie/src/main/java/net/consensys/shomei/trie/ZKTrie.java and trie/node/, Apache-2.0):
 *  - a binary tree of depth 40 whose leaves are filled left to right (`nextFreeNode`), under a top
 *    node `nextFreeNode (64 bytes, Poseidon-safe) ‖ subtree root`;
 *  - a leaf is the opening `prev ‖ next ‖ hKey ‖ hValue` (prev/next: the leaf indexes of its
 *    neighbours in hKey order, Poseidon-safe 64 bytes each), 192 bytes, hashed; an empty leaf's hash
 *    is zero; a branch is `left hash ‖ right hash`, hashed;
 *  - two sentinel leaves, HEAD (hKey 0) at index 0 and TAIL (hKey 0x7f000000…) at index 1, so every
 *    key has a left and a right neighbour (`setHeadAndTail`).
 * Nodes are content-addressed and never deleted, so the trie at any root stays readable: a block's
 * root is all a proof at that block needs, with the flat leaves (`FlatLeaves`) kept by version.
 */
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';

import { NodeArena } from './nodeArena';
import { poseidon2, poseidonSafe } from './poseidon2';

export const TRIE_DEPTH = 40;
const ZERO32 = new Uint8Array(32);

/** A number as the 64-byte Poseidon-safe encoding of its 32-byte big-endian form. */
export function safeNumber(value: bigint | number): Uint8Array {
  return poseidonSafe(setLengthLeft(bigIntToBytes(BigInt(value)), 32));
}

/** The number a 64-byte Poseidon-safe encoding holds (leaf indexes, below 2^53). */
function readSafeNumber(encoded: Uint8Array, at: number): number {
  let v = 0;
  for (let i = 0; i < 16; i++) v = v * 65536 + ((encoded[at + 4 * i + 2] << 8) | encoded[at + 4 * i + 3]);
  return v;
}

/** A leaf opening: its neighbours' indexes, its key's hash and its value's hash. */
export interface LeafOpening {
  prev: number;
  next: number;
  hKey: Uint8Array;
  hValue: Uint8Array;
}

export function encodeLeaf(leaf: LeafOpening): Uint8Array {
  const out = new Uint8Array(192);
  out.set(safeNumber(leaf.prev), 0);
  out.set(safeNumber(leaf.next), 64);
  out.set(leaf.hKey, 128);
  out.set(leaf.hValue, 160);
  return out;
}

export function decodeLeaf(encoded: Uint8Array): LeafOpening {
  return {
    prev: readSafeNumber(encoded, 0),
    next: readSafeNumber(encoded, 64),
    hKey: encoded.subarray(128, 160),
    hValue: encoded.subarray(160, 192),
  };
}

/** The sentinels' keys (ZKTrie's `LeafOpening.HEAD`/`TAIL` with the Poseidon key provider). */
export const HEAD_KEY = ZERO32;
export const TAIL_KEY = Uint8Array.from(
  Buffer.from('7f0000007f0000007f0000007f0000007f0000007f0000007f0000007f000000', 'hex'),
);

/** What a proof of one leaf carries: the top node, the 40 siblings from the top down, the leaf. */
export interface LeafProof {
  /** `nextFreeNode (64 bytes) ‖ subtree root`, 96 bytes. */
  top: Uint8Array;
  /** Each sibling's encoding (a branch's 64 bytes, a leaf's 192, an empty leaf's 32 zero bytes). */
  siblings: Uint8Array[];
  /** The leaf's opening, 192 bytes. */
  leaf: Uint8Array;
}

/** The nodes of every sparse Merkle trie of one chain, by hash. */
export class SparseMerkleNodes {
  private readonly nodes = new NodeArena();
  /** The hash of an empty subtree of each height (0: an empty leaf). */
  readonly emptySubtree: Uint8Array[] = [ZERO32];
  /** The root of a trie holding only HEAD and TAIL (ZKTrie's DEFAULT_TRIE_ROOT). */
  readonly emptyTrieRoot: Uint8Array;

  constructor() {
    for (let h = 1; h <= TRIE_DEPTH; h++) {
      const below = this.emptySubtree[h - 1];
      const encoded = new Uint8Array(64);
      encoded.set(below, 0);
      encoded.set(below, 32);
      this.emptySubtree.push(this.put(encoded));
    }
    const sub = this.setLeaves(this.emptySubtree[TRIE_DEPTH], [
      [0, encodeLeaf({ prev: 0, next: 1, hKey: HEAD_KEY, hValue: ZERO32 })],
      [1, encodeLeaf({ prev: 0, next: 1, hKey: TAIL_KEY, hValue: ZERO32 })],
    ]);
    this.emptyTrieRoot = this.writeTop(2, sub);
  }

  private put(encoded: Uint8Array): Uint8Array {
    const hash = poseidon2(encoded);
    this.nodes.put(hash, encoded);
    return hash;
  }

  private get(hash: Uint8Array): Uint8Array {
    const node = this.nodes.get(hash);
    if (node === undefined) throw new Error(`sparse Merkle node ${Buffer.from(hash).toString('hex')} is missing`);
    return node;
  }

  /** The top node's hash for `nextFree` and the subtree root. */
  writeTop(nextFree: number, subRoot: Uint8Array): Uint8Array {
    const top = new Uint8Array(96);
    top.set(safeNumber(nextFree), 0);
    top.set(subRoot, 64);
    return this.put(top);
  }

  /** The next free leaf index and the subtree root under the top node `root`. */
  readTop(root: Uint8Array): { nextFree: number; subRoot: Uint8Array; encoded: Uint8Array } {
    const encoded = this.get(root);
    return { nextFree: readSafeNumber(encoded, 0), subRoot: encoded.subarray(64, 96), encoded };
  }

  /**
   * The subtree root with several leaves set at once (`writes` sorted by index; null: an empty
   * leaf): each changed node hashed once, however many of the written paths go through it.
   */
  setLeaves(subRoot: Uint8Array, writes: [index: number, leaf: Uint8Array | null][]): Uint8Array {
    const rebuild = (node: Uint8Array, depth: number, start: number, end: number): Uint8Array => {
      if (depth === TRIE_DEPTH) {
        const leaf = writes[start][1];
        return leaf === null ? ZERO32 : this.put(leaf);
      }
      const encoded = this.get(node);
      let split = start;
      while (split < end && !bitAt(writes[split][0], depth)) split++;
      const left = split > start ? rebuild(encoded.subarray(0, 32), depth + 1, start, split) : encoded.subarray(0, 32);
      const right = end > split ? rebuild(encoded.subarray(32, 64), depth + 1, split, end) : encoded.subarray(32, 64);
      const out = new Uint8Array(64);
      out.set(left, 0);
      out.set(right, 32);
      return this.put(out);
    };
    return writes.length === 0 ? subRoot : rebuild(subRoot, 0, 0, writes.length);
  }

  /** The opening at leaf `index` of the subtree `subRoot`, or null for an empty leaf. */
  leaf(subRoot: Uint8Array, index: number): Uint8Array | null {
    let node = subRoot;
    for (let depth = 0; depth < TRIE_DEPTH; depth++) {
      const right = bitAt(index, depth);
      node = this.get(node).subarray(right ? 32 : 0, right ? 64 : 32);
    }
    return isZero(node) ? null : this.get(node);
  }

  /** The proof of leaf `index` in the trie at `root`, as `linea_getProof` lists its nodes. */
  prove(root: Uint8Array, index: number): LeafProof {
    const { subRoot, encoded: top } = this.readTop(root);
    const siblings: Uint8Array[] = [];
    let node = subRoot;
    for (let depth = 0; depth < TRIE_DEPTH; depth++) {
      const encoded = this.get(node);
      const right = bitAt(index, depth);
      const sibling = encoded.subarray(right ? 0 : 32, right ? 32 : 64);
      siblings.push(isZero(sibling) ? ZERO32 : this.get(sibling));
      node = encoded.subarray(right ? 32 : 0, right ? 64 : 32);
    }
    return { top, siblings, leaf: this.get(node) };
  }
}

/** Whether leaf `index` lies right at `depth` (0: under the subtree root): its bits, MSB first. */
function bitAt(index: number, depth: number): boolean {
  return Math.floor(index / 2 ** (TRIE_DEPTH - 1 - depth)) % 2 === 1;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function isZero(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * Recomputes the root a proof stands for, as a verifier does (Linea's SparseMerkleProof.verifyProof:
 * the leaf hashed up the 40 levels by `leafIndex`'s bits, then the top node): the root, or undefined
 * when the proof's own top node does not hold the subtree root it leads to.
 */
export function rootOfProof(proof: LeafProof, leafIndex: number): Uint8Array | undefined {
  let hash = poseidon2(proof.leaf);
  for (let depth = TRIE_DEPTH - 1; depth >= 0; depth--) {
    const s = proof.siblings[depth];
    const sibling = s.length === 32 && isZero(s) ? ZERO32 : poseidon2(s);
    const encoded = new Uint8Array(64);
    const right = bitAt(leafIndex, depth);
    encoded.set(right ? sibling : hash, 0);
    encoded.set(right ? hash : sibling, 32);
    hash = poseidon2(encoded);
  }
  if (proof.top.length !== 96 || !equalBytes(proof.top.subarray(64), hash)) return undefined;
  return poseidon2(proof.top);
}
