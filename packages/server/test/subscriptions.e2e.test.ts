import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createPublicClient, createTestClient, createWalletClient, http, parseAbi, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

import { startTestNode } from './testNode';
import type { TestNode, WsClient } from './testNode';

const counter = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'Counter.json'), 'utf8'),
) as {
  abi: any[];
  bytecode: `0x${string}`;
};
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const INCREMENT = '0xd09de08a';

async function waitFor<T>(what: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('subscriptions over WebSocket', () => {
  let node: TestNode;
  let ws: WsClient;
  beforeEach(async () => {
    node = await startTestNode();
    ws = await node.ws();
  });
  afterEach(async () => {
    await ws.close();
    await node.close();
  });

  test('exclusions arrive as they are recorded, in the shape of l2_getTransactionExclusionStatusV1', async () => {
    const sub = (await ws.request('eth_subscribe', ['exclusions'])).result;
    const rpc = async (method: string, params: unknown[]) =>
      (await node.post({ jsonrpc: '2.0', id: 1, method, params })).json;
    await rpc('l2_forceExclusion', [{ from: BOB, module: 'EXT' }]);
    await rpc('l2_forceExclusion', [{ from: ALICE, stage: 'RPC', module: 'ADD', count: 99 }]);
    const excluded = (await rpc('eth_sendTransaction', [{ from: BOB, to: ALICE, value: '0x1' }])).result;
    const refused = await rpc('eth_sendTransaction', [{ from: ALICE, to: BOB, value: '0x1' }]);
    expect(refused.error.message).toMatch(/line count for module ADD=99 is above the limit \d+$/);
    const of = () => ws.notifications.filter((n) => n.params?.subscription === sub).map((n) => n.params.result);
    await waitFor(() => (of().length === 2 ? true : undefined));
    expect(of()).toEqual([
      (await rpc('l2_getTransactionExclusionStatusV1', [excluded])).result,
      (await rpc('l2_getExclusions', [{ stage: 'RPC' }])).result[0],
    ]);
    expect(of()[0]).toMatchObject({ txRejectionStage: 'SEQUENCER', blockNumber: '0x1' });
  });

  test('newHeads, newPendingTransactions and logs arrive in the eth_subscription envelope', async () => {
    const heads = (await ws.request('eth_subscribe', ['newHeads'])).result;
    const pending = (await ws.request('eth_subscribe', ['newPendingTransactions'])).result;
    const deploy = await node.post({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendTransaction',
      params: [{ from: ALICE, data: counter.bytecode }],
    });
    const receipt = await node.post({
      jsonrpc: '2.0',
      id: 2,
      method: 'eth_getTransactionReceipt',
      params: [deploy.json.result],
    });
    const address = receipt.json.result.contractAddress;
    const logs = (await ws.request('eth_subscribe', ['logs', { address }])).result;
    const hash = (
      await node.post({
        jsonrpc: '2.0',
        id: 3,
        method: 'eth_sendTransaction',
        params: [{ from: ALICE, to: address, data: INCREMENT }],
      })
    ).json.result;

    const of = (id: string) =>
      ws.notifications.filter((n) => n.method === 'eth_subscription' && n.params.subscription === id);
    await waitFor(() => (of(logs).length === 1 ? true : undefined));
    expect(of(heads).map((n) => n.params.result.number)).toEqual(['0x1', '0x2']);
    expect(of(heads)[0].params.result).toMatchObject({
      parentHash: expect.any(String),
      stateRoot: expect.any(String),
      hash: expect.any(String),
    });
    expect(of(pending).map((n) => n.params.result)).toEqual([deploy.json.result, hash]);
    expect(of(logs)[0]).toEqual({
      jsonrpc: '2.0',
      method: 'eth_subscription',
      params: {
        subscription: logs,
        result: expect.objectContaining({ address, transactionHash: hash, removed: false, logIndex: '0x0' }),
      },
    });

    // After a reorg the dropped log comes back with removed: true, then the new block's logs.
    const filter = (await node.post({ jsonrpc: '2.0', id: 4, method: 'eth_newFilter', params: [{ address }] })).json
      .result;
    await node.post({
      jsonrpc: '2.0',
      id: 5,
      method: 'anvil_reorg',
      params: [1, [[{ from: BOB, to: address, data: INCREMENT, nonce: '0x0' }, 0]]],
    });
    await waitFor(() => (of(logs).length === 3 ? true : undefined));
    expect(of(logs)[1].params.result).toMatchObject({ transactionHash: hash, removed: true });
    expect(of(logs)[2].params.result).toMatchObject({ removed: false, blockNumber: '0x2' });
    expect(of(logs)[2].params.result.transactionHash).not.toBe(hash);
    const changes = (await node.post({ jsonrpc: '2.0', id: 6, method: 'eth_getFilterChanges', params: [filter] })).json
      .result;
    expect(changes.map((l: { removed: boolean }) => l.removed)).toEqual([true, false]);

    expect((await ws.request('eth_unsubscribe', [heads])).result).toBe(true);
    expect((await ws.request('eth_unsubscribe', [heads])).result).toBe(false);
  });

  test("a closed socket's subscriptions are dropped at once", async () => {
    const other = await node.ws();
    await other.request('eth_subscribe', ['newHeads']);
    await other.close();
    await waitFor(() =>
      (node.rpc.feed as unknown as { subscriptions: Map<string, unknown> }).subscriptions.size === 0 ? true : undefined,
    );
    await node.post({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] });
    expect(node.chain.headNumber).toBe(1n);
  });
});

test("a contract test flow written with viem's test client in anvil mode runs unchanged", async () => {
  const node = await startTestNode();
  try {
    const transport = http(node.url);
    const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport });
    const publicClient = createPublicClient({ chain: foundry, transport });
    const walletClient = createWalletClient({ chain: foundry, transport, account });

    const deployHash = await walletClient.deployContract({ abi: counter.abi, bytecode: counter.bytecode });
    const address = (await publicClient.waitForTransactionReceipt({ hash: deployHash })).contractAddress!;
    const count = () => publicClient.readContract({ address, abi: counter.abi, functionName: 'count', account });

    // Snapshot, change things, revert.
    const id = await testClient.snapshot();
    await walletClient.writeContract({ address, abi: counter.abi, functionName: 'increment' });
    expect(await count()).toBe(1n);
    await testClient.revert({ id });
    expect(await count()).toBe(0n);

    // Balances and impersonation.
    const whale = '0x00000000000000000000000000000000000000aa';
    await testClient.setBalance({ address: whale, value: parseEther('5') });
    expect(await publicClient.getBalance({ address: whale })).toBe(parseEther('5'));
    await testClient.impersonateAccount({ address: whale });
    const impersonated = createWalletClient({ chain: foundry, transport, account: whale });
    const sent = await impersonated.sendTransaction({ to: BOB, value: parseEther('1') });
    expect((await publicClient.waitForTransactionReceipt({ hash: sent })).from).toBe(whale);
    await testClient.stopImpersonatingAccount({ address: whale });

    // Time travel and mining.
    const before = await publicClient.getBlock();
    await testClient.increaseTime({ seconds: 86_400 });
    await testClient.mine({ blocks: 3 });
    const after = await publicClient.getBlock();
    expect(after.number).toBe(before.number + 3n);
    expect(after.timestamp - before.timestamp).toBeGreaterThanOrEqual(86_399n);
    await testClient.setNextBlockTimestamp({ timestamp: after.timestamp + 1000n });
    await testClient.mine({ blocks: 1 });
    expect((await publicClient.getBlock()).timestamp).toBe(after.timestamp + 1000n);

    // Manual mining.
    await testClient.setAutomine(false);
    expect(await testClient.getAutomine()).toBe(false);
    const waiting = await walletClient.writeContract({ address, abi: counter.abi, functionName: 'increment' });
    expect((await testClient.getTxpoolStatus()).pending).toBe(1);
    await testClient.mine({ blocks: 1 });
    expect((await publicClient.getTransactionReceipt({ hash: waiting })).status).toBe('success');
    await testClient.setAutomine(true);

    // Storage and code.
    await testClient.setStorageAt({ address, index: 0, value: `0x${'0'.repeat(62)}2a` });
    expect(await count()).toBe(42n);
    const events = parseAbi(['event Incremented(uint256 newCount)']);
    await walletClient.writeContract({ address, abi: counter.abi, functionName: 'increment' });
    const logs = await publicClient.getContractEvents({
      address,
      abi: events,
      eventName: 'Incremented',
      fromBlock: 0n,
    });
    expect(logs.at(-1)?.args.newCount).toBe(43n);

    // Dump and load.
    const state = await testClient.dumpState();
    await testClient.setBalance({ address: whale, value: 0n });
    await testClient.loadState({ state });
    expect(await publicClient.getBalance({ address: whale })).toBeGreaterThan(0n);
  } finally {
    await node.close();
  }
});
