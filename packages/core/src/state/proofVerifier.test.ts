import { verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, equalsBytes, hexToBytes, KECCAK256_RLP } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak';

import { Chain } from '../chain/chain';
import type { AccountProof } from '../types';
import { verifyAccountProof } from './proofVerifier';

const A = hexToBytes('0x00000000000000000000000000000000000000a1');
const NEVER = hexToBytes('0x00000000000000000000000000000000000000ff');
const slot = (n: number) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);
const word = slot;

/** What @ethereumjs/mpt's own proof verification says: the value at the key under `root`, or null. */
async function mptValue(root: Uint8Array, key: Uint8Array, proof: Uint8Array[]): Promise<Uint8Array | null> {
  if (proof.length === 0) return equalsBytes(root, KECCAK256_RLP) ? null : Promise.reject(new Error('empty proof'));
  if (!equalsBytes(keccak256(proof[0]), root)) throw new Error('the proof does not start at the root');
  return verifyMerkleProof(key, proof, { useKeyHashing: true });
}

let chain: Chain;
const roots: Uint8Array[] = [];
beforeAll(async () => {
  chain = await Chain.create({ mining: { mode: 'manual' } });
  // Block 1: 300 slots (a storage trie several levels deep). Block 2: slot 7 changed, slot 8 deleted.
  await chain.dev.editState(async (sm) => {
    const { Address, createAccount } = await import('@ethereumjs/util');
    await sm.putAccount(new Address(A), createAccount({ balance: 5n, nonce: 1n }));
    for (let i = 1; i <= 300; i++) await sm.putStorage(new Address(A), slot(i), word(i * 3));
  });
  await chain.mine();
  await chain.dev.setStorageAt(A, slot(7), word(777));
  await chain.dev.setStorageAt(A, slot(8), new Uint8Array(32));
  await chain.mine();
  for (let n = 0n; n <= chain.headNumber; n++) roots.push((await chain.reads.getBlockByNumber(n))!.header.stateRoot);
});
afterAll(() => chain.close());

test.each([
  ['an account with large storage, at an old block', A, [1, 7, 8, 300, 301], 1n],
  ['after changes: a changed slot, a deleted slot, an untouched one', A, [7, 8, 150], 2n],
  ['an account that never existed', NEVER, [0, 1], 2n],
  ['an account before it existed', A, [1], 0n],
])('%s verifies, and agrees with @ethereumjs/mpt', async (_what, address, slots, n) => {
  const proof = await chain.reads.getProof(address, slots.map(slot), n);
  const report = verifyAccountProof(proof, roots[Number(n)]);
  expect(report).toEqual({ ok: true, failures: [], accountExists: !(address === NEVER || n === 0n) });
  // Independently: the trie library's own verification finds the same account and values.
  const leaf = await mptValue(roots[Number(n)], address, proof.accountProof);
  expect(leaf === null).toBe(!report.accountExists);
  for (const s of proof.storageProof) {
    const v = await mptValue(proof.storageHash, s.key, s.proof);
    expect(v === null ? 0n : bytesToBigInt(RLP.decode(v) as Uint8Array)).toBe(s.value);
  }
});

test('the values it proves are the chain values at that block', async () => {
  const old = await chain.reads.getProof(A, [slot(7), slot(8)], 1n);
  const now = await chain.reads.getProof(A, [slot(7), slot(8)], 2n);
  expect(old.storageProof.map((s) => s.value)).toEqual([21n, 24n]);
  expect(now.storageProof.map((s) => s.value)).toEqual([777n, 0n]);
});

describe('a proof that does not hold says which node of which proof failed, and why', () => {
  let proof: AccountProof;
  beforeAll(async () => {
    proof = await chain.reads.getProof(A, [slot(1), slot(2)], 2n);
  });
  const check = (p: AccountProof) => verifyAccountProof(p, roots[2]).failures;

  test('a changed byte in an account proof node', () => {
    const tampered = proof.accountProof.map((n) => n.slice());
    tampered[1][5] ^= 1;
    expect(check({ ...proof, accountProof: tampered })).toEqual([
      `account proof: node 1 does not hash to the reference in node 0 ${bytesToHex(keccak256(proof.accountProof[1]))}`,
    ]);
  });

  test('a claimed balance or storage value the proof does not show', () => {
    expect(check({ ...proof, balance: 6n })).toEqual(['account balance: the answer says 6, the proof shows 5']);
    const storageProof = [proof.storageProof[0], { ...proof.storageProof[1], value: 7n }];
    expect(check({ ...proof, storageProof })).toEqual([
      `storage proof 1 (key ${bytesToHex(slot(2))}): the answer says 7, the proof shows 6`,
    ]);
  });

  test('a proof against another root, a truncated proof, a missing storage proof', () => {
    expect(verifyAccountProof(proof, roots[1]).failures[0]).toBe(
      `account proof: node 0 does not hash to the reference (the root) ${bytesToHex(roots[1])}`,
    );
    expect(check({ ...proof, accountProof: proof.accountProof.slice(0, 1) })).toEqual([
      'account proof: ends after node 0, before reaching the key or its absence',
    ]);
    const storageProof = [{ ...proof.storageProof[0], proof: [] }];
    expect(check({ ...proof, storageProof })).toEqual([
      `storage proof 0 (key ${bytesToHex(slot(1))}): is empty, but the root is not the empty trie`,
    ]);
  });
});
