/**
 * linea_sendBundle, eth_sendBundle and linea_cancelBundle, with transactions signed by ethers: a
 * bundle is included in its block in order and whole, or not at all; a UUID replaces or cancels it;
 * every refusal is in the endpoint's words and leaves the chain as it was.
 */
import { Interface, keccak256, Wallet, concat } from 'ethers';

import { ALICE_KEY, BOB, reverter } from '../../rpc/test/flows';
import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

const GWEI = 1_000_000_000n;
const wallet = new Wallet(ALICE_KEY);
const UUID = '9a1f5a1b-4d3c-4b2a-8c1d-0e2f3a4b5c6d';

let node: TestNode;
beforeEach(async () => {
  node = await startTestNode({ chain: { mining: { mode: 'manual' } } });
});
afterEach(() => node.close());

async function call(method: string, ...params: unknown[]): Promise<any> {
  return (await node.post({ jsonrpc: '2.0', id: 1, method, params })).json;
}
const head = async () => Number((await call('eth_blockNumber')).result);
const next = async () => `0x${((await head()) + 1).toString(16)}`;
let nonce = 0;
beforeEach(() => {
  nonce = 0;
});
/** A signed transaction from Alice with the next nonce. */
const signed = (tx: { to: string; data?: string; value?: bigint; gasLimit?: bigint }) =>
  wallet.signTransaction({
    type: 2,
    chainId: 31337,
    nonce: nonce++,
    gasLimit: 100_000n,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
    value: 0n,
    ...tx,
  });
const minedTxs = async (n: number) =>
  (await call('eth_getBlockByNumber', `0x${n.toString(16)}`, false)).result.transactions;

test('a bundle is included in its block, first and in order; its hash is the keccak of its transactions', async () => {
  const txs = [await signed({ to: BOB, value: 1n }), await signed({ to: BOB, value: 2n })];
  const answer = await call('linea_sendBundle', { txs, blockNumber: await next() });
  expect(answer.result).toEqual({ bundleHash: keccak256(concat(txs)) });
  // A pool transaction from Bob goes after the bundle.
  const bob = await call('eth_sendTransaction', { from: BOB, to: BOB, value: '0x1' });
  await call('evm_mine');
  expect(await minedTxs(1)).toEqual([keccak256(txs[0]), keccak256(txs[1]), bob.result]);
});

test('a transaction that reverts drops the bundle, unless it is listed in revertingTxHashes; eth_sendBundle is the same method', async () => {
  const deploy = await call('eth_sendTransaction', { from: wallet.address, data: reverter.bytecode });
  nonce = 1;
  await call('evm_mine');
  const rev = (await call('eth_getTransactionReceipt', deploy.result)).result.contractAddress;
  const reverting = new Interface(reverter.abi).encodeFunctionData('revertWithReason');
  const txs = [await signed({ to: BOB, value: 1n }), await signed({ to: rev, data: reverting })];
  await call('linea_sendBundle', { txs, blockNumber: await next() });
  await call('evm_mine');
  expect(await minedTxs(2)).toEqual([]);
  // Nothing left for a later block either.
  await call('evm_mine');
  expect(await minedTxs(3)).toEqual([]);
  const allowed = await call('eth_sendBundle', {
    txs,
    blockNumber: await next(),
    revertingTxHashes: [keccak256(txs[1])],
  });
  expect(allowed.result.bundleHash).toBe(keccak256(concat(txs)));
  await call('evm_mine');
  expect(await minedTxs(4)).toEqual(txs.map((t) => keccak256(t)));
  expect((await call('eth_getTransactionReceipt', keccak256(txs[1]))).result.status).toBe('0x0');
});

test('a replacementUUID replaces the bundle sent with it, and linea_cancelBundle drops it', async () => {
  const first = await signed({ to: BOB, value: 1n });
  nonce = 0;
  const second = await signed({ to: BOB, value: 2n });
  const block = await next();
  const a = await call('linea_sendBundle', { txs: [first], blockNumber: block, replacementUUID: UUID });
  const b = await call('linea_sendBundle', { txs: [second], blockNumber: block, replacementUUID: UUID });
  // keccak of the UUID's two longs, as Linea's bundle pool keys it.
  const uuidHash = keccak256(`0x${UUID.replace(/-/g, '')}`);
  expect(a.result.bundleHash).toBe(uuidHash);
  expect(b.result.bundleHash).toBe(uuidHash);
  await call('evm_mine');
  expect(await minedTxs(1)).toEqual([keccak256(second)]);

  nonce = 1;
  await call('linea_sendBundle', {
    txs: [await signed({ to: BOB })],
    blockNumber: await next(),
    replacementUUID: UUID,
  });
  expect((await call('linea_cancelBundle', UUID)).result).toBe(true);
  expect((await call('linea_cancelBundle', UUID)).result).toBe(false);
  await call('evm_mine');
  expect(await minedTxs(2)).toEqual([]);
  expect((await call('linea_cancelBundle', 42)).error).toEqual({
    code: -32602,
    message: 'malformed linea_cancelBundle json param',
  });
});

test("each refusal is the endpoint's, whole, with nothing changed", async () => {
  const tx = await signed({ to: BOB, value: 1n });
  const refused = async (bundle: unknown) => (await call('linea_sendBundle', bundle)).error;
  const before = { head: await head(), pool: (await call('txpool_status')).result };
  expect(await refused({ txs: [tx], blockNumber: '0x0' })).toEqual({
    code: -32602,
    message: 'Bundle block number 0 is not greater than current chain head block number 0',
  });
  expect(await refused({ txs: [tx], blockNumber: '0x1', maxTimestamp: 1 })).toMatchObject({
    code: -32602,
    message: expect.stringMatching(/^Bundle max timestamp 1 is in the past, current timestamp is \d+$/),
  });
  expect(await refused({ txs: [], blockNumber: '0x1' })).toEqual({
    code: -32602,
    message: 'Malformed bundle, no bundle transactions present',
  });
  expect(await refused({ txs: [tx], blockNumber: '0x1', replacementUUID: 'not-a-uuid' })).toEqual({
    code: -32602,
    message: 'Invalid UUID string: not-a-uuid',
  });
  expect(await refused({ txs: [tx, '0x1234'], blockNumber: '0x1' })).toEqual({
    code: -32602,
    message: 'Invalid raw transaction hex (transaction 1)',
  });
  const toPrecompile = await signed({ to: '0x0000000000000000000000000000000000000002', value: 1n });
  expect(await refused({ txs: [toPrecompile], blockNumber: '0x2' })).toEqual({
    code: -32602,
    message: `Invalid transaction in bundle: hash ${keccak256(toPrecompile)}, reason: destination address is a precompile address and cannot receive transactions`,
  });
  expect(await refused({ txs: [tx, tx], blockNumber: '0x3' })).toEqual({
    code: -32602,
    message: `Invalid transaction in bundle: hash ${keccak256(tx)}, reason: a duplicate (transaction 1)`,
  });
  expect(await refused({ txs: 'nope', blockNumber: '0x1' })).toEqual({
    code: -32602,
    message: 'Malformed linea_sendBundle json param',
  });
  const once = { txs: [tx], blockNumber: '0x5' };
  expect((await call('linea_sendBundle', once)).result.bundleHash).toBe(keccak256(tx));
  expect(await refused(once)).toMatchObject({
    code: -32602,
    message: expect.stringMatching(/^request already seen PT[\d.]+S ago$/),
  });
  expect({ head: await head(), pool: (await call('txpool_status')).result }).toEqual(before);
});

test('an expired bundle is never included: past its maxTimestamp, or its block built without it', async () => {
  const now = Number((await call('eth_getBlockByNumber', 'latest', false)).result.timestamp);
  const tx = await signed({ to: BOB, value: 1n });
  await call('linea_sendBundle', { txs: [tx], blockNumber: '0x1', maxTimestamp: now + 100 });
  await call('evm_setNextBlockTimestamp', `0x${(now + 100).toString(16)}`);
  await call('evm_mine');
  expect(await minedTxs(1)).toEqual([]);
  // A bundle for block 3 while block 2 is built: block 3 is built after it is gone.
  const later = await signed({ to: BOB, value: 2n });
  await call('linea_sendBundle', { txs: [later], blockNumber: '0x3', minTimestamp: now + 10_000 });
  await call('evm_mine');
  await call('evm_mine');
  await call('evm_mine');
  expect([...(await minedTxs(2)), ...(await minedTxs(3)), ...(await minedTxs(4))]).toEqual([]);
});
