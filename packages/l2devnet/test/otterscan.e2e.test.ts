/**
 * Otterscan's API (ots_*, level 8) on a node with nested calls, creations, a value forward and a
 * revert: each method Otterscan calls (src/useErigonHooks.ts, search/search.ts, useProvider.ts),
 * with the fields Otterscan reads from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { encodeFunctionData, getCreateAddress } from 'viem';
import type { Abi } from 'viem';

import { createDevnet } from '../src';
import type { Devnet } from '../src';

const flow = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'TraceFlow.json'), 'utf8'),
) as { abi: Abi; bytecode: `0x${string}` };
const SINK = '0x00000000000000000000000000000000000000c2';
const FORWARDER = '0x00000000000000000000000000000000000000f0';

let devnet: Devnet;
let alice: string;
let contract: string;
let deployHash: string;
let runHash: string;
let boomHash: string;
let forwardHash: string;
const call = (method: string, params: unknown[] = []): Promise<any> => devnet.provider.request({ method, params });

beforeAll(async () => {
  devnet = await createDevnet({ log: () => {} });
  alice = devnet.accounts[0].address.toLowerCase();
  deployHash = await call('eth_sendTransaction', [{ from: alice, data: flow.bytecode }]); // block 1
  contract = (await call('eth_getTransactionReceipt', [deployHash])).contractAddress;
  await call('evm_setAutomine', [false]);
  const data = (functionName: string, args: unknown[] = []) =>
    encodeFunctionData({ abi: flow.abi, functionName, args } as never);
  runHash = await call('eth_sendTransaction', [
    { from: alice, to: contract, data: data('run', [5n]), gas: '0x100000' },
  ]);
  boomHash = await call('eth_sendTransaction', [{ from: alice, to: contract, data: data('boom'), gas: '0x100000' }]);
  await call('evm_mine'); // block 2
  await call('evm_setAutomine', [true]);
  // CALL(gas, SINK, CALLVALUE, 0, 0, 0, 0): forwards what it is sent.
  await call('anvil_setCode', [FORWARDER, `0x600060006000600034${'73'}${SINK.slice(2)}5af100`]);
  forwardHash = await call('eth_sendTransaction', [{ from: alice, to: FORWARDER, value: '0x64', gas: '0x20000' }]); // block 3
});
afterAll(() => devnet.close());

test('ots_getApiLevel, erigon_getHeaderByNumber and ots_hasCode', async () => {
  expect(await call('ots_getApiLevel')).toBe(8);
  expect(await call('erigon_getHeaderByNumber', [1])).toEqual(await call('eth_getBlockByNumber', ['0x1', false]));
  expect(await call('erigon_getHeaderByNumber', [99])).toBeNull();
  expect(await call('ots_hasCode', [contract, 'latest'])).toBe(true);
  expect(await call('ots_hasCode', [contract, '0x0'])).toBe(false);
  expect(await call('ots_hasCode', [alice, 'latest'])).toBe(false);
});

test('ots_getBlockDetails: the block without transaction bodies, their count and the fees they paid', async () => {
  const details = await call('ots_getBlockDetails', [2]);
  const block = await call('eth_getBlockByNumber', ['0x2', false]);
  const { transactions, ...header } = block;
  expect(details.block).toEqual({ ...header, transactionCount: 2 });
  let fees = 0n;
  for (const h of transactions) {
    const r = await call('eth_getTransactionReceipt', [h]);
    fees += BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
  }
  expect(details.totalFees).toBe(`0x${fees.toString(16)}`);
  expect(details.issuance).toEqual({ blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' });
  expect(await call('ots_getBlockDetailsByHash', [block.hash])).toEqual(details);
  // As Anvil answers an unknown block.
  await expect(call('ots_getBlockDetails', [99])).rejects.toMatchObject({
    code: -32001,
    message: 'Resource not found',
  });
});

test('ots_getBlockTransactions: a page of full transactions with their receipts and the block time', async () => {
  const first = await call('ots_getBlockTransactions', [2, 0, 1]);
  expect(first.fullblock.transactionCount).toBe(2);
  expect(first.fullblock.transactions.map((t: any) => t.hash)).toEqual([runHash]);
  expect(first.receipts).toHaveLength(1);
  expect(first.receipts[0]).toMatchObject({
    transactionHash: runHash,
    status: '0x1',
    timestamp: first.fullblock.timestamp,
  });
  const second = await call('ots_getBlockTransactions', [2, 1, 1]);
  expect(second.fullblock.transactions.map((t: any) => t.hash)).toEqual([boomHash]);
  expect(second.receipts[0].status).toBe('0x0');
  expect((await call('ots_getBlockTransactions', [2, 2, 1])).receipts).toEqual([]);
});

test('ots_traceTransaction, ots_getInternalOperations and ots_getTransactionError', async () => {
  const trace = await call('ots_traceTransaction', [runHash]);
  expect(trace[0]).toMatchObject({ type: 'CALL', depth: 0, from: alice, to: contract, value: '0x0' });
  expect(trace.map((e: any) => [e.type, e.depth])).toEqual(
    expect.arrayContaining([
      ['STATICCALL', 1],
      ['DELEGATECALL', 1],
      ['CREATE', 1],
    ]),
  );
  expect(trace.find((e: any) => e.type === 'DELEGATECALL').value).toBeNull();
  const created = getCreateAddress({ from: contract as `0x${string}`, nonce: 2n }).toLowerCase();
  expect(await call('ots_getInternalOperations', [runHash])).toEqual([
    { type: 2, from: contract, to: created, value: '0x0' },
  ]);
  // The transaction's own transfer first, as Anvil lists it.
  expect(await call('ots_getInternalOperations', [forwardHash])).toEqual([
    { type: 0, from: alice, to: FORWARDER, value: '0x64' },
    { type: 0, from: FORWARDER, to: SINK, value: '0x64' },
  ]);
  // boom() reverts with Error("boom").
  expect(await call('ots_getTransactionError', [boomHash])).toMatch(/^0x08c379a0/);
  expect(await call('ots_getTransactionError', [runHash])).toBe('0x');
});

test("ots_searchTransactionsBefore/After: an address's history, newest first, inner calls included", async () => {
  const before = await call('ots_searchTransactionsBefore', [alice, 0, 25]);
  expect(before.txs.map((t: any) => t.hash)).toEqual([forwardHash, boomHash, runHash, deployHash]);
  expect(before.receipts.map((r: any) => r.transactionHash)).toEqual([forwardHash, boomHash, runHash, deployHash]);
  expect(before.receipts[0].timestamp).toBe((await call('eth_getBlockByNumber', ['0x3', false])).timestamp);
  expect(before).toMatchObject({ firstPage: true, lastPage: true });
  // The sink only ever received value from the forwarder's inner call.
  expect((await call('ots_searchTransactionsBefore', [SINK, 0, 25])).txs.map((t: any) => t.hash)).toEqual([
    forwardHash,
  ]);
  const paged = await call('ots_searchTransactionsBefore', [alice, 3, 1]);
  expect(paged.txs.map((t: any) => t.hash)).toEqual([boomHash, runHash]);
  expect(paged).toMatchObject({ firstPage: false, lastPage: false });
  const after = await call('ots_searchTransactionsAfter', [alice, 1, 25]);
  expect(after.txs.map((t: any) => t.hash)).toEqual([forwardHash, boomHash, runHash]);
  expect(after).toMatchObject({ firstPage: true, lastPage: false });
});

test('ots_getTransactionBySenderAndNonce and ots_getContractCreator', async () => {
  expect(await call('ots_getTransactionBySenderAndNonce', [alice, 0])).toBe(deployHash);
  expect(await call('ots_getTransactionBySenderAndNonce', [alice, '0x2'])).toBe(boomHash);
  expect(await call('ots_getTransactionBySenderAndNonce', [alice, 9])).toBeNull();
  expect(await call('ots_getContractCreator', [contract])).toEqual({ hash: deployHash, creator: alice });
  const child = getCreateAddress({ from: contract as `0x${string}`, nonce: 1n }).toLowerCase();
  expect(await call('ots_getContractCreator', [child])).toEqual({ hash: deployHash, creator: contract });
  expect(await call('ots_getContractCreator', [alice])).toBeNull();
  await expect(call('ots_getContractCreator', ['0x1234'])).rejects.toMatchObject({ code: -32602 });
});

test("every ots_/erigon_ method Otterscan's source calls is served", async () => {
  // `git grep -ohE '"(ots|erigon)_[A-Za-z]+"' -- src` in otterscan/otterscan at 9dfd87fb (July 2025).
  const CALLED = [
    'erigon_getHeaderByNumber',
    'ots_getApiLevel',
    'ots_getBlockDetails',
    'ots_getBlockDetailsByHash',
    'ots_getBlockTransactions',
    'ots_getContractCreator',
    'ots_getInternalOperations',
    'ots_getTransactionBySenderAndNonce',
    'ots_getTransactionError',
    'ots_hasCode',
    'ots_searchTransactionsAfter',
    'ots_searchTransactionsBefore',
    'ots_traceTransaction',
  ];
  for (const name of CALLED) {
    // Called without params: a served method says what is missing (-32602) or answers; never -32601.
    const answer = await call(name).then(
      () => 0,
      (e: { code: number }) => e.code,
    );
    expect([name, answer]).not.toEqual([name, -32601]);
  }
});
