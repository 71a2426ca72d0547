/** Account state: the methods of methods/state.ts, on a node with a short history (seededTestRpc). */
import { hexToBytes } from '@ethereumjs/util';
import { RLP } from '@ethereumjs/rlp';

import { ALICE, BOB, CAROL, ZERO32, seededTestRpc } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';
import { verifyProof } from '../../test/proofVerifier';

let t: TestRpc;
let counterAddress: string;
let deployBlock: string;
beforeAll(async () => {
  ({ t, counterAddress, deployBlock } = await seededTestRpc());
});
afterAll(() => t.close());

test('eth_getBalance, eth_getCode, eth_getTransactionCount at blocks and tags', async () => {
  expect(await t.call('eth_getBalance', CAROL, 'latest')).toBe('0x21e19e0c9bab2400005');
  expect(await t.call('eth_getBalance', CAROL, '0x0')).toBe('0x21e19e0c9bab2400000');
  expect(await t.call('eth_getBalance', CAROL, 'earliest')).toBe('0x21e19e0c9bab2400000');
  expect(await t.call('eth_getBalance', CAROL, { blockNumber: '0x0' })).toBe('0x21e19e0c9bab2400000');
  expect(await t.call('eth_getTransactionCount', ALICE, 'latest')).toBe('0x2');
  expect(await t.call('eth_getTransactionCount', ALICE, 'pending')).toBe('0x2');
  expect(await t.call('eth_getTransactionCount', ALICE, 'finalized')).toBe('0x1');
  expect((await t.call<string>('eth_getCode', counterAddress, 'latest')).length).toBeGreaterThan(4);
  expect(await t.call('eth_getCode', counterAddress, '0x0')).toBe('0x');
  expect(await t.fail('eth_getBalance', CAROL, '0x99')).toEqual({ code: -32000, message: 'header not found' });
});

test('eth_getStorageAt returns a 32-byte word at any block', async () => {
  expect(await t.call('eth_getStorageAt', counterAddress, '0x0', 'latest')).toBe(`0x${'0'.repeat(63)}1`);
  expect(await t.call('eth_getStorageAt', counterAddress, '0x0', deployBlock)).toBe(ZERO32);
  expect(await t.call('eth_getStorageAt', counterAddress, '0x0', 'pending')).toBe(`0x${'0'.repeat(63)}1`);
  expect(await t.call('eth_getStorageAt', BOB, '0x5', 'latest')).toBe(ZERO32);
});

test('eth_getProof echoes each storage key as geth does: 32 bytes when given so, else as a quantity', async () => {
  const full = `0x${'00'.repeat(31)}01`;
  const proof = await t.call<{ storageProof: { key: string }[] }>(
    'eth_getProof',
    ALICE,
    ['0x0', '0x00', '0x0001', '0x1', full, 'ab'],
    'latest',
  );
  expect(proof.storageProof.map((p) => p.key)).toEqual(['0x0', '0x0', '0x1', '0x1', full, '0xab']);
  for (const bad of [`0x${'11'.repeat(33)}`, '0xzz', 7]) {
    const error = await t.fail('eth_getProof', ALICE, [bad], 'latest');
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('param 2 (storageKeys[0])');
  }
});

test('eth_getProof verifies against the block stateRoot, for present and absent accounts and slots', async () => {
  for (const block of ['latest', deployBlock]) {
    const header = await t.call<Record<string, string>>('eth_getBlockByNumber', block, false);
    const proof = await t.call<{
      accountProof: string[];
      balance: string;
      nonce: string;
      codeHash: string;
      storageHash: string;
      storageProof: { key: string; value: string; proof: string[] }[];
    }>('eth_getProof', counterAddress, ['0x0', '0x1'], block);
    const account = verifyProof(header.stateRoot, hexToBytes(counterAddress as `0x${string}`), proof.accountProof);
    expect(account).toBeDefined();
    const [nonce, balance, storageRoot, codeHash] = RLP.decode(account as Uint8Array) as Uint8Array[];
    expect(BigInt(proof.nonce)).toBe(BigInt(`0x${Buffer.from(nonce).toString('hex') || '0'}`));
    expect(BigInt(proof.balance)).toBe(BigInt(`0x${Buffer.from(balance).toString('hex') || '0'}`));
    expect(proof.storageHash).toBe(`0x${Buffer.from(storageRoot).toString('hex')}`);
    expect(proof.codeHash).toBe(`0x${Buffer.from(codeHash).toString('hex')}`);
    const [slot0, slot1] = proof.storageProof;
    const value0 = verifyProof(proof.storageHash, hexToBytes(ZERO32 as `0x${string}`), slot0.proof);
    if (block === 'latest') {
      expect(slot0.value).toBe('0x1');
      expect(RLP.decode(value0 as Uint8Array)).toEqual(Uint8Array.of(1));
    } else {
      expect(slot0.value).toBe('0x0');
      expect(value0).toBeUndefined();
    }
    expect(slot1.value).toBe('0x0');
    expect(verifyProof(proof.storageHash, hexToBytes(`0x${'00'.repeat(31)}01`), slot1.proof)).toBeUndefined();
  }
  const absent = '0x000000000000000000000000000000000000dead';
  const header = await t.call<Record<string, string>>('eth_getBlockByNumber', 'latest', false);
  const proof = await t.call<{
    accountProof: string[];
    balance: string;
    storageProof: { value: string; proof: string[] }[];
  }>('eth_getProof', absent, ['0x0'], 'latest');
  expect(verifyProof(header.stateRoot, hexToBytes(absent), proof.accountProof)).toBeUndefined();
  expect(proof.balance).toBe('0x0');
  expect(proof.storageProof[0]).toMatchObject({ value: '0x0', proof: [] });
});

test("l2_verifyProof: the node's proof checked by its independent verifier against the block's state root", async () => {
  const latest = await t.call<{ stateRoot: string }>('eth_getBlockByNumber', 'latest', false);
  // Beside the Ethereum proof's verdict, the Linea proof's against Linea's own root (a different hash).
  const linea = { stateRoot: expect.stringMatching(/^0x[0-9a-f]{64}$/), ok: true, failures: [] };
  expect(await t.call('l2_verifyProof', ALICE, [ZERO32])).toEqual({
    stateRoot: latest.stateRoot,
    ok: true,
    accountExists: true,
    failures: [],
    linea: { ...linea, accountExists: true },
  });
  const genesis = await t.call<{ stateRoot: string }>('eth_getBlockByNumber', '0x0', false);
  expect(await t.call('l2_verifyProof', counterAddress, [], '0x0')).toEqual({
    stateRoot: genesis.stateRoot,
    ok: true,
    accountExists: false,
    failures: [],
    linea: { ...linea, accountExists: false },
  });
  expect((await t.fail('l2_verifyProof', '0x12', [])).code).toBe(-32602);
});
