/**
 * An Anvil user's first hour, over the real server: viem's test client in anvil mode with the
 * devnet's own chain definition, Anvil's methods and aliases (anvil_reset, anvil_metadata, the block
 * timestamp interval, auto-impersonation, dealing ERC20 balances and allowances, the pool), Foundry's
 * cast, and the looser requests Anvil takes on its paths.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  http,
  parseEther,
} from 'viem';
import type { Abi } from 'viem';
import WebSocket from 'ws';

import { freePort } from '../../cli/test/upstream';
import { createDevnet } from '../src';
import type { Devnet } from '../src';

const ROOT = join(__dirname, '..', '..', '..');
const CAST = join(ROOT, 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast');
const token = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'contracts', 'TestToken.json'), 'utf8')) as {
  abi: Abi;
  bytecode: `0x${string}`;
};
const STRANGER = '0x00000000000000000000000000000000000000c1';
const exec = promisify(execFile);

let devnet: Devnet;
beforeEach(async () => {
  devnet = await createDevnet({ listen: true, log: () => {} });
});
afterEach(() => devnet.close());

const call = (method: string, params: unknown[] = []) => devnet.provider.request({ method, params });

test("viem's test client in anvil mode, with devnet.viemChain as its chain", async () => {
  const chain = devnet.viemChain;
  expect(chain).toMatchObject({ id: 31337, rpcUrls: { default: { http: [devnet.url] } } });
  const test = createTestClient({ mode: 'anvil', chain, transport: http(devnet.url) });
  // viem caches the block number for 4 s by default; a devnet moves faster.
  const client = createPublicClient({ chain, transport: http(devnet.url), cacheTime: 0 });
  const wallet = createWalletClient({ chain, transport: http(devnet.url), account: devnet.accounts[0].address });
  // A wallet client checks the node's chain id against its chain's: no ChainMismatchError.
  const hash = await wallet.sendTransaction({ to: STRANGER, value: 1n });
  expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');

  await test.setBalance({ address: STRANGER, value: parseEther('2') });
  expect(await client.getBalance({ address: STRANGER })).toBe(parseEther('2'));
  const id = await test.snapshot();
  await test.mine({ blocks: 3 });
  expect(await client.getBlockNumber()).toBe(4n);
  await test.revert({ id });
  expect(await client.getBlockNumber()).toBe(1n);

  // Each block 100 s after its parent, until the interval is removed.
  await test.setBlockTimestampInterval({ interval: 100 });
  const before = await client.getBlock();
  await test.mine({ blocks: 2 });
  expect((await client.getBlock()).timestamp).toBe(before.timestamp + 200n);
  await test.removeBlockTimestampInterval();
  expect(await call('anvil_removeBlockTimestampInterval')).toBe(false);

  await test.setLoggingEnabled(false);
  expect(devnet.chain.dev.loggingEnabled).toBe(false);
  await test.setLoggingEnabled(true);

  const state = await test.dumpState();
  await test.reset();
  expect(await client.getBlockNumber()).toBe(0n);
  expect(await client.getBalance({ address: STRANGER })).toBe(0n);
  await test.loadState({ state });
  expect(await client.getBalance({ address: STRANGER })).toBe(parseEther('2'));
});

test("Anvil's aliases and its methods for time, the pool and accounts", async () => {
  // anvil_increaseTime, anvil_setNextBlockTimestamp, anvil_snapshot/anvil_revert: evm_'s twins.
  // The answer is the clock's whole offset from the wall clock: at least the 60 s just added.
  expect(BigInt((await call('anvil_increaseTime', ['0x3c'])) as string)).toBeGreaterThanOrEqual(60n);
  const head = (await call('eth_getBlockByNumber', ['latest', false])) as { timestamp: string };
  const next = BigInt(head.timestamp) + 1000n;
  await call('anvil_setNextBlockTimestamp', [`0x${next.toString(16)}`]);
  await call('evm_mine');
  expect(((await call('eth_getBlockByNumber', ['latest', false])) as { timestamp: string }).timestamp).toBe(
    `0x${next.toString(16)}`,
  );
  const snap = await call('anvil_snapshot');
  await call('evm_mine');
  expect(await call('anvil_revert', [snap])).toBe(true);
  expect(await call('eth_blockNumber')).toBe('0x1');

  // anvil_metadata, in Anvil's shape; a reset gives a new instance id.
  const meta = (await call('anvil_metadata')) as Record<string, unknown>;
  expect(meta).toEqual({
    clientVersion: expect.stringMatching(/^l2devnet\//),
    clientSemver: '0.1.0',
    // The commit the bundle was built from; empty in the workspace's sources.
    clientCommitSha: expect.stringMatching(/^([0-9a-f]{40})?$/),
    chainId: 31337,
    instanceId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    latestBlockNumber: 1,
    latestBlockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    forkedNetwork: null,
    snapshots: {},
  });
  await call('anvil_reset');
  expect(((await call('anvil_metadata')) as { instanceId: string }).instanceId).not.toBe(meta.instanceId);
  // A fork of a remote that is not there is refused, naming it; the chain stays as it was.
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  await expect(call('anvil_reset', [{ forking: { jsonRpcUrl: nowhere } }])).rejects.toMatchObject({
    code: -32000,
    message: `the fork remote ${nowhere} did not answer: connection refused`,
  });
  expect(((await call('anvil_metadata')) as { forkedNetwork: unknown }).forkedNetwork).toBeNull();

  // Auto-impersonation: any address sends, until turned off.
  await call('anvil_setBalance', [STRANGER, '0xde0b6b3a7640000']);
  await expect(call('eth_sendTransaction', [{ from: STRANGER, to: STRANGER }])).rejects.toMatchObject({
    message: `unknown account ${STRANGER}`,
  });
  await call('anvil_autoImpersonateAccount', [true]);
  const sent = await call('eth_sendTransaction', [{ from: STRANGER, to: STRANGER }]);
  expect(((await call('eth_getTransactionReceipt', [sent])) as { status: string }).status).toBe('0x1');
  await call('anvil_autoImpersonateAccount', [false]);
  await expect(call('eth_sendTransaction', [{ from: STRANGER, to: STRANGER }])).rejects.toMatchObject({
    message: `unknown account ${STRANGER}`,
  });

  // anvil_addBalance adds; the pool is emptied by sender or whole.
  const had = BigInt((await call('eth_getBalance', [STRANGER, 'latest'])) as string);
  await call('anvil_addBalance', [STRANGER, '0x10']);
  expect(BigInt((await call('eth_getBalance', [STRANGER, 'latest'])) as string)).toBe(had + 16n);
  await call('evm_setAutomine', [false]);
  const [alice, bob] = devnet.accounts.map((a) => a.address);
  await call('eth_sendTransaction', [{ from: alice, to: STRANGER }]);
  await call('eth_sendTransaction', [{ from: bob, to: STRANGER }]);
  await call('anvil_removePoolTransactions', [alice]);
  expect(((await call('txpool_status')) as { pending: string }).pending).toBe('0x1');
  await call('anvil_dropAllTransactions');
  expect(((await call('txpool_status')) as { pending: string }).pending).toBe('0x0');
  await call('anvil_setBlockGasLimit', ['0x1c9c380']);
  await call('evm_mine');
  expect(((await call('eth_getBlockByNumber', ['latest', false])) as { gasLimit: string }).gasLimit).toBe('0x1c9c380');
});

test('anvil_dealERC20 and anvil_setERC20Allowance find the slot and set it, as Anvil', async () => {
  const [alice] = devnet.accounts.map((a) => a.address);
  const deployed = await call('eth_sendTransaction', [
    { from: alice, data: encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: ['T', 'T', 5n] }) },
  ]);
  const address = ((await call('eth_getTransactionReceipt', [deployed])) as { contractAddress: string })
    .contractAddress;
  const read = async (functionName: 'balanceOf' | 'allowance', args: string[]) =>
    decodeFunctionResult({
      abi: token.abi,
      functionName,
      data: (await call('eth_call', [
        { to: address, data: encodeFunctionData({ abi: token.abi, functionName, args }) },
        'latest',
      ])) as `0x${string}`,
    });
  expect(await call('anvil_dealERC20', [STRANGER, address, '0x3e8'])).toBeNull();
  expect(await read('balanceOf', [STRANGER])).toBe(1000n);
  expect(await read('balanceOf', [alice])).toBe(5n);
  await call('anvil_setERC20Allowance', [alice, STRANGER, address, '0x7'] as unknown[]);
  expect(await read('allowance', [alice, STRANGER])).toBe(7n);
  // Not a token: no slot holds the value, as Anvil says.
  await expect(call('anvil_dealERC20', [STRANGER, STRANGER, '0x1'])).rejects.toMatchObject({
    message: 'Unable to set ERC20 balance, no slot found',
  });
});

test("cast rpc speaks Anvil's methods to the node", async () => {
  const cast = async (...args: string[]) =>
    (
      await exec(CAST, [...args, '--rpc-url', devnet.url as string], { env: { ...process.env, NO_COLOR: '1' } })
    ).stdout.trim();
  expect(JSON.parse(await cast('rpc', 'anvil_metadata'))).toMatchObject({ chainId: 31337, forkedNetwork: null });
  await cast('rpc', 'anvil_setBlockTimestampInterval', '7');
  const t0 = BigInt(await cast('block', 'latest', '--field', 'timestamp'));
  await cast('rpc', 'anvil_mine');
  expect(BigInt(await cast('block', 'latest', '--field', 'timestamp'))).toBe(t0 + 7n);
  await cast('rpc', 'anvil_autoImpersonateAccount', 'true');
  await cast('rpc', 'anvil_setBalance', STRANGER, '0xde0b6b3a7640000');
  const receipt = JSON.parse(
    await cast('send', '--unlocked', '--from', STRANGER, '--priority-gas-price', '1gwei', '--json', STRANGER),
  ) as { status: string; from: string };
  expect(receipt).toMatchObject({ status: '0x1', from: STRANGER });
});

test('the devnet paths take a request without "jsonrpc", and newPendingTransactions with true sends whole transactions', async () => {
  const res = await fetch(devnet.url as string, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: 7, method: 'eth_chainId', params: [] }),
  });
  expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0x7a69' });
  // The service's path keeps JSON-RPC 2.0.
  const keyed = await fetch(`${devnet.url}/v3/key`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: 7, method: 'eth_chainId', params: [] }),
  });
  expect(((await keyed.json()) as { error: { code: number } }).error.code).toBe(-32600);

  const ws = new WebSocket(`${devnet.wsUrl}/ws`);
  const messages: any[] = [];
  ws.on('message', (m) => messages.push(JSON.parse(m.toString())));
  await new Promise((r) => ws.once('open', r));
  const next = async () => {
    for (let i = 0; i < 100 && messages.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    return messages.shift();
  };
  try {
    ws.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newPendingTransactions', true] }),
    );
    const id = (await next()).result as string;
    const hash = await call('eth_sendTransaction', [{ from: devnet.accounts[0].address, to: STRANGER, value: '0x5' }]);
    const note = await next();
    expect(note.params.subscription).toBe(id);
    expect(note.params.result).toMatchObject({
      hash,
      from: devnet.accounts[0].address.toLowerCase(),
      to: STRANGER,
      value: '0x5',
      blockHash: null,
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads', true] }));
    expect((await next()).error).toMatchObject({ code: -32602 });
  } finally {
    ws.close();
  }
});
