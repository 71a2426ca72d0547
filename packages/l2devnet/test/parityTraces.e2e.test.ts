/**
 * Parity's trace API over the real server, as Anvil serves it: trace_transaction, trace_block,
 * trace_call and trace_filter on a flow with nested calls, a caught revert, a delegatecall, a create
 * and a reverting transaction (fixtures/contracts/TraceFlow.sol); each entry checked against the
 * flat call tracer's and for Parity's fields; bad filters refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { encodeFunctionData } from 'viem';
import type { Abi } from 'viem';

import { createDevnet } from '../src';
import type { Devnet } from '../src';

const flow = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'TraceFlow.json'), 'utf8'),
) as { abi: Abi; bytecode: `0x${string}` };

let devnet: Devnet;
let alice: string;
let contract: string;
let deployHash: string;
let runHash: string;
let boomHash: string;
const call = (method: string, params: unknown[] = []): Promise<any> => devnet.provider.request({ method, params });

beforeAll(async () => {
  devnet = await createDevnet({ log: () => {} });
  alice = devnet.accounts[0].address.toLowerCase();
  deployHash = await call('eth_sendTransaction', [{ from: alice, data: flow.bytecode }]);
  contract = (await call('eth_getTransactionReceipt', [deployHash])).contractAddress;
  await call('evm_setAutomine', [false]);
  runHash = await call('eth_sendTransaction', [
    {
      from: alice,
      to: contract,
      data: encodeFunctionData({ abi: flow.abi, functionName: 'run', args: [5n] }),
      gas: '0x100000',
    },
  ]);
  boomHash = await call('eth_sendTransaction', [
    { from: alice, to: contract, data: encodeFunctionData({ abi: flow.abi, functionName: 'boom' }), gas: '0x100000' },
  ]);
  await call('evm_mine');
  await call('evm_setAutomine', [true]);
});
afterAll(() => devnet.close());

test("trace_transaction: the flat traces of a mined transaction, in Parity's words", async () => {
  const traces = await call('trace_transaction', [runHash]);
  expect(traces).toEqual(
    await call('debug_traceTransaction', [
      runHash,
      { tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } },
    ]),
  );
  expect(
    traces.map((t: any) => [t.type, t.action.callType ?? t.action.creationMethod, t.traceAddress, t.subtraces]),
  ).toEqual([
    ['call', 'call', [], 5],
    ['call', 'call', [0], 0],
    ['call', 'staticcall', [1], 0], // child.fail() is pure: a STATICCALL
    ['call', 'delegatecall', [2], 0],
    ['create', 'create', [3], 0],
    ['call', 'call', [4], 0],
  ]);
  expect(traces[2]).toMatchObject({ error: 'Reverted', result: { gasUsed: expect.any(String) } });
  expect(traces[0]).toMatchObject({
    action: { from: alice, to: contract, value: '0x0' },
    blockNumber: 2,
    transactionHash: runHash,
    transactionPosition: 0,
  });
  expect(traces[4].result.address).toMatch(/^0x[0-9a-f]{40}$/);
  // The reverting transaction: the top frame reverted, its inner call succeeded.
  const boom = await call('trace_transaction', [boomHash]);
  expect(boom[0]).toMatchObject({ error: 'Reverted', transactionPosition: 1, subtraces: 1 });
  expect(boom[1].error).toBeUndefined();
  expect(await call('trace_transaction', [`0x${'ab'.repeat(32)}`])).toEqual([]);
});

test('trace_block: every transaction of the block, in order; [] for genesis and unknown blocks', async () => {
  const block = await call('trace_block', ['0x2']);
  expect(block).toEqual([
    ...(await call('trace_transaction', [runHash])),
    ...(await call('trace_transaction', [boomHash])),
  ]);
  expect(await call('trace_block', ['latest'])).toEqual(block);
  expect(await call('trace_block', ['0x0'])).toEqual([]);
  expect(await call('trace_block', ['0x99'])).toEqual([]);
});

test('trace_call: a call traced without a block, as { output, stateDiff, trace, vmTrace }', async () => {
  const data = encodeFunctionData({ abi: flow.abi, functionName: 'run', args: [5n] });
  const result = await call('trace_call', [{ from: alice, to: contract, data, gas: '0x100000' }, ['trace'], 'latest']);
  expect(result).toMatchObject({ stateDiff: null, vmTrace: null, output: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  expect(result.trace).toHaveLength(6);
  expect(result.trace[0]).not.toHaveProperty('blockHash');
  expect(result.trace[0]).not.toHaveProperty('transactionPosition');
  expect(result.trace[0].result.output).toBe(result.output);
  await expect(call('trace_call', [{ from: alice, to: contract, data }, ['vmTrace'], 'latest'])).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('"vmTrace" is not served; only "trace" is'),
  });
});

test('trace_filter: by sender and recipient, after and count, as alloy matches them; at most 300 blocks', async () => {
  const all = await call('trace_filter', [{ fromBlock: '0x0', toBlock: 'latest' }]);
  expect(all.length).toBe(2 + 6 + 2); // the deployment and its inner create, run, boom
  const fromAlice = await call('trace_filter', [{ fromBlock: '0x1', fromAddress: [alice] }]);
  expect(fromAlice.map((t: any) => t.transactionHash)).toEqual([deployHash, runHash, boomHash]);
  const toContract = await call('trace_filter', [{ toAddress: [contract] }]);
  expect(toContract.every((t: any) => t.action.to === contract || t.result?.address === contract)).toBe(true);
  expect(toContract.length).toBeGreaterThan(2);
  const paged = await call('trace_filter', [{ fromAddress: [alice], after: 1, count: 1 }]);
  expect(paged).toEqual([fromAlice[1]]);
  await expect(call('trace_filter', [{ fromBlock: '0x2', toBlock: '0x1' }])).rejects.toMatchObject({
    message: expect.stringContaining('invalid block range, ensure that to block is greater than from block'),
  });
  for (let i = 0; i < 302; i++) await call('evm_mine');
  await expect(call('trace_filter', [{ fromBlock: '0x0', toBlock: 'latest' }])).rejects.toMatchObject({
    message: expect.stringContaining('block range too large, currently limited to 300'),
  });
  await expect(call('trace_filter', [{ fromAddress: ['0x12'] }])).rejects.toMatchObject({ code: -32602 });
  await expect(call('trace_filter', [{ fromBlock: '0x1', colour: 'red' }])).rejects.toMatchObject({ code: -32602 });
});
