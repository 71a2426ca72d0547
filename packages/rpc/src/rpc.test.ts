import { hexToBytes } from '@ethereumjs/util';

import { ALICE, BOB, CAROL, createTestRpc } from '../test/helpers';
import type { TestRpc } from '../test/helpers';
import { verifyProof } from '../test/proofVerifier';
import { RLP } from '@ethereumjs/rlp';

const counter = JSON.parse(
  require('node:fs').readFileSync(
    require('node:path').join(__dirname, '../../../fixtures/contracts/Counter.json'),
    'utf8',
  ),
) as { bytecode: string };
const reverter = JSON.parse(
  require('node:fs').readFileSync(
    require('node:path').join(__dirname, '../../../fixtures/contracts/Reverter.json'),
    'utf8',
  ),
) as { bytecode: string };

const INCREMENT = '0xd09de08a';
const COUNT = '0x06661abd';
const INCREMENTED_TOPIC = '0x20d8a6f5a693f9d1d627a598e8820f7a55ee74c183aa8f1a30e8d4e8dd9a8d84';
const ZERO32 = `0x${'00'.repeat(32)}`;

interface Receipt {
  contractAddress: string | null;
  status: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logs: { logIndex: string; topics: string[]; data: string; removed: boolean }[];
}

async function deploy(t: TestRpc, bytecode: string): Promise<string> {
  const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, data: bytecode, gas: '0x4c4b40' });
  const receipt = await t.call<Receipt>('eth_getTransactionReceipt', hash);
  return receipt.contractAddress as string;
}

describe('JSON-RPC envelope', () => {
  let t: TestRpc;
  beforeAll(async () => {
    t = await createTestRpc();
  });
  afterAll(() => t.close());

  test('echoes numeric and string ids', async () => {
    expect(await t.rpc.handle({ jsonrpc: '2.0', id: 7, method: 'eth_chainId' })).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: '0x7a69',
    });
    expect(await t.rpc.handle({ jsonrpc: '2.0', id: 'abc', method: 'eth_chainId', params: [] })).toEqual({
      jsonrpc: '2.0',
      id: 'abc',
      result: '0x7a69',
    });
  });

  test('a notification gets no answer', async () => {
    expect(await t.rpc.handle({ jsonrpc: '2.0', method: 'eth_chainId' })).toBeUndefined();
    expect(await t.rpc.handle([{ jsonrpc: '2.0', method: 'eth_chainId' }])).toBeUndefined();
  });

  test('a batch is answered in order, each element on its own', async () => {
    const answers = await t.rpc.handle([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 2, method: 'eth_nope' },
      { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 3, method: 'net_version' },
      42,
    ]);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x7a69' },
      {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32601, message: 'the method eth_nope does not exist/is not available' },
      },
      { jsonrpc: '2.0', id: 3, result: '31337' },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'invalid request: expected a JSON-RPC request object' },
      },
    ]);
  });

  test.each([
    ['malformed JSON', '{"jsonrpc":"2.0",', { code: -32700, message: 'parse error: the body is not valid JSON' }],
    ['an empty batch', '[]', { code: -32600, message: 'invalid request: empty batch' }],
    [
      'a wrong jsonrpc version',
      '{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}',
      { code: -32600, message: 'invalid request: jsonrpc must be "2.0"' },
    ],
    [
      'a missing method',
      '{"jsonrpc":"2.0","id":1}',
      { code: -32600, message: 'invalid request: method must be a string' },
    ],
    [
      'an object id',
      '{"jsonrpc":"2.0","id":{},"method":"eth_chainId"}',
      { code: -32600, message: 'invalid request: id must be a string, a number or null' },
    ],
    [
      'named params',
      '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":{"a":1}}',
      { code: -32602, message: 'invalid params: params must be an array' },
    ],
  ])('%s is answered with a clear error', async (_name, text, error) => {
    const answer = (await t.rpc.handleText(text)) as { error: unknown };
    expect(answer.error).toEqual(error);
  });

  test.each([
    ['eth_getBalance', ['0x12'], 'invalid params: param 1 (address) must be a 20-byte hex address; got "0x12"'],
    ['eth_getBalance', [123], 'invalid params: param 1 (address) must be a 20-byte hex address; got 123'],
    [
      'eth_getBalance',
      [ALICE, '0xZZ'],
      'invalid params: param 2 (block) must be a hex block number or one of latest, earliest, pending, finalized; got "0xZZ"',
    ],
    ['eth_getBalance', [ALICE, 'latest', 1], 'invalid params: too many params: expected at most 2, got 3'],
    ['eth_getBalance', [], 'invalid params: missing required param 1 (address)'],
    ['eth_getStorageAt', [ALICE, '0x0'], 'invalid params: missing required param 3 (block)'],
    [
      'eth_getStorageAt',
      [ALICE, 'zero', 'latest'],
      'invalid params: param 2 (position) must be a hex quantity; got "zero"',
    ],
    ['eth_getBlockByNumber', ['latest'], 'invalid params: missing required param 2 (fullTransactions)'],
    [
      'eth_getBlockByNumber',
      ['latest', 'yes'],
      'invalid params: param 2 (fullTransactions) must be a boolean; got "yes"',
    ],
    [
      'eth_getBlockByHash',
      ['0x1234', false],
      'invalid params: param 1 (blockHash) must be a 32-byte hex hash; got "0x1234"',
    ],
    [
      'eth_getTransactionByHash',
      [`0x${'g'.repeat(64)}`],
      `invalid params: param 1 (transactionHash) must be a 32-byte hex hash; got "0x${'g'.repeat(64)}"`,
    ],
    [
      'eth_sendRawTransaction',
      ['0x123'],
      'invalid params: param 1 (transaction) must be hex data (0x followed by an even number of hex digits); got "0x123"',
    ],
    ['eth_call', [{ to: BOB }, 'latest'], 'invalid params: param 1 (transaction.from) is required'],
    [
      'eth_call',
      [{ from: ALICE, to: BOB, gas: 5 }, 'latest'],
      'invalid params: param 1 (transaction.gas) must be a hex quantity; got 5',
    ],
    ['eth_call', [{ from: ALICE, to: BOB }], 'invalid params: missing required param 2 (block)'],
    ['eth_getProof', [ALICE, '0x0', 'latest'], 'invalid params: param 2 (storageKeys) must be an array; got "0x0"'],
  ])('%s with %j fails with invalid params', async (method, params, message) => {
    expect(await t.fail(method, ...params)).toEqual({ code: -32602, message });
  });

  test.each([
    'eth_getStorageAt',
    'eth_getBlockByNumber',
    'eth_getTransactionByBlockNumberAndIndex',
    'eth_getProof',
    'eth_getBalance',
    'eth_getLogs',
  ])('%s refuses the "safe" tag', async (method) => {
    const params: Record<string, unknown[]> = {
      eth_getStorageAt: [ALICE, '0x0', 'safe'],
      eth_getBlockByNumber: ['safe', false],
      eth_getTransactionByBlockNumberAndIndex: ['safe', '0x0'],
      eth_getProof: [ALICE, [], 'safe'],
      eth_getBalance: [ALICE, 'safe'],
      eth_getLogs: [{ fromBlock: 'safe' }],
    };
    const error = await t.fail(method, ...params[method]);
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/the "safe" tag is not supported by this method; use "finalized"$/);
  });

  test('deeply nested params are invalid params, as shallow ones are', async () => {
    const nested = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown[];
    const error = await t.fail('eth_getBalance', nested, 'latest');
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(
      `invalid params: param 1 (address) must be a 20-byte hex address; got ${'['.repeat(77)}...`,
    );
    // Nested objects too, and a whole body nested that deep.
    const deepObject = JSON.parse(`${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`) as unknown;
    expect((await t.fail('eth_getBalance', ALICE, deepObject)).code).toBe(-32602);
    expect(await t.rpc.handleText(`[${'['.repeat(100_000)}${']'.repeat(100_000)}]`)).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'invalid request: expected a JSON-RPC request object' },
      },
    ]);
  });

  test('unknown methods name the method', async () => {
    expect(await t.fail('eth_doesNotExist')).toEqual({
      code: -32601,
      message: 'the method eth_doesNotExist does not exist/is not available',
    });
  });

  test('an unexpected failure is an internal error without internals', async () => {
    const broken = await createTestRpc(
      {},
      { extraMethods: { test_boom: { params: [], handler: () => Promise.reject(new Error('secret stack')) } } },
    );
    try {
      expect(await broken.fail('test_boom')).toEqual({ code: -32603, message: 'internal error' });
    } finally {
      await broken.close();
    }
  });
});

describe('methods', () => {
  let t: TestRpc;
  let counterAddress: string;
  let incrementHash: string;
  let deployBlock: string;
  beforeAll(async () => {
    t = await createTestRpc({ finalizedDepth: 2n, safeDepth: 1n });
    counterAddress = await deploy(t, counter.bytecode);
    deployBlock = await t.call<string>('eth_blockNumber');
    incrementHash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: counterAddress, data: INCREMENT });
    await t.call('eth_sendTransaction', { from: BOB, to: CAROL, value: '0x5' });
  });
  afterAll(() => t.close());

  test('node information', async () => {
    expect(await t.call('eth_chainId')).toBe('0x7a69');
    expect(await t.call('net_version')).toBe('31337');
    expect(await t.call('web3_clientVersion')).toMatch(/^l2devnet\/v0\.1\.0\//);
    expect(await t.call('eth_blockNumber')).toBe('0x3');
    expect(await t.call('eth_syncing')).toBe(false);
    expect((await t.call<string[]>('eth_accounts'))[0]).toBe(ALICE);
    expect(BigInt(await t.call<string>('eth_gasPrice'))).toBeGreaterThan(0n);
    expect(await t.call('eth_maxPriorityFeePerGas')).toBe('0x3b9aca00');
  });

  test('eth_getBalance, eth_getCode, eth_getTransactionCount at blocks and tags', async () => {
    expect(await t.call('eth_getBalance', CAROL, 'latest')).toBe('0x21e19e0c9bab2400005');
    expect(await t.call('eth_getBalance', CAROL, '0x0')).toBe('0x21e19e0c9bab2400000');
    expect(await t.call('eth_getBalance', CAROL, 'earliest')).toBe('0x21e19e0c9bab2400000');
    expect(await t.call('eth_getBalance', CAROL, { blockNumber: '0x0' })).toBe('0x21e19e0c9bab2400000');
    expect(await t.call('eth_getTransactionCount', ALICE, 'latest')).toBe('0x2');
    expect(await t.call('eth_getTransactionCount', ALICE, 'pending')).toBe('0x2');
    expect(await t.call('eth_getTransactionCount', ALICE, 'finalized')).toBe('0x1');
    expect((await t.call<string>('eth_getCode', counterAddress, 'latest')).length).toBeGreaterThan(4);
    expect(await t.call('eth_getCode', counterAddress, '0x0')).toBe('0x');
    expect(await t.fail('eth_getBalance', CAROL, '0x99')).toEqual({ code: -32000, message: 'header not found' });
  });

  test('eth_getStorageAt returns a 32-byte word at any block', async () => {
    expect(await t.call('eth_getStorageAt', counterAddress, '0x0', 'latest')).toBe(`0x${'0'.repeat(63)}1`);
    expect(await t.call('eth_getStorageAt', counterAddress, '0x0', deployBlock)).toBe(ZERO32);
    expect(await t.call('eth_getStorageAt', counterAddress, '0x0', 'pending')).toBe(`0x${'0'.repeat(63)}1`);
    expect(await t.call('eth_getStorageAt', BOB, '0x5', 'latest')).toBe(ZERO32);
  });

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
    const receipt = await t.call<Receipt & Record<string, unknown>>('eth_getTransactionReceipt', incrementHash);
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
    expect(receipt.logs).toEqual([
      {
        address: counterAddress,
        topics: [INCREMENTED_TOPIC],
        data: `0x${'0'.repeat(63)}1`,
        blockNumber: '0x2',
        blockHash: receipt.blockHash,
        transactionHash: incrementHash,
        transactionIndex: '0x0',
        logIndex: '0x0',
        removed: false,
      },
    ]);
    const creation = await t.call<Record<string, unknown>>('eth_getBlockReceipts', '0x1');
    expect((creation as unknown as Receipt[])[0].contractAddress).toBe(counterAddress);
    expect(await t.call('eth_getTransactionReceipt', ZERO32)).toBeNull();
  });

  test('eth_getBlockReceipts takes hex, decimal, tags (safe too) and pending as latest', async () => {
    const latest = await t.call<Receipt[]>('eth_getBlockReceipts', 'latest');
    expect(latest).toHaveLength(1);
    expect(await t.call('eth_getBlockReceipts', 'pending')).toEqual(latest);
    expect(await t.call('eth_getBlockReceipts', '3')).toEqual(latest);
    expect(await t.call('eth_getBlockReceipts', 3)).toEqual(latest);
    expect(await t.call('eth_getBlockReceipts', '0x3')).toEqual(latest);
    expect((await t.call<Receipt[]>('eth_getBlockReceipts', 'safe'))[0].blockNumber).toBe('0x2');
    expect(await t.call('eth_getBlockReceipts', 'earliest')).toEqual([]);
    expect(await t.call('eth_getBlockReceipts', '0x99')).toBeNull();
  });

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

  test('eth_call runs at any block, caps gas and reports reverts with code 3', async () => {
    expect(await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT }, 'latest')).toBe(
      `0x${'0'.repeat(63)}1`,
    );
    expect(await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT }, 'safe')).toBe(
      `0x${'0'.repeat(63)}1`,
    );
    expect(await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT }, deployBlock)).toBe(ZERO32);
    expect(
      await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT, gas: '0xffffffffffff' }, 'latest'),
    ).toBe(`0x${'0'.repeat(63)}1`);
    expect(await t.call('eth_call', { from: ALICE, to: BOB }, 'latest')).toBe('0x');
    const rev = await deploy(t, reverter.bytecode);
    expect(await t.fail('eth_call', { from: ALICE, to: rev, data: '0x5b2dd100' }, 'latest')).toEqual({
      code: 3,
      message: 'execution reverted: nope',
      data: '0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000046e6f706500000000000000000000000000000000000000000000000000000000',
    });
    expect(await t.fail('eth_call', { from: ALICE, to: rev, data: '0x33fe3fbd' }, 'latest')).toEqual({
      code: 3,
      message: 'execution reverted: panic: 0x11',
      data: `0x4e487b71${'0'.repeat(62)}11`,
    });
    expect(await t.fail('eth_call', { from: ALICE, to: rev, data: '0x0e64d54c' }, 'latest')).toEqual({
      code: 3,
      message: 'execution reverted',
      data: `0xcb362b34${'0'.repeat(62)}2a`,
    });
  });

  test('eth_call accepts state overrides', async () => {
    const override = { [counterAddress]: { stateDiff: { [ZERO32]: `0x${'0'.repeat(62)}2a` } } };
    expect(await t.call('eth_call', { from: ALICE, to: counterAddress, data: COUNT }, 'latest', override)).toBe(
      `0x${'0'.repeat(62)}2a`,
    );
    expect(await t.call('eth_getStorageAt', counterAddress, '0x0', 'latest')).toBe(`0x${'0'.repeat(63)}1`);
  });

  test('eth_estimateGas and eth_createAccessList', async () => {
    const gas = BigInt(await t.call<string>('eth_estimateGas', { from: ALICE, to: counterAddress, data: INCREMENT }));
    expect(gas).toBeGreaterThan(26_000n);
    expect(gas).toBeLessThan(40_000n);
    expect(await t.call('eth_estimateGas', { from: ALICE, to: BOB, value: '0x1' })).toBe('0x5208');
    const list = await t.call<{ accessList: { address: string; storageKeys: string[] }[]; gasUsed: string }>(
      'eth_createAccessList',
      { from: ALICE, to: counterAddress, data: INCREMENT },
    );
    expect(list.accessList).toEqual([{ address: counterAddress, storageKeys: [ZERO32] }]);
  });

  test('eth_getProof echoes each storage key as geth does: 32 bytes when given so, else as a quantity', async () => {
    const full = `0x${'00'.repeat(31)}01`;
    const proof = await t.call<{ storageProof: { key: string }[] }>(
      'eth_getProof',
      ALICE,
      ['0x0', '0x00', '0x0001', '0x1', full, 'ab'],
      'latest',
    );
    expect(proof.storageProof.map((p) => p.key)).toEqual(['0x0', '0x0', '0x1', '0x1', full, '0xab']);
    for (const bad of [`0x${'11'.repeat(33)}`, '0xzz', 7]) {
      const error = await t.fail('eth_getProof', ALICE, [bad], 'latest');
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('param 2 (storageKeys[0])');
    }
  });

  test('eth_getProof verifies against the block stateRoot, for present and absent accounts and slots', async () => {
    for (const block of ['latest', deployBlock]) {
      const header = await t.call<Record<string, string>>('eth_getBlockByNumber', block, false);
      const proof = await t.call<{
        accountProof: string[];
        balance: string;
        nonce: string;
        codeHash: string;
        storageHash: string;
        storageProof: { key: string; value: string; proof: string[] }[];
      }>('eth_getProof', counterAddress, ['0x0', '0x1'], block);
      const account = verifyProof(header.stateRoot, hexToBytes(counterAddress as `0x${string}`), proof.accountProof);
      expect(account).toBeDefined();
      const [nonce, balance, storageRoot, codeHash] = RLP.decode(account as Uint8Array) as Uint8Array[];
      expect(BigInt(proof.nonce)).toBe(BigInt(`0x${Buffer.from(nonce).toString('hex') || '0'}`));
      expect(BigInt(proof.balance)).toBe(BigInt(`0x${Buffer.from(balance).toString('hex') || '0'}`));
      expect(proof.storageHash).toBe(`0x${Buffer.from(storageRoot).toString('hex')}`);
      expect(proof.codeHash).toBe(`0x${Buffer.from(codeHash).toString('hex')}`);
      const [slot0, slot1] = proof.storageProof;
      const value0 = verifyProof(proof.storageHash, hexToBytes(ZERO32 as `0x${string}`), slot0.proof);
      if (block === 'latest') {
        expect(slot0.value).toBe('0x1');
        expect(RLP.decode(value0 as Uint8Array)).toEqual(Uint8Array.of(1));
      } else {
        expect(slot0.value).toBe('0x0');
        expect(value0).toBeUndefined();
      }
      expect(slot1.value).toBe('0x0');
      expect(verifyProof(proof.storageHash, hexToBytes(`0x${'00'.repeat(31)}01`), slot1.proof)).toBeUndefined();
    }
    const absent = '0x000000000000000000000000000000000000dead';
    const header = await t.call<Record<string, string>>('eth_getBlockByNumber', 'latest', false);
    const proof = await t.call<{
      accountProof: string[];
      balance: string;
      storageProof: { value: string; proof: string[] }[];
    }>('eth_getProof', absent, ['0x0'], 'latest');
    expect(verifyProof(header.stateRoot, hexToBytes(absent), proof.accountProof)).toBeUndefined();
    expect(proof.balance).toBe('0x0');
    expect(proof.storageProof[0]).toMatchObject({ value: '0x0', proof: [] });
  });

  test('eth_feeHistory reports base fees and rewards', async () => {
    const history = await t.call<{
      oldestBlock: string;
      baseFeePerGas: string[];
      gasUsedRatio: number[];
      reward: string[][];
    }>('eth_feeHistory', '0x2', '0x3', [50]);
    expect(history.oldestBlock).toBe('0x2');
    expect(history.baseFeePerGas).toHaveLength(3);
    expect(history.gasUsedRatio).toHaveLength(2);
    expect(history.reward).toEqual([['0x3b9aca00'], ['0x3b9aca00']]);
  });

  test('pool rejections surface as geth phrases with code -32000', async () => {
    const err = await t.fail('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1', nonce: '0x0' });
    expect(err).toEqual({ code: -32000, message: `nonce too low: address ${ALICE}, tx: 0 state: 3` });
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
    expect(
      await t.fail('eth_sendTransaction', { from: '0x000000000000000000000000000000000000dead', to: BOB }),
    ).toEqual({
      code: -32000,
      message: 'unknown account 0x000000000000000000000000000000000000dead',
    });
  });
});

describe('eth_getLogs limits', () => {
  test('more than the result limit fails with -32005', async () => {
    const t = await createTestRpc({ maxLogResults: 2 });
    try {
      const address = await deploy(t, counter.bytecode);
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
      const address = await deploy(t, counter.bytecode);
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
