import { gunzipSync } from 'node:zlib';

import { bytesToHex } from '@ethereumjs/util';

import { ALICE, BOB, CAROL, createTestRpc, deploy, fixtureContract, INCREMENT } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

const WHALE = '0x00000000000000000000000000000000000000aa';
const ONE_ETH = '0xde0b6b3a7640000';

let t: TestRpc;
beforeEach(async () => {
  t = await createTestRpc();
});
afterEach(() => t.close());

describe('time', () => {
  test("evm_increaseTime moves the next block's timestamp", async () => {
    await t.call('evm_mine');
    const before = BigInt((await t.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false)).timestamp);
    // The clock's whole offset, a JSON number, as Anvil answers.
    expect(await t.call('evm_increaseTime', 3600)).toBe(3600);
    expect(await t.call('evm_increaseTime', 60)).toBe(3660);
    await t.call('evm_mine');
    const after = BigInt((await t.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false)).timestamp);
    // The first timestamp may be a second ahead of the clock (timestamps strictly increase).
    expect(after - before).toBeGreaterThanOrEqual(3659n);
    expect(after - before).toBeLessThan(3760n);
  });

  test("evm_setNextBlockTimestamp sets exactly one block's timestamp and refuses the past", async () => {
    const now = BigInt(Math.floor(Date.now() / 1000));
    await t.call('evm_setNextBlockTimestamp', `0x${(now + 86_400n).toString(16)}`);
    await t.call('evm_mine');
    expect(BigInt((await t.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false)).timestamp)).toBe(
      now + 86_400n,
    );
    await t.call('evm_mine');
    expect(BigInt((await t.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false)).timestamp)).toBe(
      now + 86_401n,
    );
    const error = await t.fail('evm_setNextBlockTimestamp', 5);
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^timestamp 5 is not after the latest block's timestamp \d+$/);
  });

  test('anvil_setTime sets the node clock', async () => {
    const target = Math.floor(Date.now() / 1000) + 10 * 86_400;
    // Seconds ahead of the wall clock, a JSON number, as Anvil answers.
    const ahead = await t.call<number>('anvil_setTime', target);
    expect(ahead).toBeGreaterThan(10 * 86_400 - 5);
    expect(ahead).toBeLessThanOrEqual(10 * 86_400);
    await t.call('evm_mine');
    const ts = Number((await t.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false)).timestamp);
    expect(ts).toBeGreaterThanOrEqual(target);
    expect(ts).toBeLessThan(target + 60);
  });
});

describe('snapshots', () => {
  test('evm_revert restores balances, nonces, block number, logs and receipts; ids are single-use', async () => {
    const address = await deploy(t, fixtureContract('Counter').bytecode);
    const id = await t.call<string>('evm_snapshot');
    // Anvil's first snapshot id.
    expect(id).toBe('0x0');
    const balance = await t.call('eth_getBalance', BOB, 'latest');
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: address, data: INCREMENT });
    await t.call('eth_sendTransaction', { from: ALICE, to: BOB, value: ONE_ETH });
    await t.call('evm_increaseTime', 1000);
    const second = await t.call<string>('evm_snapshot');
    expect(await t.call('eth_blockNumber')).toBe('0x3');
    expect(await t.call<unknown[]>('eth_getLogs', { fromBlock: '0x0', address })).toHaveLength(1);

    expect(await t.call('evm_revert', id)).toBe(true);
    expect(await t.call('eth_blockNumber')).toBe('0x1');
    expect(await t.call('eth_getBalance', BOB, 'latest')).toBe(balance);
    expect(await t.call('eth_getTransactionCount', ALICE, 'latest')).toBe('0x1');
    expect(await t.call('eth_getTransactionReceipt', hash)).toBeNull();
    expect(await t.call('eth_getTransactionByHash', hash)).toBeNull();
    expect(await t.call('eth_getLogs', { fromBlock: '0x0', address })).toEqual([]);
    expect(await t.call('eth_getBlockByNumber', '0x2', false)).toBeNull();
    expect(t.chain.clock.offset).toBe(0);
    expect(await t.call('evm_revert', id)).toBe(false);
    expect(await t.call('evm_revert', second)).toBe(false);
    // The chain goes on from the snapshot.
    const again = await t.call<string>('eth_sendTransaction', { from: ALICE, to: address, data: INCREMENT });
    expect((await t.call<{ blockNumber: string }>('eth_getTransactionReceipt', again)).blockNumber).toBe('0x2');
  });

  test('a revert also restores the pool', async () => {
    await t.call('evm_setAutomine', false);
    const kept = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    const id = await t.call<string>('evm_snapshot');
    await t.call('eth_sendTransaction', { from: BOB, to: ALICE, value: '0x1' });
    await t.call('evm_revert', id);
    expect(await t.call('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    await t.call('evm_mine');
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', kept)).status).toBe('0x1');
  });
});

describe('accounts', () => {
  test('anvil_setBalance, setNonce, setCode and setStorageAt edit the head state (and hardhat_ names alias them)', async () => {
    await t.call('anvil_setBalance', WHALE, ONE_ETH);
    expect(await t.call('eth_getBalance', WHALE, 'latest')).toBe(ONE_ETH);
    await t.call('hardhat_setBalance', WHALE, '0x2');
    expect(await t.call('eth_getBalance', WHALE, 'latest')).toBe('0x2');
    await t.call('anvil_setNonce', WHALE, '0x7');
    expect(await t.call('eth_getTransactionCount', WHALE, 'latest')).toBe('0x7');
    const code = (await t.call<string>(
      'eth_getCode',
      await deploy(t, fixtureContract('Counter').bytecode),
      'latest',
    )) as string;
    await t.call('anvil_setCode', CAROL, code);
    expect(await t.call('eth_getCode', CAROL, 'latest')).toBe(code);
    await t.call('anvil_setStorageAt', CAROL, '0x0', `0x${'0'.repeat(62)}2a`);
    expect(await t.call('eth_call', { from: ALICE, to: CAROL, data: '0x06661abd' }, 'latest')).toBe(
      `0x${'0'.repeat(62)}2a`,
    );
    // A block keeps the edits; the state before the edits stays readable at older blocks.
    await t.call('evm_mine');
    expect(await t.call('eth_getBalance', WHALE, 'latest')).toBe('0x2');
    expect(await t.call('eth_getBalance', WHALE, '0x0')).toBe('0x0');
  });

  test('an impersonated account sends without a key until impersonation stops', async () => {
    await t.call('anvil_setBalance', WHALE, ONE_ETH);
    expect((await t.fail('eth_sendTransaction', { from: WHALE, to: BOB, value: '0x5' })).message).toBe(
      `unknown account ${WHALE}`,
    );
    await t.call('anvil_impersonateAccount', WHALE);
    const hash = await t.call<string>('eth_sendTransaction', { from: WHALE, to: BOB, value: '0x5' });
    const receipt = await t.call<{ from: string; status: string }>('eth_getTransactionReceipt', hash);
    expect(receipt).toMatchObject({ from: WHALE, status: '0x1' });
    expect((await t.call<{ from: string }>('eth_getTransactionByHash', hash)).from).toBe(WHALE);
    await t.call('hardhat_stopImpersonatingAccount', WHALE);
    expect((await t.fail('eth_sendTransaction', { from: WHALE, to: BOB, value: '0x5' })).code).toBe(-32000);
  });
});

describe('review cases', () => {
  test('an impersonated contract cannot send (EIP-3607): the error comes back instead of a hash', async () => {
    const address = await deploy(t, fixtureContract('Counter').bytecode);
    await t.call('anvil_setBalance', address, ONE_ETH);
    await t.call('anvil_impersonateAccount', address);
    const error = await t.fail('eth_sendTransaction', { from: address, to: BOB, value: '0x1', gas: '0x5208' });
    expect(error.code).toBe(-32000);
    expect(error.message).toMatch(/^invalid transaction: .*EIP-3607/);
    expect(await t.call('eth_blockNumber')).toBe('0x1');
  });

  test('eth_sendTransaction with gas above the EIP-7825 cap is refused as a raw one is, not an internal error', async () => {
    const error = await t.fail('eth_sendTransaction', { from: ALICE, to: BOB, gas: '0x1c9c380' });
    expect(error).toMatchObject({
      code: -32000,
      message: 'exceeds transaction gas limit cap: gas 30000000, limit 16777216',
    });
    expect(await t.call('eth_blockNumber')).toBe('0x0');
    expect(await t.call('eth_sendTransaction', { from: ALICE, to: BOB, gas: '0x1000000' })).toMatch(/^0x[0-9a-f]{64}$/);
  });

  test('eth_sendTransaction that ethereumjs would refuse to construct is an invalid transaction, not an internal error', async () => {
    const tip = await t.fail('eth_sendTransaction', {
      from: ALICE,
      to: BOB,
      gas: '0x5208',
      maxFeePerGas: '0x1',
      maxPriorityFeePerGas: '0x2',
    });
    expect(tip).toMatchObject({ code: -32000 });
    expect(tip.message).toMatch(/^max priority fee per gas higher than max fee per gas/);
    const initcode = await t.fail('eth_sendTransaction', {
      from: ALICE,
      data: `0x${'00'.repeat(50_000)}`,
      gas: '0xf00000',
    });
    expect(initcode).toMatchObject({ code: -32000 });
    expect(initcode.message).toMatch(/initcode size .* too large/);
    expect(await t.call('eth_blockNumber')).toBe('0x0');
  });

  test('parallel eth_sendTransaction from one account get consecutive nonces', async () => {
    await t.call('evm_setAutomine', false);
    const hashes = await Promise.all(
      Array.from({ length: 5 }, () => t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' })),
    );
    expect(new Set(hashes).size).toBe(5);
    await t.call('evm_mine');
    const block = await t.call<{ transactions: string[] }>('eth_getBlockByNumber', 'latest', false);
    expect(block.transactions).toHaveLength(5);
  });

  test('a snapshot of blocks a rollback dropped cannot be reverted to', async () => {
    await t.call('evm_mine');
    await t.call('evm_mine');
    const id = await t.call<string>('evm_snapshot');
    await t.call('anvil_rollback', 1);
    expect(await t.call('evm_revert', id)).toBe(false);
    expect(await t.call('eth_blockNumber')).toBe('0x1');
  });

  test('a transaction priced under a raised base fee waits instead of being dropped', async () => {
    await t.call('evm_setAutomine', false);
    const hash = await t.call<string>('eth_sendTransaction', {
      from: ALICE,
      to: BOB,
      value: '0x1',
      maxFeePerGas: '0x77359400',
      maxPriorityFeePerGas: '0x3b9aca00',
    });
    await t.call('anvil_setNextBlockBaseFeePerGas', '0xe8d4a51000');
    await t.call('evm_mine');
    expect(await t.call('eth_getTransactionReceipt', hash)).toBeNull();
    expect(await t.call('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    await t.call('anvil_setNextBlockBaseFeePerGas', '0x1');
    await t.call('evm_mine');
    expect((await t.call<{ status: string }>('eth_getTransactionReceipt', hash)).status).toBe('0x1');
  });
});

describe('chain', () => {
  test('anvil_rollback drops the last blocks and their transactions', async () => {
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    await t.call('evm_mine');
    await t.call('anvil_rollback', 2);
    expect(await t.call('eth_blockNumber')).toBe('0x0');
    expect(await t.call('eth_getTransactionReceipt', hash)).toBeNull();
    expect((await t.fail('anvil_rollback', 5)).message).toBe('cannot roll back 5 blocks from block 0');
  });

  test('anvil_reorg replaces blocks, with new transactions in them', async () => {
    const address = await deploy(t, fixtureContract('Counter').bytecode);
    const old = await t.call<string>('eth_sendTransaction', { from: ALICE, to: address, data: INCREMENT });
    const oldBlock = await t.call<{ hash: string }>('eth_getBlockByNumber', 'latest', false);
    await t.call('anvil_reorg', 1, [[{ from: BOB, to: CAROL, value: '0x9', nonce: '0x0' }, 0]]);
    expect(await t.call('eth_blockNumber')).toBe('0x2');
    const newBlock = await t.call<{ hash: string; transactions: string[] }>('eth_getBlockByNumber', 'latest', false);
    expect(newBlock.hash).not.toBe(oldBlock.hash);
    expect(newBlock.transactions).toHaveLength(1);
    expect(await t.call('eth_getTransactionReceipt', old)).toBeNull();
    expect(await t.call('eth_getStorageAt', address, '0x0', 'latest')).toBe(`0x${'0'.repeat(64)}`);
  });
});

test('a proof-of-work dev chain (london): blocks have their canonical difficulty, the miner its reward, and the total difficulty adds up across a rollback', async () => {
  const pow = await createTestRpc({ hardfork: 'london' });
  try {
    type B = { number: string; difficulty: string; totalDifficulty: string; miner: string };
    const get = (tag: string) => pow.call<B>('eth_getBlockByNumber', tag, false);
    for (let i = 0; i < 3; i++) await pow.call('evm_mine');
    await pow.call('anvil_rollback', 1);
    await pow.call('evm_mine');
    let total = 0n;
    for (let n = 0; n <= 3; n++) {
      const b = await get(`0x${n}`);
      total += BigInt(b.difficulty);
      expect(BigInt(b.totalDifficulty)).toBe(total);
      if (n > 0) expect(BigInt(b.difficulty)).toBeGreaterThanOrEqual(131_072n);
    }
    const head = await get('latest');
    // London's block reward, 2 ETH, for each of the three empty blocks.
    expect(BigInt(await pow.call<string>('eth_getBalance', head.miner, 'latest'))).toBe(3n * 2n * 10n ** 18n);
  } finally {
    await pow.close();
  }
});

describe('finality', () => {
  test('l2_setFinality sets safe and finalized, keeps them as blocks are mined, and null goes back to depths', async () => {
    for (let i = 0; i < 3; i++) await t.call('evm_mine');
    const head = BigInt(await t.call<string>('eth_blockNumber'));
    const finalized = async () =>
      BigInt((await t.call<{ number: string }>('eth_getBlockByNumber', 'finalized', false)).number);
    expect(await t.call('l2_setFinality', { safe: `0x${(head - 1n).toString(16)}`, finalized: '0x1' })).toBe(true);
    await t.call('evm_mine');
    expect(await finalized()).toBe(1n);
    const receipts = await t.call<unknown[]>('eth_getBlockReceipts', 'safe');
    expect(receipts).toEqual(await t.call('eth_getBlockReceipts', `0x${(head - 1n).toString(16)}`));
    // A rollback below safe brings safe down to the new head, for good: the block it named is gone.
    await t.call('anvil_rollback', 3);
    const rolledBack = BigInt(await t.call<string>('eth_blockNumber'));
    expect(rolledBack).toBe(head - 2n);
    expect(await finalized()).toBe(1n);
    await t.call('evm_mine');
    await t.call('evm_mine');
    // What NUMBER reads in a call at a tag ("safe" is taken by eth_call): the block the tag stands for.
    const numberAt = async (tag: string) =>
      BigInt(
        await t.call<string>('eth_call', { from: ALICE, to: '0x00000000000000000000000000000000000000c0' }, tag, {
          '0x00000000000000000000000000000000000000c0': { code: '0x4360005260206000f3' },
        }),
      );
    expect(await numberAt(`0x${rolledBack.toString(16)}`)).toBe(rolledBack);
    expect(await numberAt('safe')).toBe(rolledBack);
    expect(await numberAt('latest')).toBe(rolledBack + 2n);
    expect(await t.call('l2_setFinality', null)).toBe(true);
    expect(await finalized()).toBe(0n); // the default depth, 64, is past genesis
  });

  test.each([
    [[{ safe: '0x1' }], -32602, 'param 1 (finality) must be an object with safe and finalized block numbers'],
    [[{ safe: '0x1', finalized: '0x2', head: '0x3' }], -32602, 'param 1 (finality.head) must be absent'],
    [['0x1'], -32602, 'param 1 (finality) must be an object'],
    [[], -32602, 'missing required param 1 (finality)'],
    [[{ safe: '0x1', finalized: '0x2' }], -32602, 'finalized (2) must not be after safe (1)'],
    [[{ safe: '0xffff', finalized: '0x0' }], -32602, 'nor safe after the head'],
  ])('l2_setFinality%j is refused with a clear error', async (params, code, message) => {
    const before = await t.call('eth_getBlockByNumber', 'finalized', false);
    const error = await t.fail('l2_setFinality', ...params);
    expect(error.message).toContain(message);
    expect(error.code).toBe(code);
    // Nothing changed, and the node answers.
    expect(await t.call('eth_getBlockByNumber', 'finalized', false)).toEqual(before);
  });
});

describe('anvil_setChainId', () => {
  test('a chain without transactions takes another id: eth_chainId, CHAINID, and transactions signed for it', async () => {
    expect(await t.call('anvil_setChainId', 1234)).toBeNull();
    expect(await t.call('eth_chainId')).toBe('0x4d2');
    expect(await t.call('net_version')).toBe('1234');
    // CHAINID, MSTORE at 0, RETURN 32 bytes, in a call (on the main thread: the workers' chains keep the old id).
    await t.call('anvil_setCode', CAROL, '0x4660005260206000f3');
    expect(BigInt(await t.call<string>('eth_call', { from: ALICE, to: CAROL }, 'latest'))).toBe(1234n);
    const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    const tx = await t.call<{ chainId: string }>('eth_getTransactionByHash', hash);
    expect(tx.chainId).toBe('0x4d2');
    expect(await t.call('eth_getTransactionReceipt', hash)).toMatchObject({ status: '0x1' });
    // Now the chain holds a transaction signed for 1234: another id is refused, the chain as it was.
    expect(await t.fail('anvil_setChainId', 5)).toEqual({
      code: -32602,
      message:
        'the chain id can change only before the chain holds a transaction (it has one signed for 1234); start a node with --chain-id 5, or anvil_reset first',
    });
    expect(await t.call('eth_chainId')).toBe('0x4d2');
    expect(await t.fail('anvil_setChainId', 0)).toMatchObject({ code: -32602 });
  });
});

describe('state dump and block configuration', () => {
  test("anvil_dumpState answers Anvil's dump (gzipped JSON), and anvil_loadState round-trips it onto an empty node", async () => {
    const address = await deploy(t, fixtureContract('Counter').bytecode);
    await t.call('eth_sendTransaction', { from: ALICE, to: address, data: INCREMENT });
    await t.call('anvil_setBalance', WHALE, ONE_ETH);
    const blob = await t.call<string>('anvil_dumpState');
    const dump = JSON.parse(gunzipSync(Buffer.from(blob.slice(2), 'hex')).toString('utf8'));
    expect(Object.keys(dump)).toEqual([
      'block',
      'accounts',
      'best_block_number',
      'blocks',
      'transactions',
      'historical_states',
    ]);
    expect(dump.best_block_number).toBe(2);
    expect(dump.block).toMatchObject({ number: '0x2', gas_limit: 30_000_000, slot_num: 0 });
    expect(dump.accounts[WHALE]).toEqual({ nonce: 0, balance: ONE_ETH, code: '0x', storage: {} });
    expect(dump.accounts[address].storage).toEqual({ [`0x${'0'.repeat(64)}`]: `0x${'0'.repeat(63)}1` });
    const fresh = await createTestRpc({ accounts: 0 });
    try {
      expect(await fresh.call('anvil_loadState', blob)).toBe(true);
      expect(await fresh.call('eth_getBalance', WHALE, 'latest')).toBe(ONE_ETH);
      expect(await fresh.call('eth_call', { from: ALICE, to: address, data: '0x06661abd' }, 'latest')).toBe(
        `0x${'0'.repeat(63)}1`,
      );
      // The same accounts and slots: the fresh node's state dumps to the same accounts (its block is its own).
      const again = await fresh.call<string>('anvil_dumpState');
      expect(JSON.parse(gunzipSync(Buffer.from(again.slice(2), 'hex')).toString('utf8')).accounts).toEqual(
        dump.accounts,
      );
      // The same tries: the same root node at the head (a block mined on each would differ: its
      // system-contract writes carry each chain's own parent hash and time).
      const rootOf = async (n: TestRpc) =>
        (await n.call<{ accountProof: string[] }>('eth_getProof', WHALE, [], 'latest')).accountProof[0];
      expect(await rootOf(fresh)).toBe(await rootOf(t));
    } finally {
      await fresh.close();
    }
  });

  test("a state merged from this node's own blob (hashed keys only) dumps as that blob, which alone is whole", async () => {
    await t.call('anvil_setBalance', WHALE, ONE_ETH);
    const own = bytesToHex(await t.chain.dev.dumpState());
    const fresh = await createTestRpc({ accounts: 0 });
    try {
      expect(await fresh.call('anvil_loadState', own)).toBe(true);
      expect(await fresh.call('eth_getBalance', WHALE, 'latest')).toBe(ONE_ETH);
      expect(await fresh.call('anvil_dumpState')).toBe(own);
    } finally {
      await fresh.close();
    }
  });

  test('anvil_loadState merges into the state there is, as Anvil: accounts and slots it does not name stay', async () => {
    const SLOT_1 = `0x${'0'.repeat(63)}1`;
    const SLOT_2 = `0x${'0'.repeat(63)}2`;
    const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    await t.call('anvil_setStorageAt', WHALE, SLOT_1, word(11));
    await t.call('anvil_setBalance', WHALE, ONE_ETH);
    const blob = await t.call<string>('anvil_dumpState');
    const other = await createTestRpc({
      mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    });
    try {
      const own = (await other.call<string[]>('eth_accounts'))[0];
      await other.call('anvil_setStorageAt', WHALE, SLOT_1, word(1));
      await other.call('anvil_setStorageAt', WHALE, SLOT_2, word(22));
      await other.call('anvil_setBalance', CAROL, '0x5');
      expect(await other.call('anvil_loadState', blob)).toBe(true);
      // From the dump: balances, and the slot it holds (over the one there was).
      expect(await other.call('eth_getBalance', WHALE, 'latest')).toBe(ONE_ETH);
      expect(await other.call('eth_getBalance', ALICE, 'latest')).toBe(await t.call('eth_getBalance', ALICE, 'latest'));
      expect(await other.call('eth_getStorageAt', WHALE, SLOT_1, 'latest')).toBe(word(11));
      // Kept: a slot, an account and a dev account the dump does not name.
      expect(await other.call('eth_getStorageAt', WHALE, SLOT_2, 'latest')).toBe(word(22));
      expect(await other.call('eth_getBalance', own, 'latest')).toBe('0x21e19e0c9bab2400000');
      // CAROL is in both: the dump's balance wins.
      expect(await other.call('eth_getBalance', CAROL, 'latest')).toBe(await t.call('eth_getBalance', CAROL, 'latest'));
      // The merged state is the head state: a block mined on it keeps it.
      await other.call('evm_mine');
      expect(await other.call('eth_getStorageAt', WHALE, SLOT_2, 'latest')).toBe(word(22));
      const proof = await other.call<{ storageProof: { value: string }[] }>(
        'eth_getProof',
        WHALE,
        [SLOT_1, SLOT_2],
        'latest',
      );
      expect(proof.storageProof.map((p) => p.value)).toEqual(['0xb', '0x16']);
    } finally {
      await other.close();
    }
  });

  test('block gas limit, next base fee, minimum gas price and coinbase', async () => {
    expect(await t.call('evm_setBlockGasLimit', '0x1000000')).toBe(true);
    await t.call('anvil_setNextBlockBaseFeePerGas', '0x7');
    await t.call('anvil_setCoinbase', CAROL);
    await t.call('evm_mine');
    const block = await t.call<{ gasLimit: string; baseFeePerGas: string; miner: string }>(
      'eth_getBlockByNumber',
      'latest',
      false,
    );
    expect(block).toMatchObject({ gasLimit: '0x1000000', baseFeePerGas: '0x7', miner: CAROL });
    await t.call('anvil_setMinGasPrice', '0xe8d4a51000');
    expect(
      await t.fail('eth_sendTransaction', {
        from: ALICE,
        to: BOB,
        maxFeePerGas: '0x3b9aca00',
        maxPriorityFeePerGas: '0x3b9aca00',
      }),
    ).toEqual({
      code: -32000,
      message: 'transaction underpriced: gas price 1000000000, minimum needed 1000000000000',
    });
    const info = await t.call<Record<string, unknown>>('anvil_nodeInfo');
    expect(info).toEqual({
      currentBlockNumber: '0x1',
      currentBlockTimestamp: expect.any(Number),
      currentBlockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      hardFork: 'Osaka',
      transactionOrder: 'fees',
      environment: {
        baseFee: await t.call('eth_baseFee'),
        chainId: 31337,
        gasLimit: '0x1000000',
        gasPrice: await t.call('eth_gasPrice'),
      },
      forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
    });
  });
});

describe('values no chain can hold', () => {
  const U64 = 1n << 64n;
  const hexOf = (n: bigint) => `0x${n.toString(16)}`;
  test.each([
    [
      'evm_setNextBlockTimestamp',
      [hexOf(U64)],
      'param 1 (timestamp) must be below 2^64 (a block timestamp is a uint64)',
    ],
    ['evm_mine', [hexOf(U64)], 'param 1 (options) must be below 2^64 (a block timestamp is a uint64)'],
    [
      'evm_mine',
      [{ timestamp: hexOf(U64), blocks: 1 }],
      'param 1 (options.timestamp) must be below 2^64 (a block timestamp is a uint64)',
    ],
    ['anvil_mine', ['0x2', hexOf(U64)], 'param 2 (interval) must be below 2^64 (a block timestamp is a uint64)'],
    ['anvil_setNonce', [ALICE, hexOf(U64 - 1n)], 'param 2 (nonce) must be below 2^64-1 (EIP-2681)'],
    ['hardhat_setNonce', [ALICE, hexOf(U64)], 'param 2 (nonce) must be below 2^64-1 (EIP-2681)'],
    ['evm_setAccountNonce', [ALICE, hexOf(U64)], 'param 2 (nonce) must be below 2^64-1 (EIP-2681)'],
    ['evm_setBlockGasLimit', [hexOf(1n << 63n)], 'param 1 (gasLimit) must be below 2^63 (EIP-1985: at most 2^63-1)'],
  ])('%s %j is refused with -32602 naming the bound, and changes nothing', async (method, params, message) => {
    const head = await t.call<{ hash: string; timestamp: string }>('eth_getBlockByNumber', 'latest', false);
    const nonce = await t.call('eth_getTransactionCount', ALICE, 'latest');
    const error = await t.fail(method, ...params);
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(new RegExp(`^invalid params: ${message.replace(/[()^]/g, '\\$&')}; got `));
    expect((await t.call<{ hash: string }>('eth_getBlockByNumber', 'latest', false)).hash).toBe(head.hash);
    expect(await t.call('eth_getTransactionCount', ALICE, 'latest')).toBe(nonce);
  });

  test('the largest values that fit are taken', async () => {
    expect(await t.call('anvil_setNonce', ALICE, hexOf(U64 - 2n))).toBeNull();
    expect(await t.call('eth_getTransactionCount', ALICE, 'latest')).toBe(hexOf(U64 - 2n));
    expect(await t.call('evm_setBlockGasLimit', hexOf((1n << 63n) - 1n))).toBe(true);
    expect(await t.call('evm_setNextBlockTimestamp', hexOf(U64 - 1n))).toBeNull();
    await t.call('evm_mine');
    expect((await t.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false)).timestamp).toBe(
      hexOf(U64 - 1n),
    );
  });

  test.each([
    ['evm_increaseTime', [hexOf((1n << 256n) - 1n)], 'param 1 (seconds) must keep node time below 2^53 ms'],
    ['evm_increaseTime', [hexOf(10n ** 13n)], 'param 1 (seconds) must keep node time below 2^53 ms'],
    ['anvil_setTime', [hexOf(U64)], 'param 1 (timestamp) must keep node time below 2^53 ms'],
  ])('%s %j cannot move the node clock past its range', async (method, params, message) => {
    const offset = t.chain.clock.offset;
    expect((await t.fail(method, ...params)).message).toContain(`invalid params: ${message}`);
    expect(t.chain.clock.offset).toBe(offset);
    await t.call('evm_mine');
    const { timestamp } = await t.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false);
    expect(BigInt(timestamp)).toBeLessThan(U64);
  });
});
