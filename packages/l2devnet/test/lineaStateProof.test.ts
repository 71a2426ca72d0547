/**
 * Linea's state proofs end to end beside an L1: linea_getProof answers only for blocks the L1 has
 * finalized (as Linea's), each finalization stores Linea's state root in LineaRollup.stateRootHashes
 * with DataFinalizedV3, and a verifier of our own in Solidity, deployed on the L1, accepts the
 * node's proofs against what the L1 holds and refuses tampered ones.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { BrowserProvider, Contract, ContractFactory, Interface, toBeHex } from 'ethers';

import { createDevnet } from '../src';
import type { Devnet } from '../src';

const CONTRACTS = join(__dirname, '..', '..', '..', 'fixtures', 'contracts');
const artifact = (name: string) =>
  JSON.parse(readFileSync(join(CONTRACTS, name), 'utf8')) as { abi: object[]; bytecode: string };
const counter = artifact('Counter.json');
const verifierArtifact = artifact('LineaStateProofVerifier.json');
const rollup = new Interface(artifact('messaging/LineaRollup.json').abi as never);
const L1_MESSAGE_SERVICE = '0xd19d4B5d358258f05D7B411E21A1460D11B0876F';
const NOBODY = '0x00000000000000000000000000000000000000ee';

type Json = Record<string, any>;
let devnet: Devnet;
let verifier: Contract;
let counterAddress: string;

const l2 = <T = Json>(method: string, ...params: unknown[]) =>
  devnet.provider.request({ method, params }) as Promise<T>;
const l1 = <T = Json>(method: string, ...params: unknown[]) =>
  devnet.l1!.provider.request({ method, params }) as Promise<T>;

async function l2Send(tx: Record<string, string>): Promise<Json> {
  const hash = await l2<string>('eth_sendTransaction', { from: devnet.accounts[0].address, ...tx });
  return l2('eth_getTransactionReceipt', hash);
}

/** What LineaRollup stores for L2 block `n`. */
async function storedRoot(n: bigint): Promise<string> {
  const data = rollup.encodeFunctionData('stateRootHashes', [n]);
  return l1<string>('eth_call', { to: L1_MESSAGE_SERVICE, data }, 'latest');
}

beforeAll(async () => {
  devnet = await createDevnet({ l1: true, log: () => {} });
  counterAddress = (await l2Send({ data: counter.bytecode })).contractAddress;
  const increment = new Interface(counter.abi as never).encodeFunctionData('increment');
  await l2Send({ to: counterAddress, data: increment });
  await l2Send({ to: counterAddress, data: increment });
  const deployer = await new BrowserProvider(devnet.l1!.provider as never).getSigner(devnet.accounts[0].address);
  verifier = (await new ContractFactory(
    verifierArtifact.abi as never,
    verifierArtifact.bytecode,
    deployer,
  ).deploy()) as Contract;
  await verifier.waitForDeployment();
}, 60_000);
afterAll(() => devnet?.close());

test("a block the L1 has not finalized has no Linea proof: Shomei's error", async () => {
  await expect(l2('linea_getProof', counterAddress, ['0x0'], 'latest')).rejects.toMatchObject({
    code: -32600,
    message: 'BLOCK_MISSING_IN_CHAIN - block is missing',
  });
  const verdict = await l2('l2_verifyProof', counterAddress, [], 'latest');
  expect(verdict.ok).toBe(true);
  expect(verdict.linea).toEqual({ unavailable: 'BLOCK_MISSING_IN_CHAIN - block is missing' });
});

test("a finalization stores the L2 block's Linea state root on the L1 and emits DataFinalizedV3", async () => {
  const head = BigInt(await l2<string>('eth_blockNumber'));
  const done = await l2('l2_finalize');
  expect(BigInt(done.l2BlockNumber)).toBe(head);
  // The L2's `finalized` follows the L1 once its block with the finalization is seen.
  const deadline = Date.now() + 5_000;
  while (BigInt((await l2('eth_getBlockByNumber', 'finalized', false)).number) < head && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  expect(BigInt((await l2('eth_getBlockByNumber', 'finalized', false)).number)).toBe(head);

  const verdict = await l2('l2_verifyProof', counterAddress, ['0x0'], 'finalized');
  expect(verdict.linea.ok).toBe(true);
  expect(await storedRoot(head)).toBe(verdict.linea.stateRoot);
  // The first finalization also records the root it starts from: the L2 genesis's.
  expect(await storedRoot(0n)).toBe((await l2('l2_verifyProof', counterAddress, [], '0x0')).linea.stateRoot);

  const receipt = await l1('eth_getTransactionReceipt', done.transactionHashes[done.transactionHashes.length - 1]);
  const event = receipt.logs
    .map((l: Json) => rollup.parseLog({ topics: l.topics, data: l.data }))
    .find((e: Json | null) => e?.name === 'DataFinalizedV3');
  expect(event.args.startBlockNumber).toBe(1n);
  expect(event.args.endBlockNumber).toBe(head);
  expect(event.args.finalStateRootHash).toBe(verdict.linea.stateRoot);
  expect(event.args.parentStateRootHash).toBe(await storedRoot(0n));
});

test('the Solidity verifier on the L1 accepts the proofs against stateRootHashes and refuses tampered ones', async () => {
  const n = BigInt((await l2('eth_getBlockByNumber', 'finalized', false)).number);
  const root = await storedRoot(n);
  const proof = await l2('linea_getProof', counterAddress, ['0x0', '0x1'], toBeHex(n));
  const { accountProof } = proof;
  const nodes: string[] = accountProof.proof.proofRelatedNodes;
  expect(
    await verifier.verifyAccount(counterAddress, accountProof.proof.value, nodes, accountProof.leafIndex, root),
  ).toBe(true);
  const tampered = [...nodes];
  tampered[20] = `${tampered[20].slice(0, -2)}${tampered[20].endsWith('00') ? '01' : '00'}`;
  expect(
    await verifier.verifyAccount(counterAddress, accountProof.proof.value, tampered, accountProof.leafIndex, root),
  ).toBe(false);

  // Slot 0 holds 2 under the account's storage root; slot 1 is absent, between two neighbours.
  const storageRoot = `0x${accountProof.proof.value.slice(2 + 128, 2 + 192)}`;
  const [slot0] = proof.storageProofs;
  expect(
    await verifier.verifySlot(
      slot0.key,
      slot0.proof.value,
      slot0.proof.proofRelatedNodes,
      slot0.leafIndex,
      storageRoot,
    ),
  ).toBe(true);
  expect(
    await verifier.verifySlot(slot0.key, toBeHex(3, 32), slot0.proof.proofRelatedNodes, slot0.leafIndex, storageRoot),
  ).toBe(false);

  // An absent account: its two neighbours, each other's next and previous leaf.
  const absent = (await l2('linea_getProof', NOBODY, [], toBeHex(n))).accountProof;
  const hKey = await verifier.accountKey(NOBODY);
  expect(
    await verifier.verifyAbsence(
      hKey,
      absent.leftProof.proofRelatedNodes,
      absent.leftLeafIndex,
      absent.rightProof.proofRelatedNodes,
      absent.rightLeafIndex,
      root,
    ),
  ).toBe(true);
  expect(
    await verifier.verifyAbsence(
      await verifier.accountKey(counterAddress),
      absent.leftProof.proofRelatedNodes,
      absent.leftLeafIndex,
      absent.rightProof.proofRelatedNodes,
      absent.rightLeafIndex,
      root,
    ),
  ).toBe(false);
}, 120_000);

test("the Solidity verifier accepts Linea's own sample proof (its contracts' test data) against its root", async () => {
  const sample = JSON.parse(
    readFileSync(
      join(__dirname, '..', '..', '..', 'fixtures', 'linea-state', 'merkle-proof-data-poseidon2.json'),
      'utf8',
    ),
  );
  const { key, leafIndex, proof } = sample.accountProof;
  // SparseMerkleProof.ts in Linea's contract tests: the state root this proof is checked against.
  const STATE_ROOT = '0x1aae3e0a143c0ac31b469af05096c1000a64836f05c250ad0857d0a1496f0c71';
  expect(await verifier.verifyAccount(key, proof.value, proof.proofRelatedNodes, leafIndex, STATE_ROOT)).toBe(true);
}, 60_000);
