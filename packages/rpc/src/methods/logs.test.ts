/** eth_getLogs: the methods of methods/logs.ts, on a node with a short history (seededTestRpc). */
import {
  ALICE,
  BOB,
  createTestRpc,
  deploy,
  fixtureContract,
  INCREMENT,
  INCREMENTED_TOPIC,
  seededTestRpc,
  ZERO32,
} from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

let t: TestRpc;
let counterAddress: string;
beforeAll(async () => {
  ({ t, counterAddress } = await seededTestRpc());
});
afterAll(() => t.close());

test('eth_getLogs filters by address, topics with wildcards and OR, block hash and range', async () => {
  const all = await t.call<unknown[]>('eth_getLogs', { fromBlock: '0x0' });
  expect(all).toHaveLength(1);
  expect(await t.call('eth_getLogs', { fromBlock: '0x0', address: counterAddress })).toEqual(all);
  expect(await t.call('eth_getLogs', { fromBlock: '0x0', address: [BOB, counterAddress] })).toEqual(all);
  expect(await t.call('eth_getLogs', { fromBlock: '0x0', topics: [INCREMENTED_TOPIC] })).toEqual(all);
  expect(await t.call('eth_getLogs', { fromBlock: '0x0', topics: [[ZERO32, INCREMENTED_TOPIC]] })).toEqual(all);
  expect(await t.call('eth_getLogs', { fromBlock: '0x0', topics: [null] })).toEqual(all);
  expect(await t.call('eth_getLogs', { fromBlock: '0x0', topics: [null, ZERO32] })).toEqual([]);
  expect(await t.call('eth_getLogs', { fromBlock: '0x0', address: BOB })).toEqual([]);
  expect(await t.call('eth_getLogs', {})).toEqual([]);
  const block2 = await t.call<Record<string, string>>('eth_getBlockByNumber', '0x2', false);
  expect(await t.call('eth_getLogs', { blockHash: block2.hash })).toEqual(all);
  expect(await t.call('eth_getLogs', { blockHash: ZERO32 })).toEqual([]);
  expect(await t.fail('eth_getLogs', { blockHash: block2.hash, fromBlock: '0x0' })).toEqual({
    code: -32602,
    message: 'invalid params: param 1 (filter): blockHash cannot be combined with fromBlock or toBlock',
  });
  const addresses = Array.from({ length: 5001 }, () => BOB);
  expect(await t.fail('eth_getLogs', { address: addresses })).toEqual({
    code: -32602,
    message: 'invalid params: param 1 (filter) has 5001 addresses and topics; at most 5000 are allowed',
  });
});

describe('eth_getLogs limits', () => {
  test('more than the result limit fails with -32005', async () => {
    const t = await createTestRpc({ maxLogResults: 2 });
    try {
      const address = await deploy(t, fixtureContract('Counter').bytecode);
      for (let i = 0; i < 3; i++) await t.call('eth_sendTransaction', { from: ALICE, to: address, data: INCREMENT });
      expect(await t.fail('eth_getLogs', { fromBlock: 'earliest' })).toEqual({
        code: -32005,
        message: 'query returned more than 2 results',
      });
    } finally {
      await t.close();
    }
  });

  test('a query past the time limit fails with -32005', async () => {
    // A deadline already passed when the query starts.
    const t = await createTestRpc({ logQueryTimeoutMs: -1 });
    try {
      const address = await deploy(t, fixtureContract('Counter').bytecode);
      for (let i = 0; i < 3; i++) await t.call('eth_sendTransaction', { from: ALICE, to: address, data: INCREMENT });
      expect(await t.fail('eth_getLogs', { fromBlock: 'earliest' })).toEqual({
        code: -32005,
        message: 'query timeout exceeded',
      });
    } finally {
      await t.close();
    }
  });
});
