import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { hexToBytes } from '@ethereumjs/util';
import { verifyLineaProof } from '@l2devnet/core';
import type { LineaAccountProof, LineaKeyProof, LineaLeafProof } from '@l2devnet/core';
import { Interface } from 'ethers';

import { ALICE, BOB, createTestRpc } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'fixtures');
const counter = JSON.parse(readFileSync(join(FIXTURES, 'contracts', 'Counter.json'), 'utf8')) as {
  abi: any[];
  bytecode: string;
};
const abi = new Interface(counter.abi);
const NOBODY = '0x00000000000000000000000000000000000000ee';

type Json = Record<string, any>;
const b = (h: string) => hexToBytes(h as `0x${string}`);
const leaf = (p: Json): LineaLeafProof => ({ value: b(p.value), proofRelatedNodes: p.proofRelatedNodes.map(b) });
const key = (p: Json): LineaKeyProof =>
  'leafIndex' in p
    ? { key: b(p.key), leafIndex: p.leafIndex, proof: leaf(p.proof) }
    : {
        key: b(p.key),
        leftLeafIndex: p.leftLeafIndex,
        leftProof: leaf(p.leftProof),
        rightLeafIndex: p.rightLeafIndex,
        rightProof: leaf(p.rightProof),
      };
/** linea_getProof's JSON as the core's typed proof, for the core's verifier. */
const typed = (p: Json): LineaAccountProof => ({
  accountProof: key(p.accountProof),
  storageProofs: p.storageProofs.map(key),
});

let t: TestRpc;
let contract: string;
let deployBlock: string;

async function send(tx: Record<string, string>): Promise<Json> {
  const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, ...tx });
  return t.call<Json>('eth_getTransactionReceipt', hash);
}

/** The Linea root linea_getProof's answers at `block` prove against (l2_verifyProof's linea verdict). */
async function lineaRoot(block: string): Promise<string> {
  const verdict = await t.call<Json>('l2_verifyProof', ALICE, [], block);
  expect(verdict.linea.ok).toBe(true);
  return verdict.linea.stateRoot;
}

beforeAll(async () => {
  t = await createTestRpc();
  const deployed = await send({ data: counter.bytecode });
  contract = deployed.contractAddress;
  deployBlock = deployed.blockNumber;
  await send({ to: contract, data: abi.encodeFunctionData('increment') });
  await send({ to: contract, data: abi.encodeFunctionData('increment') });
  await send({ to: BOB, value: '0xde0b6b3a7640000' });
});
afterAll(() => t.close());

test("linea_getProof proves a contract, its slots present and absent, in Shomei's shape", async () => {
  const proof = await t.call<Json>('linea_getProof', contract, ['0x0', '0x1'], 'latest');
  expect(Object.keys(proof)).toEqual(['accountProof', 'storageProofs']);
  const { accountProof } = proof;
  expect(accountProof.key).toBe(contract);
  expect(Object.keys(accountProof)).toEqual(['key', 'leafIndex', 'proof']);
  expect(accountProof.proof.proofRelatedNodes).toHaveLength(42);
  expect(accountProof.proof.proofRelatedNodes[0]).toHaveLength(2 + 96 * 2);
  expect(accountProof.proof.proofRelatedNodes[41]).toHaveLength(2 + 192 * 2);
  // The account as Shomei encodes it: nonce, balance, storage root, code hashes, code size.
  const value = b(accountProof.proof.value);
  const eth = await t.call<Json>('eth_getProof', contract, [], 'latest');
  const code = await t.call<string>('eth_getCode', contract, 'latest');
  expect(value).toHaveLength(192);
  expect(BigInt(`0x${Buffer.from(value.subarray(0, 32)).toString('hex')}`)).toBe(BigInt(eth.nonce));
  expect(`0x${Buffer.from(value.subarray(128, 160)).toString('hex')}`).toBe(eth.codeHash);
  expect(Number(BigInt(`0x${Buffer.from(value.subarray(160, 192)).toString('hex')}`))).toBe((code.length - 2) / 2);

  const [slot0, slot1] = proof.storageProofs;
  expect(slot0.key).toBe(`0x${'0'.repeat(64)}`);
  expect(slot0.proof.value).toBe(`0x${'0'.repeat(63)}2`);
  expect(Object.keys(slot1)).toEqual(['key', 'leftLeafIndex', 'leftProof', 'rightLeafIndex', 'rightProof']);
  // The storage trie holds HEAD (0), TAIL (1) and slot 0 (2), in key order HEAD, TAIL last: slot 1
  // lies between HEAD and slot 0, or between slot 0 and TAIL (which, its key hash decides).
  expect([
    [0, 2],
    [2, 1],
  ]).toContainEqual([slot1.leftLeafIndex, slot1.rightLeafIndex]);
  expect(slot0.leafIndex).toBe(2);

  const report = verifyLineaProof(typed(proof), b(await lineaRoot('latest')));
  expect(report).toEqual({ ok: true, accountExists: true, failures: [] });
});

test('an absent account is proved by its two neighbours, with no storage proofs', async () => {
  const proof = await t.call<Json>('linea_getProof', NOBODY, ['0x0'], 'latest');
  expect(proof.accountProof.key).toBe(NOBODY);
  expect(proof.accountProof.leftProof.proofRelatedNodes).toHaveLength(42);
  expect(proof.storageProofs).toEqual([]);
  expect(verifyLineaProof(typed(proof), b(await lineaRoot('latest')))).toEqual({
    ok: true,
    accountExists: false,
    failures: [],
  });
});

test('a tampered proof, value or root is refused', async () => {
  const proof = await t.call<Json>('linea_getProof', contract, ['0x0'], 'latest');
  const root = b(await lineaRoot('latest'));
  const node = typed(proof);
  const k = node.accountProof as Extract<LineaKeyProof, { leafIndex: number }>;
  k.proof.proofRelatedNodes[20] = new Uint8Array(k.proof.proofRelatedNodes[20]);
  k.proof.proofRelatedNodes[20][5] ^= 1;
  expect(verifyLineaProof(node, root).failures).toEqual(['account: the proof does not lead to the root']);

  const value = typed(proof);
  const s = value.storageProofs[0] as Extract<LineaKeyProof, { leafIndex: number }>;
  s.proof.value = b(`0x${'0'.repeat(63)}3`);
  expect(verifyLineaProof(value, root).failures).toEqual([`slot 0x${'0'.repeat(64)}: the leaf holds another value`]);

  const otherRoot = b(await lineaRoot(deployBlock));
  expect(verifyLineaProof(typed(proof), otherRoot).ok).toBe(false);
});

test('each block has its own root, and proofs at an older block still verify against it', async () => {
  const head = await t.call<string>('eth_blockNumber');
  const roots = new Set<string>();
  for (let n = 0; n <= Number(head); n++) roots.add(await lineaRoot(`0x${n.toString(16)}`));
  expect(roots.size).toBe(Number(head) + 1);
  // At deployment the counter was 0 and its storage trie empty: Shomei proves no slot of it.
  const then = await t.call<Json>('linea_getProof', contract, ['0x0'], deployBlock);
  expect(then.storageProofs).toEqual([]);
  expect(verifyLineaProof(typed(then), b(await lineaRoot(deployBlock))).ok).toBe(true);
});

test('a slot set back to zero leaves its trie, whose next free leaf stays', async () => {
  await send({ to: contract, data: abi.encodeFunctionData('setCount', [0]) });
  const proof = await t.call<Json>('linea_getProof', contract, ['0x0'], 'latest');
  // Shomei proves slots of an account whose storage trie is not the empty one: it has had a leaf.
  expect(proof.storageProofs).toHaveLength(1);
  expect('leftLeafIndex' in proof.storageProofs[0]).toBe(true);
  expect(verifyLineaProof(typed(proof), b(await lineaRoot('latest'))).ok).toBe(true);
});

test('after evm_revert the blocks built again are proved anew', async () => {
  const id = await t.call<string>('evm_snapshot');
  await send({ to: NOBODY, value: '0x1' });
  const before = await t.call<Json>('linea_getProof', NOBODY, [], 'latest');
  expect('leafIndex' in before.accountProof).toBe(true);
  await t.call('evm_revert', id);
  await send({ to: BOB, value: '0x2' });
  const after = await t.call<Json>('linea_getProof', NOBODY, [], 'latest');
  expect('leftLeafIndex' in after.accountProof).toBe(true);
  expect(verifyLineaProof(typed(after), b(await lineaRoot('latest'))).ok).toBe(true);
});

test('bad input is a clear error, and the node answers after it', async () => {
  expect((await t.fail('linea_getProof', '0x1234', [], 'latest')).code).toBe(-32602);
  expect((await t.fail('linea_getProof', contract, ['0xzz'], 'latest')).code).toBe(-32602);
  expect((await t.fail('linea_getProof', contract, [], '0xffffff')).message).toMatch(/header not found/);
  expect(await t.call<Json>('linea_getProof', contract, [], 'latest')).toHaveProperty('accountProof');
});

test("a state loaded from Anvil's dump (addresses and slots by name) is proved as any other", async () => {
  const dump = await t.call<string>('anvil_dumpState');
  const other = await createTestRpc();
  try {
    await other.call('anvil_loadState', dump);
    await other.call('evm_mine');
    const proof = await other.call<Json>('linea_getProof', contract, ['0x0'], 'latest');
    // The counter was set back to 0 above: the loaded contract has no storage, so no slot is proved.
    expect(proof.storageProofs).toEqual([]);
    const verdict = await other.call<Json>('l2_verifyProof', contract, ['0x0'], 'latest');
    expect(verifyLineaProof(typed(proof), b(verdict.linea.stateRoot))).toEqual({
      ok: true,
      accountExists: true,
      failures: [],
    });
  } finally {
    await other.close();
  }
});

test('asking again and again adds no listener: the tries follow the head through one', async () => {
  const events = (t.chain as unknown as { head: { events: { listenerCount(e: string): number } } }).head.events;
  await t.call('linea_getProof', ALICE, [], 'latest');
  const listeners = events.listenerCount('block');
  for (let i = 0; i < 10; i++) await t.call('linea_getProof', ALICE, [], 'latest');
  expect(events.listenerCount('block')).toBe(listeners);
});
