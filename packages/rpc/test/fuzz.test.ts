/**
 * Property-based fuzzing of the JSON-RPC surface (fast-check), through the dispatch the server
 * uses (`rpc.handle`):
 *  - every method of the table, with random params and params close to valid ones: a well-formed
 *    JSON-RPC 2.0 answer every time, never an internal error;
 *  - random envelopes (ids of every JSON type, notifications, empty, nested and mixed batches):
 *    one well-formed answer per request that has an id;
 *  - a refused call changes nothing: head block, head state root, pool, clock, limits, deny list.
 * Seeded, so a failure repeats; fast-check prints the smallest failing input it finds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { bytesToHex } from '@ethereumjs/util';
import fc from 'fast-check';

import { ALICE, BOB, createTestRpc } from './helpers';
import type { TestRpc } from './helpers';
import type { JsonRpcResponse } from '../src';

const SEED = 20_261_123;
const COUNTER_BYTECODE = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'Counter.json'), 'utf8')) as {
    bytecode: string;
  }
).bytecode;

let t: TestRpc;
let counter: string;
beforeAll(async () => {
  t = await createTestRpc({});
  const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, data: COUNTER_BYTECODE });
  counter = (await t.call<{ contractAddress: string }>('eth_getTransactionReceipt', hash)).contractAddress;
});
afterAll(() => t.close());

/** What a refused call must leave as it was. */
async function observe(): Promise<string> {
  const { chain } = t;
  const head = chain.headNumber;
  return JSON.stringify({
    head: head.toString(),
    hash: bytesToHex((await chain.reads.headBlock()).hash()),
    root: bytesToHex(await chain.reads.stateRootAt(head)),
    pool: Object.values(await chain.reads.poolContent())
      .flat()
      .map((p) => bytesToHex(p.hash))
      .sort(),
    clock: chain.clock.offset,
    mining: chain.miner.mode,
    gasLimit: chain.gasLimit.toString(),
    limits: chain.lines.limits?.limits,
    deny: chain.lines.denyList(),
  });
}

/** A well-formed JSON-RPC 2.0 answer to a request with id `id`. */
function expectAnswer(answer: JsonRpcResponse | undefined, id: unknown): void {
  expect(answer).toBeDefined();
  const a = answer as unknown as Record<string, unknown>;
  expect(a.jsonrpc).toBe('2.0');
  expect(a.id).toEqual(id);
  expect('result' in a !== 'error' in a).toBe(true);
  if ('error' in a) {
    const error = a.error as { code: unknown; message: unknown };
    expect(Number.isInteger(error.code)).toBe(true);
    expect(typeof error.message === 'string' && error.message.length > 0).toBe(true);
    // An internal error is a bug: every bad input has its own answer.
    expect(error).not.toMatchObject({ code: -32603 });
  }
  // What a transport sends must serialise.
  expect(() => JSON.stringify(answer)).not.toThrow();
}

/** An array nested `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = '0x1';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const U256 = 1n << 256n;
const hexString = fc.oneof(
  fc.constantFrom('0x', '0x0', '0x00', '0x1', '0xzz', '0X10', '0x0000', 'latest', 'pending', 'earliest', 'safe'),
  fc.constantFrom(
    `0x${U256.toString(16)}`,
    `0x${(U256 - 1n).toString(16)}`,
    `0x${(1n << 64n).toString(16)}`,
    `0x${((1n << 64n) - 1n).toString(16)}`,
    `0x${'0'.repeat(70)}1`,
  ),
  fc.constantFrom(ALICE, BOB, `0x${'00'.repeat(20)}`, `0x${'ab'.repeat(32)}`, '0xd09de08a', '0x06661abd'),
  fc.uint8Array({ maxLength: 40 }).map((b) => bytesToHex(b)),
  fc.uint8Array({ minLength: 1, maxLength: 20 }).map((b) => bytesToHex(b).slice(0, -1)), // odd length
);
const KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'from',
  'to',
  'data',
  'input',
  'value',
  'gas',
  'gasPrice',
  'nonce',
  'fromBlock',
  'toBlock',
  'address',
  'topics',
  'blockHash',
  'blocks',
  'timestamp',
  'module',
  'stage',
  'balance',
  'code',
  'state',
];
const { value: paramValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hexString,
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(
      null,
      true,
      -1,
      1.5,
      2 ** 53,
      Number.MAX_VALUE,
      '',
      'ADD',
      'SEQUENCER',
      'RPC',
      'newHeads',
      'logs',
      'exclusions',
    ),
    fc.constant(nested(2_000)),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
    // Objects whose own keys are __proto__ or constructor, as JSON.parse makes them.
    fc
      .constantFrom('__proto__', 'constructor')
      .chain((k) => tie('value').map((v) => JSON.parse(`{"${k}":${JSON.stringify(v) ?? 'null'}}`))),
  ),
}));
const methodNames = () => Object.keys(t.rpc.methods).sort();

let nextId = 0;

test('every method, given random params, answers well-formed and never changes state when it refuses', async () => {
  // Built once the table exists, so a new method is fuzzed without a change here.
  const request = fc.record({
    method: fc.constantFrom(...methodNames()),
    params: fc.oneof(fc.array(paramValue, { maxLength: 4 }), fc.constant(undefined), paramValue),
    useCounter: fc.boolean(),
  });
  await fc.assert(
    fc.asyncProperty(request, async ({ method, params, useCounter }) => {
      // Some requests aim at the contract, so calls reach code as well as empty accounts.
      const args =
        useCounter && Array.isArray(params)
          ? [{ to: counter, from: ALICE, data: '0xd09de08a' }, ...params.slice(1)]
          : params;
      const before = await observe();
      const id = ++nextId;
      const answer = (await t.rpc.handle({ jsonrpc: '2.0', id, method, params: args })) as JsonRpcResponse;
      expectAnswer(answer, id);
      if ('error' in answer) expect(await observe()).toBe(before);
      // A random valid value may switch on interval mining: blocks mined meanwhile would be
      // mistaken for a refused call's doing.
      if (t.chain.miner.mode.mode === 'interval') t.chain.miner.setMining({ mode: 'auto' });
    }),
    { seed: SEED, numRuns: 4_000 },
  );
}, 120_000);

const idValue = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.constant({ a: 1 }),
  fc.constant([1]),
  fc.constant(2 ** 64),
);
const element = fc.oneof(
  fc.record(
    {
      jsonrpc: fc.constantFrom('2.0', '2.0', '1.0', 2, undefined),
      id: idValue,
      method: fc.oneof(fc.constantFrom('eth_blockNumber', 'eth_chainId', 'eth_nope', 'eth_getBalance'), fc.integer()),
      params: fc.oneof(fc.constant([ALICE, 'latest']), fc.constant([]), paramValue),
    },
    { requiredKeys: [] },
  ),
  paramValue,
);

test('random envelopes get one well-formed answer per request with an id', async () => {
  const body = fc.oneof(
    element,
    fc.array(element, { maxLength: 6 }),
    fc.array(fc.array(element, { maxLength: 2 }), { maxLength: 3 }),
  );
  await fc.assert(
    fc.asyncProperty(body, async (b) => {
      const before = await observe();
      const answer = await t.rpc.handleText(JSON.stringify(b) ?? 'undefined');
      const items = Array.isArray(b) ? b : [b];
      if (Array.isArray(b) && b.length === 0) {
        expect(answer).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'invalid request: empty batch' },
        });
        return;
      }
      const answers = answer === undefined ? [] : Array.isArray(answer) ? answer : [answer];
      // A request object without an id that is otherwise valid is a notification: no answer.
      const isNotification = (x: unknown) =>
        typeof x === 'object' &&
        x !== null &&
        !Array.isArray(x) &&
        !('id' in x) &&
        (x as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
        typeof (x as { method?: unknown }).method === 'string';
      expect(answers).toHaveLength(items.filter((x) => !isNotification(x)).length);
      for (const a of answers) {
        const id = (a as { id: unknown }).id;
        expect(id === null || typeof id === 'string' || typeof id === 'number').toBe(true);
        expectAnswer(a, id);
      }
      // Read-only methods and refusals only: nothing moves.
      expect(await observe()).toBe(before);
    }),
    { seed: SEED, numRuns: 1_500 },
  );
}, 60_000);

test('bodies that are not JSON, or nest far too deep, are answered -32700 or -32600', async () => {
  for (const text of ['', '{', '[', 'nul', '{"jsonrpc":"2.0","id":1,"method":"eth_chainId",}', '\u0000', '[[[[[[[[']) {
    expect(await t.rpc.handleText(text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error: the body is not valid JSON' },
    });
  }
  const deep = await t.rpc.handleText(`${'['.repeat(500_000)}${']'.repeat(500_000)}`);
  expect(Array.isArray(deep) ? deep[0].error.code : (deep as { error: { code: number } }).error.code).toBeLessThan(
    -32599,
  );
});
