/** Mining control: the methods of methods/mining.ts. */
import { toChecksumAddress } from '@ethereumjs/util';

import { ALICE, BOB, CAROL, createTestRpc } from '../../test/helpers';
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

  test('anvil_mine checks its interval before it mines: all the blocks or none', async () => {
    const err = await t.fail('anvil_mine', '0x2', '0xffffffffffffffff');
    expect(err).toEqual({
      code: -32602,
      message:
        'invalid params: param 2 (interval) must keep block timestamps below 2^64 (a uint64); got 18446744073709551615',
    });
    expect(await t.call('eth_blockNumber')).toBe('0x0');
    // One block uses no interval.
    expect(await t.call('anvil_mine', '0x1', '0xffffffffffffffff')).toBeNull();
    expect(await t.call('eth_blockNumber')).toBe('0x1');
  });

  test('testing_buildBlockV1 builds on the head and throws the block away', async () => {
    await t.call('evm_setAutomine', false);
    const sent = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    const head = await t.call<{ hash: string; timestamp: string }>('eth_getBlockByNumber', 'latest', false);
    const attributes = {
      timestamp: `0x${(BigInt(head.timestamp) + 12n).toString(16)}`,
      prevRandao: `0x${'11'.repeat(32)}`,
      suggestedFeeRecipient: BOB,
      withdrawals: [{ index: '0x0', validatorIndex: '0x1', address: CAROL, amount: '0x3b9aca00' }],
      parentBeaconBlockRoot: `0x${'22'.repeat(32)}`,
    };
    const built = await t.call<any>('testing_buildBlockV1', head.hash, attributes, null, '0x6869');
    const payload = built.executionPayload;
    expect(payload).toMatchObject({
      parentHash: head.hash,
      feeRecipient: BOB,
      prevRandao: attributes.prevRandao,
      blockNumber: '0x1',
      timestamp: attributes.timestamp,
      extraData: '0x6869',
      gasUsed: '0x5208',
      withdrawals: attributes.withdrawals,
    });
    expect(payload.transactions).toHaveLength(1);
    expect(BigInt(built.blockValue)).toBe(21_000n * 1_000_000_000n); // the suggested tip, paid to BOB
    expect(built).toMatchObject({ blobsBundle: { commitments: [], proofs: [], blobs: [] }, executionRequests: [] });
    // Nothing moved: the head, the pool, the fee recipient's and the withdrawal's balances.
    expect(await t.call('eth_blockNumber')).toBe('0x0');
    expect(await t.call('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    expect(await t.call('eth_getBalance', CAROL, 'latest')).toBe(await t.call('eth_getBalance', CAROL, '0x0'));
    // An empty list builds an empty block; a block not on the head is refused.
    const empty = await t.call<any>('testing_buildBlockV1', head.hash, attributes, []);
    expect(empty.executionPayload).toMatchObject({ transactions: [], gasUsed: '0x0', extraData: '0x' });
    expect(await t.fail('testing_buildBlockV1', `0x${'00'.repeat(32)}`, attributes, [])).toEqual({
      code: -32000,
      message: 'parentHash is not current head',
    });
    await t.call('evm_mine');
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', sent)).status).toBe('0x1');
  });

  test('automine can be switched off and on; pending transactions wait for evm_mine', async () => {
    expect(await t.call('anvil_getAutomine')).toBe(true);
    await t.call('evm_setAutomine', false);
    expect(await t.call('hardhat_getAutomine')).toBe(false);
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    expect(await t.call('eth_getTransactionReceipt', hash)).toBeNull();
    expect(await t.call('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    const content = await t.call<{ pending: Record<string, Record<string, { hash: string }>> }>('txpool_content');
    expect(content.pending[toChecksumAddress(ALICE)]['0'].hash).toBe(hash);
    expect(await t.call('txpool_contentFrom', ALICE)).toEqual({
      pending: content.pending[toChecksumAddress(ALICE)],
      queued: {},
    });
    expect(await t.call('txpool_contentFrom', BOB)).toEqual({ pending: {}, queued: {} });
    const inspect = await t.call<{ pending: Record<string, Record<string, string>> }>('txpool_inspect');
    expect(inspect.pending[toChecksumAddress(ALICE)]['0']).toMatch(
      new RegExp(`^${toChecksumAddress(BOB)}: 1 wei \\+ 21000 gas × \\d+ wei$`),
    );
    await t.call('evm_mine');
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', hash)).status).toBe('0x1');
    await t.call('anvil_setAutomine', true);
    await t.call('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    expect(await t.call('eth_blockNumber')).toBe('0x2');
  });

  test('turning automine back on mines what waits at once, as Anvil; the next send is mined too', async () => {
    await t.call('evm_setAutomine', false);
    const first = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    const second = await t.call<string>('eth_sendTransaction', { from: BOB, to: CAROL, value: '0x1' });
    expect(await t.call('txpool_status')).toEqual({ pending: '0x2', queued: '0x0' });
    await t.call('evm_setAutomine', true);
    expect(await t.call('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
    for (const hash of [first, second])
      expect(await t.call('eth_getTransactionReceipt', hash)).toMatchObject({ status: '0x1', blockNumber: '0x1' });
    const third = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    expect(await t.call('eth_getTransactionReceipt', third)).toMatchObject({ status: '0x1', blockNumber: '0x2' });
  });

  test('turning automine on with nothing ready mines no block', async () => {
    await t.call('evm_setAutomine', false);
    // Nonce 5 of a sender at nonce 0: queued, not ready.
    await t.call('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1', nonce: '0x5' });
    await t.call('evm_setAutomine', true);
    expect(await t.call('eth_blockNumber')).toBe('0x0');
    expect(await t.call('txpool_status')).toEqual({ pending: '0x0', queued: '0x1' });
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
