/**
 * One sparse Merkle trie opened for writing within a block: Shomei's ZKTrie operations
 * (trie/src/main/java/net/consensys/shomei/trie/ZKTrie.java, `putWithTrace` and `removeWithTrace`)
 * on the shared nodes, with the flat leaves recorded as of the block.
 */
import type { FlatLeaf, FlatLeaves } from './flatLeaves';
import { decodeLeaf, encodeLeaf } from './sparseMerkleTrie';
import type { LeafOpening, SparseMerkleNodes } from './sparseMerkleTrie';

/** A key's proof: the leaf that holds it, or the two leaves either side of where it would be. */
export type LineaKeyProof =
  | { key: Uint8Array; leafIndex: number; proof: LineaLeafProof }
  | {
      key: Uint8Array;
      leftLeafIndex: number;
      leftProof: LineaLeafProof;
      rightLeafIndex: number;
      rightProof: LineaLeafProof;
    };

/** One leaf's proof as `linea_getProof` gives it: the value it stands for and the nodes, top first. */
export interface LineaLeafProof {
  value: Uint8Array;
  /** The top node, the 40 siblings from the top down, the leaf: 42 in all. */
  proofRelatedNodes: Uint8Array[];
}

/**
 * The proof of `key` (hashed: `hKey`) in the trie at `root` after block `block`: its leaf's, or its
 * two neighbours' when it is absent (Shomei's ZKTrie.getProof).
 */
export function proveKey(
  nodes: SparseMerkleNodes,
  root: Uint8Array,
  leaves: FlatLeaves,
  hKey: Uint8Array,
  key: Uint8Array,
  block: number,
): LineaKeyProof {
  const prove = (leaf: FlatLeaf): LineaLeafProof => {
    const p = nodes.prove(root, leaf.index);
    return { value: leaf.value, proofRelatedNodes: [p.top, ...p.siblings, p.leaf] };
  };
  const leaf = leaves.at(hKey, block);
  if (leaf !== undefined) return { key, leafIndex: leaf.index, proof: prove(leaf) };
  const { left, right } = leaves.neighbours(hKey, block);
  return {
    key,
    leftLeafIndex: left.index,
    leftProof: prove(left),
    rightLeafIndex: right.index,
    rightProof: prove(right),
  };
}

export class ZkTrie {
  private nextFree: number;
  private subRoot: Uint8Array;
  /** Leaves written since the last root, hashed into the tree together when it is asked for. */
  private readonly pending = new Map<number, Uint8Array | null>();

  /** The keys written, for a rollback of the block (FlatLeaves.rewind). */
  readonly touched: Uint8Array[] = [];

  constructor(
    private readonly nodes: SparseMerkleNodes,
    root: Uint8Array,
    readonly leaves: FlatLeaves,
    /** The block the writes are recorded as of. */
    private readonly block: number,
  ) {
    ({ nextFree: this.nextFree, subRoot: this.subRoot } = nodes.readTop(root));
  }

  /** The index the next new leaf takes. */
  get nextFreeNode(): number {
    return this.nextFree;
  }

  /** The trie's root with the writes made. */
  root(): Uint8Array {
    if (this.pending.size > 0) {
      const writes = [...this.pending].sort((a, b) => a[0] - b[0]);
      this.subRoot = this.nodes.setLeaves(this.subRoot, writes);
      this.pending.clear();
    }
    return this.nodes.writeTop(this.nextFree, this.subRoot);
  }

  /** `value` (what a proof shows) under `hKey`, its hash `hValue` in the leaf: updated, or a new leaf. */
  put(hKey: Uint8Array, value: Uint8Array, hValue: Uint8Array): void {
    this.touched.push(hKey);
    const existing = this.leaves.at(hKey, this.block);
    if (existing !== undefined) {
      this.relink(existing.index, { hValue });
      this.leaves.set(hKey, this.block, existing.index, value);
      return;
    }
    const { left, right } = this.leaves.neighbours(hKey, this.block);
    const index = this.nextFree;
    this.relink(left.index, { next: index });
    this.pending.set(index, encodeLeaf({ prev: left.index, next: right.index, hKey, hValue }));
    this.relink(right.index, { prev: index });
    this.nextFree = index + 1;
    this.leaves.set(hKey, this.block, index, value);
  }

  /** The leaf of `hKey` emptied and its neighbours linked to each other (the next free leaf stays). */
  remove(hKey: Uint8Array): void {
    const existing = this.leaves.at(hKey, this.block);
    if (existing === undefined) return;
    this.touched.push(hKey);
    const { left, right } = this.leaves.neighbours(hKey, this.block);
    this.relink(left.index, { next: right.index });
    this.pending.set(existing.index, null);
    this.relink(right.index, { prev: left.index });
    this.leaves.set(hKey, this.block, -1, new Uint8Array());
  }

  /** The leaf at `index` with some of its fields changed. */
  private relink(index: number, change: Partial<LeafOpening>): void {
    const encoded = this.pending.has(index) ? this.pending.get(index)! : this.nodes.leaf(this.subRoot, index);
    if (encoded === null) throw new Error(`sparse Merkle leaf ${index} is empty`);
    this.pending.set(index, encodeLeaf({ ...decodeLeaf(encoded), ...change }));
  }
}
