/**
 * `l2devnet export` and `l2devnet import` as a user runs them: a chain made by a node on disk
 * (transfers, a deployment, logs, an EIP-7702 delegation, a blob transaction) is exported, imported
 * into a fresh data directory, and served again with the same blocks, receipts, logs and proofs; a file with one changed byte stops the import naming the block and the field.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createCustomCommon, Mainnet } from '@ethereumjs/common';
import { createBlob4844Tx, createEOACode7702Tx } from '@ethereumjs/tx';
import { bytesToHex, eoaCode7702SignAuthorization, hexToBytes } from '@ethereumjs/util';
import { lazyKzg } from '@l2devnet/core';

import { rpcCall, runCommand, runToEnd } from './command';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
// The dev accounts' keys (the default mnemonic's first two).
const ALICE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const BOB_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const BLOB_TO = '0x000000000000000000000000000000000000b10b';
const counter = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'Counter.json'), 'utf8'),
) as { bytecode: string };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'l2devnet-chainfile-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a node answers about every block: the block, its receipts, and a proof at block 2. */
async function answers(url: string, head: number) {
  const out: unknown[] = [];
  for (let n = 0; n <= head; n++) {
    const tag = `0x${n.toString(16)}`;
    out.push((await rpcCall(url, 'eth_getBlockByNumber', [tag, true])).result);
    out.push((await rpcCall(url, 'eth_getBlockReceipts', [tag])).result);
  }
  out.push((await rpcCall(url, 'eth_getProof', [BOB, ['0x0'], '0x2'])).result);
  return out;
}

test('a chain exported and imported into a fresh node answers the same; a changed byte stops the import', async () => {
  const source = join(dir, 'source');
  // The blob's KZG commitment and cell proofs take this process seconds (over 10 on a busy host): made
  // before any connection to the node is open, since uWS closes a keep-alive connection idle for 10 s
  // and a client whose event loop is busy meanwhile reuses it closed ("other side closed").
  const common = createCustomCommon({ chainId: 31337 }, Mainnet, {
    hardfork: 'osaka',
    customCrypto: { kzg: lazyKzg },
  });
  const carrier = createBlob4844Tx(
    { to: BLOB_TO, blobsData: ['round trip'], maxFeePerBlobGas: 10n, chainId: 31337n },
    { common },
  );
  // Ethereum's rules, so the chain holds a blob transaction (Linea's sequencer refuses them).
  const node = await runCommand(['--data-dir', source, '--port', '0', '--sequencer-rules', 'off']);
  let before: unknown[];
  let head: number;
  try {
    const send = (tx: Record<string, string>) => rpcCall(node.url, 'eth_sendTransaction', [{ from: ALICE, ...tx }]);
    await send({ to: BOB, value: '0xde0b6b3a7640000' });
    const deployed = await send({ data: counter.bytecode });
    const receipt = await rpcCall(node.url, 'eth_getTransactionReceipt', [deployed.result]);
    for (let i = 0; i < 3; i++) await send({ to: receipt.result.contractAddress, data: '0xd09de08a' });
    // An EIP-7702 delegation (Bob runs the counter's code) and a blob transaction (Osaka's cell proofs).
    const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, chainId: 31337n };
    const nonce = BigInt((await rpcCall(node.url, 'eth_getTransactionCount', [ALICE, 'latest'])).result);
    const authorization = eoaCode7702SignAuthorization(
      { chainId: '0x7a69', address: receipt.result.contractAddress, nonce: '0x0' },
      hexToBytes(BOB_KEY),
    );
    const delegation = createEOACode7702Tx(
      {
        nonce,
        to: BOB,
        data: hexToBytes('0xd09de08a'),
        gasLimit: 200_000n,
        authorizationList: [authorization],
        ...fees,
      },
      { common },
    ).sign(hexToBytes(ALICE_KEY));
    const { blobs, kzgCommitments, kzgProofs, blobVersionedHashes } = carrier;
    const blob = createBlob4844Tx(
      // To an account without code (Bob's now runs the counter's).
      {
        ...{ nonce: nonce + 1n, to: BLOB_TO, gasLimit: 21_000n, maxFeePerBlobGas: 10n, ...fees },
        ...{ blobs, kzgCommitments, kzgProofs, blobVersionedHashes },
      },
      { common },
    ).sign(hexToBytes(ALICE_KEY));
    for (const raw of [delegation.serialize(), blob.serializeNetworkWrapper()]) {
      const sent = await rpcCall(node.url, 'eth_sendRawTransaction', [bytesToHex(raw)]);
      expect((await rpcCall(node.url, 'eth_getTransactionReceipt', [sent.result])).result.status).toBe('0x1');
    }
    head = Number((await rpcCall(node.url, 'eth_blockNumber')).result);
    before = await answers(node.url, head);
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
  }
  const file = join(dir, 'chain.rlp');
  const exported = await runToEnd(['export', file, '--data-dir', source]);
  expect(exported).toMatchObject({ code: 0, stderr: '' });
  expect(exported.stdout).toBe(`exported blocks 0..${head} (${head + 1}) of ${source} to ${file}\n`);

  const target = join(dir, 'target');
  const imported = await runToEnd(['import', file, '--data-dir', target]);
  expect(imported).toMatchObject({ code: 0, stderr: '' });
  expect(imported.stdout).toMatch(
    new RegExp(
      `^imported ${head} blocks \\(1 already known\\) in [0-9.]+ s: \\d+ blocks/s, [0-9.]+ Mgas/s; head is block ${head}\\n$`,
    ),
  );
  const served = await runCommand(['--data-dir', target, '--port', '0']);
  try {
    expect(await answers(served.url, head)).toEqual(before);
  } finally {
    served.child.kill('SIGTERM');
    await served.exited;
  }

  // --import on start: the node imports, then serves the chain.
  const started = await runCommand(['--import', file, '--data-dir', join(dir, 'started'), '--port', '0']);
  try {
    expect(started.stdout()).toMatch(new RegExp(`imported ${head} blocks \\(1 already known\\) in `));
    expect(await answers(started.url, head)).toEqual(before);
  } finally {
    started.child.kill('SIGTERM');
    await started.exited;
  }

  // One byte of the last block changed (its header's state root is near its start).
  const bytes = readFileSync(file);
  const partial = await runToEnd(['export', join(dir, 'last.rlp'), '--data-dir', source, '--from', String(head)]);
  expect(partial.code).toBe(0);
  const last = readFileSync(join(dir, 'last.rlp'));
  const at = bytes.length - last.length + 4 + 32 + 32 + 20 + 10; // inside the state root
  bytes[at] ^= 1;
  writeFileSync(file, bytes);
  const broken = await runToEnd(['import', file, '--data-dir', join(dir, 'broken')]);
  expect(broken.code).toBe(2);
  expect(broken.stderr).toMatch(
    new RegExp(`^error: block ${head}: stateRoot is 0x[0-9a-f]{64} in the block, 0x[0-9a-f]{64} when run\\n$`),
  );
  const resumed = await runToEnd(['export', join(dir, 'kept.rlp'), '--data-dir', join(dir, 'broken')]);
  expect(resumed.stdout).toContain(`exported blocks 0..${head - 1}`);
});

test.each([
  [['export'], 'export needs the file to write'],
  [['export', 'x.rlp', '--from', 'two'], '--from must be a block number; got "two"'],
  [['import'], 'import needs the file to read'],
  [['import', '/nonexistent/chain.rlp', '--in-memory'], 'import /nonexistent/chain.rlp: ENOENT'],
  [['import', 'x.rlp', '--in-memory', '--head'], "Option '--head <value>' argument missing"],
  [['import', 'x.rlp', '--in-memory', '--head', 'ten'], '--head must be'],
  [['--in-memory', '--head', '5'], '--head goes with --import FILE'],
])('bad arguments %j exit 2 and say why', async (args, message) => {
  const { code, stderr } = await runToEnd(args);
  expect(code).toBe(2);
  expect(stderr).toContain(message);
});

test('--genesis and --import --head N: the node follows the chain up to N, safe and finalized there, mining only when asked', async () => {
  const chains = join(__dirname, '..', '..', '..', 'fixtures', 'chains');
  const node = await runCommand([
    '--genesis',
    join(chains, 'forks.genesis.json'),
    '--import',
    join(chains, 'forks.rlp'),
    '--head',
    '15',
    '--in-memory',
    '--port',
    '0',
  ]);
  try {
    expect(node.stdout()).toMatch(/imported 15 blocks \(1 already known\) in [0-9.]+ s: .*head is block 15\n/);
    // The spec allows "safe" only in eth_call and eth_getBlockReceipts: the block of its first receipt.
    const number = async (tag: string) =>
      tag === 'safe'
        ? ((await rpcCall(node.url, 'eth_getBlockReceipts', [tag])).result[0].blockNumber as string)
        : ((await rpcCall(node.url, 'eth_getBlockByNumber', [tag, false])).result.number as string);
    expect([await number('latest'), await number('safe'), await number('finalized')]).toEqual(['0xf', '0xf', '0xf']);
    // No mining until asked: a sent transaction waits in the pool.
    const sent = await rpcCall(node.url, 'eth_sendTransaction', [{ from: ALICE, to: BOB, value: '0x1' }]);
    expect(sent.result).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await rpcCall(node.url, 'eth_getTransactionReceipt', [sent.result])).result).toBeNull();
    await rpcCall(node.url, 'evm_mine');
    expect((await rpcCall(node.url, 'eth_getTransactionReceipt', [sent.result])).result.blockNumber).toBe('0x10');
    // safe and finalized stay where they were until moved.
    expect(await number('finalized')).toBe('0xf');
    expect((await rpcCall(node.url, 'l2_setFinality', [{ safe: '0x10', finalized: '0xc' }])).result).toBe(true);
    expect([await number('safe'), await number('finalized')]).toEqual(['0x10', '0xc']);
    const refused = await rpcCall(node.url, 'l2_setFinality', [{ safe: '0x11', finalized: '0x0' }]);
    expect(refused.error.message).toBe('finalized (0) must not be after safe (17), nor safe after the head (16)');
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
  }
});
