import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { rpcCall, runCommand, runToEnd } from './command';
import type { RunningCommand } from './command';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const HOLDER = '0x00000000000000000000000000000000000000a1';
const NEVER = '0x00000000000000000000000000000000000000ff';
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

let node: RunningCommand;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'l2devnet-proof-'));
  node = await runCommand(['--in-memory', '--port', '0']);
  await rpcCall(node.url, 'anvil_setStorageAt', [HOLDER, word(1), word(42)]);
  await rpcCall(node.url, 'eth_sendTransaction', [{ from: ALICE, to: HOLDER, value: '0x5' }]); // block 1
  await rpcCall(node.url, 'anvil_setStorageAt', [HOLDER, word(1), word(0)]);
  await rpcCall(node.url, 'eth_sendTransaction', [{ from: ALICE, to: HOLDER, value: '0x5' }]); // block 2
});
afterAll(async () => {
  node.child.kill('SIGTERM');
  await node.exited;
  rmSync(dir, { recursive: true, force: true });
});

test.each([
  [['--address', HOLDER, '--slot', '0x1', '--block', '0x1'], 'exists, 1 storage proof(s) hold'],
  [['--address', HOLDER, '--slot', '0x1', '--slot', '0x2'], 'exists, 2 storage proof(s) hold'], // a deleted slot, an empty one
  [['--address', NEVER, '--slot', '0x0'], 'is absent, 1 storage proof(s) hold'],
])('verifies what a node answers: %j', async (args, summary) => {
  const result = await runToEnd(['proof', 'verify', '--rpc', node.url, ...args]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(
    new RegExp(`^proof holds against 0x[0-9a-f]{64}: account 0x[0-9a-f]{40} ${summary.replace(/[()]/g, '\\$&')}\\n$`),
  );
});

test('a saved answer that does not hold names the node and the field', async () => {
  const proof = (await rpcCall(node.url, 'eth_getProof', [HOLDER, ['0x1'], '0x1'])).result;
  const { stateRoot } = (await rpcCall(node.url, 'eth_getBlockByNumber', ['0x1', false])).result;
  const file = join(dir, 'proof.json');
  writeFileSync(
    file,
    JSON.stringify({ ...proof, balance: '0x6', storageProof: [{ ...proof.storageProof[0], value: '0x2b' }] }),
  );
  const bad = await runToEnd(['proof', 'verify', file, '--state-root', stateRoot]);
  expect(bad.code).toBe(1);
  expect(bad.stdout).toBe(
    `proof does not hold against ${stateRoot} (account ${HOLDER}):\n` +
      '  account balance: the answer says 6, the proof shows 5\n' +
      `  storage proof 0 (key ${word(1)}): the answer says 43, the proof shows 42\n`,
  );
  // The whole JSON-RPC response is taken too; against the right root it holds.
  writeFileSync(file, JSON.stringify({ jsonrpc: '2.0', id: 1, result: proof }));
  expect((await runToEnd(['proof', 'verify', file, '--state-root', stateRoot])).code).toBe(0);
  const { stateRoot: other } = (await rpcCall(node.url, 'eth_getBlockByNumber', ['0x2', false])).result;
  const wrongRoot = await runToEnd(['proof', 'verify', file, '--state-root', other]);
  expect(wrongRoot.code).toBe(1);
  expect(wrongRoot.stdout).toContain(`account proof: node 0 does not hash to the reference (the root) ${other}`);
});

test.each([
  [['proof', 'verify'], 'error: proof verify needs FILE and --state-root, or --rpc and --address'],
  [['proof', 'verify', 'nofile.json', '--state-root', '0x00'], 'error: proof verify nofile.json: ENOENT'],
])('bad arguments %j exit 2 and say why', async (args, message) => {
  const result = await runToEnd(args);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(message);
});

test.each([
  [['--address', HOLDER, '--slot', '0x1', '--block', '0x1'], 'exists, 1 storage proof(s) hold'],
  [['--address', ALICE], 'exists, 0 storage proof(s) hold'],
  [['--address', NEVER, '--slot', '0x0'], 'is absent, 0 storage proof(s) hold'],
])('--linea verifies what a node answers to linea_getProof against Linea state root: %j', async (args, summary) => {
  const result = await runToEnd(['proof', 'verify', '--linea', '--rpc', node.url, ...args]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(
    new RegExp(
      `^Linea proof holds against 0x[0-9a-f]{64}: account 0x[0-9a-f]{40} ${summary.replace(/[()]/g, '\\$&')}\\n$`,
    ),
  );
});

test('--linea: a saved linea_getProof answer that does not hold says which part failed', async () => {
  const proof = (await rpcCall(node.url, 'linea_getProof', [HOLDER, ['0x1'], '0x1'])).result;
  const root = (await rpcCall(node.url, 'l2_verifyProof', [HOLDER, [], '0x1'])).result.linea.stateRoot;
  const file = join(dir, 'linea-proof.json');
  writeFileSync(file, JSON.stringify({ jsonrpc: '2.0', id: 1, result: proof }));
  expect((await runToEnd(['proof', 'verify', '--linea', file, '--state-root', root])).code).toBe(0);
  const slot = proof.storageProofs[0];
  writeFileSync(
    file,
    JSON.stringify({ ...proof, storageProofs: [{ ...slot, proof: { ...slot.proof, value: word(43) } }] }),
  );
  const bad = await runToEnd(['proof', 'verify', '--linea', file, '--state-root', root]);
  expect(bad.code).toBe(1);
  expect(bad.stdout).toBe(
    `Linea proof does not hold against ${root} (account ${HOLDER}):\n  slot ${word(1)}: the leaf holds another value\n`,
  );
  const none = await runToEnd(['proof', 'verify', '--linea', file]);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('error: proof verify --linea needs FILE and --state-root, or --rpc and --address');
});
