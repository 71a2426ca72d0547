/**
 * eth_simulateV1 as clients use it: viem's simulateCalls and simulateBlocks over HTTP against the
 * real node and in process; each error code of the execution-apis specification from raw requests;
 * traceTransfers, returnFullTransactions, overrides, and the line counts each call carries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createPublicClient, custom, http, parseAbi, parseEther } from 'viem';
import { foundry } from 'viem/chains';

import { createProvider, createRpc } from '@l2devnet/rpc';
import { Chain } from '@l2devnet/core';

import { rpcCall, runCommand } from './command';
import type { RunningCommand } from './command';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const POOR = '0x000000000000000000000000000000000000dead';
const counterAbi = parseAbi([
  'function increment()',
  'function count() view returns (uint256)',
  'event Incremented(uint256 newCount)',
]);
const counter = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'Counter.json'), 'utf8'),
) as { bytecode: `0x${string}` };

describe('eth_simulateV1', () => {
  let node: RunningCommand;
  let counterAddress: `0x${string}`;
  const call = (params: unknown[]) => rpcCall(node.url, 'eth_simulateV1', params);

  beforeAll(async () => {
    node = await runCommand(['--in-memory', '--port', '0']);
    const sent = await rpcCall(node.url, 'eth_sendTransaction', [{ from: ALICE, data: counter.bytecode }]);
    counterAddress = (await rpcCall(node.url, 'eth_getTransactionReceipt', [sent.result])).result.contractAddress;
  });
  afterAll(async () => {
    node.child.kill('SIGTERM');
    await node.exited;
  });

  test("viem's simulateCalls runs unchanged over HTTP: results, logs, and state carried from call to call", async () => {
    const client = createPublicClient({ chain: foundry, transport: http(node.url) });
    const { results } = await client.simulateCalls({
      account: ALICE,
      calls: [
        { to: BOB, value: parseEther('1') },
        { to: counterAddress, abi: counterAbi, functionName: 'increment' },
        { to: counterAddress, abi: counterAbi, functionName: 'count' },
      ],
    });
    expect(results.map((r) => r.status)).toEqual(['success', 'success', 'success']);
    expect(results[2].result).toBe(1n);
    expect(results[1].logs?.[0]).toMatchObject({ address: counterAddress, data: `0x${'1'.padStart(64, '0')}` });
    expect(results[0].gasUsed).toBe(21_000n);
    // Nothing reached the chain.
    expect(await client.readContract({ address: counterAddress, abi: counterAbi, functionName: 'count' })).toBe(0n);
  });

  test("viem's simulateBlocks in process: two blocks, overrides, the second reading what the first left", async () => {
    const chain = await Chain.create({});
    try {
      const client = createPublicClient({ chain: foundry, transport: custom(createProvider(createRpc(chain))) });
      const blocks = await client.simulateBlocks({
        blocks: [
          {
            blockOverrides: { time: 2_000_000_000n },
            stateOverrides: [{ address: BOB, balance: 5n }],
            calls: [{ account: ALICE, to: BOB, value: 7n }],
          },
          // Bob spends what the first block gave him on top of the overridden 5 wei.
          { calls: [{ account: BOB, to: POOR, value: 12n }] },
        ],
      });
      expect(blocks.map((b) => b.number)).toEqual([1n, 2n]);
      expect(blocks.map((b) => b.timestamp)).toEqual([2_000_000_000n, 2_000_000_012n]);
      expect(blocks[1].parentHash).toBe(blocks[0].hash);
      expect(blocks.map((b) => b.calls[0].status)).toEqual(['success', 'success']);
      expect(blocks[0].calls[0].gasUsed).toBe(21_000n);
      // Skipped numbers are filled with empty blocks, as geth fills them.
      const raw = await createProvider(createRpc(chain)).request({
        method: 'eth_simulateV1',
        params: [{ blockStateCalls: [{ blockOverrides: { number: '0x5' } }] }, 'latest'],
      });
      expect((raw as { number: string; transactions: unknown[] }[]).map((b) => b.number)).toEqual([
        '0x1',
        '0x2',
        '0x3',
        '0x4',
        '0x5',
      ]);
    } finally {
      await chain.close();
    }
  });

  test('a revert is a failed call with code 3 and its data; a halt is -32015; traceTransfers logs ETH moves', async () => {
    const reverter = '0x00000000000000000000000000000000000000a1';
    const answer = await call([
      {
        traceTransfers: true,
        returnFullTransactions: true,
        blockStateCalls: [
          {
            stateOverrides: {
              // REVERT(0, 4) after storing 0xdeadbeef; INVALID
              [reverter]: { code: '0x63deadbeef60e01b5f5260045ffd' },
              '0x00000000000000000000000000000000000000a2': { code: '0xfe' },
            },
            calls: [
              { from: ALICE, to: reverter },
              { from: ALICE, to: '0x00000000000000000000000000000000000000a2', gas: '0x10000' },
              { from: ALICE, to: BOB, value: '0x3' },
            ],
          },
        ],
      },
      'latest',
    ]);
    const [block] = answer.result as { calls: Record<string, unknown>[]; transactions: { from: string }[] }[];
    // As geth: a failed call returns nothing; what it reverted with is the error's data.
    expect(block.calls[0]).toMatchObject({
      status: '0x0',
      returnData: '0x',
      error: { code: 3, message: 'execution reverted', data: '0xdeadbeef' },
    });
    expect(block.calls[1]).toMatchObject({ status: '0x0', error: { code: -32015, message: 'invalid opcode' } });
    expect(block.calls[1].gasUsed).toBe('0x10000');
    const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
    expect(block.calls[2].logs).toEqual([
      expect.objectContaining({
        address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
        topics: [transferTopic, `0x${ALICE.slice(2).padStart(64, '0')}`, `0x${BOB.slice(2).padStart(64, '0')}`],
        data: `0x${'3'.padStart(64, '0')}`,
        logIndex: '0x0',
        transactionIndex: '0x2',
      }),
    ]);
    expect(block.transactions.map((t) => t.from)).toEqual([ALICE, ALICE, ALICE]);
    expect(block.calls[2].lineCounts).toMatchObject({ BLOCK_TRANSACTIONS: 1 });
  });

  test('a call that would overflow a line limit says so (wouldBeExcluded)', async () => {
    expect((await rpcCall(node.url, 'l2_setLineLimits', [{ RLP_TXN: 10 }])).error).toBeUndefined();
    try {
      const answer = await call([{ blockStateCalls: [{ calls: [{ from: ALICE, to: BOB }] }] }]);
      const [block] = answer.result as { calls: { wouldBeExcluded?: unknown }[] }[];
      expect(block.calls[0].wouldBeExcluded).toEqual({
        stage: 'RPC',
        module: 'RLP_TXN',
        count: expect.any(Number),
        limit: 10,
      });
    } finally {
      await rpcCall(node.url, 'l2_resetLineLimits');
    }
  });

  test('a LOG too large to pay for, under traceTransfers, fails the call (out of gas) and leaks nothing', async () => {
    const logger = '0x00000000000000000000000000000000000000a3';
    const answer = await call([
      {
        traceTransfers: true,
        blockStateCalls: [
          {
            // PUSH8 2^64-1, PUSH1 0, LOG0
            stateOverrides: { [logger]: { code: '0x67ffffffffffffffff5fa0', balance: '0x77' } },
            calls: [{ from: ALICE, to: logger, gas: '0x10000' }],
          },
        ],
      },
      'latest',
    ]);
    const [block] = answer.result as { calls: Record<string, unknown>[] }[];
    expect(block.calls[0]).toMatchObject({ status: '0x0', error: { code: -32015, message: 'out of gas' } });
    // The overrides of that request are gone.
    expect((await rpcCall(node.url, 'eth_getBalance', [logger, 'latest'])).result).toBe('0x0');
  });

  const transfer = (extra: Record<string, unknown> = {}) => ({ from: ALICE, to: BOB, value: '0x1', ...extra });
  test.each([
    [
      'block numbers out of order',
      -38020,
      { blockStateCalls: [{ blockOverrides: { number: '0x78' } }, { blockOverrides: { number: '0x6e' } }] },
    ],
    [
      'timestamps out of order',
      -38021,
      { blockStateCalls: [{ blockOverrides: { time: '0x77359400' } }, { blockOverrides: { time: '0x77359300' } }] },
    ],
    ['too many blocks', -38026, { blockStateCalls: Array.from({ length: 257 }, () => ({})) }],
    [
      'too many blocks through a gap (they are filled, so they count)',
      -38026,
      { blockStateCalls: [{ blockOverrides: { number: '0xffffffffff' } }] },
    ],
    ['nonce too low', -38010, { validation: true, blockStateCalls: [{ calls: [transfer({ nonce: '0x0' })] }] }],
    ['nonce too high', -38011, { validation: true, blockStateCalls: [{ calls: [transfer({ nonce: '0x99' })] }] }],
    [
      'fee below the base fee',
      -38012,
      { validation: true, blockStateCalls: [{ calls: [transfer({ maxFeePerGas: '0x1' })] }] },
    ],
    ['gas below intrinsic gas', -38013, { blockStateCalls: [{ calls: [transfer({ gas: '0x5207' })] }] }],
    [
      'insufficient funds',
      -38014,
      {
        validation: true,
        blockStateCalls: [{ calls: [{ from: POOR, to: BOB, value: '0x1', maxFeePerGas: '0x3b9aca000' }] }],
      },
    ],
    ['gas past the block gas limit', -38015, { blockStateCalls: [{ calls: [transfer({ gas: '0x1c9c3810' })] }] }],
    ['no blockStateCalls', -32602, {}],
    ['an unknown block override', -32602, { blockStateCalls: [{ blockOverrides: { hour: '0x1' } }] }],
    [
      'movePrecompileToAddress of an account that is no precompile',
      -32000,
      {
        blockStateCalls: [
          {
            stateOverrides: {
              '0x0000000000000000000000000000000000000abc': {
                movePrecompileToAddress: '0x0000000000000000000000000000000000123456',
              },
            },
          },
        ],
      },
    ],
    [
      'movePrecompileToAddress onto an account overridden in the same set',
      -32000,
      {
        blockStateCalls: [
          {
            stateOverrides: {
              '0x0000000000000000000000000000000000000004': {
                movePrecompileToAddress: '0x0000000000000000000000000000000000123456',
              },
              '0x0000000000000000000000000000000000123456': { balance: '0x1' },
            },
          },
        ],
      },
    ],
  ])('%s: error %d', async (_name, code, payload) => {
    const answer = await call([payload, 'latest']);
    expect(answer.error?.code).toBe(code);
    expect(typeof answer.error?.message).toBe('string');
    expect((await rpcCall(node.url, 'eth_blockNumber')).result).toMatch(/^0x/);
  });
});
