/**
 * The fast execution path against ethereumjs as published. The same transactions and calls run
 * through a node loaded with L2DEVNET_STOCK_EVM=1 (the original interpreter paths in the patched
 * packages, no flat state) and through the node as it runs (its calls and estimates on its own
 * engine, evm/); every answer must be identical: return data, errors, gas estimates, access lists,
 * simulated blocks, line counts
 * (each fork with one of the three counters: London's tracer, today's, the light one), logs,
 * receipts and every block (state root, receipts root, bloom, hash).
 *
 * The node runs them twice: with its calls on the main thread, and in its call workers.
 *
 * Covered, for each hardfork in FORKS: every contract in fixtures/ (deployed, each function sent as a
 * transaction and as a call) and seeded random programs, run as creation transactions and as calls,
 * which between them use every opcode (0x00 to 0xff), storage, logs, calls into the fixtures and the
 * precompiles, creations, self-destructs, jumps and loops.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Interface, Wallet } from 'ethers';
import type { ParamType } from 'ethers';

import { prng } from '../../core/test/prng';

type Core = typeof import('@l2devnet/core');
type RpcModule = typeof import('../src');

const SEED = Number(process.env.FAST_PATH_SEED ?? 20261123);
const FORKS = ['spuriousDragon', 'byzantium', 'istanbul', 'berlin', 'london', 'shanghai', 'cancun', 'prague', 'osaka'];
/** The line counter each fork's chain counts with, in turn. */
const COUNTERS = [
  { tracer: 'london', counter: 'tracer' },
  { tracer: 'osaka', counter: 'tracer' },
  { tracer: 'osaka', counter: 'limitless' },
] as const;
const PROGRAMS_PER_FORK = Number(process.env.FAST_PATH_PROGRAMS ?? 400);
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
/** The dev accounts' keys (the default mnemonic's first two). */
const ALICE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const BOB_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const PROGRAM_GAS = '0x30d40'; // 200,000: loops end soon

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'contracts');
const artifacts = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({
    name: f,
    ...(JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as { abi: unknown[]; bytecode: string }),
  }))
  .filter((a) => typeof a.bytecode === 'string' && a.bytecode.length > 2);

type InterpreterClass = { prototype: { _runStepAsync: (...args: unknown[]) => unknown } };
type EvmClass = {
  prototype: { runCall: (...args: unknown[]) => unknown; runInterpreter: (...args: unknown[]) => unknown };
};

function load(stock: boolean): { core: Core; rpc: RpcModule; Interpreter: InterpreterClass; EVM: EvmClass } {
  let modules: { core: Core; rpc: RpcModule; Interpreter: InterpreterClass; EVM: EvmClass } | undefined;
  const before = process.env.L2DEVNET_STOCK_EVM;
  if (stock) process.env.L2DEVNET_STOCK_EVM = '1';
  else delete process.env.L2DEVNET_STOCK_EVM;
  jest.isolateModules(() => {
    modules = {
      core: require('@l2devnet/core') as Core,
      rpc: require('../src') as RpcModule,
      Interpreter: (
        require(require.resolve('@ethereumjs/evm').replace(/index\.js$/, 'interpreter.js')) as {
          Interpreter: InterpreterClass;
        }
      ).Interpreter,
      EVM: (require('@ethereumjs/evm') as { EVM: EvmClass }).EVM,
    };
  });
  if (before === undefined) delete process.env.L2DEVNET_STOCK_EVM;
  else process.env.L2DEVNET_STOCK_EVM = before;
  return modules as { core: Core; rpc: RpcModule; Interpreter: InterpreterClass; EVM: EvmClass };
}

/** The opcodes defined by the latest hardfork (earlier forks take some of them as undefined). */
const DEFINED = [
  ...range(0x00, 0x0b),
  ...range(0x10, 0x1d),
  0x20,
  ...range(0x30, 0x3f),
  ...range(0x40, 0x4a),
  ...range(0x50, 0x5f),
  ...range(0x60, 0x7f),
  ...range(0x80, 0x9f),
  ...range(0xa0, 0xa4),
  0xf0,
  0xf1,
  0xf2,
  0xf3,
  0xf4,
  0xf5,
  0xfa,
  0xfd,
  0xff,
];

/**
 * Init code of a key-value store: called with one word it returns that slot, with two it stores
 * the second in the first. No PUSH0, so every fork runs it.
 */
const KV_STORE = '0x601a80600b6000396000f3600035602036116013575460005260206000f35b6020359055' + '00';

/** Opcodes with effects that outlive the run (logs, storage, accounts), drawn more often. */
const STATEFUL = [0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0x55, 0x5d, 0xf0, 0xf1, 0xf5, 0xff];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const hex = (bytes: number[]) => `0x${bytes.map((b) => b.toString(16).padStart(2, '0')).join('')}`;

/** A value to push: mostly small (offsets, sizes, slots), sometimes an address that exists, sometimes wide. */
function operand(rand: () => number, addresses: number[][]): number[] {
  const r = rand();
  if (r < 0.75) return [Math.floor(rand() * 70)];
  if (r < 0.9) return addresses[Math.floor(rand() * addresses.length)];
  if (r < 0.95) return [Math.floor(rand() * 256), Math.floor(rand() * 256)];
  if (r < 0.98) return Array.from({ length: 32 }, () => Math.floor(rand() * 256));
  return Array(32).fill(0xff);
}

function push(bytes: number[]): number[] {
  const trimmed = bytes.length > 32 ? bytes.slice(-32) : bytes;
  return [0x5f + trimmed.length, ...trimmed];
}

/**
 * A random program of `length` instructions, each after zero to seven pushed operands. It carries
 * opcode `must` somewhere, so that a run of 256 programs uses every opcode.
 */
function program(rand: () => number, addresses: number[][], must: number): string {
  const code: number[] = [];
  const jumpdests: number[] = [];
  const length = 4 + Math.floor(rand() * 28);
  const mustAt = Math.floor(rand() * length);
  for (let i = 0; i < length; i++) {
    // Undefined opcodes end a run at once: apart from `must`, few instructions are undefined ones.
    const r = rand();
    const op =
      i === mustAt
        ? must
        : r < 0.1
          ? STATEFUL[Math.floor(rand() * STATEFUL.length)]
          : r < 0.97
            ? DEFINED[Math.floor(rand() * DEFINED.length)]
            : Math.floor(rand() * 256);
    const operands = 1 + Math.floor(rand() * 7);
    for (let k = 0; k < operands; k++) code.push(...push(operand(rand, addresses)));
    if ((op === 0x56 || op === 0x57) && jumpdests.length > 0 && rand() < 0.7) {
      if (op === 0x57) code.push(...push([Math.floor(rand() * 2)]));
      const target = jumpdests[Math.floor(rand() * jumpdests.length)];
      code.push(...push([target >> 8, target & 0xff]));
    }
    if (op === 0x5b) jumpdests.push(code.length);
    if (op >= 0x60 && op <= 0x7f) {
      code.push(op, ...Array.from({ length: op - 0x5f }, () => Math.floor(rand() * 256)));
      continue;
    }
    code.push(op);
  }
  // Return some memory, so calls have return data to compare.
  code.push(...push([Math.floor(rand() * 64)]), ...push([Math.floor(rand() * 64)]), 0xf3);
  return hex(code);
}

/** Arguments for an ABI function: fixed, plausible values by type. */
function argsFor(inputs: readonly ParamType[]): unknown[] {
  return inputs.map((p) => {
    if (p.baseType === 'array') return [];
    if (p.baseType === 'tuple') return argsFor(p.components ?? []);
    if (p.type.startsWith('uint') || p.type.startsWith('int')) return 7n;
    if (p.type === 'address') return ALICE;
    if (p.type === 'bool') return true;
    if (p.type === 'string') return 'l2devnet';
    if (p.type === 'bytes') return '0x1234';
    if (p.type.startsWith('bytes')) return `0x${'ab'.repeat(Number(p.type.slice(5)))}`;
    return 0n;
  });
}

/**
 * Every answer of one node for one hardfork, in order, and how many calls its call workers ran
 * (with `workers`, every eth_call and eth_estimateGas runs in them: they are waited for first).
 */
async function record(
  modules: { core: Core; rpc: RpcModule },
  fork: string,
  seed: number,
  workers = 0,
): Promise<{ out: unknown[]; asked: string[]; workerCalls: number }> {
  const { core, rpc: rpcModule } = modules;
  const chain = await core.Chain.create({
    hardfork: fork,
    clock: new core.NodeClock(() => 1_750_000_000_000),
    workers,
    ...COUNTERS[FORKS.indexOf(fork) % COUNTERS.length],
  });
  if (workers > 0) {
    // Each call in the workers, even one that arrives while none runs (it would take the main thread).
    chain.calls.setMainWhenIdle(false);
    await chain.calls.workersReady();
  }
  const ranBefore = chain.calls.workerCalls;
  const rpc = rpcModule.createRpc(chain, { logError: () => undefined });
  const out: unknown[] = [];
  /** The request behind each answer in `out`, for the message when one differs. */
  const asked: string[] = [];
  let last = '';
  const put = (...answers: unknown[]) => {
    for (const a of answers) {
      out.push(a);
      asked.push(last);
    }
  };
  let id = 1;
  const call = async (method: string, ...params: unknown[]) => {
    last = JSON.stringify({ method, params });
    const r = (await rpc.handle({ jsonrpc: '2.0', id: id++, method, params })) as Record<string, unknown>;
    return 'error' in r ? { error: r.error } : r.result;
  };
  /**
   * A transaction and its receipt (what a block records of it), and the same as a call, with its
   * line counts (at its gas, and at its estimate).
   */
  const both = async (tx: Record<string, unknown>, estimate = true, simulate = estimate) => {
    put(await call('eth_call', tx, 'latest'));
    put(await call('l2_traceCallLineCounts', tx, 'latest'));
    if (estimate) {
      put(await call('eth_estimateGas', tx, 'latest'));
      put(await call('eth_createAccessList', tx, 'latest'));
      put(await call('l2_traceCallLineCounts', { ...tx, gas: undefined }, 'latest'));
    }
    if (simulate) {
      // In a simulated block, after a value transfer (its transfer log), its state kept for the next.
      const transfer = { from: ALICE, to: `0x${'0'.repeat(38)}77`, value: '0x5' };
      put(
        await call(
          'eth_simulateV1',
          { blockStateCalls: [{ calls: [transfer, tx, tx] }], traceTransfers: true },
          'latest',
        ),
      );
    }
    const hash = await call('eth_sendTransaction', tx);
    put(typeof hash === 'string' ? await call('eth_getTransactionReceipt', hash) : hash);
    // The lines it added to its block, its block run again as its builder ran it.
    if (typeof hash === 'string') put(await call('l2_traceLineCounts', hash));
  };
  try {
    const addresses: number[][] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x0b, 0x11, 0x100].map((n) => [n >> 8, n & 0xff]);
    addresses.push(Array.from(Buffer.from(ALICE.slice(2), 'hex')));
    for (const a of artifacts) {
      const abi = new Interface(a.abi as never);
      const data = a.bytecode + abi.encodeDeploy(argsFor(abi.deploy.inputs)).slice(2);
      const hash = await call('eth_sendTransaction', { from: ALICE, data, gas: '0x1000000' });
      const receipt = (await call('eth_getTransactionReceipt', hash)) as { contractAddress?: string } | null;
      put(a.name, receipt);
      const to = receipt?.contractAddress;
      if (typeof to !== 'string') continue;
      addresses.push(Array.from(Buffer.from(to.slice(2), 'hex')));
      for (const f of abi.fragments) {
        if (f.type !== 'function') continue;
        const fn = abi.getFunction((f as { format(): string }).format());
        if (fn === null) continue;
        await both({ from: ALICE, to, data: abi.encodeFunctionData(fn, argsFor(fn.inputs)), gas: '0x989680' });
      }
    }
    // A store any fork runs: storage written in one block, read in later ones (committed state).
    const kvHash = await call('eth_sendTransaction', { from: ALICE, data: KV_STORE, gas: '0x30d40' });
    const kv = ((await call('eth_getTransactionReceipt', kvHash)) as { contractAddress: string }).contractAddress;
    const word = (n: number) => n.toString(16).padStart(64, '0');
    if (fork === 'prague' || fork === 'osaka') {
      // EIP-7702: Bob's account runs the store's code (a type-4 transaction that also writes a slot),
      // and the programs call it (CALL's delegation cost, EXTCODESIZE and EXTCODEHASH of a designator).
      const chainId = BigInt(String(await call('eth_chainId')));
      const bob = new Wallet(BOB_KEY);
      const authorization = bob.authorizeSync({ address: kv, nonce: 0n, chainId });
      const raw = await new Wallet(ALICE_KEY).signTransaction({
        type: 4,
        chainId,
        nonce: Number(await call('eth_getTransactionCount', ALICE, 'latest')),
        to: bob.address,
        data: `0x${word(3)}${word(77)}`,
        gasLimit: 200_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
        authorizationList: [authorization],
      });
      const hash = await call('eth_sendRawTransaction', raw);
      put(typeof hash === 'string' ? await call('eth_getTransactionReceipt', hash) : hash);
      const code = await call('eth_getCode', bob.address, 'latest');
      expect(code).toBe(`0xef0100${kv.slice(2)}`);
      put(code);
      await both({ from: ALICE, to: bob.address, data: `0x${word(3)}` });
      addresses.push(Array.from(Buffer.from(bob.address.slice(2), 'hex')));
    }
    const rand = prng(seed);
    for (let i = 0; i < PROGRAMS_PER_FORK; i++) {
      const code = program(rand, addresses, i % 256);
      // The gas a call uses is compared through its estimate (a binary search: for some of them).
      await both({ from: ALICE, data: code, gas: PROGRAM_GAS }, i % 4 === 0);
      await both({ from: ALICE, to: kv, data: `0x${word(i % 7)}${word(i)}`, gas: '0x186a0' }, i % 4 === 1, false);
      // Twice: the second read is answered from what the first one found.
      for (let k = 0; k < 2; k++)
        put(await call('eth_call', { from: ALICE, to: kv, data: `0x${word(i % 5)}` }, 'latest'));
    }
    const head = Number(await call('eth_blockNumber'));
    for (let n = 0; n <= head; n++) put(await call('eth_getBlockByNumber', `0x${n.toString(16)}`, false));
    return { out, asked, workerCalls: chain.calls.workerCalls - ranBefore };
  } finally {
    rpc.close();
    await chain.close();
  }
}

const stock = load(true);
const fast = load(false);

test('the patched packages are the ones installed (patch-package applied patches/)', () => {
  const { Common } = require('@ethereumjs/common') as typeof import('@ethereumjs/common');
  expect(Common.prototype.isActivatedEIP.toString()).toContain('_activatedEIPsSet');
  const evmSource = readFileSync(require.resolve('@ethereumjs/evm').replace(/index\.js$/, 'interpreter.js'), 'utf8');
  expect(evmSource).toContain('_runStepAsync');
  expect(evmSource).toContain('jumpAnalyses');
  const evmMain = readFileSync(require.resolve('@ethereumjs/evm').replace(/index\.js$/, 'evm.js'), 'utf8');
  expect(evmMain).toContain('is built when first read');
  // A top-level eth_call that moves no value writes no account (the simulator's `untouched` runs).
  expect(evmMain).toContain('this.untouchedCalls === true');
  // rlp: encode writes into one array sized first.
  const { RLP } = require('@ethereumjs/rlp') as typeof import('@ethereumjs/rlp');
  expect(RLP.encode.toString()).toContain('encodedSize(input)');
  const { bytesToUnprefixedHex } = require('@ethereumjs/util') as typeof import('@ethereumjs/util');
  expect(bytesToUnprefixedHex.toString()).toContain('nativeHex');
  // Re-exported as values, not getters.
  expect(Object.getOwnPropertyDescriptor(require('@ethereumjs/util'), 'setLengthLeft')).toHaveProperty('value');
  const { setLengthLeft, setLengthRight } = require('@ethereumjs/util') as typeof import('@ethereumjs/util');
  expect([setLengthLeft(Uint8Array.of(7, 8), 4), setLengthRight(Uint8Array.of(7, 8), 3)]).toEqual([
    Uint8Array.of(0, 0, 7, 8),
    Uint8Array.of(7, 8, 0),
  ]);
  expect(readFileSync(require.resolve('@ethereumjs/util').replace(/index\.js$/, 'bytes.js'), 'utf8')).toContain(
    'out.set(msg, right ? 0 : length - msg.length)',
  );
  // vm: the block-level steps (system contracts, rewards, requests) the block builder runs.
  const vm = require('@ethereumjs/vm') as Record<string, unknown>;
  for (const name of [
    'accumulateParentBeaconBlockRoot',
    'accumulateParentBlockHash',
    'accumulateRequests',
    'applyDAOHardfork',
  ])
    expect(typeof vm[name]).toBe('function');
});

test("transactions, calls and their line counts run on the node's engine (no ethereumjs frame or run); the stock node on the original's", async () => {
  const count = async (modules: typeof fast) => {
    const interpreter = modules.Interpreter.prototype;
    const evm = modules.EVM.prototype;
    const [runStep, runCall, runInterpreter] = [interpreter._runStepAsync, evm.runCall, evm.runInterpreter];
    const n = { steps: 0, runs: 0, frames: 0 };
    interpreter._runStepAsync = function (this: unknown, ...args: unknown[]) {
      n.steps++;
      return runStep.apply(this, args);
    };
    evm.runInterpreter = function (this: unknown, ...args: unknown[]) {
      n.frames++;
      return runInterpreter.apply(this, args);
    };
    evm.runCall = function (this: unknown, ...args: unknown[]) {
      n.runs++;
      return runCall.apply(this, args);
    };
    const chain = await modules.core.Chain.create({ workers: 0 });
    const rpc = modules.rpc.createRpc(chain);
    try {
      const hash = (await rpc.request('eth_sendTransaction', [{ from: ALICE, data: KV_STORE }])) as string;
      const receipt = (await rpc.request('eth_getTransactionReceipt', [hash])) as { contractAddress: string };
      const word = (v: number) => v.toString(16).padStart(64, '0');
      // The key-value store's code: a write of slot 1 (a transaction), then a read of it (a call):
      // SLOAD, SSTORE, jumps, memory, RETURN.
      const [steps, frames] = [n.steps, n.frames];
      await rpc.request('eth_sendTransaction', [
        { from: ALICE, to: receipt.contractAddress, data: `0x${word(1)}${word(9)}` },
      ]);
      const transaction = { steps: n.steps - steps, frames: n.frames - frames };
      const runs = n.runs;
      const value = await rpc.request('eth_call', [
        { from: ALICE, to: receipt.contractAddress, data: `0x${word(1)}` },
        'latest',
      ]);
      expect(value).toBe(`0x${word(9)}`);
      const call = n.runs - runs;
      // Its line counts, at its gas and at its estimate (a search, then the counts at the estimate).
      const counted = n.runs;
      const read = { from: ALICE, to: receipt.contractAddress, data: `0x${word(1)}` };
      const atGas = (await rpc.request('l2_traceCallLineCounts', [{ ...read, gas: '0x186a0' }])) as {
        modules: Record<string, { count: number }>;
      };
      expect(atGas.modules.HUB.count).toBeGreaterThan(0);
      await rpc.request('l2_traceCallLineCounts', [read]);
      return { transaction, call, counted: n.runs - counted };
    } finally {
      interpreter._runStepAsync = runStep;
      evm.runCall = runCall;
      evm.runInterpreter = runInterpreter;
      rpc.close();
      await chain.close();
    }
  };
  expect(await count(fast)).toEqual({ transaction: { steps: 0, frames: 0 }, call: 0, counted: 0 });
  const original = await count(stock);
  expect(original.transaction.steps).toBeGreaterThan(0);
  expect(original.transaction.frames).toBeGreaterThan(0);
  expect(original.call).toBe(1);
  expect(original.counted).toBeGreaterThan(2);
});

describe.each(FORKS)('%s: the fast path, on the main thread and in the call workers, answers as ethereumjs', (fork) => {
  test(`fixtures and ${PROGRAMS_PER_FORK} random programs`, async () => {
    const seed = SEED + FORKS.indexOf(fork);
    const { out: expected, asked } = await record(stock, fork, seed);
    const actual = (await record(fast, fork, seed)).out;
    const inWorkers = await record(fast, fork, seed, 2);
    for (const [name, answers] of [
      ['fast', actual],
      ['workers', inWorkers.out],
    ] as const) {
      expect(answers.length).toBe(expected.length);
      for (let i = 0; i < expected.length; i++) {
        if (JSON.stringify(answers[i]) !== JSON.stringify(expected[i]))
          throw new Error(
            `seed ${seed}, answer ${i} to ${asked[i]}:\nstock   ${JSON.stringify(expected[i])}\n${name.padEnd(7)} ${JSON.stringify(answers[i])}`,
          );
      }
    }
    // Every eth_call ran in the workers: four for each program, besides the fixtures'.
    expect(inWorkers.workerCalls).toBeGreaterThanOrEqual(PROGRAMS_PER_FORK * 4);
    // The programs did run: some succeeded (before Byzantium a receipt has a state root instead of a
    // status), some failed, some logged.
    const receipts = actual.filter(
      (r): r is { status?: string; root?: string; logs: unknown[] } =>
        typeof r === 'object' && r !== null && ('status' in r || 'root' in r),
    );
    if (receipts.some((r) => r.root !== undefined)) {
      // Before Byzantium: every receipt has its post-transaction state root, and the state moved.
      expect(receipts.every((r) => /^0x[0-9a-f]{64}$/.test(r.root ?? ''))).toBe(true);
      expect(new Set(receipts.map((r) => r.root)).size).toBeGreaterThan(1);
    } else expect(receipts.some((r) => r.status === '0x1')).toBe(true);
    const calls = actual.filter((r) => typeof r === 'object' && r !== null && 'error' in r);
    expect(calls.length).toBeGreaterThan(0);
    expect(receipts.some((r) => r.logs.length > 0)).toBe(true);
  });
});
