/** Blocks and their receipts: the methods of methods/blocks.ts, on a node with a short history (seededTestRpc). */
import { ALICE, ZERO32, seededTestRpc } from '../../test/helpers';
import type { TestRpc, RpcReceiptShape } from '../../test/helpers';

let t: TestRpc;
let incrementHash: string;
beforeAll(async () => {
  ({ t, incrementHash } = await seededTestRpc());
});
afterAll(() => t.close());

test('eth_getBlockByNumber and eth_getBlockByHash carry every field of the spec', async () => {
  const block = await t.call<Record<string, unknown>>('eth_getBlockByNumber', '0x2', false);
  for (const field of [
    'difficulty',
    'extraData',
    'gasLimit',
    'gasUsed',
    'hash',
    'logsBloom',
    'miner',
    'mixHash',
    'nonce',
    'number',
    'parentHash',
    'receiptsRoot',
    'sha3Uncles',
    'size',
    'stateRoot',
    'timestamp',
    'totalDifficulty',
    'transactions',
    'transactionsRoot',
    'uncles',
  ]) {
    expect(block).toHaveProperty(field);
  }
  expect(block.number).toBe('0x2');
  expect(block.transactions).toEqual([incrementHash]);
  const byHash = await t.call<Record<string, unknown>>('eth_getBlockByHash', block.hash, true);
  expect(byHash.number).toBe('0x2');
  expect((byHash.transactions as { hash: string; from: string }[])[0]).toMatchObject({
    hash: incrementHash,
    from: ALICE,
    blockNumber: '0x2',
    transactionIndex: '0x0',
  });
  expect(await t.call('eth_getBlockByNumber', '0x64', false)).toBeNull();
  expect(await t.call('eth_getBlockByHash', ZERO32, false)).toBeNull();
  expect((await t.call<Record<string, unknown>>('eth_getBlockByNumber', 'earliest', false)).number).toBe('0x0');
  expect((await t.call<Record<string, unknown>>('eth_getBlockByNumber', 'finalized', false)).number).toBe('0x1');
  expect(await t.call('eth_getBlockTransactionCountByNumber', '0x2')).toBe('0x1');
  expect(await t.call('eth_getBlockTransactionCountByHash', block.hash)).toBe('0x1');
  expect(await t.call('eth_getUncleCountByBlockNumber', '0x2')).toBe('0x0');
  expect(await t.call('eth_getUncleCountByBlockHash', ZERO32)).toBeNull();
});

test('the pending block has null hash, number, nonce and logsBloom', async () => {
  const pending = await t.call<Record<string, unknown>>('eth_getBlockByNumber', 'pending', false);
  expect(pending).toMatchObject({ hash: null, number: null, nonce: null, logsBloom: null, transactions: [] });
  expect(pending.parentHash).toBe(
    (await t.call<Record<string, unknown>>('eth_getBlockByNumber', 'latest', false)).hash,
  );
});

test('eth_getBlockReceipts takes hex, decimal, tags (safe too) and pending as latest', async () => {
  const latest = await t.call<RpcReceiptShape[]>('eth_getBlockReceipts', 'latest');
  expect(latest).toHaveLength(1);
  expect(await t.call('eth_getBlockReceipts', 'pending')).toEqual(latest);
  expect(await t.call('eth_getBlockReceipts', '3')).toEqual(latest);
  expect(await t.call('eth_getBlockReceipts', 3)).toEqual(latest);
  expect(await t.call('eth_getBlockReceipts', '0x3')).toEqual(latest);
  expect((await t.call<RpcReceiptShape[]>('eth_getBlockReceipts', 'safe'))[0].blockNumber).toBe('0x2');
  expect(await t.call('eth_getBlockReceipts', 'earliest')).toEqual([]);
  expect(await t.call('eth_getBlockReceipts', '0x99')).toBeNull();
});
