import { join } from 'node:path';

import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import { LineLimits } from '@l2devnet/core';
import type { ChainOptions } from '@l2devnet/core';

import { BOB, CAROL, createTestRpc } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

const PRODUCTION = LineLimits.fromFile(
  join(__dirname, '..', '..', '..', '..', 'fixtures', 'limits', 'linea-mainnet.toml'),
);

let t: TestRpc | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function node(opts: ChainOptions = {}): Promise<TestRpc> {
  t = await createTestRpc({ lineLimits: PRODUCTION, ...opts });
  return t;
}

/** A transfer signed by dev account 1, at `nonce` (its next one by default), with its hash. */
async function transfer(n: TestRpc, nonce?: bigint, value = 1n): Promise<{ raw: string; hash: string }> {
  const next = nonce ?? BigInt(await n.call<string>('eth_getTransactionCount', BOB, 'pending'));
  const tx = createFeeMarket1559Tx(
    { nonce: next, to: CAROL, value, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
    { common: n.chain.common },
  ).sign(n.chain.accounts[1].privateKey);
  return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
}

test('answers with the receipt of the block that took it: automine at once, interval mining on the next block', async () => {
  const auto = await node();
  const { raw, hash } = await transfer(auto);
  const receipt = await auto.call<{ transactionHash: string; status: string; blockNumber: string }>(
    'eth_sendRawTransactionSync',
    raw,
  );
  expect(receipt).toMatchObject({ transactionHash: hash, status: '0x1', blockNumber: '0x1' });
  expect(receipt).toEqual(await auto.call('eth_getTransactionReceipt', hash));
  await auto.close();

  const interval = await node({ mining: { mode: 'interval', intervalMs: 200 } });
  const second = await transfer(interval);
  const started = Date.now();
  const mined = await interval.call<{ transactionHash: string }>('eth_sendRawTransactionSync', second.raw, 5_000);
  expect(mined.transactionHash).toBe(second.hash);
  expect(Date.now() - started).toBeLessThan(1_000);
});

test('error 4 with the hash when no block takes it within the timeout; it stays pending', async () => {
  const manual = await node({ mining: { mode: 'manual' } });
  const { raw, hash } = await transfer(manual);
  expect(await manual.fail('eth_sendRawTransactionSync', raw, '0x64')).toEqual({
    code: 4,
    message: "The transaction was added to the mempool but wasn't processed in 0.1s.",
    data: hash,
  });
  expect(await manual.call('eth_getTransactionByHash', hash)).toMatchObject({ hash, blockNumber: null });
});

test('error 5 at once for a transaction behind a nonce gap', async () => {
  const auto = await node();
  const { raw, hash } = await transfer(auto, 5n);
  const started = Date.now();
  expect(await auto.fail('eth_sendRawTransactionSync', raw)).toEqual({
    code: 5,
    message:
      "The transaction was added to the mempool but wasn't processed due to a missing nonce or insufficient funds. Please double-check your account and try again.",
    data: hash,
  });
  expect(Date.now() - started).toBeLessThan(1_000);
});

test('an exclusion is answered at once, at either stage', async () => {
  const auto = await node();
  await auto.call('l2_forceExclusion', { from: BOB, module: 'MUL', count: 7 });
  const excluded = await transfer(auto);
  expect(await auto.fail('eth_sendRawTransactionSync', excluded.raw)).toEqual({
    code: -32000,
    message: `Transaction line count for module MUL=7 is above the limit ${PRODUCTION.limits.MUL}`,
    data: excluded.hash,
  });
  await auto.call('l2_setLineLimits', { RLP_TXN: 10 });
  // Its nonce stayed free; another value, so not the hash the sequencer remembers.
  const refused = await transfer(auto, undefined, 2n);
  expect((await auto.fail('eth_sendRawTransactionSync', refused.raw)).message).toMatch(
    new RegExp(`^Transaction ${refused.hash} line count for module RLP_TXN=\\d+ is above the limit 10$`),
  );
});
