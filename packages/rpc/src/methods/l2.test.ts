import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { LineLimits, NodeClock } from '@l2devnet/core';
import type { ChainOptions } from '@l2devnet/core';
import { Interface } from 'ethers';

import { createProvider } from '../provider';
import { ALICE, BOB, createTestRpc } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'fixtures');
const heavy = JSON.parse(readFileSync(join(FIXTURES, 'contracts', 'LineHeavy.json'), 'utf8')) as {
  abi: any[];
  bytecode: string;
};
const heavyAbi = new Interface(heavy.abi);
const PRODUCTION = LineLimits.fromFile(join(FIXTURES, 'limits', 'linea-london.toml'), 'london');
const TINY = LineLimits.fromFile(join(FIXTURES, 'limits', 'tiny.toml'), 'london');
const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A fixture call that overflows one module with the London production limits (London tracer): the
 * first module over its limit, in the profile's order, with its count by the tracer's formulas.
 */
const OVERFLOWS: [string, string, unknown[], string, number, number][] = [
  ['MODEXP called 5 times', 'modexp', [5], 'PRECOMPILE_MODEXP_EFFECTIVE_CALLS', 5, 4],
  ['ECMUL called 33 times', 'ecmul', [33], 'PRECOMPILE_ECMUL_EFFECTIVE_CALLS', 33, 32],
  // ceil(1,100,000 / 16) + 2 rows of hashed data, + 1 spillage
  ['keccak over a 1.1 MB buffer', 'keccakBig', [1_100_000], 'SHAKIRA_DATA', 68_753, 32_768],
  // the loop's additions reach ADD's limit before its multiplications reach MUL's
  ['a 70,000-step multiplication loop', 'mulLoop', [70_000], 'ADD', 1_264_015, 524_288],
  // 5,000 logs of 2 topics: 4 rows each, + 5 spillage
  ['5,000 LOGs', 'logs', [5_000], 'LOG_INFO', 20_005, 4_096],
];

async function setup(opts: ChainOptions): Promise<{ t: TestRpc; contract: string }> {
  const t = await createTestRpc({ lineLimits: PRODUCTION, ...opts });
  const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, data: heavy.bytecode, gas: '0x4c4b40' });
  const contract = (await t.call<{ contractAddress: string }>('eth_getTransactionReceipt', hash)).contractAddress;
  return { t, contract };
}

function tx(contract: string, fn: string, args: unknown[], extra: Record<string, string> = {}) {
  return { from: ALICE, to: contract, data: heavyAbi.encodeFunctionData(fn, args), gas: '0xf42400', ...extra };
}

/** The hash a transaction will have: signed by the dev account without sending it. */
async function hashOf(t: TestRpc, request: Record<string, string>): Promise<string> {
  const nonce = await t.call<string>('eth_getTransactionCount', ALICE, 'pending');
  const { createFeeMarket1559Tx } = await import('@ethereumjs/tx');
  const baseFee = await t.chain.reads.nextBaseFee();
  const signed = createFeeMarket1559Tx(
    {
      nonce: BigInt(nonce),
      to: request.to as `0x${string}`,
      data: request.data as `0x${string}`,
      gasLimit: BigInt(request.gas),
      maxFeePerGas: 2n * baseFee + 1_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    },
    { common: t.chain.common },
  ).sign(t.chain.accounts[0].privateKey);
  return `0x${Buffer.from(signed.serialize()).toString('hex')}`;
}

describe('stage RPC: refusal at submission', () => {
  let t: TestRpc;
  let contract: string;
  beforeAll(async () => {
    ({ t, contract } = await setup({}));
  });
  afterAll(() => t.close());

  test.each(OVERFLOWS)(
    'refuses %s with the exact message and records it',
    async (_name, fn, args, module, count, limit) => {
      const raw = await hashOf(t, tx(contract, fn, args));
      const head = t.chain.headNumber;
      const nonce = await t.call('eth_getTransactionCount', ALICE, 'latest');
      const error = await t.fail('eth_sendRawTransaction', raw);
      const hash = /^Transaction (0x[0-9a-f]{64}) /.exec(error.message)?.[1] as string;
      expect(error).toEqual({
        code: -32000,
        message: `Transaction ${hash} line count for module ${module}=${count} is above the limit ${limit}`,
      });
      expect(t.chain.headNumber).toBe(head);
      expect(t.chain.reads.poolSize).toBe(0);
      expect(await t.call('eth_getTransactionCount', ALICE, 'latest')).toBe(nonce);
      expect(await t.call('eth_getTransactionByHash', hash)).toBeNull();
      expect(await t.call('eth_getTransactionReceipt', hash)).toBeNull();
      const record = await t.call<Record<string, string>>('l2_getTransactionExclusionStatusV1', hash);
      expect(record).toEqual({
        txHash: hash,
        from: ALICE,
        nonce,
        txRejectionStage: 'RPC',
        reasonMessage: error.message,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(await t.call('linea_getTransactionExclusionStatusV1', hash)).toEqual(record);
    },
  );

  test('without automine the check simulates on the pending state before the pool', async () => {
    t.chain.miner.setMining({ mode: 'manual' });
    try {
      await t.call('eth_sendTransaction', { from: BOB, to: ALICE, value: '0x1' });
      const error = await t.fail('eth_sendTransaction', tx(contract, 'logs', [5_000]));
      expect(error.message).toMatch(
        /^Transaction 0x[0-9a-f]{64} line count for module LOG_INFO=20005 is above the limit 4096$/,
      );
      expect(t.chain.reads.poolSize).toBe(1);
      const record = await t.call<Record<string, string>>(
        'l2_getTransactionExclusionStatusV1',
        /(0x[0-9a-f]{64})/.exec(error.message)?.[1],
      );
      expect(record.txRejectionStage).toBe('RPC');
      expect((await t.chain.mine()).transactions).toHaveLength(1);
    } finally {
      t.chain.miner.setMining({ mode: 'auto' });
    }
  });

  test('eth_sendTransaction is checked the same way', async () => {
    const error = await t.fail('eth_sendTransaction', tx(contract, 'modexp', [5]));
    expect(error.message).toMatch(
      /^Transaction 0x[0-9a-f]{64} line count for module PRECOMPILE_MODEXP_EFFECTIVE_CALLS=5 is above the limit 4$/,
    );
  });

  test('an included transaction has no exclusion record', async () => {
    const hash = await t.call<string>('eth_sendTransaction', tx(contract, 'modexp', [4]));
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', hash)).status).toBe('0x1');
    expect(await t.call('l2_getTransactionExclusionStatusV1', hash)).toBeNull();
    expect(await t.call('l2_getTransactionExclusionStatusV1', `0x${'ab'.repeat(32)}`)).toBeNull();
  });

  test('l2_estimateGas refuses a call that would overflow, and answers one that fits', async () => {
    expect(await t.fail('l2_estimateGas', tx(contract, 'ecmul', [33]))).toEqual({
      code: -32000,
      message: 'Transaction line count for module PRECOMPILE_ECMUL_EFFECTIVE_CALLS=33 is above the limit 32',
    });
    const fits = await t.call<Record<string, string>>('linea_estimateGas', { from: ALICE, to: BOB, value: '0x1' });
    expect(fits.gasLimit).toBe('0x5208');
    expect(Object.keys(fits).sort()).toEqual(['baseFeePerGas', 'gasLimit', 'priorityFeePerGas']);
  });

  test('l2_getExcludedTransaction: an excluded transaction as it was submitted', async () => {
    const call = tx(contract, 'ecmul', [33]);
    const error = await t.fail('eth_sendTransaction', call);
    const hash = /^Transaction (0x[0-9a-f]{64}) /.exec(error.message)?.[1] as string;
    expect(await t.call('l2_getExcludedTransaction', hash)).toMatchObject({
      hash,
      from: ALICE,
      to: contract,
      input: call.data,
      gas: call.gas,
      blockHash: null,
    });
    expect(await t.call('l2_getExcludedTransaction', `0x${'ab'.repeat(32)}`)).toBeNull();
  });

  test('eth_estimateGas does not judge lines: a send without gas is refused at submission, with its hash, and recorded', async () => {
    const { gas: _, ...call } = tx(contract, 'ecmul', [33]);
    expect(await t.call<string>('eth_estimateGas', call)).toMatch(/^0x[0-9a-f]+$/);
    const error = await t.fail('eth_sendTransaction', call);
    const hash = /^Transaction (0x[0-9a-f]{64}) /.exec(error.message)?.[1] as string;
    expect(error.message).toBe(
      `Transaction ${hash} line count for module PRECOMPILE_ECMUL_EFFECTIVE_CALLS=33 is above the limit 32`,
    );
    expect(await t.call<Record<string, string>>('l2_getTransactionExclusionStatusV1', hash)).toMatchObject({
      txHash: hash,
      txRejectionStage: 'RPC',
    });
  });

  test("an estimate's line counts are the counts of the transaction sent after it", async () => {
    const only = (report: { modules: Record<string, { count: number }> }) =>
      Object.fromEntries(Object.entries(report.modules).map(([m, v]) => [m, v.count]));
    for (const call of [
      { from: ALICE, to: BOB, value: '0x1' },
      { from: ALICE, to: contract, data: heavyAbi.encodeFunctionData('modexp', [2]) },
      { from: ALICE, to: BOB, value: '0x1', gasPrice: '0x77359400' },
    ]) {
      const estimated = await t.call<{ modules: Record<string, { count: number }> }>('l2_traceCallLineCounts', call);
      const hash = await t.call<string>('eth_sendTransaction', call);
      const sent = await t.call<{ modules: Record<string, { count: number }> }>('l2_traceLineCounts', hash);
      expect({ call, ...only(estimated) }).toEqual({ call, ...only(sent) });
      expect(only(estimated).RLP_TXN).toBeGreaterThan(100);
    }
  });
});

describe('a heavy call is judged by its lines before its time runs out', () => {
  let t: TestRpc;
  let contract: string;
  beforeAll(async () => {
    ({ t, contract } = await setup({ rpcEvmTimeoutMs: 1_000 }));
  });
  afterAll(() => t.close());

  test('linea_estimateGas stops at the first module past its limit and answers the refusal, not the time limit', async () => {
    const call = tx(contract, 'mulLoop', [50_000_000], { gas: '0x3b9aca00' });
    // eth_call of the same call runs into the time limit: it is heavy.
    expect((await t.fail('eth_call', call, 'latest')).message).toBe('execution aborted (timeout = 1s)');
    const error = await t.fail('linea_estimateGas', call);
    const [, count] = /^Transaction line count for module MUL=(\d+) is above the limit 65536$/.exec(
      error.message,
    ) as RegExpExecArray;
    // MUL passes its limit first as the loop runs; stopped a few steps past it, far from the
    // 50,000,000 multiplications of the whole call.
    expect(Number(count)).toBeGreaterThan(65_536);
    expect(Number(count)).toBeLessThan(67_000);
  });
});

describe('stage SEQUENCER: exclusion while building a block', () => {
  test.each(OVERFLOWS)(
    'drops %s, records the block number, keeps the nonce free',
    async (_name, fn, args, module, count, limit) => {
      const { t, contract } = await setup({ rpcLineCheck: false });
      try {
        const nonce = await t.call<string>('eth_getTransactionCount', ALICE, 'latest');
        const hash = await t.call<string>('eth_sendTransaction', tx(contract, fn, args));
        const blockNumber = await t.call<string>('eth_blockNumber');
        const record = await t.call<Record<string, string>>('l2_getTransactionExclusionStatusV1', hash);
        expect(record).toEqual({
          txHash: hash,
          from: ALICE,
          nonce,
          txRejectionStage: 'SEQUENCER',
          reasonMessage: `Transaction line count for module ${module}=${count} is above the limit ${limit}`,
          blockNumber,
          timestamp: expect.any(String),
        });
        const block = await t.call<{ transactions: string[] }>('eth_getBlockByNumber', blockNumber, false);
        expect(block.transactions).toEqual([]);
        expect(await t.call('eth_getTransactionReceipt', hash)).toBeNull();
        expect(await t.call('eth_getTransactionByHash', hash)).toBeNull();
        expect(await t.call('eth_getTransactionCount', ALICE, 'pending')).toBe(nonce);
        // The nonce is still free: the next transaction takes it.
        const next = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
        expect((await t.call<{ status: string }>('eth_getTransactionReceipt', next)).status).toBe('0x1');
      } finally {
        await t.close();
      }
    },
  );
});

describe('block-wide limits', () => {
  test('two transactions that each fit but not together land in consecutive blocks', async () => {
    const { t, contract } = await setup({});
    t.chain.miner.setMining({ mode: 'manual' });
    try {
      const first = await t.call<string>('eth_sendTransaction', tx(contract, 'modexp', [3]));
      const second = await t.call<string>('eth_sendTransaction', tx(contract, 'modexp', [3], { from: BOB }));
      expect(t.chain.reads.poolSize).toBe(2);
      const a = await t.chain.mine();
      const b = await t.chain.mine();
      expect(a.transactions.map((x) => `0x${Buffer.from(x.hash()).toString('hex')}`)).toEqual([first]);
      expect(b.transactions.map((x) => `0x${Buffer.from(x.hash()).toString('hex')}`)).toEqual([second]);
      expect(await t.call('l2_getTransactionExclusionStatusV1', second)).toBeNull();
    } finally {
      await t.close();
    }
  });

  test('BLOCK_TRANSACTIONS caps the transactions of one block', async () => {
    const t = await createTestRpc({ lineLimits: TINY, mining: { mode: 'manual' } });
    try {
      for (const from of [ALICE, BOB, ALICE]) await t.call('eth_sendTransaction', { from, to: BOB, value: '0x1' });
      expect((await t.chain.mine()).transactions).toHaveLength(2);
      expect((await t.chain.mine()).transactions).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});

describe('exclusion records', () => {
  test('expire after seven days of node time', async () => {
    const clock = new NodeClock();
    const { t, contract } = await setup({ clock });
    try {
      const error = await t.fail('eth_sendTransaction', tx(contract, 'modexp', [5]));
      const hash = /^Transaction (0x[0-9a-f]{64})/.exec(error.message)?.[1];
      clock.advance(SEVEN_DAYS_MS - 1000);
      expect(await t.call('l2_getTransactionExclusionStatusV1', hash)).not.toBeNull();
      clock.advance(2000);
      expect(await t.call('l2_getTransactionExclusionStatusV1', hash)).toBeNull();
      clock.advance(-10_000);
      // Purged, not just hidden.
      expect(await t.call('l2_getTransactionExclusionStatusV1', hash)).toBeNull();
    } finally {
      await t.close();
    }
  });

  test('persist across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'l2devnet-exclusions-'));
    try {
      const { t, contract } = await setup({ dataDir: dir, rpcLineCheck: false });
      const hash = await t.call<string>('eth_sendTransaction', tx(contract, 'ecmul', [33]));
      const record = await t.call('l2_getTransactionExclusionStatusV1', hash);
      await t.close();
      const again = await createTestRpc({ dataDir: dir, lineLimits: PRODUCTION });
      try {
        expect(await again.call('l2_getTransactionExclusionStatusV1', hash)).toEqual(record);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tiny limits for quick tests', () => {
  test.each([
    ['mulLoop', [101], 'MUL'],
    ['logs', [21], 'LOG_INFO'],
    ['ecmul', [3], 'PRECOMPILE_ECMUL_EFFECTIVE_CALLS'],
    ['keccakBig', [40_000], 'SHAKIRA_DATA'],
    ['spin', [10_000], 'HUB'],
  ])('%s(%j) overflows %s', async (fn, args, module) => {
    const { t, contract } = await setup({ lineLimits: TINY });
    try {
      const error = await t.fail('eth_sendTransaction', tx(contract, fn, args));
      expect(error.message).toContain(`line count for module ${module}=`);
    } finally {
      await t.close();
    }
  });
});

describe('state overrides in the estimates', () => {
  // Code that writes a slot: an estimate of a call to it needs the SSTORE's gas.
  const WRITER = '0x6001600055';
  const TARGET = '0x00000000000000000000000000000000000000ee';
  const call = { from: ALICE, to: TARGET };
  const overrides = { [TARGET]: { code: WRITER } };

  test("eth_estimateGas takes geth's third param; linea_estimateGas Linea's node's second and viem's third", async () => {
    const t = await createTestRpc();
    try {
      const plain = BigInt(await t.call<string>('eth_estimateGas', call));
      expect(plain).toBe(21_000n);
      const written = BigInt(await t.call<string>('eth_estimateGas', call, 'latest', overrides));
      expect(written).toBeGreaterThan(40_000n);
      const gas = async (...params: unknown[]) =>
        BigInt((await t.call<{ gasLimit: string }>('linea_estimateGas', call, ...params)).gasLimit);
      expect(await gas()).toBe(21_000n);
      expect(await gas('latest')).toBe(21_000n);
      expect(await gas(overrides)).toBe(written); // Linea's node: (call, stateOverrides)
      expect(await gas('latest', overrides)).toBe(written); // viem's Linea action: (call, block, stateOverrides)
      // Nothing of an override stays.
      expect(await t.call<string>('eth_getCode', TARGET, 'latest')).toBe('0x');
      const bad = await t.fail('linea_estimateGas', call, { [TARGET]: { code: 'zz' } });
      expect(bad.code).toBe(-32602);
    } finally {
      await t.close();
    }
  });

  test("viem's Linea estimateGas action with a state override", async () => {
    const t = await createTestRpc();
    try {
      const { createClient, custom } = await import('viem');
      const { estimateGas } = await import('viem/linea');
      const client = createClient({ transport: custom(createProvider(t.rpc)) });
      const { gasLimit } = await estimateGas(client, {
        account: ALICE,
        to: TARGET,
        stateOverride: [{ address: TARGET, code: WRITER }],
      });
      expect(gasLimit).toBe(BigInt(await t.call<string>('eth_estimateGas', call, 'latest', overrides)));
    } finally {
      await t.close();
    }
  });
});
