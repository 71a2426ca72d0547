import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import { bytesToUnprefixedHex, concatBytes, KECCAK256_RLP } from '@ethereumjs/util';
import fc from 'fast-check';

import { devCommon } from '../config/genesis';
import { initFastCrypto, keccak256 } from '../config/fastCrypto';
import { ForkError } from '../errors';
import { readTrieNode, trieValue, updateTrie } from '../state/updateTrie';
import type { TrieChange, TrieNodeStore } from '../state/updateTrie';
import { ForkCache } from './forkCache';
import { ForkState, keyUnder } from './forkState';
import type { ForkSource, RemoteProof } from './forkState';

beforeAll(() => initFastCrypto());

function memoryStore(): TrieNodeStore & { nodes: Map<string, Uint8Array> } {
  const nodes = new Map<string, Uint8Array>();
  return {
    nodes,
    get: async (hash) => nodes.get(bytesToUnprefixedHex(hash)),
    put: (hash, encoded) => void nodes.set(bytesToUnprefixedHex(hash), encoded),
  };
}

const address = (n: number) => {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(16, n + 1);
  return a;
};
const accountRlp = (n: number) => RLP.encode([n, 1000 + n, KECCAK256_RLP, keccak256(new Uint8Array(0))]);

/** The nodes on `path`'s way down the trie at `root`, as eth_getProof lists them. */
async function proofOf(store: TrieNodeStore, root: Uint8Array, path: Uint8Array): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  await trieValue(
    async (ref) => {
      if (Array.isArray(ref)) return ref;
      out.push((await store.get(ref as Uint8Array))!);
      return readTrieNode(store, ref as Uint8Array);
    },
    root,
    path,
  );
  return out;
}

/** A remote holding the account trie `store` at `root`, answering proofs from it; `tamper` edits its answers. */
function remote(
  store: TrieNodeStore,
  root: Uint8Array,
  tamper: (p: RemoteProof) => RemoteProof = (p) => p,
): ForkSource & { proofs: number } {
  const source = {
    name: 'the fork remote http://remote',
    proofs: 0,
    chainId: async () => 1n,
    blockNumber: async () => 5n,
    header: async () => undefined,
    proof: async (a: Uint8Array) => {
      source.proofs++;
      return tamper({ accountProof: await proofOf(store, root, keccak256(a)), storageProof: [] });
    },
    code: async () => Uint8Array.of(0x60, 0x00),
  };
  return source;
}

async function remoteTrie(count: number): Promise<{ store: ReturnType<typeof memoryStore>; root: Uint8Array }> {
  const store = memoryStore();
  const changes: TrieChange[] = [];
  for (let i = 0; i < count; i++) changes.push([keccak256(address(i)), accountRlp(i)]);
  return { store, root: await updateTrie(store, KECCAK256_RLP, changes) };
}

function forkOf(source: ForkSource, root: Uint8Array): ForkState {
  const fork = new ForkState(source, 5n, ForkCache.open(undefined, 1n), devCommon(1n, 'osaka'));
  fork.stateRoot = root;
  return fork;
}

test("changes made to a fork holding only the proven paths give the full trie's root, deletions included", async () => {
  let reveals = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 60 }),
      fc.array(fc.tuple(fc.integer({ min: 0, max: 80 }), fc.boolean()), { minLength: 1, maxLength: 12 }),
      async (count, edits) => {
        const { store, root } = await remoteTrie(count);
        const changes: TrieChange[] = edits.map(([n, del]) => [keccak256(address(n)), del ? null : accountRlp(n + 7)]);
        const full = await updateTrie(store, root, changes);
        // The fork reads each changed key first (as the state manager does), then writes.
        const fork = forkOf(remote(store, root), root);
        for (const [n] of edits) await fork.proveAccount(address(n));
        const local = memoryStore();
        const forkStore: TrieNodeStore = {
          get: async (h) => (await local.get(h)) ?? fork.get(bytesToUnprefixedHex(h)),
          put: local.put,
        };
        const reveal = (prefix: number[]) => {
          reveals++;
          return fork.reveal(prefix);
        };
        expect(await updateTrie(forkStore, root, changes, reveal)).toEqual(full);
      },
    ),
    { numRuns: 60 },
  );
  // Deletions that leave a branch one child it never read were among the runs.
  expect(reveals).toBeGreaterThan(5);
});

test('a proof that does not lead from the root to the value is refused, naming the remote, and nothing of it is kept', async () => {
  const { store, root } = await remoteTrie(40);
  const cases: [string, (p: RemoteProof) => RemoteProof][] = [
    [
      'a node changed',
      (p) => ({ ...p, accountProof: p.accountProof.map((n, i) => (i === 1 ? concatBytes(n, Uint8Array.of(0)) : n)) }),
    ],
    ['a node left out', (p) => ({ ...p, accountProof: p.accountProof.slice(0, -1) })],
    ['nothing', (p) => ({ ...p, accountProof: [] })],
  ];
  for (const [, tamper] of cases) {
    const fork = forkOf(remote(store, root, tamper), root);
    await expect(fork.proveAccount(address(3))).rejects.toThrow(
      new ForkError(
        "the fork remote http://remote answered eth_getProof of 0x0000000000000000000000000000000000000004 at block 5 with a proof that does not reach the value from the block's root",
      ),
    );
    expect(fork.cache.entries.state.size).toBe(0);
  }
});

test('code that does not hash to the code hash is refused; proofs already held are not asked again', async () => {
  const { store, root } = await remoteTrie(10);
  const source = remote(store, root);
  const fork = forkOf(source, root);
  await expect(fork.code(address(1), keccak256(Uint8Array.of(1)))).rejects.toThrow(
    'answered eth_getCode of 0x0000000000000000000000000000000000000002 at block 5 with code that does not hash to the account',
  );
  const code = await fork.code(address(1), keccak256(Uint8Array.of(0x60, 0x00)));
  expect(code).toEqual(Uint8Array.of(0x60, 0x00));
  expect(fork.get(bytesToUnprefixedHex(concatBytes(CODEHASH_PREFIX, keccak256(code))))).toEqual(code);
  await fork.proveAccount(address(2));
  await Promise.all([fork.proveAccount(address(2)), fork.proveAccount(address(2))]);
  expect(source.proofs).toBe(1);
});

test('keyUnder finds a key hashing under a prefix', () => {
  for (const [prefix, size] of [
    [[0xa], 20],
    [[1, 2, 3], 32],
    [[0xf, 0, 0xe], 20],
  ] as [number[], number][]) {
    const key = keyUnder(prefix, size);
    expect(key.length).toBe(size);
    const h = bytesToUnprefixedHex(keccak256(key));
    expect(h.slice(0, prefix.length)).toBe(prefix.map((n) => n.toString(16)).join(''));
  }
});

describe('the cache file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'l2devnet-fork-cache-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const node = (n: number) => RLP.encode([Uint8Array.of(n), new Uint8Array(40).fill(n)]);

  test('holds what was put, for the next open', () => {
    const cache = ForkCache.open(dir, 7n);
    for (let i = 0; i < 5; i++) cache.putState(bytesToUnprefixedHex(keccak256(node(i))), node(i));
    cache.putHeader(12n, Uint8Array.of(1, 2, 3));
    cache.close();
    const again = ForkCache.open(dir, 7n);
    expect(again.entries.state.size).toBe(5);
    expect(again.entries.headers.get(12n)).toEqual(Uint8Array.of(1, 2, 3));
    expect(ForkCache.open(dir, 8n).entries.state.size).toBe(0);
  });

  test.each([
    ['a torn last record', (file: string) => appendFileSync(file, Uint8Array.of(1, 32, 0, 0))],
    ['garbage after the records', (file: string) => appendFileSync(file, new Uint8Array(100).fill(0xee))],
  ])('%s costs only itself: the file is cut back to its good records', (_, spoil) => {
    const cache = ForkCache.open(dir, 7n);
    for (let i = 0; i < 3; i++) cache.putState(bytesToUnprefixedHex(keccak256(node(i))), node(i));
    cache.close();
    const file = join(dir, 'chain-7.bin');
    const good = statSync(file).size;
    spoil(file);
    expect(ForkCache.open(dir, 7n).entries.state.size).toBe(3);
    expect(statSync(file).size).toBe(good);
  });

  test('a changed byte in a record drops it and what follows, never reads it as a value', () => {
    const cache = ForkCache.open(dir, 7n);
    for (let i = 0; i < 3; i++) cache.putState(bytesToUnprefixedHex(keccak256(node(i))), node(i));
    cache.close();
    const file = join(dir, 'chain-7.bin');
    const bytes = readFileSync(file);
    const recordSize = bytes.length / 3;
    bytes[recordSize + 50] ^= 1; // inside the second record's value
    writeFileSync(file, bytes);
    const entries = ForkCache.open(dir, 7n).entries.state;
    expect([...entries.keys()]).toEqual([bytesToUnprefixedHex(keccak256(node(0)))]);
    expect(entries.get(bytesToUnprefixedHex(keccak256(node(0))))).toEqual(node(0));
  });
});
