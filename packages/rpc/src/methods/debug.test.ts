import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import zlib from 'node:zlib';

import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes, toChecksumAddress } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak';

import { ALICE, BOB, createTestRpc, withTestRpc } from '../../test/helpers';
import type { TestRpc } from '../../test/helpers';

const counter = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', '..', 'fixtures', 'contracts', 'Counter.json'), 'utf8'),
) as { bytecode: string };
const keccak = (hex: string) => bytesToHex(keccak256(hexToBytes(hex as `0x${string}`)));

let t: TestRpc;
let block: { hash: string; number: string; receiptsRoot: string; transactions: string[] };
beforeAll(async () => {
  t = await createTestRpc({ mining: { mode: 'manual' } });
  const deploy = await t.call<string>('eth_sendTransaction', { from: ALICE, data: counter.bytecode });
  await t.call('eth_sendTransaction', { from: BOB, to: ALICE, value: '0x5', type: '0x0', gasPrice: '0x77359400' });
  await t.call('evm_mine');
  block = await t.call('eth_getBlockByNumber', 'latest', false);
  expect(block.transactions).toHaveLength(2);
  const address = (await t.call<{ contractAddress: string }>('eth_getTransactionReceipt', deploy)).contractAddress;
  await t.call('eth_sendTransaction', { from: ALICE, to: address, data: '0xd09de08a' }); // pending
});
afterAll(() => t.close());

test('debug_getRawHeader hashes to the block hash, for every way of naming the block', async () => {
  for (const ref of ['latest', block.number, block.hash, { blockHash: block.hash }, { blockNumber: block.number }]) {
    expect(keccak(await t.call<string>('debug_getRawHeader', ref))).toBe(block.hash);
  }
});

test('debug_getRawBlock holds that header and the block transactions', async () => {
  const raw = await t.call<string>('debug_getRawBlock', block.number);
  const [header, txs] = RLP.decode(hexToBytes(raw as `0x${string}`)) as unknown as [Uint8Array[], unknown[]];
  expect(bytesToHex(keccak256(RLP.encode(header)))).toBe(block.hash);
  expect(txs).toHaveLength(2);
});

test('debug_getRawReceipts are the leaves of the block receipts trie', async () => {
  const raw = await t.call<string[]>('debug_getRawReceipts', block.hash);
  expect(raw).toHaveLength(2);
  // An EIP-1559 receipt starts with its type byte; a legacy one is a plain RLP list.
  for (let i = 0; i < raw.length; i++) {
    const { type } = await t.call<{ type: string }>('eth_getTransactionByHash', block.transactions[i]);
    if (type === '0x2') expect(raw[i].slice(0, 4)).toBe('0x02');
    if (type === '0x0') expect(Number.parseInt(raw[i].slice(2, 4), 16)).toBeGreaterThanOrEqual(0xc0);
  }
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < raw.length; i++) await trie.put(RLP.encode(i), hexToBytes(raw[i] as `0x${string}`));
  expect(bytesToHex(trie.root())).toBe(block.receiptsRoot);
  expect(await t.call('debug_getRawReceipts', '0x0')).toEqual([]);
});

test('debug_getRawTransaction encodes mined and pending transactions; "0x" for an unknown hash, as geth', async () => {
  const pending = await t.call<{ transactions: string[] }>('eth_getBlockByNumber', 'pending', false);
  for (const hash of [...block.transactions, ...pending.transactions]) {
    expect(keccak(await t.call<string>('debug_getRawTransaction', hash))).toBe(hash);
  }
  expect(await t.call('debug_getRawTransaction', `0x${'11'.repeat(32)}`)).toBe('0x');
});

test('an unknown block is "header not found"; a bad one is invalid params', async () => {
  for (const method of ['debug_getRawHeader', 'debug_getRawBlock', 'debug_getRawReceipts']) {
    expect(await t.fail(method, '0x99')).toEqual({ code: -32000, message: 'header not found' });
    expect(await t.fail(method, `0x${'22'.repeat(32)}`)).toEqual({ code: -32000, message: 'header not found' });
    expect((await t.fail(method, '0xzz')).code).toBe(-32602);
  }
});

test('eth_baseFee is the next block base fee, as the pending block has it; 0 before London', async () => {
  const next = await t.call<string>('eth_baseFee');
  expect(BigInt(next)).toBeGreaterThan(0n);
  expect(next).toBe((await t.call<{ baseFeePerGas: string }>('eth_getBlockByNumber', 'pending', false)).baseFeePerGas);
  await t.call('anvil_setNextBlockBaseFeePerGas', '0x7');
  expect(await t.call('eth_baseFee')).toBe('0x7');
  await withTestRpc({ hardfork: 'berlin' }, async (old) => {
    expect(await old.call('eth_baseFee')).toBe('0x0');
  });
});

test('eth_blobBaseFee is the next block blob base fee: the minimum, 1 wei, with no blobs; 0 before Cancun', async () => {
  expect(await t.call('eth_blobBaseFee')).toBe('0x1');
  await withTestRpc({ hardfork: 'london' }, async (london) => {
    expect(await london.call('eth_blobBaseFee')).toBe('0x0');
  });
});

test('eth_getStorageValues reads many slots of many accounts at a block, within geth limits', async () => {
  const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  const A = '0x00000000000000000000000000000000000000a1';
  const B = '0x00000000000000000000000000000000000000b2';
  await t.call('anvil_setStorageAt', A, word(1), word(11));
  await t.call('anvil_setStorageAt', B, word(2), word(22));
  await t.call('evm_mine');
  const before = await t.call<string>('eth_blockNumber');
  await t.call('anvil_setStorageAt', A, word(1), word(12));
  await t.call('evm_mine');
  expect(await t.call('eth_getStorageValues', { [A]: [word(1), word(3)], [B]: [word(2)] }, 'latest')).toEqual({
    [A]: [word(12), word(0)],
    [B]: [word(22)],
  });
  expect(await t.call('eth_getStorageValues', { [A]: [word(1)] }, before)).toEqual({ [A]: [word(11)] });
  const many = Array.from({ length: 1_025 }, (_, i) => word(i));
  expect(await t.fail('eth_getStorageValues', { [A]: many.slice(0, 600), [B]: many.slice(600) }, 'latest')).toEqual({
    code: -38026,
    message: 'too many slots (max 1024)',
  });
  expect(await t.fail('eth_getStorageValues', { [A]: [] }, 'latest')).toEqual({
    code: -32602,
    message: 'empty request',
  });
  expect((await t.fail('eth_getStorageValues', { [A]: ['0x1'] }, 'latest')).code).toBe(-32602);
});

test('eth_config on a dev chain: its one fork from genesis, the fork id the genesis hash alone (EIP-2124)', async () => {
  const config = await t.call<{ current: Record<string, unknown>; next: null; last: null }>('eth_config');
  const genesisHash = (await t.call<{ hash: string }>('eth_getBlockByNumber', '0x0', false)).hash;
  const crc = zlib.crc32(Buffer.from(genesisHash.slice(2), 'hex')) >>> 0;
  expect(config).toEqual({
    current: {
      activationTime: 0,
      blobSchedule: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      chainId: '0x7a69',
      forkId: `0x${crc.toString(16).padStart(8, '0')}`,
      precompiles: expect.objectContaining({
        ECREC: '0x0000000000000000000000000000000000000001',
        P256VERIFY: '0x0000000000000000000000000000000000000100',
      }),
      systemContracts: {
        BEACON_ROOTS_ADDRESS: '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
        HISTORY_STORAGE_ADDRESS: '0x0000f90827f1c53a10cb7a02335b175320002935',
        WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: '0x00000961ef480eb55e80d19ad83579a64c007002',
        CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: '0x0000bbddc7ce488642fb579f8b00f3a590007251',
        DEPOSIT_CONTRACT_ADDRESS: '0x00000000219ab540356cbb839cbe05303d7705fa',
      },
    },
    next: null,
    last: null,
  });
  await withTestRpc({ hardfork: 'london' }, async (old) => {
    expect(await old.call('eth_config')).toEqual({ current: null, next: null, last: null });
  });
});

test("a traced transaction sees its block's own system-contract writes: the beacon root of its time is there, as when it was mined", async () => {
  await withTestRpc({}, async (node) => {
    const head = await node.call<{ timestamp: string }>('eth_getBlockByNumber', 'latest', false);
    const time = BigInt(head.timestamp) + 100n;
    await node.call('evm_setNextBlockTimestamp', `0x${time.toString(16)}`);
    // EIP-4788's get(timestamp): the root stored for that time, or a revert when none is.
    const hash = await node.call<string>('eth_sendTransaction', {
      from: ALICE,
      to: '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02',
      data: `0x${time.toString(16).padStart(64, '0')}`,
      gas: '0x186a0',
    });
    expect((await node.call<{ status: string }>('eth_getTransactionReceipt', hash)).status).toBe('0x1');
    const trace = await node.call<{ output: string; error?: string }>('debug_traceTransaction', hash, {
      tracer: 'callTracer',
    });
    expect(trace.error).toBeUndefined();
    expect(trace.output).toBe(`0x${'00'.repeat(32)}`);
  });
});

test('eth_simulateV1 blocks write the beacon root and parent hash before their calls, as geth simulates them', async () => {
  await withTestRpc({}, async (node) => {
    const head = await node.call<{ timestamp: string; number: string; hash: string }>(
      'eth_getBlockByNumber',
      'latest',
      false,
    );
    const time = BigInt(head.timestamp) + 12n;
    const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
    const [simulated] = await node.call<{ calls: { status: string; returnData: string }[] }[]>(
      'eth_simulateV1',
      {
        blockStateCalls: [
          {
            blockOverrides: { time: `0x${time.toString(16)}` },
            calls: [
              // EIP-4788 get(this block's time): the zero root the dev chain writes.
              { from: ALICE, to: '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02', data: word(time) },
              // EIP-2935 get(parent number): the parent's hash.
              { from: ALICE, to: '0x0000F90827F1C53a10cb7A02335B175320002935', data: word(BigInt(head.number)) },
            ],
          },
        ],
      },
      'latest',
    );
    expect(simulated.calls.map((c) => c.status)).toEqual(['0x1', '0x1']);
    expect(simulated.calls[0].returnData).toBe(word(0n));
    expect(simulated.calls[1].returnData).toBe(head.hash);
  });
});

describe('movePrecompileToAddress (geth state overrides)', () => {
  const IDENTITY = '0x0000000000000000000000000000000000000004';
  const MOVED = '0x0000000000000000000000000000000000123456';
  test('eth_call: the precompile answers at its new address; its old one is an empty account, then a precompile again', async () => {
    await withTestRpc({}, async (node) => {
      const overrides = { [IDENTITY]: { movePrecompileToAddress: MOVED } };
      expect(await node.call('eth_call', { from: ALICE, to: MOVED, data: '0xdeadbeef' }, 'latest', overrides)).toBe(
        '0xdeadbeef',
      );
      expect(await node.call('eth_call', { from: ALICE, to: IDENTITY, data: '0xdeadbeef' }, 'latest', overrides)).toBe(
        '0x',
      );
      // Only for that call.
      expect(await node.call('eth_call', { from: ALICE, to: IDENTITY, data: '0xdeadbeef' }, 'latest')).toBe(
        '0xdeadbeef',
      );
      expect(await node.call('eth_call', { from: ALICE, to: MOVED, data: '0xdeadbeef' }, 'latest')).toBe('0x');
      // An overridden precompile address is a precompile no more: its new code runs (as geth).
      const code = { [IDENTITY]: { code: '0x602a60005260206000f3' } }; // returns 42
      expect(await node.call('eth_call', { from: ALICE, to: IDENTITY, data: '0x' }, 'latest', code)).toBe(
        `0x${'2a'.padStart(64, '0')}`,
      );
    });
  });

  test('eth_simulateV1: a moved precompile answers in the block whose overrides moved it', async () => {
    await withTestRpc({}, async (node) => {
      const [block, next] = await node.call<{ calls: { returnData: string; status: string }[] }[]>('eth_simulateV1', {
        blockStateCalls: [
          {
            stateOverrides: { [IDENTITY]: { movePrecompileToAddress: MOVED } },
            calls: [{ from: ALICE, to: MOVED, data: '0xc0ffee' }],
          },
          // The next block starts from the fork's precompiles again, as geth's simulation.
          {
            calls: [
              { from: ALICE, to: MOVED, data: '0xc0ffee' },
              { from: ALICE, to: IDENTITY, data: '0xc0ffee' },
            ],
          },
        ],
      });
      expect(block.calls[0]).toMatchObject({ status: '0x1', returnData: '0xc0ffee' });
      expect(next.calls.map((c) => c.returnData)).toEqual(['0x', '0xc0ffee']);
      const error = await node.fail('eth_call', { from: ALICE, to: MOVED }, 'latest', {
        '0x0000000000000000000000000000000000000abc': { movePrecompileToAddress: MOVED },
      });
      expect(error).toMatchObject({
        code: -32000,
        message: 'account 0x0000000000000000000000000000000000000aBc is not a precompile',
      });
    });
  });
});

describe('eth_simulateV1 buys gas as geth does', () => {
  test("the sender's balance inside a call is less the gas it bought; what is left comes back", async () => {
    await withTestRpc({}, async (node) => {
      const SELF_BALANCE = '0x0000000000000000000000000000000000000b0b';
      const before = BigInt(await node.call<string>('eth_getBalance', ALICE, 'latest'));
      const gas = 100_000n;
      const call = { from: ALICE, to: SELF_BALANCE, gas: `0x${gas.toString(16)}`, maxFeePerGas: '0x77359400' };
      // CALLER BALANCE, returned; `calls` of them in one simulated block.
      const simulate = (calls: number) =>
        node.call<{ baseFeePerGas: string; calls: { returnData: string; gasUsed: string }[] }[]>('eth_simulateV1', {
          validation: true,
          blockStateCalls: [
            {
              stateOverrides: { [SELF_BALANCE]: { code: '0x333160005260206000f3' } },
              calls: Array.from({ length: calls }, () => ({ ...call, maxPriorityFeePerGas: '0x0' })),
            },
          ],
        });
      const [block] = await simulate(1);
      const price = BigInt(block.baseFeePerGas);
      expect(BigInt(block.calls[0].returnData)).toBe(before - gas * price);
      // The second call sees the first's refund: only its used gas is gone, and the second's purchase.
      const [two] = await simulate(2);
      const used = BigInt(block.calls[0].gasUsed);
      expect(BigInt(two.calls[1].returnData)).toBe(before - used * price - gas * price);
    });
  });

  test('without validation, a value above the balance is -38014, as geth (its buyGas checks the value always)', async () => {
    await withTestRpc({}, async (node) => {
      const poor = '0x00000000000000000000000000000000000f00d0';
      const error = await node.fail('eth_simulateV1', {
        blockStateCalls: [{ calls: [{ from: poor, to: ALICE, value: '0x1' }] }],
      });
      expect(error).toMatchObject({
        code: -38014,
        message: `err: insufficient funds for gas * price + value: address ${toChecksumAddress(poor)} have 0 want 1 (supplied gas 30000000)`,
      });
    });
  });
});

test('eth_simulateV1: each call is a transaction of its own, so a slot an earlier call wrote is its original value (EIP-2200), as in a block', async () => {
  await withTestRpc({}, async (node) => {
    // A key-value store: two words store the second in the first.
    const store = '0x601a80600b6000396000f3600035602036116013575460005260206000f35b6020359055' + '00';
    const deploy = await node.call<string>('eth_sendTransaction', { from: ALICE, data: store });
    const to = (await node.call<{ contractAddress: string }>('eth_getTransactionReceipt', deploy)).contractAddress;
    const word = (n: number) => n.toString(16).padStart(64, '0');
    const write = (value: number) => ({ from: ALICE, to, data: `0x${word(1)}${word(value)}` });
    const [simulated] = await node.call<{ calls: { gasUsed: string }[] }[]>('eth_simulateV1', {
      blockStateCalls: [{ calls: [write(5), write(6)] }],
    });
    // The same two writes mined, one block each.
    const used: string[] = [];
    for (const value of [5, 6]) {
      const hash = await node.call<string>('eth_sendTransaction', write(value));
      used.push((await node.call<{ gasUsed: string }>('eth_getTransactionReceipt', hash)).gasUsed);
    }
    expect(simulated.calls.map((c) => c.gasUsed)).toEqual(used);
  });
});

test("eth_simulateV1: BLOCKHASH of an earlier simulated block is that block's simulated hash, as geth's simulated chain", async () => {
  await withTestRpc({}, async (node) => {
    const PARENT_HASH = '0x0000000000000000000000000000000000000b1c';
    const code = { [PARENT_HASH]: { code: '0x43600190034060005260206000f3' } }; // BLOCKHASH(NUMBER - 1)
    const blocks = await node.call<{ hash: string; parentHash: string; calls: { returnData: string }[] }[]>(
      'eth_simulateV1',
      {
        blockStateCalls: [
          { stateOverrides: code, calls: [{ from: ALICE, to: PARENT_HASH }] },
          { calls: [{ from: ALICE, to: PARENT_HASH }] },
        ],
      },
    );
    const head = await node.call<{ hash: string }>('eth_getBlockByNumber', 'latest', false);
    expect(blocks[0].calls[0].returnData).toBe(head.hash);
    expect(blocks[1].calls[0].returnData).toBe(blocks[0].hash);
    expect(blocks[1].parentHash).toBe(blocks[0].hash);
  });
});

test("eth_simulateV1 traceTransfers: a SELFDESTRUCT's balance is a transfer log to the beneficiary, as geth's tracer logs it", async () => {
  await withTestRpc({}, async (node) => {
    const DOOMED = '0x0000000000000000000000000000000000000d00';
    const HEIR = '0x00000000000000000000000000000000000000e1';
    const [block] = await node.call<
      { calls: { status: string; logs: { address: string; topics: string[]; data: string }[] }[] }[]
    >('eth_simulateV1', {
      traceTransfers: true,
      blockStateCalls: [
        {
          // PUSH20 HEIR SELFDESTRUCT, holding 5 wei.
          stateOverrides: { [DOOMED]: { code: `0x73${HEIR.slice(2)}ff`, balance: '0x5' } },
          calls: [{ from: ALICE, to: DOOMED }],
        },
      ],
    });
    const pad = (a: string) => `0x${a.slice(2).padStart(64, '0')}`;
    expect(block.calls[0].status).toBe('0x1');
    expect(block.calls[0].logs).toEqual([
      expect.objectContaining({
        address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
        topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', pad(DOOMED), pad(HEIR)],
        data: pad('0x5'),
      }),
    ]);
  });
});

describe('prestateTracer before Byzantium', () => {
  test("a block whose receipts hold state roots is traced as after Byzantium: each transaction's state before and after it", async () => {
    type Traced = { result: Record<string, { nonce?: number; balance?: string }> }[];
    const traces: Traced[] = [];
    for (const hardfork of ['spuriousDragon', 'byzantium']) {
      await withTestRpc({ hardfork, mining: { mode: 'manual' } }, async (node) => {
        for (const value of ['0x5', '0x7'])
          await node.call('eth_sendTransaction', { from: ALICE, to: BOB, value, gasPrice: '0x3b9aca00' });
        await node.call('evm_mine');
        traces.push(
          await node.call<Traced>('debug_traceBlockByNumber', 'latest', { tracer: 'prestateTracer' }),
          await node.call<Traced>('debug_traceBlockByNumber', 'latest', {
            tracer: 'prestateTracer',
            tracerConfig: { diffMode: true },
          }),
        );
      });
    }
    const [before, beforeDiff, after, afterDiff] = traces;
    expect(before).toEqual(after);
    expect(beforeDiff).toEqual(afterDiff);
    // The second transaction's state before it is the first's after it.
    expect(before[0].result[ALICE].nonce).toBeUndefined();
    expect(before[1].result[ALICE].nonce).toBe(1);
  });
});

test("a tracer's opcode hooks serve its own trace only: callTracer names each frame by its opcode however often the code was traced before", async () => {
  await withTestRpc({}, async (node) => {
    const CALLER = '0x0000000000000000000000000000000000000c00';
    const CALLEE = '0x0000000000000000000000000000000000000c01';
    const callee = `73${CALLEE.slice(2)}5a`; // PUSH20 CALLEE GAS
    // A JUMP first (so the interpreter keeps the code's analysis), then STATICCALL, DELEGATECALL and
    // CALL of CALLEE, each with no arguments, each result popped.
    const four = '6000600060006000';
    const code = `0x6003565b${four}${callee}fa50${four}${callee}f450${four}6000${callee}f15000`;
    await node.call('anvil_setCode', CALLER, code);
    await node.call('anvil_setCode', CALLEE, '0x00');
    const hash = await node.call<string>('eth_sendTransaction', { from: ALICE, to: CALLER, gas: '0x30d40' });
    const types = async () => {
      const frame = await node.call<{ calls?: { type: string }[] }>('debug_traceTransaction', hash, {
        tracer: 'callTracer',
      });
      return frame.calls?.map((c) => c.type);
    };
    expect(await types()).toEqual(['STATICCALL', 'DELEGATECALL', 'CALL']);
    await node.call('debug_traceTransaction', hash, { tracer: '4byteTracer' });
    expect(await types()).toEqual(['STATICCALL', 'DELEGATECALL', 'CALL']);
    expect(await types()).toEqual(['STATICCALL', 'DELEGATECALL', 'CALL']);
  });
});

test("prestateTracer: an SLOAD that runs out of gas touches no slot, as geth's OnOpcode returns on its error", async () => {
  await withTestRpc({}, async (node) => {
    const READER = '0x0000000000000000000000000000000000000c02';
    await node.call('anvil_setCode', READER, '0x60425400'); // PUSH1 0x42 SLOAD STOP
    const trace = (gas: number) =>
      node.call<Record<string, { storage?: Record<string, string> }>>(
        'debug_traceCall',
        { from: ALICE, to: READER, gas: `0x${gas.toString(16)}` },
        'latest',
        { tracer: 'prestateTracer' },
      );
    // 21,000 + PUSH1 (3) + a cold SLOAD (2,100) + STOP.
    expect((await trace(23_103))[READER].storage).toEqual({ [`0x${'42'.padStart(64, '0')}`]: `0x${'0'.repeat(64)}` });
    expect((await trace(22_000))[READER].storage).toBeUndefined();
  });
});

describe.each(['l2devnet', 'ethereumjs'] as const)('the struct logger on the %s engine', (engine) => {
  type Log = { pc: number; op: string; gasCost: number; error?: string; memory?: string[] };
  const steps = (node: TestRpc, to: string) =>
    node
      .call<{ structLogs: Log[] }>('debug_traceCall', { from: ALICE, to, gas: '0x30d40' }, 'latest', {
        enableMemory: true,
      })
      .then((r) => r.structLogs);

  test('a REVERT that lacks an operand, or asks for more memory than gas can pay for, has its step, with the error', async () => {
    await withTestRpc({ engine }, async (node) => {
      const SHORT = '0x0000000000000000000000000000000000000c03';
      const HUGE = '0x0000000000000000000000000000000000000c04';
      await node.call('anvil_setCode', SHORT, '0x600afd'); // PUSH1 10 REVERT
      await node.call('anvil_setCode', HUGE, `0x7f${'ff'.repeat(32)}6000fd`); // REVERT(0, 2^256-1)
      expect((await steps(node, SHORT)).map(({ op, gasCost, error }) => ({ op, gasCost, error }))).toEqual([
        { op: 'PUSH1', gasCost: 3, error: undefined },
        { op: 'REVERT', gasCost: 0, error: 'stack underflow' },
      ]);
      const huge = await steps(node, HUGE);
      expect(huge.map(({ op, error }) => ({ op, error }))).toEqual([
        { op: 'PUSH32', error: undefined },
        { op: 'PUSH1', error: undefined },
        { op: 'REVERT', error: 'out of gas' },
      ]);
      // The whole cost worked out, as ethereumjs's gas handler has it: the memory for 2^256-1 bytes.
      expect(huge[2].gasCost).toBeGreaterThan(1e140);
    });
  });

  test("a step's memory is all of the memory in use, the part nothing has written to yet included", async () => {
    await withTestRpc({ engine }, async (node) => {
      const CALLER = '0x0000000000000000000000000000000000000c05';
      // CALL of an account without code, its output to [0x3000, 0x3020): the memory grows to 385
      // words, and the empty answer writes none of them. Then STOP.
      await node.call('anvil_setCode', CALLER, '0x6020613000600060006000610c005af100');
      const logs = await steps(node, CALLER);
      expect(logs.map((l) => l.op)).toEqual([
        'PUSH1',
        'PUSH2',
        'PUSH1',
        'PUSH1',
        'PUSH1',
        'PUSH2',
        'GAS',
        'CALL',
        'STOP',
      ]);
      expect(logs[8].memory).toHaveLength(0x3020 / 32);
    });
  });
});
