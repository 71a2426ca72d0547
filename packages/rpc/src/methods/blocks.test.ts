/** Blocks and their receipts: the methods of methods/blocks.ts, on a node with a short history (seededTestRpc). */
import { ALICE, BOB, INCREMENT, ZERO32, seededTestRpc } from '../../test/helpers';
import type { TestRpc, RpcReceiptShape } from '../../test/helpers';

let t: TestRpc;
let incrementHash: string;
let counterAddress: string;
beforeAll(async () => {
  ({ t, incrementHash, counterAddress } = await seededTestRpc());
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

// Last: it mines a block.
test("a block's receipts are each transaction's receipt, in order, their logs numbered across the block", async () => {
  await t.call('evm_setAutomine', false);
  const hashes = [];
  for (const from of [ALICE, BOB, ALICE])
    hashes.push(await t.call<string>('eth_sendTransaction', { from, to: counterAddress, data: INCREMENT }));
  hashes.push(await t.call<string>('eth_sendTransaction', { from: BOB, to: ALICE, value: '0x1' }));
  hashes.push(await t.call<string>('eth_sendTransaction', { from: BOB, to: counterAddress, data: INCREMENT }));
  await t.call('evm_mine');
  await t.call('evm_setAutomine', true);
  const receipts = await t.call<RpcReceiptShape[]>('eth_getBlockReceipts', 'latest');
  expect(receipts).toEqual(await Promise.all(hashes.map((h) => t.call('eth_getTransactionReceipt', h))));
  const logs = receipts.flatMap((r) => r.logs as { logIndex: string; transactionIndex: string }[]);
  expect(logs.map((l) => l.logIndex)).toEqual(['0x0', '0x1', '0x2', '0x3']);
  expect(logs.map((l) => l.transactionIndex)).toEqual(['0x0', '0x1', '0x2', '0x4']);
});
