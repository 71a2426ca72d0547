/** Node and fee information: the methods of methods/chain.ts, on a node with a short history (seededTestRpc). */
import { ALICE, seededTestRpc, withTestRpc } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

let t: TestRpc;

beforeAll(async () => {
  ({ t } = await seededTestRpc());
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

test('eth_capabilities: the head, and every resource back to genesis', async () => {
  const head = await t.call<{ hash: string }>('eth_getBlockByNumber', 'latest', false);
  const all = { disabled: false, oldestBlock: '0x0' };
  expect(await t.call('eth_capabilities')).toEqual({
    head: { number: '0x3', hash: head.hash },
    state: all,
    tx: all,
    logs: all,
    receipts: all,
    blocks: all,
    stateproofs: all,
  });
});

describe("the suggested tip pays Linea's profitability rule", () => {
  test('a fresh chain reports the suggested tip as the reward of its blocks without transactions (geth: 0)', async () => {
    await withTestRpc({}, async (node) => {
      await node.call('evm_mine');
      const history = await node.call<{ reward: string[][] }>('eth_feeHistory', '0x2', 'latest', [20, 50]);
      expect(history.reward).toEqual([
        ['0x3b9aca00', '0x3b9aca00'],
        ['0x3b9aca00', '0x3b9aca00'],
      ]);
    });
  });

  test("without Linea's rules a block without transactions rewards 0, as geth's oracle", async () => {
    await withTestRpc({ sequencerRules: false }, async (node) => {
      const history = await node.call<{ reward: string[][] }>('eth_feeHistory', '0x1', 'latest', [50]);
      expect(history.reward).toEqual([['0x0']]);
    });
  });

  test('a fixed cost above 1 gwei raises the suggestion to what a transfer needs, and a transfer at it is mined', async () => {
    await withTestRpc({}, async (node) => {
      // Version 1 extra data: fixed cost 5 gwei, variable cost 10,000,000 wei, L1 gas price 10,000,000 wei (in kWei).
      const kwei = (wei: bigint) => (wei / 1000n).toString(16).padStart(8, '0');
      await node.call(
        'linea_setExtraData',
        `0x01${kwei(5_000_000_000n)}${kwei(10_000_000n)}${kwei(10_000_000n)}${'0'.repeat(38)}`,
      );
      // margin 1.0 × (10,000,000 × 160 bytes / 21,000 gas + 5 gwei), truncated.
      const tip = 5_000_000_000n + (10_000_000n * 160n) / 21_000n;
      expect(BigInt(await node.call<string>('eth_maxPriorityFeePerGas'))).toBe(tip);
      const baseFee = BigInt(await node.call<string>('eth_baseFee'));
      expect(BigInt(await node.call<string>('eth_gasPrice'))).toBe(baseFee + tip);
      const history = await node.call<{ reward: string[][] }>('eth_feeHistory', '0x1', 'latest', [50]);
      expect(history.reward).toEqual([[`0x${tip.toString(16)}`]]);
      // eth_sendTransaction without fees takes the suggestion, and is mined.
      const hash = await node.call<string>('eth_sendTransaction', { from: ALICE, to: ALICE, value: '0x1' });
      const receipt = await node.call<{ status: string; effectiveGasPrice: string }>('eth_getTransactionReceipt', hash);
      expect(receipt.status).toBe('0x1');
      expect(BigInt(receipt.effectiveGasPrice)).toBe(baseFee + tip);
    });
  });
});
