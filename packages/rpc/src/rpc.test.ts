/** The JSON-RPC envelope (rpc.ts): ids, notifications, batches, malformed requests, unknown methods, internal errors. */
import { ALICE, BOB, createTestRpc } from '../test/helpers';
import type { TestRpc } from '../test/helpers';

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
    [
      'eth_call',
      [{ to: BOB }, 'latest'],
      'invalid params: param 1 (transaction.from) is required on /v3/<KEY> (the service spec); / and /ws accept a call without it, and so does /v3 with --call-from-optional',
    ],
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
