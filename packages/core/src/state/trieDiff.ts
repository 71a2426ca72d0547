/**
 * What changed between two Merkle-Patricia tries: every key whose value differs, found by walking
 * both tries together and skipping each subtree whose hash is the same in both (a block that changed
 * k keys reads about k paths of each trie, not the tries).
 */
import { equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import type { NestedUint8Array } from '@ethereumjs/util';

import { readTrieNode } from './updateTrie';
import type { TrieNodeStore } from './updateTrie';

/** A key (the trie's own, hashed for a secure trie) with its value before and after; null: absent. */
export type KeyChange = [key: Uint8Array, before: Uint8Array | null, after: Uint8Array | null];

/** A child reference as a node holds it: a hash, an embedded node, or empty. */
type Ref = Uint8Array | NestedUint8Array;

/** The keys whose values differ between the tries at `before` and `after`, in key order. */
export async function diffTries(
  store: Pick<TrieNodeStore, 'get'>,
  before: Uint8Array,
  after: Uint8Array,
): Promise<KeyChange[]> {
  const out: KeyChange[] = [];
  const ref = (root: Uint8Array) => (equalsBytes(root, KECCAK256_RLP) ? null : root);
  await diffRefs(store, ref(before), ref(after), [], out);
  out.sort((a, b) => Buffer.compare(a[0], b[0]));
  return out;
}

async function load(store: Pick<TrieNodeStore, 'get'>, ref: Ref | null): Promise<NestedUint8Array | null> {
  if (ref === null || (!Array.isArray(ref) && ref.length === 0)) return null;
  return Array.isArray(ref) ? ref : readTrieNode(store, ref as Uint8Array);
}

function sameRef(a: Ref | null, b: Ref | null): boolean {
  if (a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) return false;
  return equalsBytes(a as Uint8Array, b as Uint8Array);
}

/** A leaf's or extension's hex-prefix path as nibbles, and whether it ends a key (a leaf). */
function hexPrefix(encoded: Uint8Array): { path: number[]; leaf: boolean } {
  const flag = encoded[0] >> 4;
  const path: number[] = [];
  if (flag & 1) path.push(encoded[0] & 0x0f);
  for (let i = 1; i < encoded.length; i++) path.push(encoded[i] >> 4, encoded[i] & 0x0f);
  return { path, leaf: flag >= 2 };
}

async function diffRefs(
  store: Pick<TrieNodeStore, 'get'>,
  a: Ref | null,
  b: Ref | null,
  prefix: number[],
  out: KeyChange[],
): Promise<void> {
  if (sameRef(a, b)) return;
  const [na, nb] = await Promise.all([load(store, a), load(store, b)]);
  if (na === null && nb === null) return;
  if (na !== null && nb !== null && na.length === 17 && nb.length === 17) {
    for (let i = 0; i < 16; i++) await diffRefs(store, na[i] as Ref, nb[i] as Ref, [...prefix, i], out);
    return;
  }
  if (na !== null && nb !== null && na.length === 2 && nb.length === 2) {
    const pa = hexPrefix(na[0] as Uint8Array);
    const pb = hexPrefix(nb[0] as Uint8Array);
    if (!pa.leaf && !pb.leaf && pa.path.join() === pb.path.join()) {
      await diffRefs(store, na[1] as Ref, nb[1] as Ref, [...prefix, ...pa.path], out);
      return;
    }
  }
  // Shapes differ (a leaf became a branch, an extension was split): compare the two subtrees' leaves.
  const before = new Map<string, [Uint8Array, Uint8Array]>();
  const after = new Map<string, [Uint8Array, Uint8Array]>();
  await collect(store, na, prefix, before);
  await collect(store, nb, prefix, after);
  for (const [k, [key, value]] of before) {
    const now = after.get(k);
    if (now === undefined) out.push([key, value, null]);
    else if (!equalsBytes(now[1], value)) out.push([key, value, now[1]]);
  }
  for (const [k, [key, value]] of after) if (!before.has(k)) out.push([key, null, value]);
}

/** Every key and value under `node`, whose path from the root is `prefix`. */
async function collect(
  store: Pick<TrieNodeStore, 'get'>,
  node: NestedUint8Array | null,
  prefix: number[],
  into: Map<string, [Uint8Array, Uint8Array]>,
): Promise<void> {
  if (node === null) return;
  if (node.length === 17) {
    for (let i = 0; i < 16; i++) await collect(store, await load(store, node[i] as Ref), [...prefix, i], into);
    return;
  }
  const { path, leaf } = hexPrefix(node[0] as Uint8Array);
  const full = [...prefix, ...path];
  if (!leaf) return collect(store, await load(store, node[1] as Ref), full, into);
  const key = new Uint8Array(full.length / 2);
  for (let i = 0; i < key.length; i++) key[i] = (full[2 * i] << 4) | full[2 * i + 1];
  into.set(Buffer.from(key).toString('hex'), [key, node[1] as Uint8Array]);
}
