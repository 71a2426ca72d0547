/**
 * The leaves of one sparse Merkle trie by key hash, at every block: which leaf index holds a key and
 * the value it stands for (Shomei's flat leaves, `FlattenedLeaf`, with the neighbour search of
 * `TrieStorage.getNearestKeys`), kept as a history per key so that a proof at an older block finds
 * the leaves and neighbours of that block.
 */
import { HEAD_KEY, TAIL_KEY } from './sparseMerkleTrie';

/** A leaf as of some block: its index and the value it stands for; index -1: deleted. */
interface Version {
  block: number;
  index: number;
  value: Uint8Array;
}

export interface FlatLeaf {
  hKey: Uint8Array;
  index: number;
  value: Uint8Array;
}

const hexOf = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
const ZERO32 = new Uint8Array(32);

export class FlatLeaves {
  /** Every key hash that ever held a leaf, sorted (hex: its order is the bytes' unsigned order). */
  private readonly keys: string[] = [];
  private readonly history = new Map<string, Version[]>();

  constructor() {
    // The sentinels, at indexes 0 and 1 from the start, with Shomei's zero value.
    this.set(HEAD_KEY, -1, 0, ZERO32);
    this.set(TAIL_KEY, -1, 1, ZERO32);
  }

  /** The leaf of `hKey` after block `block`; undefined when there is none. */
  at(hKey: Uint8Array, block: number): FlatLeaf | undefined {
    return this.atHex(hexOf(hKey), block);
  }

  private atHex(key: string, block: number): FlatLeaf | undefined {
    const versions = this.history.get(key);
    if (versions === undefined) return undefined;
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i];
      if (v.block > block) continue;
      return v.index < 0 ? undefined : { hKey: Buffer.from(key, 'hex'), index: v.index, value: v.value };
    }
    return undefined;
  }

  /** Records `hKey`'s leaf (index -1: deleted) as of block `block`, the latest block recorded. */
  set(hKey: Uint8Array, block: number, index: number, value: Uint8Array): void {
    const key = hexOf(hKey);
    let versions = this.history.get(key);
    if (versions === undefined) {
      versions = [];
      this.history.set(key, versions);
      this.keys.splice(this.insertionPoint(key), 0, key);
    }
    const last = versions[versions.length - 1];
    if (last !== undefined && last.block === block) versions.pop();
    versions.push({ block, index, value });
  }

  /** The live leaves either side of `hKey` after block `block` (HEAD and TAIL bound every key). */
  neighbours(hKey: Uint8Array, block: number): { left: FlatLeaf; right: FlatLeaf } {
    const key = hexOf(hKey);
    const at = this.insertionPoint(key);
    let left: FlatLeaf | undefined;
    for (let i = at - 1; i >= 0 && left === undefined; i--) left = this.atHex(this.keys[i], block);
    let right: FlatLeaf | undefined;
    const from = this.keys[at] === key ? at + 1 : at;
    for (let i = from; i < this.keys.length && right === undefined; i++) right = this.atHex(this.keys[i], block);
    if (left === undefined || right === undefined) throw new Error('a sparse Merkle trie lost its HEAD or TAIL leaf');
    return { left, right };
  }

  /** Forgets what blocks after `block` recorded, for the keys `touched`. */
  rewind(touched: Iterable<Uint8Array>, block: number): void {
    for (const hKey of touched) {
      const versions = this.history.get(hexOf(hKey));
      while (versions !== undefined && versions.length > 0 && versions[versions.length - 1].block > block)
        versions.pop();
    }
  }

  /** Where `key` is, or would go, in the sorted keys. */
  private insertionPoint(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
