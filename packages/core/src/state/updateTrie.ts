/**
 * Merkle-Patricia trie writes in one pass: a set of changes applied to the trie at a root, the new
 * root returned and only the nodes of the new trie written. ethereumjs's `put` walks from the root,
 * re-encodes and re-hashes the whole path and stores every node of it, for each key: a block that
 * changes five accounts hashed the root five times and kept four roots nobody will ever read. Here
 * the changes are made to decoded nodes in memory, and each changed node is encoded, hashed and
 * written once, at the end. The tries are the same, byte for byte (the tests compare with
 * ethereumjs's); `KECCAK256_RLP` is the empty trie's root, as there.
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToUnprefixedHex, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import type { NestedUint8Array } from '@ethereumjs/util';

import { keccak256 } from '../config/fastCrypto';
import { LruCache } from '../support/lru';
import { decodeRlp } from '../support/rlp';

/** Nodes kept decoded (readTrieNode): a trie's upper levels and more, ~3 MiB at most. */
const RECENT_NODES = 2_048;

/** Where the nodes are: read by hash, and written by hash. */
export interface TrieNodeStore {
  get(hash: Uint8Array): Promise<Uint8Array | undefined>;
  put(hash: Uint8Array, encoded: Uint8Array): Promise<void> | void;
}

/** A key of the trie (hashed already for a secure trie) and its new value, or null to delete it. */
export type TrieChange = [key: Uint8Array, value: Uint8Array | null];

type Branch = { kind: 'branch'; children: (Child | null)[]; value: Uint8Array | null };
type Leaf = { kind: 'leaf'; path: number[]; value: Uint8Array };
type Extension = { kind: 'extension'; path: number[]; child: Child };
type TrieNode = Branch | Leaf | Extension;
/** A node not read yet: its hash. */
type Stored = { kind: 'stored'; hash: Uint8Array };
type Child = TrieNode | Stored;

/**
 * Makes the store hold the node at `prefix` (nibbles from the root) when it lacks it: a forked
 * chain's trie holds only the remote nodes it has read (fork/forkState.ts).
 */
export type RevealNode = (prefix: number[]) => Promise<void>;

/** A node the store does not hold. */
export class MissingTrieNodeError extends Error {
  constructor(readonly hash: Uint8Array) {
    super(`missing trie node ${bytesToUnprefixedHex(hash)}`);
  }
}

/**
 * The root of the trie at `root` with `changes` made, its new nodes written to `store` and kept
 * decoded (readTrieNode), since the next reads and writes of the state walk them first. Every node
 * on a changed key's path must be in the store; a node off them that a deletion needs (the one
 * sibling a branch keeps) is asked of `reveal` when the store lacks it.
 */
export async function updateTrie(
  store: TrieNodeStore,
  root: Uint8Array,
  changes: TrieChange[],
  reveal?: RevealNode,
): Promise<Uint8Array> {
  return changed(store, root, changes, reveal, true);
}

async function changed(
  store: TrieNodeStore,
  root: Uint8Array,
  changes: TrieChange[],
  reveal: RevealNode | undefined,
  keep: boolean,
): Promise<Uint8Array> {
  let node: Child | null = equalsBytes(root, KECCAK256_RLP) ? null : { kind: 'stored', hash: root };
  for (const [key, value] of changes) {
    const path = nibbles(key);
    node =
      value === null || value.length === 0
        ? await remove(store, node, path, 0, reveal)
        : await insert(store, node, path, 0, value);
  }
  if (node === null) return KECCAK256_RLP;
  if (node.kind === 'stored') return node.hash;
  const writes: Write[] = [];
  // The root is stored by its hash whatever its size.
  const items = raw(node, writes);
  const hash = stored(RLP.encode(items), items, writes);
  for (const [h, e, decoded] of writes) {
    await store.put(h, e);
    if (keep) recentNodes.set(bytesToUnprefixedHex(h), decoded);
  }
  return hash;
}

/** The root of a trie holding `values` at keys RLP(0), RLP(1), ...: a block's transactions, receipts, withdrawals. */
export async function orderedTrieRoot(values: Uint8Array[]): Promise<Uint8Array> {
  const discard: TrieNodeStore = { get: async () => undefined, put: () => {} };
  return changed(
    discard,
    KECCAK256_RLP,
    values.map((v, i) => [RLP.encode(i), v]),
    undefined,
    false,
  );
}

function nibbles(key: Uint8Array): number[] {
  const out = new Array<number>(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 0x0f;
  }
  return out;
}

function commonPrefix(a: number[], b: number[], bFrom: number): number {
  let n = 0;
  while (n < a.length && bFrom + n < b.length && a[n] === b[bFrom + n]) n++;
  return n;
}

/**
 * Nodes recently read, as RLP items, by hash (content-addressed: the same for every store that holds
 * them). A trie's upper nodes are on every key's path: reads of keys not read before (a new holder's
 * balance) walk them again and again, each a lookup and a decode. eth_call of balanceOf at random
 * holders, 64 connections, A/B 6 runs each: 12,450 -> 13,400/s (medians).
 */
const recentNodes = new LruCache<string, NestedUint8Array>(RECENT_NODES);

/**
 * The node stored by `hash`, as RLP items (not to be changed). They are decoded from a copy of what
 * the store gave: an in-memory store's read is a view into one of its 8 MiB buffers (store/
 * byteMap.ts), which a node kept here, or a value decoded from it and kept in the flat maps, would
 * hold in memory after the store had written it to its file or compacted it away.
 */
export async function readTrieNode(store: Pick<TrieNodeStore, 'get'>, hash: Uint8Array): Promise<NestedUint8Array> {
  const key = bytesToUnprefixedHex(hash);
  const recent = recentNodes.get(key);
  if (recent !== undefined) return recent;
  const encoded = await store.get(hash);
  if (encoded === undefined) throw new MissingTrieNodeError(hash);
  const items = decodeRlp(encoded.slice()) as NestedUint8Array;
  recentNodes.set(key, items);
  return items;
}

/**
 * The value at `path` (a hashed key) in the trie at `root`, or null, reading nodes with `load` (which
 * is given a child's hash, or the child itself when it is embedded in its parent, under 32 bytes).
 */
export async function trieValue(
  load: (ref: Uint8Array | NestedUint8Array) => Promise<NestedUint8Array> | NestedUint8Array,
  root: Uint8Array,
  path: Uint8Array,
): Promise<Uint8Array | null> {
  const nibbleAt = (i: number) => (i % 2 === 0 ? path[i >> 1] >> 4 : path[i >> 1] & 0x0f);
  const nibbles = path.length * 2;
  let node = await load(root);
  let at = 0;
  for (;;) {
    if (node.length === 17) {
      // branch
      if (at === nibbles) return (node[16] as Uint8Array).length > 0 ? (node[16] as Uint8Array) : null;
      const child = node[nibbleAt(at++)];
      if (!Array.isArray(child) && child.length === 0) return null;
      node = await load(child);
      continue;
    }
    // leaf or extension: the hex-prefix path, then the value or the child
    const encodedPath = node[0] as Uint8Array;
    const flag = encodedPath[0] >> 4;
    const odd = (flag & 1) === 1;
    const length = encodedPath.length * 2 - (odd ? 1 : 2);
    for (let k = 0; k < length; k++) {
      const n = k + (odd ? 1 : 2);
      const nibble = n % 2 === 0 ? encodedPath[n >> 1] >> 4 : encodedPath[n >> 1] & 0x0f;
      if (at + k >= nibbles || nibbleAt(at + k) !== nibble) return null;
    }
    at += length;
    if (flag >= 2) return at === nibbles ? (node[1] as Uint8Array) : null;
    node = await load(node[1]);
  }
}

async function load(store: TrieNodeStore, child: Child): Promise<TrieNode> {
  return child.kind === 'stored' ? decodeNode(await readTrieNode(store, child.hash)) : child;
}

function decodeChild(ref: Uint8Array | NestedUint8Array): Child | null {
  if (Array.isArray(ref)) return decodeNode(ref); // under 32 bytes: embedded in its parent
  return ref.length === 0 ? null : { kind: 'stored', hash: ref };
}

function decodeNode(node: NestedUint8Array): TrieNode {
  if (node.length === 17) {
    const value = node[16] as Uint8Array;
    return {
      kind: 'branch',
      children: node.slice(0, 16).map((c) => decodeChild(c)),
      value: value.length > 0 ? value : null,
    };
  }
  // Hex-prefix encoding: the first nibble's bit 1 marks a leaf, bit 0 an odd path length.
  const encoded = node[0] as Uint8Array;
  const flag = encoded[0] >> 4;
  const path = nibbles(encoded).slice(flag & 1 ? 1 : 2);
  if (flag >= 2) return { kind: 'leaf', path, value: node[1] as Uint8Array };
  return { kind: 'extension', path, child: decodeChild(node[1])! };
}

/**
 * The branch where a new key (`path` from `from`, with `value`) parts from what was there: the rest
 * of a leaf's path and its value, or the rest of an extension's path (never empty) and its child.
 */
function split(path: number[], from: number, value: Uint8Array, other: number[], otherEnd: Child | Uint8Array): Branch {
  const branch: Branch = { kind: 'branch', children: new Array<Child | null>(16).fill(null), value: null };
  if (other.length === 0)
    branch.value = otherEnd as Uint8Array; // only a leaf's value ends at a branch
  else
    branch.children[other[0]] =
      otherEnd instanceof Uint8Array
        ? { kind: 'leaf', path: other.slice(1), value: otherEnd }
        : other.length === 1
          ? otherEnd
          : { kind: 'extension', path: other.slice(1), child: otherEnd };
  if (from === path.length) branch.value = value;
  else branch.children[path[from]] = { kind: 'leaf', path: path.slice(from + 1), value };
  return branch;
}

function withPrefix(prefix: number[], node: TrieNode): TrieNode {
  return prefix.length === 0 ? node : { kind: 'extension', path: prefix, child: node };
}

async function insert(
  store: TrieNodeStore,
  child: Child | null,
  path: number[],
  at: number,
  value: Uint8Array,
): Promise<TrieNode> {
  if (child === null) return { kind: 'leaf', path: path.slice(at), value };
  const node = await load(store, child);
  switch (node.kind) {
    case 'branch':
      if (at === path.length) node.value = value;
      else node.children[path[at]] = await insert(store, node.children[path[at]], path, at + 1, value);
      return node;
    case 'leaf': {
      const n = commonPrefix(node.path, path, at);
      if (n === node.path.length && at + n === path.length) return { kind: 'leaf', path: node.path, value };
      return withPrefix(node.path.slice(0, n), split(path, at + n, value, node.path.slice(n), node.value));
    }
    case 'extension': {
      const n = commonPrefix(node.path, path, at);
      if (n === node.path.length) {
        node.child = await insert(store, node.child, path, at + n, value);
        return node;
      }
      return withPrefix(node.path.slice(0, n), split(path, at + n, value, node.path.slice(n), node.child));
    }
  }
}

/** The node with `path` removed below it: the same object when the key was not there, null when nothing is left. */
async function remove(
  store: TrieNodeStore,
  child: Child | null,
  path: number[],
  at: number,
  reveal: RevealNode | undefined,
): Promise<Child | null> {
  if (child === null) return null;
  const node = await load(store, child);
  switch (node.kind) {
    case 'leaf': {
      const n = commonPrefix(node.path, path, at);
      return n === node.path.length && at + n === path.length ? null : child;
    }
    case 'extension': {
      const n = commonPrefix(node.path, path, at);
      if (n < node.path.length) return child;
      const below = await remove(store, node.child, path, at + n, reveal);
      if (below === node.child) return child;
      if (below === null) return null;
      return joinPath(node.path, await load(store, below));
    }
    case 'branch': {
      if (at === path.length) {
        if (node.value === null) return child;
        node.value = null;
      } else {
        const old = node.children[path[at]];
        const below = await remove(store, old, path, at + 1, reveal);
        if (below === old) return child;
        node.children[path[at]] = below;
      }
      // A branch left with one entry becomes a leaf or joins its only child.
      const used = node.children.flatMap((c, i) => (c === null ? [] : [i]));
      if (used.length + (node.value === null ? 0 : 1) >= 2) return node;
      if (used.length === 0) return node.value === null ? null : { kind: 'leaf', path: [], value: node.value };
      const only = node.children[used[0]]!;
      if (only.kind === 'stored' && reveal !== undefined && (await store.get(only.hash)) === undefined)
        await reveal([...path.slice(0, at), used[0]]);
      return joinPath([used[0]], await load(store, only));
    }
  }
}

/** `node` under `prefix`: a leaf or extension takes the prefix into its own path. */
function joinPath(prefix: number[], node: TrieNode): TrieNode {
  if (node.kind === 'branch') return { kind: 'extension', path: prefix, child: node };
  return { ...node, path: prefix.concat(node.path) };
}

function hexPrefix(path: number[], leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const out = new Uint8Array(Math.floor(path.length / 2) + 1);
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd) out[0] |= path[i++];
  for (let b = 1; i < path.length; b++, i += 2) out[b] = (path[i] << 4) | path[i + 1];
  return out;
}

type Write = [hash: Uint8Array, encoded: Uint8Array, items: NestedUint8Array];

/** The node as RLP items, its children by reference; the nodes to store go to `writes`. */
function raw(node: TrieNode, writes: Write[]): NestedUint8Array {
  switch (node.kind) {
    case 'branch':
      return [...node.children.map((c) => (c === null ? EMPTY : reference(c, writes))), node.value ?? EMPTY];
    case 'leaf':
      return [hexPrefix(node.path, true), node.value];
    case 'extension':
      return [hexPrefix(node.path, false), reference(node.child, writes)];
  }
}

/** How a parent holds a child: its hash (the node stored by it), or the node itself under 32 bytes. */
function reference(child: Child, writes: Write[]): Uint8Array | NestedUint8Array {
  if (child.kind === 'stored') return child.hash;
  const items = raw(child, writes);
  const encoded = RLP.encode(items);
  return encoded.length < 32 ? items : stored(encoded, items, writes);
}

/** The hash of an encoded node, which joins the writes. */
function stored(encoded: Uint8Array, items: NestedUint8Array, writes: Write[]): Uint8Array {
  const hash = keccak256(encoded);
  writes.push([hash, encoded, items]);
  return hash;
}

const EMPTY = new Uint8Array(0);
