/**
 * Linea's sequencer rules beyond line counts (core/src/pool/sequencerRules.ts), seen from viem and
 * ethers: each refusal in the sequencer's words with nothing changed (head, pool, nonce), and what
 * its block-building selectors leave for a later block or drop.
 */
import { createBlob4844Tx, createFeeMarket1559Tx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 as keccak } from 'ethereum-cryptography/keccak';
import { secp256k1 } from 'ethereum-cryptography/secp256k1';
import { join } from 'node:path';

import {
  LineLimits,
  compressedSize,
  parseEventFilters,
  compressorInput,
  decodeExtraData,
  encodeExtraData,
  LINEA_MAINNET_PRICING,
  profitablePriorityFee,
} from '@l2devnet/core';
import { JsonRpcProvider, Wallet } from 'ethers';
import { createPublicClient, createWalletClient, http } from 'viem';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

import { ALICE_KEY, BOB } from '../../rpc/test/flows';
import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

const rpc = (method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id: 1, method, params });
const SHA256 = '0x0000000000000000000000000000000000000002';
const ALICE_ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

async function call(node: TestNode, method: string, params: unknown[] = []): Promise<any> {
  const { json } = await node.post(rpc(method, params));
  return json;
}

/** The head, the pool and Alice's nonce: what a refusal must leave as it was. */
async function snapshot(node: TestNode, address: string) {
  return {
    head: (await call(node, 'eth_blockNumber')).result,
    pool: (await call(node, 'txpool_status')).result,
    nonce: (await call(node, 'eth_getTransactionCount', [address, 'pending'])).result,
  };
}

describe("a dev chain follows Linea's rules at submission", () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ chain: { sequencerRules: { maxTxGasLimit: 3_000_000n } } });
  });
  afterAll(() => node.close());

  test('viem: calldata over 60,000 bytes, a precompile recipient and a gas limit over the maximum are refused in the words of the pool validators', async () => {
    const account = privateKeyToAccount(ALICE_KEY);
    const transport = http(`${node.url}/`);
    const wallet = createWalletClient({ chain: foundry, transport, account });
    const publicClient = createPublicClient({ chain: foundry, transport });
    const before = await snapshot(node, account.address);
    const refusal = (e: unknown) => (e as { details?: string }).details;

    const big = `0x${'01'.repeat(60_001)}` as Hex;
    const calldata = await wallet.sendTransaction({ to: BOB, data: big, gas: 2_500_000n }).catch(refusal);
    expect(calldata).toBe('Calldata of transaction is greater than the allowed max of 60000');
    const precompile = await wallet.sendTransaction({ to: SHA256, value: 1n, gas: 30_000n }).catch(refusal);
    expect(precompile).toBe('destination address is a precompile address and cannot receive transactions');
    const gas = await wallet.sendTransaction({ to: BOB, value: 1n, gas: 3_000_001n }).catch(refusal);
    expect(gas).toBe('Gas limit of transaction is greater than the allowed max of 3000000');
    expect(await snapshot(node, account.address)).toEqual(before);

    // At the limits, accepted and mined.
    const hash = await wallet.sendTransaction({ to: BOB, data: `0x${'01'.repeat(60_000)}` as Hex, gas: 3_000_000n });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
  });

  test('ethers: a blob transaction is refused as the type validator refuses it', async () => {
    const provider = new JsonRpcProvider(`${node.url}/`, undefined, { cacheTimeout: -1, staticNetwork: true });
    const wallet = new Wallet(ALICE_KEY, provider);
    const before = await snapshot(node, wallet.address);
    const blob = createBlob4844Tx(
      {
        to: BOB,
        blobsData: ['no blobs on Linea'],
        maxFeePerBlobGas: 10n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 21_000n,
        chainId: 31337n,
        nonce: BigInt(before.nonce),
      },
      { common: node.chain.common },
    ).sign(hexToBytes(ALICE_KEY));
    await expect(provider.broadcastTransaction(bytesToHex(blob.serializeNetworkWrapper()))).rejects.toMatchObject({
      error: { code: -32000, message: 'TransactionTypeValidation - BLOB_TX_NOT_ALLOWED' },
    });
    expect(await snapshot(node, wallet.address)).toEqual(before);
    provider.destroy();
  });
});

describe("Linea's block-building selectors", () => {
  let node: TestNode;
  const start = async (rules: Record<string, unknown>) => {
    node = await startTestNode({ chain: { mining: { mode: 'manual' }, sequencerRules: rules } });
  };
  afterEach(() => node.close());

  const send = async (tx: Record<string, unknown>) =>
    (await call(node, 'eth_sendTransaction', [{ from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', ...tx }])).result;
  const blockTxs = async (n: string) => (await call(node, 'eth_getBlockByNumber', [n, false])).result.transactions;

  test("a transaction past the block's calldata waits for the next block (BLOCK_CALLDATA_OVERFLOW)", async () => {
    await start({ maxBlockCalldataSize: 100 });
    const first = await send({ to: BOB, data: `0x${'01'.repeat(60)}` });
    const second = await send({ to: BOB, data: `0x${'01'.repeat(60)}` });
    await call(node, 'evm_mine');
    expect(await blockTxs('0x1')).toEqual([first]);
    expect((await call(node, 'txpool_status')).result).toEqual({ pending: '0x1', queued: '0x0' });
    await call(node, 'evm_mine');
    expect(await blockTxs('0x2')).toEqual([second]);
  });

  test('the user gas of a block: past what is left waits (TX_TOO_LARGE_FOR_REMAINING_USER_GAS), past all of it is dropped (TX_GAS_EXCEEDS_USER_MAX_BLOCK_GAS)', async () => {
    await start({ maxBlockGas: 60_000n });
    const a = await send({ to: BOB, value: '0x1' });
    const b = await send({ to: BOB, value: '0x1' });
    const c = await send({ to: BOB, value: '0x1' });
    await call(node, 'evm_mine');
    expect(await blockTxs('0x1')).toEqual([a, b]);
    await call(node, 'evm_mine');
    expect(await blockTxs('0x2')).toEqual([c]);
    // A deployment that uses more gas than a block's transactions may: never mined, gone from the pool.
    const heavy = await send({ data: `0x${'00'.repeat(4_000)}60006000f3`, gas: '0x30d40' });
    await call(node, 'evm_mine');
    expect(await blockTxs('0x3')).toEqual([]);
    expect((await call(node, 'txpool_status')).result).toEqual({ pending: '0x0', queued: '0x0' });
    expect((await call(node, 'eth_getTransactionReceipt', [heavy])).result).toBeNull();
  });
});

test("Ethereum's rules: off on request, and on a chain from a genesis file", async () => {
  const transfer = [{ from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: SHA256, value: '0x1' }];
  const off = await startTestNode({ chain: { sequencerRules: false } });
  try {
    expect(off.chain.sequencerRules).toBeUndefined();
    const hash = (await call(off, 'eth_sendTransaction', transfer)).result;
    expect((await call(off, 'eth_getTransactionReceipt', [hash])).result.status).toBe('0x1');
  } finally {
    await off.close();
  }
  const genesis = {
    config: { chainId: 1337, londonBlock: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 0, osakaTime: 0 },
    alloc: {},
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
  };
  const ethereum = await startTestNode({ chain: { genesis } });
  try {
    expect(ethereum.chain.sequencerRules).toBeUndefined();
  } finally {
    await ethereum.close();
  }
});

describe('profitability and pricing (extra data, linea_setExtraData, linea_estimateGas)', () => {
  let node: TestNode;
  beforeEach(async () => {
    node = await startTestNode();
  });
  afterEach(() => node.close());

  const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
  /** A transfer from Alice (or `key`'s account) on `on`, paying `tip` over the next base fee, signed. */
  async function transfer(tip: bigint, gasLimit = 21_000n, on = node, key: Hex = ALICE_KEY) {
    const from = privateKeyToAccount(key).address;
    const nonce = BigInt((await call(on, 'eth_getTransactionCount', [from, 'pending'])).result);
    return createFeeMarket1559Tx(
      { nonce, to: BOB, value: 1n, gasLimit, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: tip, chainId: 31337n },
      { common: on.chain.common },
    ).sign(hexToBytes(key));
  }
  /** The tip the sequencer wants of `tx` at `margin` and `gas`, by the formula of TransactionProfitabilityCalculator. */
  function wanted(tx: TypedTransaction, margin: number, gas: bigint, pricing = LINEA_MAINNET_PRICING): bigint {
    const size = compressedSize(compressorInput(tx, tx.getSenderAddress().bytes));
    return profitablePriorityFee(pricing, margin, gas, size);
  }
  /** The pool's refusal of an unprofitable `tx`: Linea's words, and the tip that would be taken and mined (margin 1.0). */
  function tooLow(tx: TypedTransaction, pricing = LINEA_MAINNET_PRICING): string {
    const tip = wanted(tx, 1.0, tx.gasLimit, pricing);
    return `Gas price too low: this transaction needs a priority fee of at least ${tip} wei per gas (linea_estimateGas answers one)`;
  }

  test('ethers: a tip under the pool margin is "Gas price too low"; at it, the transaction is taken, at the selection margin mined; blocks carry the pricing', async () => {
    const provider = new JsonRpcProvider(`${node.url}/`, undefined, { cacheTimeout: -1, staticNetwork: true });
    const before = await snapshot(node, ALICE);
    const oneWei = await transfer(1n);
    await expect(provider.broadcastTransaction(bytesToHex(oneWei.serialize()))).rejects.toMatchObject({
      error: { code: -32000, message: tooLow(oneWei) },
    });
    expect(await snapshot(node, ALICE)).toEqual(before);
    // 0.8 × (10,000,000 × size / 21,000 + 30,000,000): the pool's margin, at the gas limit.
    const probe = await transfer(24_000_000n);
    const tip = wanted(probe, 0.8, 21_000n);
    expect(tip).toBeGreaterThanOrEqual(24_000_000n);
    const under = await transfer(tip - 1n);
    expect(wanted(under, 0.8, 21_000n)).toBe(tip);
    await expect(provider.broadcastTransaction(bytesToHex(under.serialize()))).rejects.toMatchObject({
      error: { message: tooLow(under) },
    });
    // Taken at the pool's margin; mined at the selection's (1.0, at the gas used).
    const taken = await provider.broadcastTransaction(bytesToHex((await transfer(tip)).serialize()));
    expect(taken.hash).toMatch(/^0x/);
    await call(node, 'anvil_dropTransaction', [taken.hash]);
    const paying = await transfer(wanted(await transfer(30_000_000n), 1.0, 21_000n));
    const receipt = await (await provider.broadcastTransaction(bytesToHex(paying.serialize()))).wait();
    expect(receipt?.status).toBe(1);
    // Version 1: fixed cost 30,000 kWei, variable cost 10,000 kWei, L1 gas price 10,000 kWei.
    const block = (await call(node, 'eth_getBlockByNumber', ['latest', false])).result;
    expect(block.extraData).toBe(`0x01${'00007530'}${'00002710'}${'00002710'}${'00'.repeat(19)}`);
    provider.destroy();
  });

  test('a priority sender (--tx-pool-priority-senders) is not priced at submission or in the block, and goes first whatever others pay', async () => {
    const priority = await startTestNode({
      chain: { prioritySenders: [hexToBytes(ALICE)], mining: { mode: 'manual' } },
    });
    try {
      const send = async (key: Hex, tip: bigint) => {
        const tx = await transfer(tip, 21_000n, priority, key);
        return { tx, ...(await call(priority, 'eth_sendRawTransaction', [bytesToHex(tx.serialize())])) };
      };
      // Alice's 1-wei tip, which the sequencer refuses of anyone else (the test above), is taken.
      const cheap = await send(ALICE_KEY, 1n);
      expect(cheap.error).toBeUndefined();
      const CAROL_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
      const refused = await send(CAROL_KEY, 1n);
      expect(refused.error).toEqual({ code: -32000, message: tooLow(refused.tx) });
      const dear = await send(CAROL_KEY, 10n ** 10n);
      expect(dear.error).toBeUndefined();
      await call(priority, 'evm_mine');
      const block = (await call(priority, 'eth_getBlockByNumber', ['latest', false])).result;
      expect(block.transactions).toEqual([cheap.result, dear.result]);
    } finally {
      await priority.close();
    }
  });

  test("linea_setExtraData changes the pricing of what is sent and of the blocks; its refusals are the endpoint's", async () => {
    const dearer = { fixedCostWei: 300_000_000n, variableCostWei: 10_000_000n, ethGasPriceWei: 10_000_000n };
    expect((await call(node, 'linea_setExtraData', [bytesToHex(encodeExtraData(dearer))])).result).toBe(true);
    const cheap = await transfer(wanted(await transfer(30_000_000n), 0.8, 21_000n));
    expect((await call(node, 'eth_sendRawTransaction', [bytesToHex(cheap.serialize())])).error).toEqual({
      code: -32000,
      message: tooLow(cheap, dearer),
    });
    const dear = await transfer(wanted(await transfer(300_000_000n), 1.0, 21_000n, dearer));
    const hash = (await call(node, 'eth_sendRawTransaction', [bytesToHex(dear.serialize())])).result;
    const receipt = (await call(node, 'eth_getTransactionReceipt', [hash])).result;
    const block = (await call(node, 'eth_getBlockByHash', [receipt.blockHash, false])).result;
    expect(decodeExtraData(hexToBytes(block.extraData))).toEqual(dearer);
    expect((await call(node, 'linea_setExtraData', [`0x01${'00'.repeat(32)}`])).error).toEqual({
      code: -32602,
      message: 'Expected 32 bytes but got 33',
    });
    expect((await call(node, 'linea_setExtraData', [`0x${'00'.repeat(32)}`])).error).toEqual({
      code: -32602,
      message: `Unsupported extra data field 0x${'00'.repeat(32)}`,
    });
  });

  test('viem: linea_estimateGas answers the profitable tip at the estimate margin, which the pool takes', async () => {
    const publicClient = createPublicClient({ chain: foundry, transport: http(`${node.url}/`) });
    const estimate = (await publicClient.request({
      method: 'linea_estimateGas',
      params: [{ from: ALICE, to: BOB, value: '0x1' }],
    } as never)) as { gasLimit: Hex; baseFeePerGas: Hex; priorityFeePerGas: Hex };
    expect(estimate.gasLimit).toBe('0x5208');
    const tip = BigInt(estimate.priorityFeePerGas);
    // 1.2 × (10,000,000 × size / 21,000 + 30,000,000) for a size of whole 32-byte words.
    const sizes = [32, 64, 96, 128, 160, 192, 224, 256];
    expect(sizes.map((s) => profitablePriorityFee(LINEA_MAINNET_PRICING, 1.2, 21_000n, s))).toContain(tip);
    const wallet = createWalletClient({
      chain: foundry,
      transport: http(`${node.url}/`),
      account: privateKeyToAccount(ALICE_KEY),
    });
    const hash = await wallet.sendTransaction({ to: BOB, value: 1n, maxPriorityFeePerGas: tip, gas: 21_000n });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
  });

  test('in block building, a transaction unprofitable at the selection margin waits in the pool (TX_UNPROFITABLE_UPFRONT)', async () => {
    await call(node, 'evm_setAutomine', [false]);
    // Taken at the pool's margin (0.8), short of the selection's (1.0).
    const probe = await transfer(24_000_000n);
    const tx = await transfer(wanted(probe, 0.8, 21_000n));
    expect(wanted(tx, 1.0, 21_000n)).toBeGreaterThan(tx.maxPriorityFeePerGas);
    const hash = (await call(node, 'eth_sendRawTransaction', [bytesToHex(tx.serialize())])).result;
    await call(node, 'evm_mine');
    expect((await call(node, 'eth_getTransactionReceipt', [hash])).result).toBeNull();
    expect((await call(node, 'txpool_status')).result).toEqual({ pending: '0x1', queued: '0x0' });
  });
});

describe("Linea's EVM differences, read by contracts", () => {
  let node: TestNode;
  beforeAll(async () => {
    // The line limits Linea ships for mainnet, as the command loads them by default.
    const limits = LineLimits.fromFile(
      join(__dirname, '..', '..', '..', 'fixtures', 'limits', 'linea-mainnet.toml'),
      'osaka',
    );
    node = await startTestNode({ chain: { lineLimits: limits } });
  });
  afterAll(() => node.close());
  const READER = '0x00000000000000000000000000000000000e0001';
  const CALLER = '0x00000000000000000000000000000000000e0002';

  test("BASEFEE stops at 7 wei, BLOBHASH is 0, BLOBBASEFEE the minimum, PREVRANDAO by Maru's formula, COINBASE the block's", async () => {
    // BASEFEE, BLOBHASH(0), BLOBBASEFEE, PREVRANDAO, COINBASE into memory, returned as five words.
    await call(node, 'anvil_setCode', [READER, '0x485f525f496020524a604052446060524160805260a05ff3']);
    await call(node, 'anvil_setNextBlockBaseFeePerGas', ['0x8']);
    for (let i = 0; i < 4; i++) await call(node, 'evm_mine');
    const block = (await call(node, 'eth_getBlockByNumber', ['latest', false])).result;
    const parent = (await call(node, 'eth_getBlockByNumber', [`0x${(Number(block.number) - 1).toString(16)}`, false]))
      .result;
    // With a fee cap, as geth: a call without one sees a zero BASEFEE.
    const read = { from: ALICE_ADDRESS, to: READER, maxFeePerGas: '0x3b9aca00' };
    const words = (await call(node, 'eth_call', [read, 'latest'])).result.slice(2).match(/.{64}/g);
    expect(BigInt(`0x${words[0]}`)).toBe(7n);
    expect(block.baseFeePerGas).toBe('0x7');
    expect(BigInt(`0x${words[1]}`)).toBe(0n);
    expect(BigInt(`0x${words[2]}`)).toBe(1n);
    expect(`0x${words[3]}`).toBe(block.mixHash);
    expect(`0x${words[4].slice(24)}`).toBe(block.miner);
    // parent XOR keccak(sign(node key, bytes32(number))), recomputed here with another secp256k1 library.
    const key = keccak(new TextEncoder().encode('l2devnet sequencer node key'));
    const sig = secp256k1.sign(hexToBytes(`0x${BigInt(block.number).toString(16).padStart(64, '0')}`), key);
    const encoded = new Uint8Array([...sig.toCompactRawBytes(), sig.recovery]);
    const mix = keccak(encoded);
    const parentMix = hexToBytes(parent.mixHash);
    expect(block.mixHash).toBe(bytesToHex(parentMix.map((b, i) => b ^ mix[i])));
  });

  test('RIPEMD-160 and BLAKE2f are not served: a transaction calling them is refused by their zero line limits', async () => {
    // STATICCALL(gas, 0x03, 0, 1, 0, 32): one byte to RIPEMD-160.
    await call(node, 'anvil_setCode', [CALLER, '0x602060006001600060035afa00']);
    const ripemd = await call(node, 'eth_sendTransaction', [{ from: ALICE_ADDRESS, to: CALLER }]);
    expect(ripemd.error.code).toBe(-32000);
    expect(ripemd.error.message).toMatch(/line count for module PRECOMPILE_RIPEMD_BLOCKS=\d+ is above the limit 0$/);
    // STATICCALL(gas, 0x09, 0, 213, 0, 64): BLAKE2f with 0 rounds.
    await call(node, 'anvil_setCode', [CALLER, '0x6040600060d5600060095afa00']);
    const blake = await call(node, 'eth_sendTransaction', [{ from: ALICE_ADDRESS, to: CALLER }]);
    expect(blake.error.code).toBe(-32000);
    expect(blake.error.message).toMatch(/line count for module PRECOMPILE_BLAKE_[A-Z_]+=\d+ is above the limit 0$/);
  });
});

test('an event on the deny list keeps its transaction out of blocks and the pool (DENIED_LOG_TOPIC)', async () => {
  const EMITTER = '0x00000000000000000000000000000000000e0003';
  const topic = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  const deniedEvents = parseEventFilters(`${EMITTER},${topic(1)},,,\n\n`);
  const node = await startTestNode({ chain: { mining: { mode: 'manual' }, sequencerRules: { deniedEvents } } });
  try {
    // LOG1(0, 0, topic), with the topic first pushed as a 32-byte word.
    const emit = (n: number) => `0x7f${topic(n).slice(2)}60006000a100`;
    const send = async () =>
      (await call(node, 'eth_sendTransaction', [{ from: ALICE_ADDRESS, to: EMITTER, gas: '0x10000' }])).result;
    await call(node, 'anvil_setCode', [EMITTER, emit(1)]);
    const denied = await send();
    await call(node, 'evm_mine');
    expect((await call(node, 'eth_getTransactionReceipt', [denied])).result).toBeNull();
    expect((await call(node, 'txpool_status')).result).toEqual({ pending: '0x0', queued: '0x0' });
    await call(node, 'anvil_setCode', [EMITTER, emit(2)]);
    const other = await send();
    await call(node, 'evm_mine');
    expect((await call(node, 'eth_getTransactionReceipt', [other])).result.status).toBe('0x1');
  } finally {
    await node.close();
  }
  expect(() => parseEventFilters('0x01,0x02')).toThrow(
    'Invalid transaction event filter line: 0x01,0x02. Expected format: address,topic0,topic1,topic2,topic3',
  );
});
