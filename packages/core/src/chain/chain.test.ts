/** The chain facade: opening a chain (genesis, a data directory, a genesis file), and its defaults. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, concatBytes, hexToBytes, KECCAK256_RLP } from '@ethereumjs/util';

import { artifact, calldata, deploy, FIXTURES, GWEI, send, word } from '../../test/helpers';
import * as engineModule from '../evm/engine';
import { Chain } from './chain';
import { LineLimits } from '../lines/lineLimits';

const ETH = 10n ** 18n;
const COUNTER_COUNT = '0x06661abd';
const COUNTER_SET = '0xd14e62b8';

describe('Chain', () => {
  let chain: Chain;
  beforeEach(async () => {
    chain = await Chain.create({});
  });
  afterEach(async () => {
    await chain.close();
  });

  test('genesis funds the dev accounts and uses the documented defaults', async () => {
    expect(chain.chainId).toBe(31337n);
    expect(chain.hardfork).toBe('osaka');
    expect(chain.headNumber).toBe(0n);
    expect(chain.accounts).toHaveLength(10);
    const genesis = await chain.reads.headBlock();
    expect(genesis.header.gasLimit).toBe(30_000_000n);
    expect(genesis.header.baseFeePerGas).toBe(GWEI);
    expect(genesis.header.transactionsTrie).toEqual(KECCAK256_RLP);
    for (const a of chain.accounts) {
      expect((await chain.reads.getAccount(a.address, 0n)).balance).toBe(10_000n * ETH);
    }
  });
});

test("engine: 'ethereumjs' runs no call and no transaction on the node's own engine, and answers as it does", async () => {
  const runMessage = jest.spyOn(engineModule, 'runMessage');
  try {
    const outcome = async (engine: 'l2devnet' | 'ethereumjs') => {
      const chain = await Chain.create({ engine, workers: 0, timestamp: 1_700_000_000n });
      try {
        runMessage.mockClear();
        const counter = await deploy(chain, 'Counter');
        await send(chain, 0, { to: counter, data: calldata(COUNTER_SET, 7n) });
        const call = await chain.calls.call({ to: counter, data: hexToBytes(COUNTER_COUNT) }, chain.headNumber);
        const { gas } = await chain.calls.estimateGas(
          { to: counter, data: calldata(COUNTER_SET, 9n) },
          chain.headNumber,
        );
        const receipts = (await chain.reads.getReceipts(chain.headNumber)) ?? [];
        return {
          ran: runMessage.mock.calls.length,
          answers: [bytesToHex(call.returnValue), gas, receipts.map((r) => r.cumulativeGasUsed)],
        };
      } finally {
        await chain.close();
      }
    };
    const own = await outcome('l2devnet');
    const reference = await outcome('ethereumjs');
    expect(own.ran).toBeGreaterThan(0);
    expect(reference.ran).toBe(0);
    expect(reference.answers).toEqual(own.answers);
  } finally {
    runMessage.mockRestore();
  }
});

describe('Chain on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'l2devnet-chain-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a restart on the same data dir resumes at the last block with state, receipts and pool', async () => {
    const first = await Chain.create({ dataDir: dir });
    const counter = await deploy(first, 'Counter');
    const hash = await send(first, 0, { to: counter, data: calldata(COUNTER_SET, 7n) });
    first.miner.setMining({ mode: 'manual' });
    const pending = await send(first, 1, { to: first.accounts[2].address, value: 3n, gasLimit: 21_000n });
    const head = first.headNumber;
    const root = (await first.reads.headBlock()).header.stateRoot;
    await first.dev.setFinality({ safe: head, finalized: 1n });
    await first.close();

    const second = await Chain.create({ dataDir: dir, mining: { mode: 'manual' } });
    try {
      expect(second.headNumber).toBe(head);
      expect(await second.reads.resolveNumber({ kind: 'safe' })).toBe(head);
      expect(await second.reads.resolveNumber({ kind: 'finalized' })).toBe(1n);
      expect(bytesToHex((await second.reads.headBlock()).header.stateRoot)).toBe(bytesToHex(root));
      expect(bytesToBigInt(await second.reads.getStorage(counter, new Uint8Array(32), head))).toBe(7n);
      expect((await second.reads.getReceipt(hash))?.receipt.status).toBe(1);
      expect(second.reads.poolSize).toBe(1);
      const block = await second.mine();
      expect(bytesToHex(block.transactions[0].hash())).toBe(bytesToHex(pending));
    } finally {
      await second.close();
    }
  });

  test('a transaction acknowledged under automine but left out of its full block survives a restart', async () => {
    // Three transactions fill a block under these limits (BLOCK_TRANSACTIONS = 3).
    const production = readFileSync(join(FIXTURES, 'limits', 'linea-mainnet.toml'), 'utf8');
    const limits = LineLimits.parse(production.replace(/BLOCK_TRANSACTIONS *= *\d+/, 'BLOCK_TRANSACTIONS = 3'), 'test');
    const first = await Chain.create({ dataDir: dir, lineLimits: limits, mining: { mode: 'manual' } });
    const to = first.accounts[2].address;
    for (let i = 0; i < 4; i++) await send(first, 0, { to, value: 1n, gasLimit: 21_000n });
    first.miner.setMining({ mode: 'auto' });
    const late = await send(first, 0, { to, value: 1n, gasLimit: 21_000n });
    expect(first.headNumber).toBe(1n);
    expect(first.reads.poolSize).toBe(2);
    await first.close();

    const second = await Chain.create({ dataDir: dir, lineLimits: limits, mining: { mode: 'manual' } });
    try {
      expect((await second.reads.getTransaction(late))?.tx.nonce).toBe(4n);
      expect(second.reads.poolSize).toBe(2);
      await second.mine();
      expect((await second.reads.getReceipt(late))?.receipt.status).toBe(1);
    } finally {
      await second.close();
    }
  });

  test('a restart under automine mines the executable transactions its pool kept, as their arrival would have', async () => {
    const first = await Chain.create({ dataDir: dir, mining: { mode: 'manual' } });
    const pending = await send(first, 1, { to: first.accounts[2].address, value: 3n, gasLimit: 21_000n });
    expect(first.headNumber).toBe(0n);
    await first.close();

    const second = await Chain.create({ dataDir: dir });
    try {
      expect(second.headNumber).toBe(1n);
      expect(second.reads.poolSize).toBe(0);
      expect((await second.reads.getReceipt(pending))?.receipt.status).toBe(1);
    } finally {
      await second.close();
    }
  });

  test('a data dir without total difficulties (written before they were kept) gets them summed once at open', async () => {
    const first = await Chain.create({ dataDir: dir, hardfork: 'london', mining: { mode: 'manual' } });
    for (let i = 0; i < 3; i++) await first.mine();
    const totals = [];
    for (let n = 0n; n <= 3n; n++) totals.push(await first.reads.totalDifficulty(n));
    expect(totals[3]).toBeGreaterThan(totals[1]);
    // The rows as an older version left them: none.
    const kv = (first as unknown as { kv: { batch(ops: unknown[]): Promise<void> } }).kv;
    await kv.batch([0n, 1n, 2n, 3n].map((n) => ({ type: 'del', key: Uint8Array.of(0x64, ...word(n).subarray(24)) })));
    await first.close();
    const second = await Chain.create({ dataDir: dir, mining: { mode: 'manual' } });
    try {
      for (let n = 0n; n <= 3n; n++) expect(await second.reads.totalDifficulty(n)).toBe(totals[Number(n)]);
      const next = await second.mine();
      expect(await second.reads.totalDifficulty(4n)).toBe(totals[3] + next.header.difficulty);
    } finally {
      await second.close();
    }
  });

  test('an existing data dir refuses another chain id and keeps its accounts, naming the options it overrides', async () => {
    const first = await Chain.create({ dataDir: dir, chainId: 777n, accounts: 3 });
    await first.close();
    await expect(Chain.create({ dataDir: dir, chainId: 999n })).rejects.toThrow(
      'the chain in this data directory has chain id 777, not 999',
    );
    const second = await Chain.create({ dataDir: dir, chainId: 777n, accounts: 5 });
    try {
      expect(second.chainId).toBe(777n);
      expect(second.accounts).toHaveLength(3);
      expect(second.keptOptions.map((k) => k.option)).toEqual(['accounts']);
    } finally {
      await second.close();
    }
  });
});

describe('Chain from a genesis file', () => {
  test('the DAO fork: its block moves the DAO accounts\' balances to the refund contract, and it and the nine after carry "dao-hard-fork"', async () => {
    const DAO_ACCOUNT = '0xd4fe7bc31cedb7bfb8a345f31e668033056b2728';
    const REFUND = '0xbf4ed7b27f1d666546e30d74d50d173d20bca754';
    // A contract returning the DAO account's balance: PUSH20 account, BALANCE, MSTORE, RETURN 32.
    const PROBE = '0x00000000000000000000000000000000000000b0';
    const genesis = {
      config: { chainId: 1337, homesteadBlock: 0, daoForkBlock: 2, daoForkSupport: true },
      difficulty: '0x20000',
      gasLimit: '0x1c9c380',
      alloc: {
        [DAO_ACCOUNT]: { balance: '0xde0b6b3a7640000' },
        [PROBE]: { code: `0x73${DAO_ACCOUNT.slice(2)}3160005260206000f3` },
        '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266': { balance: '0xde0b6b3a7640000' },
      },
    };
    const source = await Chain.create({ genesis, mining: { mode: 'manual' } });
    const target = await Chain.create({ genesis, mining: { mode: 'manual' } });
    try {
      await source.mine();
      // In the fork block, a transaction reads the balance the drain left: 0, in the block and in its trace.
      const probe = await send(source, 0, { to: hexToBytes(PROBE), gasLimit: 100_000n, gasPrice: GWEI, type: 0 });
      await source.mine();
      const trace = await source.traces.traceTransaction(probe, { tracer: 'callTracer' });
      expect(trace?.tracer === 'callTracer' && bytesToBigInt(trace.frame.output as Uint8Array)).toBe(0n);
      for (let i = 0; i < 10; i++) await source.mine();
      const balance = async (address: string, n: bigint) =>
        (await source.reads.getAccount(hexToBytes(address as `0x${string}`), n)).balance;
      expect(await balance(DAO_ACCOUNT, 1n)).toBe(10n ** 18n);
      expect(await balance(DAO_ACCOUNT, 2n)).toBe(0n);
      expect(await balance(REFUND, 2n)).toBe(10n ** 18n);
      const extra = async (n: bigint) =>
        new TextDecoder().decode((await source.reads.getBlockByNumber(n))!.header.extraData);
      expect([await extra(1n), await extra(2n), await extra(11n), await extra(12n)]).toEqual([
        '',
        'dao-hard-fork',
        'dao-hard-fork',
        '',
      ]);
      // The chain imports into a fresh node: the same blocks.
      const blocks = await source.imports.exportBlocks(0n, 12n);
      await target.imports.importBlocks(concatBytes(...blocks));
      expect(bytesToHex((await target.reads.headBlock()).hash())).toBe(
        bytesToHex((await source.reads.headBlock()).hash()),
      );
      // Without daoForkSupport the chain is the side that did not fork: no drain, no extra data.
      const noFork = await Chain.create({
        genesis: { ...genesis, config: { ...genesis.config, daoForkSupport: false } },
        mining: { mode: 'manual' },
      });
      try {
        for (let i = 0; i < 3; i++) await noFork.mine();
        const dao = await noFork.reads.getAccount(hexToBytes(DAO_ACCOUNT as `0x${string}`), 3n);
        expect(dao.balance).toBe(10n ** 18n);
        expect((await noFork.reads.getBlockByNumber(2n))!.header.extraData).toHaveLength(0);
      } finally {
        await noFork.close();
      }
      // A block in the range without the extra data stops an import, naming the rule.
      const third = RLP.decode(blocks[3]) as unknown as Uint8Array[][];
      third[0][12] = new Uint8Array();
      const other = await Chain.create({ genesis, mining: { mode: 'manual' } });
      try {
        await expect(other.imports.importBlocks(concatBytes(...blocks.slice(0, 3), RLP.encode(third)))).rejects.toThrow(
          "block 3: extraData should be 'dao-hard-fork', got  (hex: 0x)",
        );
        expect(other.headNumber).toBe(2n);
      } finally {
        await other.close();
      }
    } finally {
      await source.close();
      await target.close();
    }
  });

  test("Sepolia's genesis file gives Sepolia's genesis block hash, whatever the case of its field names", async () => {
    const sepolia = JSON.parse(readFileSync(join(FIXTURES, 'chains', 'sepolia.genesis.json'), 'utf8'));
    const hashOf = async (genesis: unknown) => {
      const chain = await Chain.create({ genesis, mining: { mode: 'manual' } });
      try {
        return bytesToHex((await chain.reads.headBlock()).hash());
      } finally {
        await chain.close();
      }
    };
    const SEPOLIA = '0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9';
    expect(await hashOf(sepolia)).toBe(SEPOLIA);
    // geth reads "extradata" as extraData; a changed extra data changes the hash, whatever its case.
    const { extraData, ...rest } = sepolia;
    expect(await hashOf({ ...rest, extradata: extraData })).toBe(SEPOLIA);
    expect(await hashOf({ ...rest, EXTRADATA: '0x01' })).not.toBe(SEPOLIA);
  });

  test('alloc balances, code, storage and nonces are in the genesis state', async () => {
    const counter = artifact('Counter');
    const chain = await Chain.create({
      genesis: {
        config: {
          chainId: 4242,
          homesteadBlock: 0,
          eip150Block: 0,
          eip155Block: 0,
          eip158Block: 0,
          byzantiumBlock: 0,
          constantinopleBlock: 0,
          petersburgBlock: 0,
          istanbulBlock: 0,
          berlinBlock: 0,
          londonBlock: 0,
          mergeNetsplitBlock: 0,
          terminalTotalDifficulty: 0,
          shanghaiTime: 0,
          cancunTime: 0,
          pragueTime: 0,
        },
        gasLimit: '0x1c9c380',
        alloc: {
          '0x1000000000000000000000000000000000000001': { balance: '0x100', nonce: '0x5' },
          '0x2000000000000000000000000000000000000002': {
            balance: '0',
            code: counter.deployedBytecode,
            storage: { '0x00': '0x2a' },
          },
        },
      },
    });
    try {
      expect(chain.chainId).toBe(4242n);
      expect(chain.hardfork).toBe('prague');
      const a = await chain.reads.getAccount(hexToBytes('0x1000000000000000000000000000000000000001'), 0n);
      expect(a).toMatchObject({ balance: 256n, nonce: 5n });
      const c = hexToBytes('0x2000000000000000000000000000000000000002');
      const count = await chain.calls.call({ to: c, data: hexToBytes(COUNTER_COUNT) }, 0n);
      expect(bytesToBigInt(count.returnValue)).toBe(42n);
    } finally {
      await chain.close();
    }
  });

  test('fields geth writes as null are as if left out: the base fee is the initial one', async () => {
    const chain = await Chain.create({
      genesis: {
        config: { chainId: 4343, homesteadBlock: 0, byzantiumBlock: 0, berlinBlock: 0, londonBlock: 0 },
        baseFeePerGas: null,
        excessBlobGas: null,
        blobGasUsed: null,
        number: '0x0',
        gasUsed: '0x0',
        parentHash: `0x${'00'.repeat(32)}`,
        alloc: {},
      },
    });
    try {
      expect(chain.hardfork).toBe('london');
      expect((await chain.reads.headBlock()).header.baseFeePerGas).toBe(GWEI);
    } finally {
      await chain.close();
    }
  });
});
