/** Mining control: the methods of methods/mining.ts. */
import { ALICE, BOB, createTestRpc } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

let t: TestRpc;
beforeEach(async () => {
  t = await createTestRpc();
});
afterEach(() => t.close());

describe('mining control', () => {
  test('evm_mine, anvil_mine and hardhat_mine build empty blocks; evm_mine takes a timestamp', async () => {
    expect(await t.call('evm_mine')).toBe('0x0');
    expect(await t.call('eth_blockNumber')).toBe('0x1');
    await t.call('anvil_mine', '0x3', '0x10');
    expect(await t.call('eth_blockNumber')).toBe('0x4');
    const b2 = await t.call<{ timestamp: string }>('eth_getBlockByNumber', '0x2', false);
    const b3 = await t.call<{ timestamp: string }>('eth_getBlockByNumber', '0x3', false);
    expect(BigInt(b3.timestamp) - BigInt(b2.timestamp)).toBe(16n);
    await t.call('hardhat_mine', 2);
    expect(await t.call('eth_blockNumber')).toBe('0x6');
    const ts = BigInt((await t.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false)).timestamp) + 1000n;
    await t.call('evm_mine', `0x${ts.toString(16)}`);
    expect(BigInt((await t.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false)).timestamp)).toBe(ts);
    await t.call('evm_mine', { blocks: 2, timestamp: Number(ts + 10n) });
    expect(await t.call('eth_blockNumber')).toBe('0x9');
  });

  test('automine can be switched off and on; pending transactions wait for evm_mine', async () => {
    expect(await t.call('anvil_getAutomine')).toBe(true);
    await t.call('evm_setAutomine', false);
    expect(await t.call('hardhat_getAutomine')).toBe(false);
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    expect(await t.call('eth_getTransactionReceipt', hash)).toBeNull();
    expect(await t.call('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    const content = await t.call<{ pending: Record<string, Record<string, { hash: string }>> }>('txpool_content');
    expect(content.pending[ALICE]['0'].hash).toBe(hash);
    const inspect = await t.call<{ pending: Record<string, Record<string, string>> }>('txpool_inspect');
    expect(inspect.pending[ALICE]['0']).toMatch(new RegExp(`^${BOB}: 1 wei \\+ 21000 gas × \\d+ wei$`));
    await t.call('evm_mine');
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', hash)).status).toBe('0x1');
    await t.call('anvil_setAutomine', true);
    await t.call('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    expect(await t.call('eth_blockNumber')).toBe('0x2');
  });

  test('interval mining mines on its own', async () => {
    await t.call('evm_setIntervalMining', 30);
    await t.call('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    const mined = new Promise((resolve) => t.chain.once('block', resolve));
    await mined;
    expect(BigInt(await t.call<string>('eth_blockNumber'))).toBeGreaterThanOrEqual(1n);
    await t.call('evm_setIntervalMining', 0);
    expect(await t.call('anvil_getAutomine')).toBe(false);
  });
});
