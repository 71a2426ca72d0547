/**
 * A chain through every fork from Homestead to Osaka and two blob-parameter-only forks
 * (fixtures/chains, rebuilt by scripts/fork-chain.js) imports into a fresh node from its genesis
 * file, and every block, transaction and receipt answers in its own fork's shape, as geth's do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, concatBytes } from '@ethereumjs/util';

import { chainWithOmmer } from '../../core/test/helpers';

import { createTestRpc } from './helpers';
import type { TestRpc } from './helpers';

const DIR = join(__dirname, '..', '..', '..', 'fixtures', 'chains');
const genesis = JSON.parse(readFileSync(join(DIR, 'forks.genesis.json'), 'utf8'));
const file = new Uint8Array(readFileSync(join(DIR, 'forks.rlp')));
const HEAD = 18;
const ETHER = 10n ** 18n;

// The first block of each fork in the file's schedule (see scripts/fork-chain.js).
const BYZANTIUM = 4;
const CONSTANTINOPLE = 5;
const BERLIN = 7;
const LONDON = 8;
const MERGE = 10;
const SHANGHAI = 12;
const CANCUN = 13;
const PRAGUE = 14;

type Json = Record<string, unknown>;
let t: TestRpc;

beforeAll(async () => {
  t = await createTestRpc({ genesis, mining: { mode: 'manual' } });
  const result = await t.chain.imports.importBlocks(file);
  expect(result).toMatchObject({ imported: HEAD, skipped: 1 });
});
afterAll(() => t.close());

const block = (n: number) => t.call<Json>('eth_getBlockByNumber', `0x${n.toString(16)}`, true);
const receipts = (n: number) => t.call<Json[]>('eth_getBlockReceipts', `0x${n.toString(16)}`);
const has = (o: Json, key: string) => Object.prototype.hasOwnProperty.call(o, key);

test('the genesis block is the file genesis, and the head is the file last block', async () => {
  const [first] = await Promise.all([block(0)]);
  expect(first.difficulty).toBe('0x20000');
  expect(first.totalDifficulty).toBe('0x20000');
  expect(first.nonce).toBe('0x0000000000000042');
  expect(first.extraData).toBe('0x666f726b73');
  expect(has(first, 'baseFeePerGas')).toBe(false);
  expect(await t.call('eth_blockNumber')).toBe(`0x${HEAD.toString(16)}`);
});

test.each(Array.from({ length: HEAD }, (_, i) => i + 1))('block %i has the fields of its fork', async (n) => {
  const b = await block(n);
  expect(has(b, 'baseFeePerGas')).toBe(n >= LONDON);
  expect(has(b, 'withdrawals')).toBe(n >= SHANGHAI);
  expect(has(b, 'withdrawalsRoot')).toBe(n >= SHANGHAI);
  for (const key of ['blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot']) expect(has(b, key)).toBe(n >= CANCUN);
  expect(has(b, 'requestsHash')).toBe(n >= PRAGUE);
  // Proof of work before the merge: a canonical difficulty; none after. The total is the sum.
  expect(BigInt(b.difficulty as string) > 0n).toBe(n < MERGE);
  const parent = await block(n - 1);
  expect(BigInt(b.totalDifficulty as string)).toBe(
    BigInt(parent.totalDifficulty as string) + BigInt(b.difficulty as string),
  );
  if (n >= MERGE) expect(Number(b.totalDifficulty)).toBe(genesis.config.terminalTotalDifficulty);
  if (n >= CANCUN) expect(BigInt(b.blobGasUsed as string)).toBe(131_072n);

  const txs = b.transactions as Json[];
  const types = txs.map((tx) => Number(tx.type));
  const newest = n >= LONDON ? 2 : n >= BERLIN ? 1 : 0;
  expect(types.slice(0, 2)).toEqual([newest, newest]);
  if (n >= CANCUN) expect(types[2]).toBe(3);
  if (n === PRAGUE) expect(types[3]).toBe(4);
  if (n === 15) expect(types[3]).toBe(2); // the withdrawal request
  for (const tx of txs) {
    // Before Spurious Dragon (block 3) transactions are not replay-protected: no chain id.
    if (tx.type === '0x0') expect(has(tx, 'chainId')).toBe(n >= 3);
    if (tx.type === '0x3') {
      expect(tx.blobVersionedHashes).toHaveLength(1);
      expect(tx.maxFeePerBlobGas).toBe('0x64');
    }
    if (tx.type === '0x4') expect(tx.authorizationList).toHaveLength(1);
  }

  const rs = await receipts(n);
  expect(rs).toHaveLength(txs.length);
  for (const [i, r] of rs.entries()) {
    // Before Byzantium a receipt carries the post-transaction state root instead of a status.
    expect(has(r, 'root')).toBe(n < BYZANTIUM);
    expect(has(r, 'status')).toBe(n >= BYZANTIUM);
    if (n >= BYZANTIUM) expect(r.status).toBe('0x1');
    expect(has(r, 'blobGasUsed')).toBe(r.type === '0x3');
    // From Cancun every receipt carries its block's blob gas price, as Anvil's (geth's: a blob transaction's).
    expect(has(r, 'blobGasPrice')).toBe(n >= CANCUN);
    expect(r.transactionHash).toBe(txs[i].hash);
  }
  // The contract's log in every block after the one that deploys it.
  expect((rs[0].logs as Json[]).length).toBe(n === 1 ? 0 : 1);
});

test("a withdrawal request (EIP-7002) is in its block's requests hash; blocks without requests hash none", async () => {
  const EMPTY = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'; // sha256 of nothing
  expect((await block(PRAGUE)).requestsHash).toBe(EMPTY);
  const withRequest = await block(15);
  expect(withRequest.requestsHash).not.toBe(EMPTY);
  const request = (await receipts(15))[3];
  expect(request).toMatchObject({ to: '0x00000961ef480eb55e80d19ad83579a64c007002', status: '0x1' });
  // The queue's system call took it out: the next block has none.
  expect((await block(16)).requestsHash).toBe(EMPTY);
});

test('proof-of-work blocks pay the miner its fork reward and the fees; proof-of-stake blocks only the tips', async () => {
  const coinbase = '0x0000000000000000000000000000000000000000';
  const balance = async (n: number) => BigInt(await t.call<string>('eth_getBalance', coinbase, `0x${n.toString(16)}`));
  const fees = async (n: number, baseFee: bigint) =>
    (await receipts(n)).reduce(
      (sum, r) => sum + BigInt(r.gasUsed as string) * (BigInt(r.effectiveGasPrice as string) - baseFee),
      0n,
    );
  const reward = (n: number) => (n < BYZANTIUM ? 5n : n < CONSTANTINOPLE ? 3n : n < MERGE ? 2n : 0n) * ETHER;
  for (const n of [1, BYZANTIUM, CONSTANTINOPLE, LONDON, MERGE, PRAGUE]) {
    const b = await block(n);
    const baseFee = b.baseFeePerGas === undefined ? 0n : BigInt(b.baseFeePerGas as string);
    expect((await balance(n)) - (await balance(n - 1))).toBe(reward(n) + (await fees(n, baseFee)));
  }
});

test('the system contracts hold what the blocks wrote: beacon roots from Cancun, block hashes from Prague', async () => {
  const slot = (n: bigint) => `0x${n.toString(16)}`;
  const at = `0x${HEAD.toString(16)}`;
  const head = await block(HEAD);
  const time = BigInt(head.timestamp as string);
  // EIP-4788: the timestamp at its ring-buffer slot.
  expect(
    BigInt(
      await t.call<string>('eth_getStorageAt', '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02', slot(time % 8191n), at),
    ),
  ).toBe(time);
  // EIP-2935: each block from Prague on stores its parent's hash at (number - 1) % 8191.
  const parent = await block(HEAD - 1);
  expect(
    await t.call('eth_getStorageAt', '0x0000F90827F1C53a10cb7A02335B175320002935', slot(BigInt(HEAD - 1)), at),
  ).toBe(parent.hash);
  // Before Prague nothing was written: the slot of block PRAGUE - 2 is empty.
  expect(
    await t.call('eth_getStorageAt', '0x0000F90827F1C53a10cb7A02335B175320002935', slot(BigInt(PRAGUE - 2)), at),
  ).toBe(`0x${'00'.repeat(32)}`);
});

test('the imported chain exports to the same file', async () => {
  const out = await t.chain.imports.exportBlocks(0n, BigInt(HEAD));
  expect(Buffer.concat(out).equals(Buffer.from(file))).toBe(true);
});

test.each([
  ['difficulty', 7, 7, (d: bigint) => d + 1n],
  ['baseFeePerGas', 9, 15, (b: bigint) => b + 1n],
  ['excessBlobGas', 16, 18, (x: bigint) => x + 131_072n],
])('a block whose %s breaks the header rules stops the import, naming it', async (field, number, index, change) => {
  // The file's blocks, one RLP list each; change one header field of one block.
  const blocks: Uint8Array[][] = [];
  let rest = file;
  while (rest.length > 0) {
    const { data, remainder } = RLP.decode(rest, true) as unknown as { data: Uint8Array[]; remainder: Uint8Array };
    blocks.push(data);
    rest = remainder;
  }
  const header = blocks[number][0] as unknown as Uint8Array[];
  const before = bytesToBigInt(header[index]);
  header[index] = bigIntToUnpaddedBytes(change(before));
  const fresh = await createTestRpc({ genesis, mining: { mode: 'manual' } });
  try {
    await expect(fresh.chain.imports.importBlocks(concatBytes(...blocks.map((b) => RLP.encode(b))))).rejects.toThrow(
      `block ${number}: ${field} is ${change(before)} in the block, ${before} by the rules`,
    );
    // The blocks before it stay.
    expect(fresh.chain.headNumber).toBe(BigInt(number - 1));
  } finally {
    await fresh.close();
  }
});

test('eth_config: the current, next and last fork by the schedule, with their blob schedules and system contracts', async () => {
  type Config = { activationTime: number; blobSchedule: unknown; forkId: string; systemContracts: Json };
  const configs = (rpc: TestRpc) =>
    rpc.call<{ current: Config | null; next: Config | null; last: Config | null }>('eth_config');
  // At the head (BPO2): nothing is scheduled after it.
  const head = await configs(t);
  expect(head.current).toMatchObject({
    activationTime: genesis.config.bpo2Time,
    blobSchedule: { target: 14, max: 21, baseFeeUpdateFraction: 11684671 },
    systemContracts: { HISTORY_STORAGE_ADDRESS: '0x0000f90827f1c53a10cb7a02335b175320002935' },
  });
  expect(head.next).toBeNull();
  expect(head.last).toBeNull();
  // At genesis, before Shanghai: no current fork with a time; next Shanghai, last BPO2.
  const fresh = await createTestRpc({ genesis, mining: { mode: 'manual' } });
  try {
    const start = await configs(fresh);
    expect(start.current).toBeNull();
    expect(start.next).toMatchObject({
      activationTime: genesis.config.shanghaiTime,
      blobSchedule: null,
      systemContracts: {},
    });
    expect(start.last).toEqual(head.current);
    expect(start.next!.forkId).not.toBe(head.current!.forkId);
  } finally {
    await fresh.close();
  }
});

test('a proof-of-work block with an ommer: listed in the block, counted, and answered by eth_getUncleBy*', async () => {
  const made = await chainWithOmmer();
  const pow = await createTestRpc({ genesis: made.genesis, mining: { mode: 'manual' } });
  try {
    await pow.chain.imports.importBlocks(made.file);
    const ommerHash = bytesToHex(made.ommer.hash());
    const b = await pow.call<Json>('eth_getBlockByNumber', '0x2', false);
    expect(b.uncles).toEqual([ommerHash]);
    expect(await pow.call('eth_getUncleCountByBlockNumber', '0x2')).toBe('0x1');
    expect(await pow.call('eth_getUncleCountByBlockHash', b.hash)).toBe('0x1');
    expect(await pow.call('eth_getUncleCountByBlockNumber', '0x1')).toBe('0x0');
    const ommer = await pow.call<Json>('eth_getUncleByBlockNumberAndIndex', '0x2', '0x0');
    expect(ommer).toMatchObject({
      hash: ommerHash,
      number: '0x1',
      miner: '0x00000000000000000000000000000000000000bb',
    });
    expect(await pow.call('eth_getUncleByBlockHashAndIndex', b.hash, '0x0')).toEqual(ommer);
    expect(await pow.call('eth_getUncleByBlockNumberAndIndex', '0x2', '0x1')).toBeNull();
  } finally {
    await pow.close();
  }
});

test.each(Array.from({ length: HEAD }, (_, i) => i + 1))(
  'every transaction of block %i traces with the struct logger and the call tracer, as its receipt says it ran',
  async (n) => {
    const at = `0x${n.toString(16)}`;
    const rs = await receipts(n);
    type Struct = {
      txHash: string;
      result: { gas: number; failed: boolean; structLogs: { op: string; depth: number; error?: string }[] };
    };
    const structs = await t.call<Struct[]>('debug_traceBlockByNumber', at, {});
    const calls = await t.call<{ txHash: string; result: { gasUsed: string; error?: string } }[]>(
      'debug_traceBlockByNumber',
      at,
      { tracer: 'callTracer' },
    );
    expect(structs.map((s) => s.txHash)).toEqual(rs.map((r) => r.transactionHash));
    for (const [i, r] of rs.entries()) {
      const { result } = structs[i];
      expect(result.gas).toBe(Number(r.gasUsed));
      expect(result.failed).toBe(r.status === '0x0');
      // A frame ends on the instruction that ends it, on the STOP after its code, or on a fault.
      for (const [j, log] of result.structLogs.entries()) {
        const next = result.structLogs[j + 1];
        if ((next === undefined || next.depth < log.depth) && log.error === undefined)
          expect(['STOP', 'RETURN', 'REVERT', 'SELFDESTRUCT', 'INVALID']).toContain(log.op);
      }
      expect(calls[i].result.gasUsed).toBe(r.gasUsed);
      expect(calls[i].result.error === undefined).toBe(r.status !== '0x0');
      expect(await t.call('debug_traceTransaction', r.transactionHash, {})).toEqual(result);
    }
  },
);
