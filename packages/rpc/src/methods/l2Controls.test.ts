import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { LineLimits } from '@l2devnet/core';

import { ALICE, BOB, CAROL, createTestRpc } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';
import { createProvider } from '../provider';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'fixtures');
const counter = JSON.parse(readFileSync(join(FIXTURES, 'contracts', 'Counter.json'), 'utf8')) as { bytecode: string };
const PRODUCTION = LineLimits.fromFile(join(FIXTURES, 'limits', 'linea-london.toml'), 'london');
const INCREMENT = '0xd09de08a';
const ADD_LIMIT = PRODUCTION.limits.ADD;

let t: TestRpc;
let contract: string;
beforeEach(async () => {
  t = await createTestRpc({ lineLimits: PRODUCTION });
  const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, data: counter.bytecode });
  contract = (await t.call<{ contractAddress: string }>('eth_getTransactionReceipt', hash)).contractAddress;
});
afterEach(() => t.close());

const count = () => t.call<string>('eth_call', { from: ALICE, to: contract, data: '0x06661abd' }, 'latest');

describe('l2_forceExclusion', () => {
  test('stage RPC: the next matching transaction is refused and recorded, once', async () => {
    expect(await t.call('l2_forceExclusion', { selector: INCREMENT, stage: 'RPC', module: 'ADD' })).toBe('0x1');
    const head = await t.call<string>('eth_blockNumber');
    const refused = await t.fail('eth_sendTransaction', { from: ALICE, to: contract, data: INCREMENT });
    expect(refused.code).toBe(-32000);
    const m = /^Transaction (0x[0-9a-f]{64}) line count for module ADD=(\d+) is above the limit (\d+)$/.exec(
      refused.message,
    );
    expect(m).not.toBeNull();
    expect([Number(m![2]), Number(m![3])]).toEqual([ADD_LIMIT + 1, ADD_LIMIT]);
    expect(await t.call('eth_blockNumber')).toBe(head);
    expect(await t.call('l2_getTransactionExclusionStatusV1', m![1])).toMatchObject({
      txHash: m![1],
      from: ALICE,
      txRejectionStage: 'RPC',
      reasonMessage: refused.message,
    });
    // Used up: the same call goes through now.
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: contract, data: INCREMENT });
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', hash)).status).toBe('0x1');
    expect(BigInt(await count())).toBe(1n);
  });

  test('stage SEQUENCER: the transaction is acknowledged, then left out of its block and recorded there', async () => {
    await t.call('l2_forceExclusion', { from: BOB, to: contract, module: 'MUL', count: '0x3e8' });
    // Not matched (other sender): mined.
    await t.call('eth_sendTransaction', { from: ALICE, to: contract, data: INCREMENT });
    const hash = await t.call<string>('eth_sendTransaction', { from: BOB, to: contract, data: INCREMENT });
    expect(await t.call('eth_getTransactionReceipt', hash)).toBeNull();
    expect(await t.call('eth_getTransactionByHash', hash)).toBeNull();
    // Automine built block 3 for it, and committed it without it.
    expect(await t.call('eth_blockNumber')).toBe('0x3');
    expect(await t.call('l2_getTransactionExclusionStatusV1', hash)).toMatchObject({
      txRejectionStage: 'SEQUENCER',
      blockNumber: '0x3',
      reasonMessage: `Transaction line count for module MUL=1000 is above the limit ${PRODUCTION.limits.MUL}`,
    });
    expect(BigInt(await count())).toBe(1n);
    // Its nonce stays free.
    expect(await t.call('eth_getTransactionCount', BOB, 'pending')).toBe('0x0');
  });

  test('a forced rule waits for its match; l2_clearForcedExclusions drops the rules', async () => {
    await t.call('l2_forceExclusion', { to: CAROL, stage: 'RPC', module: 'HUB' });
    await t.call('l2_forceExclusion', { hash: `0x${'ab'.repeat(32)}`, module: 'HUB' });
    await t.call('eth_sendTransaction', { from: ALICE, to: contract, data: INCREMENT });
    expect(await t.call('l2_clearForcedExclusions')).toBe(2);
    await t.call('eth_sendTransaction', { from: ALICE, to: CAROL, value: '0x1' });
    expect(await t.call('l2_getExclusionCount')).toBe('0x0');
  });

  test.each([
    [{ module: 'NOPE' }, 'param 1 (rule.module) must be a module of the limits file; got "NOPE"'],
    [{ module: 'ADD', stage: 'P2P' }, 'param 1 (rule.stage) must be one of RPC, SEQUENCER; got "P2P"'],
    [{ module: 'ADD', selector: '0x1234' }, 'param 1 (rule.selector) must be a 4-byte hex selector; got "0x1234"'],
    [{ module: 'ADD', from: 'bob' }, 'param 1 (rule.from) must be a 20-byte hex address; got "bob"'],
    ['ADD', 'param 1 (rule) must be an object; got "ADD"'],
  ])('a bad rule %j is refused with -32602', async (rule, message) => {
    expect(await t.fail('l2_forceExclusion', rule)).toEqual({ code: -32602, message: `invalid params: ${message}` });
  });
});

describe('deny list', () => {
  const blocked = (role: string, address: string) =>
    `${role} ${address} is blocked as appearing on the SDN or other legally prohibited list`;

  test('a denied sender or recipient is refused with the sequencer words; lifting the list lets it through', async () => {
    expect(await t.call('l2_setDenyList', [BOB])).toBe(true);
    expect(await t.call('l2_getDenyList')).toEqual([BOB]);
    expect(await t.fail('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' })).toEqual({
      code: -32000,
      message: blocked('recipient', BOB),
    });
    expect(await t.fail('eth_sendTransaction', { from: BOB, to: ALICE, value: '0x1' })).toEqual({
      code: -32000,
      message: blocked('sender', BOB),
    });
    expect(await t.call('eth_getTransactionCount', ALICE, 'pending')).toBe('0x1');
    await t.call('l2_setDenyList', []);
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', hash)).status).toBe('0x1');
  });

  test('a pooled transaction whose address is denied afterwards is dropped when the block is built', async () => {
    await t.call('evm_setAutomine', false);
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: CAROL, value: '0x1' });
    await t.call('l2_setDenyList', [CAROL]);
    const pending = await t.call<{ transactions: string[] }>('eth_getBlockByNumber', 'pending', false);
    expect(pending.transactions).toEqual([]);
    await t.call('evm_mine');
    expect((await t.call<{ transactions: string[] }>('eth_getBlockByNumber', 'latest', false)).transactions).toEqual(
      [],
    );
    expect(await t.call('eth_getTransactionByHash', hash)).toBeNull();
    expect(await t.call('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
  });
});

describe('exclusion records by block range, and as they happen', () => {
  test('l2_getExclusions and l2_getExclusionCount filter by stage and block; eth_subscribe("exclusions") streams them', async () => {
    const provider = createProvider(t.rpc);
    const seen: any[] = [];
    provider.on('message', (m: { data: { result: unknown } }) => seen.push(m.data.result));
    await provider.request({ method: 'eth_subscribe', params: ['exclusions'] });

    await t.call('l2_forceExclusion', { selector: INCREMENT, stage: 'RPC', module: 'ADD' });
    await t.fail('eth_sendTransaction', { from: ALICE, to: contract, data: INCREMENT }); // pending block 2
    await t.call('evm_mine'); // block 2
    await t.call('l2_forceExclusion', { selector: INCREMENT, module: 'SHF' });
    const excluded = await t.call<string>('eth_sendTransaction', { from: ALICE, to: contract, data: INCREMENT }); // in block 3

    const all = await t.call<any[]>('l2_getExclusions');
    expect(all.map((r) => r.txRejectionStage)).toEqual(['RPC', 'SEQUENCER']);
    expect(all[1]).toMatchObject({ txHash: excluded, blockNumber: '0x3' });
    expect(await t.call('l2_getExclusionCount', { stage: 'SEQUENCER' })).toBe('0x1');
    expect(await t.call('l2_getExclusions', { fromBlock: '0x3' })).toEqual([all[1]]);
    expect(await t.call('l2_getExclusions', { toBlock: '0x2' })).toEqual([all[0]]);
    expect(await t.call('l2_getExclusionCount', { fromBlock: '0x4' })).toBe('0x0');

    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(all);
  });
});

describe('line limits changed at run time', () => {
  test('l2_setLineLimits lowers a module until l2_resetLineLimits restores the file limits', async () => {
    expect(await t.call('l2_setLineLimits', { ADD: 1, MUL: '0x10' })).toBe(true);
    expect(await t.call('l2_getLineLimits')).toEqual({ ...PRODUCTION.limits, ADD: 1, MUL: 16 });
    // With its gas given, nothing estimates it first: the RPC-stage check refuses it.
    const refused = await t.fail('eth_sendTransaction', { from: ALICE, to: contract, data: INCREMENT, gas: '0x30000' });
    expect(refused.code).toBe(-32000);
    const m = /^Transaction 0x[0-9a-f]{64} line count for module ADD=(\d+) is above the limit 1$/.exec(refused.message);
    expect(Number(m?.[1])).toBeGreaterThan(1);
    expect(await t.call('l2_getExclusionCount', { stage: 'RPC' })).toBe('0x1');
    // The estimate runs the same check.
    expect((await t.fail('linea_estimateGas', { from: ALICE, to: contract, data: INCREMENT })).message).toMatch(
      /^Transaction line count for module ADD=\d+ is above the limit 1$/,
    );
    expect(await t.call('l2_resetLineLimits')).toBe(true);
    expect(await t.call('l2_getLineLimits')).toEqual(PRODUCTION.limits);
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: contract, data: INCREMENT });
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', hash)).status).toBe('0x1');
  });

  test.each([
    [{ NOPE: 1 }, 'param 1 (limits key) must be a module of the limits file; got "NOPE"'],
    [{ ADD: -1 }, 'param 1 (limits.ADD) must be a line count: an integer of at least 0 or a hex quantity; got -1'],
    [{ ADD: 1.5 }, 'param 1 (limits.ADD) must be a line count: an integer of at least 0 or a hex quantity; got 1.5'],
    [
      { ADD: `0x${'f'.repeat(20)}` },
      `param 1 (limits.ADD) must be a hex quantity below 2^53; got "0x${'f'.repeat(20)}"`,
    ],
    [[], 'param 1 (limits) must be an object; got []'],
  ])('bad limits %j are refused with -32602 and change nothing', async (limits, message) => {
    expect(await t.fail('l2_setLineLimits', limits)).toEqual({ code: -32602, message: `invalid params: ${message}` });
    expect(await t.call('l2_getLineLimits')).toEqual(PRODUCTION.limits);
  });
});

describe('a transaction the sequencer excluded for its line count', () => {
  /** A signed transfer from dev account 1 with the next nonce, as raw hex. */
  async function rawTransfer(node: TestRpc = t): Promise<string> {
    const { createFeeMarket1559Tx } = await import('@ethereumjs/tx');
    const sender = node.chain.accounts[1];
    const nonce = BigInt(await node.call<string>('eth_getTransactionCount', BOB, 'pending'));
    const tx = createFeeMarket1559Tx(
      {
        nonce,
        to: CAROL,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1_000_000_000n,
      },
      { common: node.chain.common },
    ).sign(sender.privateKey);
    return `0x${Buffer.from(tx.serialize()).toString('hex')}`;
  }
  const cached = (hash: string) => ({
    code: -32000,
    message: `Transaction ${hash} was already identified to go over line count limit`,
  });

  test('is refused at once when it is sent again (TX_MODULE_LINE_COUNT_OVERFLOW_CACHED)', async () => {
    await t.call('l2_forceExclusion', { from: BOB, module: 'HUB' });
    const raw = await rawTransfer();
    const hash = await t.call<string>('eth_sendRawTransaction', raw);
    expect(await t.call('l2_getTransactionExclusionStatusV1', hash)).toMatchObject({ txRejectionStage: 'SEQUENCER' });
    const head = await t.call('eth_blockNumber');
    expect(await t.fail('eth_sendRawTransaction', raw)).toEqual(cached(hash));
    expect(await t.call('eth_blockNumber')).toBe(head);
    expect(await t.call('l2_getExclusionCount')).toBe('0x1');
  });

  test('counts as such when its own lines overflowed while its block was built', async () => {
    const relaxed = await createTestRpc({ lineLimits: PRODUCTION, rpcLineCheck: false });
    try {
      await relaxed.call('l2_setLineLimits', { RLP_TXN: 10 });
      const raw = await rawTransfer(relaxed);
      const hash = await relaxed.call<string>('eth_sendRawTransaction', raw);
      expect(await relaxed.call('eth_getTransactionReceipt', hash)).toBeNull();
      // Not refused by the check it overflowed: by the memory of that overflow, whatever the limits now.
      await relaxed.call('l2_resetLineLimits');
      expect(await relaxed.fail('eth_sendRawTransaction', raw)).toEqual(cached(hash));
    } finally {
      await relaxed.close();
    }
  });

  test('a transaction refused at stage RPC may be sent again once it fits', async () => {
    await t.call('l2_setLineLimits', { RLP_TXN: 10 });
    const raw = await rawTransfer();
    expect((await t.fail('eth_sendRawTransaction', raw)).message).toMatch(
      /line count for module RLP_TXN=\d+ is above the limit 10$/,
    );
    await t.call('l2_resetLineLimits');
    const hash = await t.call<string>('eth_sendRawTransaction', raw);
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', hash)).status).toBe('0x1');
  });
});

describe('a block whose module lines are full (BLOCK_MODULE_LINE_COUNT_FULL)', () => {
  test('stops the selection: later transactions wait for the next block even when they would fit', async () => {
    const { createFeeMarket1559Tx } = await import('@ethereumjs/tx');
    await t.call('evm_setAutomine', false);
    // RLP_TXN counts a transaction's encoded bytes: a plain transfer about 110, one with 100 bytes of data about 210.
    await t.call('l2_setLineLimits', { RLP_TXN: 250 });
    const send = async (account: number, tip: bigint, data: Uint8Array) => {
      const tx = createFeeMarket1559Tx(
        {
          nonce: 0n,
          to: CAROL,
          value: 1n,
          data,
          gasLimit: 100_000n,
          maxFeePerGas: 10n ** 11n,
          maxPriorityFeePerGas: tip,
        },
        { common: t.chain.common },
      ).sign(t.chain.accounts[account].privateKey);
      return t.call<string>('eth_sendRawTransaction', `0x${Buffer.from(tx.serialize()).toString('hex')}`);
    };
    const GWEI = 10n ** 9n;
    const small = await send(2, 3n * GWEI, new Uint8Array()); // selected first: the highest tip
    const large = await send(3, 2n * GWEI, new Uint8Array(100).fill(1)); // no room left: the block is full
    const late = await send(4, 1n * GWEI, new Uint8Array()); // would fit beside the first, but selection stopped
    const txsOf = async () =>
      (await t.call<{ transactions: string[] }>('eth_getBlockByNumber', 'latest', false)).transactions;
    await t.call('evm_mine');
    expect(await txsOf()).toEqual([small]);
    await t.call('evm_mine');
    expect(await txsOf()).toEqual([large]);
    await t.call('evm_mine');
    expect(await txsOf()).toEqual([late]);
    // Waiting is not exclusion.
    expect(await t.call('l2_getExclusionCount')).toBe('0x0');
  });
});
