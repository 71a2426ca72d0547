/** Node and fee information: the methods of methods/chain.ts, on a node with a short history (seededTestRpc). */
import { ALICE, seededTestRpc } from '../../test/helpers';
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
