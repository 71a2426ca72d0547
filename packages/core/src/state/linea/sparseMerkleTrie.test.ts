import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { poseidon2, poseidon2Js, poseidonSafe } from './poseidon2';
import { POSEIDON2_WASM } from './poseidon2Wasm';
import { decodeLeaf, rootOfProof, SparseMerkleNodes } from './sparseMerkleTrie';
import type { LeafProof } from './sparseMerkleTrie';
import { accountKey, accountValue, codeHashOf, hashAccountValue, slotKey } from './lineaState';
import { keccak256 } from 'ethereum-cryptography/keccak';
import { FlatLeaves } from './flatLeaves';
import { proveKey, ZkTrie } from './zkTrie';
import type { LineaKeyProof, LineaLeafProof } from './zkTrie';

/** Known answers from Linea's contracts' tests (fixtures/linea-state/README.md says where each is from). */
const vectors = (name: string) =>
  JSON.parse(readFileSync(join(__dirname, '../../../../../fixtures/linea-state', name), 'utf8'));

type Json = Record<string, any>;
const leafFromJson = (p: Json): LineaLeafProof => ({
  value: hexToBytes(p.value),
  proofRelatedNodes: p.proofRelatedNodes.map((n: string) => hexToBytes(n as `0x${string}`)),
});
/** A key's proof as linea_getProof writes it, typed as the core gives it. */
const fromJson = (p: Json): LineaKeyProof =>
  'leafIndex' in p
    ? { key: hexToBytes(p.key), leafIndex: p.leafIndex, proof: leafFromJson(p.proof) }
    : {
        key: hexToBytes(p.key),
        leftLeafIndex: p.leftLeafIndex,
        leftProof: leafFromJson(p.leftProof),
        rightLeafIndex: p.rightLeafIndex,
        rightProof: leafFromJson(p.rightProof),
      };

const asProof = (nodes: string[]): LeafProof => ({
  top: hexToBytes(nodes[0]),
  siblings: nodes.slice(1, 41).map((n) => hexToBytes(n)),
  leaf: hexToBytes(nodes[41]),
});

describe('Poseidon2 over KoalaBear', () => {
  test('the WebAssembly build hashes as the JavaScript one, and is the build of poseidon2.wat', async () => {
    const random = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(Math.random() * 256));
    for (let i = 0; i < 2000; i++) {
      const input = random(1 + (i % 300));
      expect(bytesToHex(poseidon2(input))).toBe(bytesToHex(poseidon2Js(input)));
    }
    // Longer than its memory: hashed in JavaScript.
    const long = random(300_000);
    expect(bytesToHex(poseidon2(long))).toBe(bytesToHex(poseidon2Js(long)));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const wabt = await require('wabt')();
    const wat = readFileSync(join(__dirname, 'poseidon2.wat'), 'utf8');
    const { buffer } = wabt.parseWat('poseidon2.wat', wat).toBinary({});
    expect(Buffer.from(buffer).toString('base64')).toBe(POSEIDON2_WASM);
  });

  test("hashes Linea's Poseidon2.sol test vectors exactly", () => {
    const data: { in: string; out: string }[] = vectors('poseidon2-test-data.json');
    expect(data.length).toBe(30);
    for (const v of data) expect(bytesToHex(poseidon2(hexToBytes(v.in as `0x${string}`)))).toBe(v.out);
  });

  test("hashes addresses to account keys as Linea's SparseMerkleProof.hashAccountKey", () => {
    const data: { input: string; output: string }[] = vectors('account-key-test-vectors.json');
    expect(data.length).toBe(30);
    for (const v of data) expect(bytesToHex(accountKey(hexToBytes(v.input as `0x${string}`)))).toBe(v.output);
  });
});

describe("Linea's sparse Merkle proofs", () => {
  const data = vectors('merkle-proof-data-poseidon2.json');
  // SparseMerkleProof.ts (Linea's contract tests): the roots and hashes this proof data stands for.
  const STATE_ROOT = '0x1aae3e0a143c0ac31b469af05096c1000a64836f05c250ad0857d0a1496f0c71';
  const STORAGE_ROOT = '0x07bd72a3216f334e18eb7cb3388a4ab4758d0b10486f08ae22e9834c7a0210d3';
  const ACCOUNT_KEY_HASH = '0x1b8d67463ebc5079420e3cd81eb80d3634377dea65f2372117425fb411526f7c';
  const STORAGE_KEY_HASH = '0x3e59e46d51db286e504cbdf15ee428501786c73a574a96d06cc0f84b527c0954';
  const STORAGE_VALUE_HASH = '0x454eebb36976d82c78601ad67bd131797dd516b36b6b62b2457fcdd443662bc6';

  test('an account proof from Linea recomputes its state root, and its leaf holds the key and value hashes', () => {
    const { leafIndex, key, proof } = data.accountProof;
    const p = asProof(proof.proofRelatedNodes);
    expect(bytesToHex(rootOfProof(p, leafIndex)!)).toBe(STATE_ROOT);
    expect(rootOfProof(p, leafIndex + 1)).toBeUndefined();
    const leaf = decodeLeaf(p.leaf);
    expect(bytesToHex(leaf.hKey)).toBe(ACCOUNT_KEY_HASH);
    expect(bytesToHex(accountKey(hexToBytes(key)))).toBe(ACCOUNT_KEY_HASH);
    expect(bytesToHex(hexToBytes(proof.value).subarray(64, 96))).toBe(STORAGE_ROOT);
  });

  test('a storage proof from Linea recomputes the account storage root', () => {
    const { leafIndex, key, proof } = data.storageProofs[0];
    const p = asProof(proof.proofRelatedNodes);
    expect(bytesToHex(rootOfProof(p, leafIndex)!)).toBe(STORAGE_ROOT);
    const leaf = decodeLeaf(p.leaf);
    expect(bytesToHex(leaf.hKey)).toBe(STORAGE_KEY_HASH);
    expect(bytesToHex(slotKey(hexToBytes(key)))).toBe(STORAGE_KEY_HASH);
    expect(bytesToHex(poseidon2(poseidonSafe(hexToBytes(proof.value))))).toBe(STORAGE_VALUE_HASH);
    expect(bytesToHex(leaf.hValue)).toBe(STORAGE_VALUE_HASH);
  });

  test('an empty trie holds HEAD and TAIL only, with the next free leaf at 2', () => {
    const nodes = new SparseMerkleNodes();
    const { nextFree, subRoot } = nodes.readTop(nodes.emptyTrieRoot);
    expect(nextFree).toBe(2);
    expect(decodeLeaf(nodes.leaf(subRoot, 0)!)).toMatchObject({ prev: 0, next: 1 });
    expect(decodeLeaf(nodes.leaf(subRoot, 1)!).hKey[0]).toBe(0x7f);
    expect(nodes.leaf(subRoot, 2)).toBeNull();
    expect(bytesToHex(rootOfProof(nodes.prove(nodes.emptyTrieRoot, 1), 1)!)).toBe(bytesToHex(nodes.emptyTrieRoot));
  });
});

describe("Shomei's trie vectors (ZKTrieTest, WorldstateProofTest)", () => {
  const word = (n: number) => {
    const w = new Uint8Array(32);
    w[31] = n;
    return w;
  };
  const hex = (b: Uint8Array) => bytesToHex(b);

  test('HEAD and TAIL leaves, and the empty trie, hash as in ZKTrieTest', () => {
    const nodes = new SparseMerkleNodes();
    const { subRoot } = nodes.readTop(nodes.emptyTrieRoot);
    expect(hex(poseidon2(nodes.leaf(subRoot, 0)!))).toBe(
      '0x2f5de7ad279a134761de0d89702e52743b2f04f41b86cc5400dfae1d4b981340',
    );
    expect(hex(poseidon2(nodes.leaf(subRoot, 1)!))).toBe(
      '0x5c73480b5e85fc2c3ab61fc155cf475b74590d005d8916b85fdd5c32773b1255',
    );
    expect(hex(subRoot)).toBe('0x3a00a8e34a16f8a1225fee734816edb326f783bd6678d793345a28f046586ba6');
    expect(hex(nodes.emptyTrieRoot)).toBe('0x2fa0344a2fab2b310d2af3155c330261263f887379aef18b4941e3ea1cc59df7');
  });

  test('an insertion, an update and a removal give ZKTrieTest roots', () => {
    const nodes = new SparseMerkleNodes();
    const trie = new ZkTrie(nodes, nodes.emptyTrieRoot, new FlatLeaves(), 0);
    const key = word(58);
    trie.put(poseidon2(key), word(41), poseidon2(word(41)));
    trie.put(poseidon2(key), word(42), poseidon2(word(42)));
    expect(hex(nodes.readTop(trie.root()).subRoot)).toBe(
      '0x50b4bb9d2b4c917f48ca9465613d7efe092934a95bcdc7a004ef3a6b7900fd5b',
    );
    expect(hex(trie.root())).toBe('0x7a5cf31710a49b59489deb53505a3d5458625ef01b33914d0d784380464177ad');
    trie.remove(poseidon2(key));
    expect(hex(nodes.readTop(trie.root()).subRoot)).toBe(
      '0x3a00a8e34a16f8a1225fee734816edb326f783bd6678d793345a28f046586ba6',
    );
    expect(hex(trie.root())).toBe('0x391010e55fad441a1e3a33b11fb8271f68e86b6c1812ebd402d678d343fded62');
  });

  test("proofs of a missing and of a present key are Shomei's, node for node", () => {
    const nodes = new SparseMerkleNodes();
    const leaves = new FlatLeaves();
    const missing = vectors('shomei-testGetProofForMissingKey.json');
    expect(proveKey(nodes, nodes.emptyTrieRoot, leaves, poseidon2(word(36)), word(36), 0)).toEqual(fromJson(missing));

    const trie = new ZkTrie(nodes, nodes.emptyTrieRoot, leaves, 0);
    trie.put(poseidon2(word(36)), word(32), poseidon2(word(32)));
    const present = vectors('shomei-testGetProofForAvailableKey.json');
    expect(proveKey(nodes, trie.root(), leaves, poseidon2(word(36)), word(36), 0)).toEqual(fromJson(present));
  });
});

describe("Shomei's account vectors (ZkAccountTest)", () => {
  const h = (s: string) => hexToBytes(s as `0x${string}`);
  const EMPTY_KECCAK = h('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  const ZERO = new Uint8Array(32);
  const hashed = (nonce: bigint, balance: bigint, storageRoot: Uint8Array, codeHash: Uint8Array, keccak: Uint8Array) =>
    bytesToHex(hashAccountValue(accountValue(nonce, balance, storageRoot, codeHash, keccak, 0)));

  test('account values hash as Shomei hashes them', () => {
    expect(hashed(0n, 0n, ZERO, ZERO, ZERO)).toBe('0x0be39dd910329801041c54896705cb664779584732a232276e59ce2e7ca1b5a7');
    expect(
      hashed(
        65n,
        5690n,
        h('0x0b1dfeef3db4956540da8a5f785917ef1ba432e521368da60a0a1ce430425666'),
        h('0x729aac4455d43f2c69e53bb75f8430193332a4c32cafd9995312fa8346929e73'),
        EMPTY_KECCAK,
      ),
    ).toBe('0x60cef4a3679fc56e66cba6c72cc9e536600ca999026ef7d22fd7595e62f9fdb8');
    expect(
      hashed(
        65n,
        835n,
        h('0x1c41acc261451aae253f621857172d6339919d18059f35921a50aafc69eb5c39'),
        h('0x7b688b215329825e5b00e4aa4e1857bc17afab503a87ecc063614b9b227106b2'),
        EMPTY_KECCAK,
      ),
    ).toBe('0x5e6056aa0619c47d3a01df970de314a04daf224d21e8a73b0003d7a4286a7538');
  });

  test('code of even and odd length hashes as Shomei hashes it', () => {
    const root = new SparseMerkleNodes().emptyTrieRoot;
    for (const [code, expected] of [
      [
        '0x495340db00ecc17b5cb435d5731f8d6635e6b3ef42507a8303a068d178a95d22',
        '0x5b4f38da3b5579846022b90a4a9ca1096653055722e75ebc0d4f68ba22d712c9',
      ],
      [
        '0x495340db00ecc17b5cb435d5731f8d6635e6b3ef42507a8303a068d178a95d2237',
        '0x7b25c63e1919b7fb320df01441f1aeea316736903fcabab73138d2c3116e2ffc',
      ],
    ]) {
      const c = h(code);
      expect(hashed(65n, 835n, root, codeHashOf(c), keccak256(c))).toBe(expected);
    }
  });
});

describe("Linea's prover's world-state vectors (prover/backend/execution/statemanager/test_vectors_test.go)", () => {
  const nodes = new SparseMerkleNodes();
  const EMPTY_KECCAK = hexToBytes('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  /** The prover's DummyAddress, DummyFullByte and DummyDigest: the first byte, or first limb, `i`. */
  const dummyAddress = (i: number) => Uint8Array.from({ length: 20 }, (_, k) => (k === 0 ? i : 0));
  const dummyFullByte = (i: number) => Uint8Array.from({ length: 32 }, (_, k) => (k === 0 ? i : 0));
  const dummyDigest = (i: number) => Uint8Array.from({ length: 32 }, (_, k) => (k === 3 ? i : 0));
  const eoa = (nonce: bigint, balance: bigint) =>
    accountValue(nonce, balance, nodes.emptyTrieRoot, codeHashOf(new Uint8Array()), EMPTY_KECCAK, 0);
  const contract = (
    nonce: bigint,
    balance: bigint,
    codeHash: Uint8Array,
    keccak: Uint8Array,
    size: number,
    root = nodes.emptyTrieRoot,
  ) => accountValue(nonce, balance, root, codeHash, keccak, size);
  const accounts = () => new ZkTrie(nodes, nodes.emptyTrieRoot, new FlatLeaves(), 0);
  const put = (trie: ZkTrie, address: Uint8Array, value: Uint8Array) =>
    trie.put(accountKey(address), value, hashAccountValue(value));

  test('an EOA, its address and the world state holding it', () => {
    expect(bytesToHex(hashAccountValue(eoa(65n, 835n)))).toBe(
      '0x495340db00ecc17b5cb435d5731f8d6635e6b3ef42507a8303a068d178a95d22',
    );
    expect(bytesToHex(accountKey(dummyAddress(36)))).toBe(
      '0x279326f6312018a0650c885c019a8ce35d9cb0a526599870628957d84a3655b3',
    );
    const one = accounts();
    put(one, dummyAddress(36), eoa(65n, 835n));
    expect(bytesToHex(one.root())).toBe('0x6b5d2e111a55e55826396df03ac3d0055dc4a88671edbcc8274db3f0117e0f97');
    put(one, dummyAddress(41), eoa(42n, 354n));
    expect(bytesToHex(one.root())).toBe('0x7bcc50ea4546465f153f5c0a35e3cddb59f492f4183438ed52733bc92823fbb7');
  });

  test('an EOA and a contract: storage written, an account deleted, a slot deleted and written again', () => {
    const trie = accounts();
    const b = (root?: Uint8Array) => contract(41n, 15353n, dummyDigest(75), dummyFullByte(15), 7, root);
    put(trie, dummyAddress(36), eoa(65n, 835n));
    put(trie, dummyAddress(47), b());
    expect(bytesToHex(trie.root())).toBe('0x14b74e4f2fa3edaf180c7a3c74417a5662ef843809717b014116863c256ee66d');
    const storage = new ZkTrie(nodes, nodes.emptyTrieRoot, new FlatLeaves(), 0);
    const write = (slot: number, value: number) =>
      storage.put(slotKey(dummyFullByte(slot)), dummyFullByte(value), poseidon2(poseidonSafe(dummyFullByte(value))));
    write(14, 18);
    put(trie, dummyAddress(47), b(storage.root()));
    expect(bytesToHex(trie.root())).toBe('0x480d862e3f395c2f1bb80a0504fa083701440727747a75562203eff125fbc57f');
    trie.remove(accountKey(dummyAddress(36)));
    expect(bytesToHex(trie.root())).toBe('0x27aa6c982bd6ec5c52225e46410806a52377632e76a1715343e2e33d2b569de1');
    storage.remove(slotKey(dummyFullByte(14)));
    put(trie, dummyAddress(47), b(storage.root()));
    expect(bytesToHex(trie.root())).toBe('0x0664e56b4fb256025fc4ebf6100ca8566a39394746b5f5b50e0c289b399aa19e');
    write(11, 78);
    put(trie, dummyAddress(47), b(storage.root()));
    expect(bytesToHex(trie.root())).toBe('0x532f7e8577d8f445505ecfbd053340cd007e742309d6fdf5286dcf0420463fe3');
  });

  test('insert A, insert B, delete A, insert C', () => {
    const trie = accounts();
    put(trie, dummyAddress(36), eoa(65n, 835n));
    put(trie, dummyAddress(47), contract(41n, 15353n, dummyDigest(75), dummyFullByte(15), 7));
    trie.remove(accountKey(dummyAddress(36)));
    put(trie, dummyAddress(120), contract(48n, 9835n, dummyDigest(54), dummyFullByte(85), 19));
    expect(bytesToHex(trie.root())).toBe('0x1d32f4e20bff17297318716a798a05a039dff3fa29fbc956320499370be459e9');
  });
});
