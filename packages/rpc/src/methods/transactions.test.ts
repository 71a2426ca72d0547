/** Transactions and receipts: the methods of methods/transactions.ts, on a node with a short history (seededTestRpc). */
import {
  ALICE,
  BOB,
  INCREMENT,
  INCREMENTED_TOPIC,
  ZERO32,
  seededTestRpc,
  CAROL,
  createTestRpc,
} from '../../test/helpers';
import type { TestRpc, RpcReceiptShape } from '../../test/helpers';
import { join } from 'node:path';

import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import { LineLimits } from '@l2devnet/core';
import type { ChainOptions } from '@l2devnet/core';

let t: TestRpc;
let counterAddress: string;
let incrementHash: string;
beforeAll(async () => {
  ({ t, counterAddress, incrementHash } = await seededTestRpc());
});
afterAll(() => t.close());

test('transactions by hash and by block position', async () => {
  const tx = await t.call<Record<string, unknown>>('eth_getTransactionByHash', incrementHash);
  expect(tx).toMatchObject({
    hash: incrementHash,
    from: ALICE,
    to: counterAddress,
    input: INCREMENT,
    nonce: '0x1',
    type: '0x2',
    blockNumber: '0x2',
    transactionIndex: '0x0',
    chainId: '0x7a69',
  });
  for (const field of [
    'blockHash',
    'gas',
    'gasPrice',
    'maxFeePerGas',
    'maxPriorityFeePerGas',
    'value',
    'v',
    'r',
    's',
    'accessList',
  ])
    expect(tx).toHaveProperty(field);
  expect(await t.call('eth_getTransactionByBlockNumberAndIndex', '0x2', '0x0')).toEqual(tx);
  expect(await t.call('eth_getTransactionByBlockHashAndIndex', tx.blockHash, '0x0')).toEqual(tx);
  expect(await t.call('eth_getTransactionByBlockNumberAndIndex', '0x2', '0x1')).toBeNull();
  expect(await t.call('eth_getTransactionByHash', ZERO32)).toBeNull();
  const creation = await t.call<Record<string, unknown>>('eth_getTransactionByBlockNumberAndIndex', '0x1', '0x0');
  expect(creation.to).toBeNull();
});

test('receipts carry logs with positions, and contractAddress only for creations', async () => {
  const receipt = await t.call<RpcReceiptShape & Record<string, unknown>>('eth_getTransactionReceipt', incrementHash);
  expect(receipt).toMatchObject({
    status: '0x1',
    from: ALICE,
    to: counterAddress,
    contractAddress: null,
    transactionIndex: '0x0',
    type: '0x2',
    blockNumber: '0x2',
  });
  for (const field of ['cumulativeGasUsed', 'effectiveGasPrice', 'gasUsed', 'logsBloom', 'blockHash'])
    expect(receipt).toHaveProperty(field);
  const { timestamp } = await t.call<{ timestamp: string }>('eth_getBlockByNumber', '0x2', false);
  expect(receipt.logs).toEqual([
    {
      address: counterAddress,
      topics: [INCREMENTED_TOPIC],
      data: `0x${'0'.repeat(63)}1`,
      blockNumber: '0x2',
      blockHash: receipt.blockHash,
      blockTimestamp: timestamp,
      transactionHash: incrementHash,
      transactionIndex: '0x0',
      logIndex: '0x0',
      removed: false,
    },
  ]);
  const creation = await t.call<Record<string, unknown>>('eth_getBlockReceipts', '0x1');
  expect((creation as unknown as RpcReceiptShape[])[0].contractAddress).toBe(counterAddress);
  expect(await t.call('eth_getTransactionReceipt', ZERO32)).toBeNull();
});

test('pool rejections surface as geth phrases with code -32000', async () => {
  const err = await t.fail('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1', nonce: '0x0' });
  const state = BigInt(await t.call<string>('eth_getTransactionCount', ALICE, 'latest'));
  expect(state).toBe(2n);
  expect(err).toEqual({ code: -32000, message: `nonce too low: address ${toChecksumAddress(ALICE)}, tx: 0 state: 2` });
  const poor = await t.fail('eth_sendTransaction', {
    from: BOB,
    to: ALICE,
    value: '0xffffffffffffffffffffffffff',
    gas: '0x5208',
  });
  expect(poor.code).toBe(-32000);
  expect(poor.message).toMatch(/^insufficient funds for gas \* price \+ value/);
  const low = await t.fail('eth_sendTransaction', { from: ALICE, to: BOB, gas: '0x5000' });
  expect(low).toEqual({ code: -32000, message: 'intrinsic gas too low: gas 20480, minimum needed 21000' });
  expect(await t.fail('eth_sendTransaction', { from: '0x000000000000000000000000000000000000dead', to: BOB })).toEqual({
    code: -32000,
    message: 'unknown account 0x000000000000000000000000000000000000dead',
  });
});

test('eth_sendTransaction carries the access list it is given, with EIP-1559 fees or a gas price', async () => {
  const accessList = [{ address: CAROL, storageKeys: [ZERO32] }];
  for (const fees of [{}, { gasPrice: '0x77359400' }]) {
    const hash = await t.call<string>('eth_sendTransaction', {
      from: ALICE,
      to: BOB,
      value: '0x1',
      accessList,
      ...fees,
    });
    const tx = await t.call<{ type: string; accessList: unknown }>('eth_getTransactionByHash', hash);
    expect(tx.type).toBe('gasPrice' in fees ? '0x1' : '0x2');
    expect(tx.accessList).toEqual(accessList);
  }
});

describe('eth_sendRawTransactionSync (EIP-7966)', () => {
  const PRODUCTION = LineLimits.fromFile(
    join(__dirname, '..', '..', '..', '..', 'fixtures', 'limits', 'linea-mainnet.toml'),
  );

  let t: TestRpc | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function node(opts: ChainOptions = {}): Promise<TestRpc> {
    t = await createTestRpc({ lineLimits: PRODUCTION, ...opts });
    return t;
  }

  /** A transfer signed by dev account 1, at `nonce` (its next one by default), with its hash. */
  async function transfer(n: TestRpc, nonce?: bigint, value = 1n): Promise<{ raw: string; hash: string }> {
    const next = nonce ?? BigInt(await n.call<string>('eth_getTransactionCount', BOB, 'pending'));
    const tx = createFeeMarket1559Tx(
      {
        nonce: next,
        to: CAROL,
        value,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1_000_000_000n,
      },
      { common: n.chain.common },
    ).sign(n.chain.accounts[1].privateKey);
    return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
  }

  test('answers with the receipt of the block that took it: automine at once, interval mining on the next block', async () => {
    const auto = await node();
    const { raw, hash } = await transfer(auto);
    const receipt = await auto.call<{ transactionHash: string; status: string; blockNumber: string }>(
      'eth_sendRawTransactionSync',
      raw,
    );
    expect(receipt).toMatchObject({ transactionHash: hash, status: '0x1', blockNumber: '0x1' });
    expect(receipt).toEqual(await auto.call('eth_getTransactionReceipt', hash));
    await auto.close();

    const interval = await node({ mining: { mode: 'interval', intervalMs: 200 } });
    const second = await transfer(interval);
    const started = Date.now();
    const mined = await interval.call<{ transactionHash: string }>('eth_sendRawTransactionSync', second.raw, 5_000);
    expect(mined.transactionHash).toBe(second.hash);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('error 4 with the hash when no block takes it within the timeout; it stays pending', async () => {
    const manual = await node({ mining: { mode: 'manual' } });
    const { raw, hash } = await transfer(manual);
    expect(await manual.fail('eth_sendRawTransactionSync', raw, '0x64')).toEqual({
      code: 4,
      message: "The transaction was added to the mempool but wasn't processed in 0.1s.",
      data: hash,
    });
    expect(await manual.call('eth_getTransactionByHash', hash)).toMatchObject({ hash, blockNumber: null });
  });

  test('error 5 at once for a transaction behind a nonce gap', async () => {
    const auto = await node();
    const { raw, hash } = await transfer(auto, 5n);
    const started = Date.now();
    expect(await auto.fail('eth_sendRawTransactionSync', raw)).toEqual({
      code: 5,
      message:
        "The transaction was added to the mempool but wasn't processed due to a missing nonce or insufficient funds. Please double-check your account and try again.",
      data: hash,
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('an exclusion is answered at once, at either stage', async () => {
    const auto = await node();
    await auto.call('l2_forceExclusion', { from: BOB, module: 'MUL', count: 7 });
    const excluded = await transfer(auto);
    expect(await auto.fail('eth_sendRawTransactionSync', excluded.raw)).toEqual({
      code: -32000,
      message: `Transaction line count for module MUL=7 is above the limit ${PRODUCTION.limits.MUL}`,
      data: excluded.hash,
    });
    await auto.call('l2_setLineLimits', { RLP_TXN: 10 });
    // Its nonce stayed free; another value, so not the hash the sequencer remembers.
    const refused = await transfer(auto, undefined, 2n);
    expect((await auto.fail('eth_sendRawTransactionSync', refused.raw)).message).toMatch(
      new RegExp(`^Transaction ${refused.hash} line count for module RLP_TXN=\\d+ is above the limit 10$`),
    );
  });
});
