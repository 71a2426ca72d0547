/**
 * Forced transactions (linea_sendForcedRawTransaction, linea_getForcedTransactionInclusionStatus),
 * signed with ethers: tried first in every block, in number order and unpriced; each ends Included or
 * with the status of the refusal that stopped it (BadNonce, BadPrecompile, ...), one refusal a block.
 */
import { join } from 'node:path';

import { LineLimits } from '@l2devnet/core';
import { keccak256, Wallet } from 'ethers';

import { ALICE_KEY, BOB } from '../../rpc/test/flows';
import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

const wallet = new Wallet(ALICE_KEY);
const CALLER = '0x00000000000000000000000000000000000e0002';

let node: TestNode;
beforeEach(async () => {
  const limits = LineLimits.fromFile(
    join(__dirname, '..', '..', '..', 'fixtures', 'limits', 'linea-mainnet.toml'),
    'osaka',
  );
  node = await startTestNode({ chain: { mining: { mode: 'manual' }, lineLimits: limits } });
});
afterEach(() => node.close());

async function call(method: string, ...params: unknown[]): Promise<any> {
  return (await node.post({ jsonrpc: '2.0', id: 1, method, params })).json;
}
/** Alice's transaction with `nonce`, paying no tip: a forced transaction is not priced. */
const signed = (nonce: number, to = BOB) =>
  wallet.signTransaction({
    type: 2,
    chainId: 31337,
    nonce,
    to,
    value: 1n,
    gasLimit: 100_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 0n,
  });
const status = async (n: number) => (await call('linea_getForcedTransactionInclusionStatus', n)).result;
const minedTxs = async (n: number) =>
  (await call('eth_getBlockByNumber', `0x${n.toString(16)}`, false)).result.transactions;

test('a forced transaction goes first in the next block, unpriced, and is then Included', async () => {
  const forced = await signed(0);
  expect(
    (
      await call('linea_sendForcedRawTransaction', [
        { forcedTransactionNumber: 6, transaction: forced, deadlineBlockNumber: '0xfce' },
      ])
    ).result,
  ).toEqual([{ forcedTransactionNumber: 6, hash: keccak256(forced) }]);
  expect(await status(6)).toBeNull();
  const bob = (await call('eth_sendTransaction', { from: BOB, to: BOB, value: '0x1' })).result;
  await call('evm_mine');
  expect(await minedTxs(1)).toEqual([keccak256(forced), bob]);
  const block = (await call('eth_getBlockByNumber', '0x1', false)).result;
  expect(await status(6)).toEqual({
    forcedTransactionNumber: 6,
    blockNumber: '0x1',
    blockTimestamp: Number(block.timestamp),
    from: wallet.address.toLowerCase(),
    inclusionResult: 'Included',
    transactionHash: keccak256(forced),
  });
});

test('the first refused ends with its status and stops the others until the next block: BadNonce, BadPrecompile', async () => {
  // STATICCALL(gas, 0x03, 0, 1, 0, 32): RIPEMD-160, whose limit is 0.
  await call('anvil_setCode', CALLER, '0x602060006001600060035afa00');
  const ahead = await signed(5);
  const ripemd = await signed(0, CALLER);
  const good = await signed(1);
  await call('linea_sendForcedRawTransaction', [
    { forcedTransactionNumber: 3, transaction: ahead, deadlineBlockNumber: 100 },
    { forcedTransactionNumber: 1, transaction: ripemd, deadlineBlockNumber: 100 },
    { forcedTransactionNumber: 2, transaction: good, deadlineBlockNumber: 100 },
  ]);
  // In number order: 1 (RIPEMD) is refused and stops 2 and 3.
  await call('evm_mine');
  expect(await minedTxs(1)).toEqual([]);
  expect((await status(1)).inclusionResult).toBe('BadPrecompile');
  expect(await status(2)).toBeNull();
  // 2 has nonce 1 but Alice is at 0: refused in its turn.
  await call('evm_mine');
  expect((await status(2)).inclusionResult).toBe('BadNonce');
  await call('evm_mine');
  expect((await status(3)).inclusionResult).toBe('BadNonce');
  expect(await minedTxs(3)).toEqual([]);
});

test("refusals: per transaction in the list's answer, stopping at the first; per request as -32602", async () => {
  const good = await signed(0);
  expect(
    (
      await call('linea_sendForcedRawTransaction', [
        { forcedTransactionNumber: 1, transaction: good, deadlineBlockNumber: '0x10' },
        { forcedTransactionNumber: 2, transaction: '0x1234', deadlineBlockNumber: '0x10' },
        { forcedTransactionNumber: 3, transaction: good, deadlineBlockNumber: '0x10' },
      ])
    ).result,
  ).toEqual([
    { forcedTransactionNumber: 1, hash: keccak256(good) },
    { forcedTransactionNumber: 2, error: 'Failed to decode transaction: Invalid raw transaction hex' },
  ]);
  const errors = async (list: unknown) => (await call('linea_sendForcedRawTransaction', list)).result;
  expect(await errors([{ transaction: good, deadlineBlockNumber: '0x10' }])).toEqual([
    { forcedTransactionNumber: 0, error: 'forcedTransactionNumber is required at index 0' },
  ]);
  expect(await errors([{ forcedTransactionNumber: 4, transaction: '0x', deadlineBlockNumber: '0x10' }])).toEqual([
    { forcedTransactionNumber: 4, error: 'Empty transaction data' },
  ]);
  expect(await errors([{ forcedTransactionNumber: 5, transaction: good }])).toEqual([
    { forcedTransactionNumber: 5, error: 'Deadline block number is required' },
  ]);
  expect(await errors([{ forcedTransactionNumber: 6, transaction: good, deadlineBlockNumber: 'soon' }])).toEqual([
    { forcedTransactionNumber: 6, error: 'Invalid deadlineBlockNumber format: soon' },
  ]);
  expect((await call('linea_sendForcedRawTransaction', [])).error).toEqual({
    code: -32602,
    message: 'At least one forced transaction is required',
  });
  const twice = { forcedTransactionNumber: 7, transaction: good, deadlineBlockNumber: '0x10' };
  expect((await call('linea_sendForcedRawTransaction', [twice, twice])).error).toEqual({
    code: -32602,
    message: 'Duplicate forcedTransactionNumber: 7',
  });
  expect((await call('linea_getForcedTransactionInclusionStatus', 'one')).error.code).toBe(-32602);
});
