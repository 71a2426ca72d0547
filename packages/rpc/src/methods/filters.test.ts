/** Filters and subscriptions: the methods of methods/filters.ts. */
import { ALICE, createTestRpc, deploy, fixtureContract, INCREMENT } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

let t: TestRpc;
beforeEach(async () => {
  t = await createTestRpc();
});
afterEach(() => t.close());

describe('filters', () => {
  test('block, pending-transaction and log filters report changes since the last poll', async () => {
    const address = await deploy(t, fixtureContract('Counter').bytecode);
    const blocks = await t.call<string>('eth_newBlockFilter');
    const pending = await t.call<string>('eth_newPendingTransactionFilter');
    const logs = await t.call<string>('eth_newFilter', { address });
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: address, data: INCREMENT });
    await new Promise((r) => setImmediate(r));
    const head = await t.call<{ hash: string }>('eth_getBlockByNumber', 'latest', false);
    expect(await t.call('eth_getFilterChanges', blocks)).toEqual([head.hash]);
    expect(await t.call('eth_getFilterChanges', blocks)).toEqual([]);
    expect(await t.call('eth_getFilterChanges', pending)).toEqual([hash]);
    const changes = await t.call<{ transactionHash: string; removed: boolean }[]>('eth_getFilterChanges', logs);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ transactionHash: hash, removed: false });
    expect(await t.call('eth_getFilterLogs', logs)).toHaveLength(1);
    // A reorg announces the dropped log as removed.
    await t.call('anvil_rollback', 1);
    await new Promise((r) => setImmediate(r));
    expect(await t.call('eth_getFilterChanges', logs)).toEqual([{ ...changes[0], removed: true }]);
    expect(await t.call('eth_uninstallFilter', logs)).toBe(true);
    expect(await t.call('eth_uninstallFilter', logs)).toBe(false);
    expect(await t.fail('eth_getFilterChanges', logs)).toEqual({ code: -32000, message: `filter not found: ${logs}` });
  });

  test('filters expire after five minutes unpolled', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'setInterval', 'setTimeout'] });
    try {
      const id = await t.call<string>('eth_newBlockFilter');
      jest.setSystemTime(Date.now() + 5 * 60 * 1000 + 1000);
      expect((await t.fail('eth_getFilterChanges', id)).message).toBe(`filter not found: ${id}`);
    } finally {
      jest.useRealTimers();
    }
  });

  test('eth_subscribe needs a session (WebSocket)', async () => {
    expect(await t.fail('eth_subscribe', 'newHeads')).toEqual({
      code: -32601,
      message: 'notifications not supported: eth_subscribe needs a WebSocket connection',
    });
  });
});
