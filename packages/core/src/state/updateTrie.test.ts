import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToUnprefixedHex, KECCAK256_RLP } from '@ethereumjs/util';
import fc from 'fast-check';

import { initFastCrypto, keccak256 } from '../config/fastCrypto';
import { orderedTrieRoot, readTrieNode, updateTrie } from './updateTrie';
import type { TrieChange, TrieNodeStore } from './updateTrie';

beforeAll(() => initFastCrypto());

function memoryStore(): TrieNodeStore & { nodes: Map<string, Uint8Array> } {
  const nodes = new Map<string, Uint8Array>();
  return {
    nodes,
    get: async (hash) => nodes.get(bytesToUnprefixedHex(hash)),
    put: (hash, encoded) => void nodes.set(bytesToUnprefixedHex(hash), encoded),
  };
}

// Short keys over few nibble values make shared prefixes, keys ending at branches and nodes under 32
// bytes (embedded in their parents); 32-byte keys are the state tries' hashed ones.
const shortKey = fc.uint8Array({ minLength: 1, maxLength: 3, max: 0x12 }); // no trie has an empty key
const hashedKey = fc.integer({ min: 0, max: 40 }).map((n) => keccak256(Uint8Array.of(n)));
const change = fc.tuple(
  fc.oneof(shortKey, hashedKey),
  fc.oneof(fc.constant(null), fc.uint8Array({ minLength: 1, maxLength: 40 })),
);

/** ethereumjs's root of a trie holding `entries`, put into an empty trie. */
async function referenceRoot(entries: Iterable<[Uint8Array, Uint8Array]>): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (const [key, value] of entries) await trie.put(key, value);
  return trie.root();
}

// Compared with a trie built afresh: ethereumjs's own `del` can leave a different root when a key
// ends at a branch (a key that is a prefix of another: in no trie of a chain, whose keys are hashes
// or RLP indexes), e.g. put 0a, 0a0d, 0a1000, del 0a0d.
test('gives the root ethereumjs gives the same contents, for any batches of puts and deletes, and a trie ethereumjs reads', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(change, { maxLength: 25 }), { minLength: 1, maxLength: 6 }), async (batches) => {
      const store = memoryStore();
      const model = new Map<string, [Uint8Array, Uint8Array]>();
      let root = KECCAK256_RLP;
      for (const batch of batches) {
        root = await updateTrie(store, root, batch as TrieChange[]);
        for (const [key, value] of batch) {
          if (value === null) model.delete(bytesToUnprefixedHex(key));
          else model.set(bytesToUnprefixedHex(key), [key, value]);
        }
        expect(bytesToUnprefixedHex(root)).toBe(bytesToUnprefixedHex(await referenceRoot(model.values())));
      }
      // Every node of the new trie was stored: ethereumjs finds every key through them.
      const reader = new MerklePatriciaTrie({
        root,
        db: { get: async (k: string) => store.nodes.get(k) } as never,
      });
      for (const [key, value] of model.values()) expect(await reader.get(key)).toEqual(value);
    }),
    { numRuns: 300 },
  );
});

test('stores only the nodes of the new trie, each once', async () => {
  const store = memoryStore();
  const puts: string[] = [];
  const counting: TrieNodeStore = {
    get: store.get,
    put: (h, e) => {
      puts.push(bytesToUnprefixedHex(h));
      store.put(h, e);
    },
  };
  const keys = Array.from({ length: 200 }, (_, i) => keccak256(Uint8Array.of(i)));
  let root = await updateTrie(
    counting,
    KECCAK256_RLP,
    keys.map((k) => [k, RLP.encode(k)]),
  );
  puts.length = 0;
  root = await updateTrie(counting, root, [
    [keys[3], Uint8Array.of(1)],
    [keys[4], Uint8Array.of(2)],
    [keys[3], Uint8Array.of(3)],
  ]);
  expect(new Set(puts).size).toBe(puts.length);
  // Two leaves' paths from the root: a few nodes, not the three paths ethereumjs's puts would store.
  expect(puts.length).toBeLessThanOrEqual(7);
  expect(
    await updateTrie(counting, root, [
      [keys[5], null],
      [keys[5], RLP.encode(keys[5])],
    ]),
  ).toEqual(root);
});

test('the root of a list is the one of the trie keyed by RLP(index)', async () => {
  for (const n of [0, 1, 2, 16, 17, 128, 129, 300]) {
    const values = Array.from({ length: n }, (_, i) => RLP.encode([i, new Uint8Array(i % 50)]));
    expect(await orderedTrieRoot(values)).toEqual(await referenceRoot(values.map((v, i) => [RLP.encode(i), v])));
  }
});

test("readTrieNode's items hold none of the store's buffer, which a kept node would keep in memory", async () => {
  const node = RLP.encode([Uint8Array.of(0x20, 1, 2, 3), new Uint8Array(40).fill(7)]);
  const hash = keccak256(node);
  // As an in-memory store reads: a view into a large buffer of many rows.
  const buffer = new Uint8Array(1 << 16);
  buffer.set(node, 1000);
  const items = (await readTrieNode(
    { get: async () => buffer.subarray(1000, 1000 + node.length) },
    hash,
  )) as Uint8Array[];
  expect(items.map((i) => [...i])).toEqual([[0x20, 1, 2, 3], new Array(40).fill(7)]);
  for (const item of items) expect(item.buffer).not.toBe(buffer.buffer);
});

test('the nodes a write stores are kept decoded: the next read of them does not go to the store', async () => {
  const store = memoryStore();
  const changes: TrieChange[] = Array.from({ length: 20 }, (_, i) => [
    keccak256(Uint8Array.of(i, 0xa5)),
    Uint8Array.of(i + 1),
  ]);
  const root = await updateTrie(store, KECCAK256_RLP, changes);
  const nowhere = { get: async () => undefined };
  for (const hash of [root, ...(RLP.decode((await store.get(root))!) as Uint8Array[]).filter((c) => c.length === 32)])
    expect(RLP.encode(await readTrieNode(nowhere, hash))).toEqual(await store.get(hash));
  // A list's trie (a block's transactions or receipts) is not kept: nothing reads its nodes.
  const values = Array.from({ length: 20 }, (_, i) => RLP.encode([i, new Uint8Array(40)]));
  await expect(readTrieNode(nowhere, await orderedTrieRoot(values))).rejects.toThrow('missing trie node');
});
