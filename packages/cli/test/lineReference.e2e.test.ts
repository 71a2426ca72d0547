/**
 * Linea's own published line counts (its sequencer acceptance tests and tracer unit tests), checked
 * through JSON-RPC on a node started as a user would start it: `--tracer london --hardfork london`,
 * the acceptance tests' module set, every limit out of reach but the one under test, lowered at run
 * time with l2_setLineLimits to the test's value. The contracts are compiled as Linea compiles them
 * (solc 0.8.19, optimizer runs 1; fixtures/contracts/linea).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { Interface, Wallet, getCreateAddress, hexlify, toUtf8Bytes } from 'ethers';

import { PROFILES } from '@l2devnet/core';

import { formatLineReport } from '../src/lines';
import { rpcCall, runCommand, runToEnd } from './command';
import type { RunningCommand } from './command';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures');
const ALICE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const CHAIN_ID = 59144;
/**
 * Every reference below runs on both engines, a node each: the node's own and ethereumjs, the
 * reference it is held to. Each must give Linea's numbers, so every module's count is the same on both.
 */
const ENGINES = ['l2devnet', 'ethereumjs'] as const;
const artifact = (name: string) =>
  JSON.parse(readFileSync(join(FIXTURES, 'contracts', 'linea', `${name}.json`), 'utf8')) as {
    abi: unknown[];
    bytecode: string;
  };
const MULMOD = artifact('MulmodExecutor');
const ADDER = artifact('DummyAdder');
const STORAGE = artifact('SimpleStorage');

type Tx = { to?: string; data: string; gasLimit?: number };

/**
 * A node's JSON-RPC as the tests here drive it: the first dev account signing with the nonce the node
 * has taken so far, and line limits changed for one step and restored after it.
 */
function nodeClient(url: () => string) {
  const wallet = new Wallet(ALICE_KEY);
  let nonce = 0;
  const call = async (method: string, params: unknown[] = []) => rpcCall(url(), method, params);
  const sign = (tx: Tx) =>
    wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      gasLimit: tx.gasLimit ?? 5_000_000,
      to: tx.to,
      data: tx.data,
    });
  return {
    wallet,
    call,
    sign,
    /** The nonce the next transaction takes. */
    nonce: () => nonce,
    /** Sends a signed transaction; counts the nonce as used when the node took it. */
    async send(tx: Tx) {
      const answer = await call('eth_sendRawTransaction', [await sign(tx)]);
      if (answer.error === undefined) nonce++;
      return answer;
    },
    async withLimits(changes: Record<string, number>, run: () => Promise<void>) {
      expect((await call('l2_setLineLimits', [changes])).error).toBeUndefined();
      try {
        await run();
      } finally {
        expect((await call('l2_resetLineLimits')).error).toBeUndefined();
      }
    },
    /**
     * A module that stays approximate: the count the node gives DummyAdder.add(1) by
     * linea_estimateGas must be the one the module's note (and docs/lines.md's table) states ("<count>
     * here"); returns it with Linea's own number, which the note states beside it.
     */
    /** DummyAdder.add(1)'s count in `module` by linea_estimateGas: the count its refusal names at a limit of 1. */
    async adderCount(adder: string, module: string) {
      const data = new Interface(ADDER.abi as string[]).encodeFunctionData('add', [1]);
      let count = NaN;
      await this.withLimits({ [module]: 1 }, async () => {
        const answer = await call('linea_estimateGas', [
          { from: wallet.address, to: adder, data, gasPrice: '0x3b9aca00' },
        ]);
        count = Number(new RegExp(`module ${module}=(\\d+) is above`).exec(answer.error?.message ?? '')?.[1]);
      });
      return count;
    },
    async measuredDeviation(adder: string, module: string, note: string) {
      const count = await this.adderCount(adder, module);
      const [, reference, here] = /=(\d+) at .*?\): (\d+) here/.exec(note) ?? [];
      expect([module, count]).toEqual([module, Number(here)]);
      return { count, reference: Number(reference) };
    },
  };
}

describe.each(ENGINES)("Linea's reference line counts (--tracer london --hardfork london --engine %s)", (engine) => {
  let node: RunningCommand;
  let dir: string;
  let mulmod: string;
  let storage: string;
  let adder: string;
  const client = nodeClient(() => node.url);
  const { wallet, call, sign, send, withLimits } = client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'l2devnet-lineref-'));
    const limits = join(dir, 'limits.toml');
    const acceptance = readFileSync(join(FIXTURES, 'limits', 'linea-sequencer-acceptance-tx-overflow.toml'), 'utf8');
    writeFileSync(limits, acceptance.replace(/= *[0-9_]+/g, '= 1000000000'));
    node = await runCommand([
      ...['--in-memory', '--port', '0', '--chain-id', String(CHAIN_ID)],
      ...['--tracer', 'london', '--hardfork', 'london', '--limits', limits, '--engine', engine],
    ]);
    expect(node.stdout()).toContain(`Engine:            ${engine}`);
    const deploy = async (bytecode: string) => {
      const address = getCreateAddress({ from: wallet.address, nonce: client.nonce() });
      const answer = await send({ data: bytecode });
      expect(answer.error).toBeUndefined();
      return address;
    };
    mulmod = await deploy(MULMOD.bytecode);
    storage = await deploy(STORAGE.bytecode);
    adder = await deploy(ADDER.bytecode);
  });
  afterAll(async () => {
    node.child.kill('SIGTERM');
    await node.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test('MulmodExecutor.executeMulmod(5000) by eth_sendRawTransaction: EXT=33939 above 20', async () => {
    await withLimits({ EXT: 20 }, async () => {
      const data = new Interface(MULMOD.abi as string[]).encodeFunctionData('executeMulmod', [5000]);
      const raw = await sign({ to: mulmod, data, gasLimit: 20_000_000 });
      const answer = await call('eth_sendRawTransaction', [raw]);
      expect(answer.error?.message).toMatch(/line count for module EXT=33939 is above the limit 20$/);
      const hash = answer.error?.message.match(/0x[0-9a-f]{64}/)?.[0];
      const status = await call('l2_getTransactionExclusionStatusV1', [hash]);
      expect(status.result).toMatchObject({ txRejectionStage: 'RPC' });
      expect((status.result as { reasonMessage: string }).reasonMessage).toContain('EXT=33939');
    });
  });

  test('SimpleStorage.add(100) by eth_sendRawTransaction: ADD=2017 above 70', async () => {
    await withLimits({ ADD: 70 }, async () => {
      const data = new Interface(STORAGE.abi as string[]).encodeFunctionData('add', [100]);
      const answer = await call('eth_sendRawTransaction', [await sign({ to: storage, data })]);
      expect(answer.error?.message).toMatch(/line count for module ADD=2017 is above the limit 70$/);
    });
  });

  test('deploying SimpleStorage: ROM=2369 above 2300', async () => {
    await withLimits({ ROM: 2300 }, async () => {
      const answer = await call('eth_sendRawTransaction', [await sign({ data: STORAGE.bytecode })]);
      expect(answer.error?.message).toMatch(/line count for module ROM=2369 is above the limit 2300$/);
    });
  });

  test('the hex text of add(100) as calldata: SHF=31 above 20', async () => {
    await withLimits({ SHF: 20 }, async () => {
      const calldata = new Interface(STORAGE.abi as string[]).encodeFunctionData('add', [100]);
      const data = hexlify(toUtf8Bytes(calldata));
      const report = await call('l2_traceCallLineCounts', [{ from: wallet.address, to: storage, data }]);
      expect((report.result as { overflow: unknown }).overflow).toEqual({ module: 'SHF', count: 31, limit: 20 });
      // The call reverts (no function has that selector). Linea's estimate runs eth_estimateGas
      // before it counts lines (LineaEstimateGas.execute), so the revert is the answer; the
      // reference test this number comes from predates that order.
      const answer = await call('linea_estimateGas', [{ from: wallet.address, to: storage, data }]);
      expect(answer.error).toMatchObject({ code: 3, message: 'execution reverted' });
    });
  });

  test('a simulation that executes nothing: EXT=7 (the spillage alone) above 5', async () => {
    await withLimits({ EXT: 5 }, async () => {
      const answer = await call('linea_estimateGas', [{ from: wallet.address, to: wallet.address, value: '0x1' }]);
      expect(answer.error?.message).toBe('Transaction line count for module EXT=7 is above the limit 5');
    });
  });

  test('two identical MULMOD(0, 0, 2^256-1) in one transaction: EXT=8, counted once', async () => {
    // PUSH32 2^256-1, PUSH1 0, PUSH1 0, MULMOD, POP, twice; STOP.
    const mulmodOnce = `7f${'ff'.repeat(32)}600060000950`;
    const code = `0x${mulmodOnce}${mulmodOnce}00`;
    const target = '0x00000000000000000000000000000000000e0708';
    expect((await call('anvil_setCode', [target, code])).error).toBeUndefined();
    await withLimits({ EXT: 7 }, async () => {
      const answer = await call('linea_estimateGas', [{ from: wallet.address, to: target }]);
      expect(answer.error?.message).toBe('Transaction line count for module EXT=8 is above the limit 7');
    });
  });

  test("DummyAdder.add(1) by linea_estimateGas: WCP=349 under the coinbase Linea's blocks carry, as the note states", async () => {
    // The node's blocks carry Linea mainnet's coinbase by default, a 20-byte address that London
    // trims (4 WCP comparisons), as the acceptance tests' sequencer address is. A call runs in the
    // head block's context: a block mined with the zero address as coinbase gives the count of a
    // chain whose blocks carry none (7 rows of trimming), 27 fewer.
    expect(await call('eth_coinbase', [])).toMatchObject({ result: '0x8f81e2e3f8b46467523463835f965ffe476e1c9e' });
    const { count, reference } = await client.measuredDeviation(adder, 'WCP', PROFILES.london.notes.WCP);
    expect([reference, count]).toEqual([349, 349]);
    const coinbase = async (address: string) => {
      expect((await call('anvil_setCoinbase', [address])).error).toBeUndefined();
      expect((await call('evm_mine', [])).error).toBeUndefined();
    };
    await coinbase(`0x${'00'.repeat(20)}`);
    try {
      expect(await client.adderCount(adder, 'WCP')).toBe(322);
    } finally {
      await coinbase('0x8F81e2E3F8b46467523463835F965fFE476E1c9E');
    }
  });

  /**
   * linea-sequencer 6c9482cd, EthSendRawTransactionSimulationModExpTest.java: a MODEXP whose base,
   * exponent or modulus size is past 512 bytes makes the effective-call count Integer.MAX_VALUE; up
   * to 512 it counts as usual. The inputs go to the precompile as they are (right-padded by it).
   */
  test('MODEXP sizes past 512 bytes: PRECOMPILE_MODEXP_EFFECTIVE_CALLS=2147483647 above 10000; 512 and under are taken', async () => {
    // CALLDATACOPY the call data to memory, STATICCALL(gas, 0x05, 0, CALLDATASIZE, 0, 0), STOP.
    const relay = '0x00000000000000000000000000000000000e0705';
    await call('anvil_setCode', [relay, '0x3660006000376000600036600060055afa5000']);
    await withLimits({ PRECOMPILE_MODEXP_EFFECTIVE_CALLS: 10_000 }, async () => {
      for (const input of [
        '0x',
        `0x${'00'.repeat(32)}`,
        `0x${'00'.repeat(30)}013f`,
        `0x${'00'.repeat(30)}0200`,
        `0x${'00'.repeat(30)}02`,
      ])
        expect([input, (await send({ to: relay, data: input, gasLimit: 1_000_000 })).error]).toEqual([
          input,
          undefined,
        ]);
      for (const input of [`0x${'00'.repeat(30)}0201`, `0x${'00'.repeat(30)}03`, '0xff', `0x${'ff'.repeat(32)}`]) {
        const answer = await call('eth_sendRawTransaction', [
          await sign({ to: relay, data: input, gasLimit: 1_000_000 }),
        ]);
        expect([input, answer.error?.message]).toEqual([
          input,
          expect.stringMatching(
            /^Transaction 0x[0-9a-f]{64} line count for module PRECOMPILE_MODEXP_EFFECTIVE_CALLS=2147483647 is above the limit 10000$/,
          ),
        ]);
      }
    });
  });

  test('every limit restored: the same transactions are taken', async () => {
    const data = new Interface(STORAGE.abi as string[]).encodeFunctionData('add', [100]);
    const answer = await send({ to: storage, data });
    expect(answer.error).toBeUndefined();
    const receipt = await call('eth_getTransactionReceipt', [answer.result]);
    expect(receipt.result).toMatchObject({ status: '0x1' });
  });

  test('l2_traceLineCounts and linea_getBlockTracesCountersV2 show what the block builder counted', async () => {
    const data = new Interface(STORAGE.abi as string[]).encodeFunctionData('add', [100]);
    // A fresh SimpleStorage (sum = 0, as in Linea's test), then two identical calls in one block: the
    // second adds only the operations the first did not do.
    const fresh = getCreateAddress({ from: wallet.address, nonce: client.nonce() });
    expect((await send({ data: STORAGE.bytecode })).error).toBeUndefined();
    expect((await call('evm_setAutomine', [false])).error).toBeUndefined();
    const first = await send({ to: fresh, data });
    const second = await send({ to: fresh, data });
    expect((await call('evm_mine')).error).toBeUndefined();
    expect((await call('evm_setAutomine', [true])).error).toBeUndefined();
    type Report = {
      tracer: string;
      blockNumber: string;
      modules: Record<string, { count: number; limit: number; exact: boolean }>;
      overflow: unknown;
      binding: string;
    };
    const traced = await call('l2_traceLineCounts', [first.result]);
    expect(traced.error).toBeUndefined();
    const a = traced.result as Report;
    const b = (await call('l2_traceLineCounts', [second.result])).result as Report;
    expect(a.tracer).toBe('london');
    expect(a.modules.ADD).toEqual({ count: 2017, limit: 1_000_000_000, exact: true });
    expect(a.modules.BIN_REFERENCE_TABLE.count).toBe(196_864);
    expect(a.overflow).toBeNull();
    // The block's constants and spillage went with the first transaction.
    expect(b.modules.BIN_REFERENCE_TABLE.count).toBe(0);
    expect(b.modules.EXT.count).toBe(0);
    expect(b.modules.ADD.count).toBeGreaterThan(0);
    expect(b.modules.ADD.count).toBeLessThan(2017 - 1);
    expect(b.blockNumber).toBe(a.blockNumber);

    const block = Number(a.blockNumber);
    const counters = (await call('linea_getBlockTracesCountersV2', [{ blockNumber: block }])).result as {
      tracesEngineVersion: string;
      blockNumber: number;
      tracesCounters: Record<string, number>;
    };
    expect(counters.blockNumber).toBe(block);
    expect(counters.tracesEngineVersion).toBe('beta-v2.1-rc16');
    expect(counters.tracesCounters.ADD).toBe(a.modules.ADD.count + b.modules.ADD.count);
    expect(counters.tracesCounters.BLOCK_TRANSACTIONS).toBe(2);
    expect((await call('l2_traceLineCounts', [`0x${'00'.repeat(32)}`])).result).toBeNull();

    // The same report from the command line, and with a bar per module on a terminal.
    const printed = await runToEnd(['lines', first.result as string, '--rpc', node.url]);
    expect(printed).toMatchObject({ code: 0, stderr: '' });
    expect(printed.stdout).toMatch(new RegExp(`^transaction ${first.result}, block ${block}, tracer london\n`));
    expect(printed.stdout).toMatch(/\nADD +2017 +1000000000 +0\.0%\n/);
    expect(printed.stdout).toMatch(/\nHUB +~ *\d+ /);
    expect(printed.stdout).toContain('no module over its limit; the binding one is BIN_REFERENCE_TABLE');
    const overLimit = { ...a, modules: { ...a.modules, ADD: { count: 2017, limit: 70, exact: true } } };
    const bars = formatLineReport(
      first.result as string,
      { ...overLimit, overflow: { module: 'ADD', count: 2017, limit: 70 } },
      true,
    );
    expect(bars).toMatch(/\nADD +2017 +70 +2881\.4% {2}█{30} {2}over\n/);
    expect(bars).toContain('first over its limit: ADD=2017 above 70');
    const unknown = await runToEnd(['lines', `0x${'00'.repeat(32)}`, '--rpc', node.url]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('is neither a mined nor an excluded transaction');
    // An excluded transaction's record, with the module it overflowed.
    await withLimits({ ADD: 5 }, async () => {
      const data = new Interface(MULMOD.abi as string[]).encodeFunctionData('executeMulmod', [50]);
      const refused = await call('eth_sendRawTransaction', [await sign({ to: mulmod, data, gasLimit: 1_000_000 })]);
      const hash = /(0x[0-9a-f]{64})/.exec(refused.error?.message ?? '')?.[1] as string;
      const excluded = await runToEnd(['lines', hash, '--rpc', node.url]);
      expect(excluded).toMatchObject({ code: 0, stderr: '' });
      const lines = excluded.stdout.split('\n');
      expect(lines[0]).toMatch(new RegExp(`^transaction ${hash} was excluded at stage RPC, \\d{4}-`));
      expect(lines[2]).toMatch(
        /^reason: Transaction 0x[0-9a-f]{64} line count for module ADD=\d+ is above the limit 5$/,
      );
      expect(lines[3]).toMatch(/^ADD: \d+ lines against a limit of 5$/);
    });
    // A node that is not there, and an argument that is not a hash, each in one line.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const dead = await runToEnd(['lines', `0x${'00'.repeat(32)}`, '--rpc', `http://127.0.0.1:${closed}`]);
    expect(dead.code).toBe(2);
    expect(dead.stderr).toBe(
      `error: --rpc http://127.0.0.1:${closed}: cannot reach a node there (connect ECONNREFUSED 127.0.0.1:${closed})\n`,
    );
    const short = await runToEnd(['lines', '0x1234']);
    expect(short.code).toBe(2);
    expect(short.stderr).toBe('error: 0x1234 is not a transaction hash: a hash is 0x and 64 hex digits (4 given)\n');
    expect((await call('linea_getBlockTracesCountersV2', [{ blockNumber: 10 ** 9 }])).error).toMatchObject({
      code: -32000,
    });
    expect((await call('linea_getBlockTracesCountersV2', [{ blockNumber: -1 }])).error).toMatchObject({
      code: -32602,
    });
  });

  test('l2_traceCallLineCounts counts a call whatever its outcome and names the first overflow', async () => {
    await withLimits({ EXT: 20 }, async () => {
      const data = new Interface(MULMOD.abi as string[]).encodeFunctionData('executeMulmod', [5000]);
      const report = (await call('l2_traceCallLineCounts', [{ from: wallet.address, to: mulmod, data }])).result as {
        modules: Record<string, { count: number }>;
        overflow: unknown;
        binding: string;
      };
      expect(report.modules.EXT.count).toBe(33_939);
      expect(report.overflow).toEqual({ module: 'EXT', count: 33_939, limit: 20 });
      expect(report.binding).toBe('EXT');
    });
    // A call that reverts (the garbled calldata) is still counted.
    const calldata = new Interface(STORAGE.abi as string[]).encodeFunctionData('add', [100]);
    const garbled = hexlify(toUtf8Bytes(calldata));
    const reverted = (await call('l2_traceCallLineCounts', [{ from: wallet.address, to: storage, data: garbled }]))
      .result as { modules: Record<string, { count: number }> };
    expect(reverted.modules.SHF.count).toBe(31);
  });
});

/**
 * Today's numbers: Linea's sequencer acceptance tests at linea-monorepo cb180134 (2026-06-12),
 * linea-besu/plugins/linea-sequencer/acceptance-tests/src/test/kotlin/linea/plugin/acc/test/, run by
 * a node on its default tracer (osaka) under each of Linea's two counters. Those tests run the
 * limitless counter by default (TestCommandLineOptionsBuilder sets --plugin-linea-limitless-enabled)
 * and the full tracer where they say so; the precompile counters they check at block level come
 * from EcData and the precompile modules, which both counters share.
 */
const EXCLUDED = artifact('ExcludedPrecompiles');
const CALLER = JSON.parse(readFileSync(join(FIXTURES, 'contracts', 'PrecompileCaller.json'), 'utf8')) as {
  abi: unknown[];
  bytecode: string;
};
const callTimes = (precompile: number, input: string, times: number) =>
  new Interface(CALLER.abi as string[]).encodeFunctionData('callTimes', [
    `0x${precompile.toString(16).padStart(40, '0')}`,
    input,
    times,
  ]);

// EcDataLimitsTest.kt and ModExpLimitsTest.kt inputs.
const ECADD_INPUT =
  '0x070375d4eec4f22aa3ad39cb40ccd73d2dbab6de316e75f81dc2948a996795d5041b98f07f44aa55ce8bd97e32cacf55f1e42229d540d5e7a767d1138a5da656185f6f5cf93c8afa0461a948c2da7c403b6f8477c488155dfa8d2da1c62517b813d83d7a51eb18fdb51225873c87d44f883e770ce2ca56c305d02d6cb99ca5b8';
const ECMUL_INPUT =
  '0x030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd315ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c40000000000000000000000000000000000000000000000000000000000000001';
const ECRECOVER_INPUT =
  '0x279d94621558f755796898fc4bd36b6d407cae77537865afe523b79c74cc680b000000000000000000000000000000000000000000000000000000000000001bc2ff96feed8749a5ad1c0714f950b5ac939d8acedbedcbc2949614ab8af063121feecd50adc6273fdd5d11c6da18c8cfe14e2787f5a90af7c7c1328e7d0a2c42';
const PAIR_NON_TRIVIAL =
  '01395d002b3ca9180fb924650ef0656ead838fd027d487fed681de0d674c30da097c3a9a072f9c85edf7a36812f8ee05e2cc73140749dcd7d29ceb34a84121882bd3295ff81c577fe772543783411c36f463676d9692ca4250588fbad0b44dc707d8d8329e62324af8091e3a4ffe5a57cb8664d1f5f6838c55261177118e9313230f1851ba0d3d7d36c8603c7118c86bd2b6a7a1610c4af9e907cb702beff1d812843e703009c1c1a2f1088dcf4d91e9ed43189aa6327cae9a68be22a1aee5cb';
const PAIR_LEFT_TRIVIAL =
  '00'.repeat(64) +
  '266152e278e5dab4e14f0d93a3e54550d08dc30ef4fe911257bd3e313864b85922cebabf989f812c0a6e67362bcb83d55c6378a4f500ecc8a6a5518b3d1695e0070a5a339edbbb67c35d0d44b3ffff6b5803b198af7645c892f6af2fa8abf6f2117f82e731f61e688908fa2c831c6a1c7775e6f9cfd49e06d1d24d3d13e5936a';
const MODEXP_INPUT = `0x${'00'.repeat(31)}01${'00'.repeat(31)}01${'00'.repeat(31)}01aabbcc`;
// BlsMapFpToG1OverflowSetup.kt: field elements BLS12_MAP_FP_TO_G1 maps.
const FP_INPUTS = [
  '0x0000000000000000000000000000000014406e5bfb9209256a3820879a29ac2f62d6aca82324bf3ae2aa7d3c54792043bd8c791fccdb080c1a52dc68b8b69350',
  '0x000000000000000000000000000000000e885bb33996e12f07da69073e2c0cc880bc8eff26d2a724299eb12d54f4bcf26f4748bb020e80a7e3794a7b0e47a641',
  '0x000000000000000000000000000000000ba1b6d79150bdc368a14157ebfe8b5f691cf657a6bbe30e79b6654691136577d2ef1b36bfb232e3336e7e4c9352a8ed',
  '0x000000000000000000000000000000000f12847f7787f439575031bcdb1f03cfb79f942f3a9709306e4bd5afc73d3f78fd1c1fef913f503c8cbab58453fb7df2',
];

const TEST_BRIDGE = '0x7e577e577e577e577e577e577e577e577e577e57';
const MESSAGE_SENT = 'e856c2b8bd4eb0027ce32eeaf595c21b0b6b4644b326e5b7bd80a1cf8db72e6c';

describe.each(
  (['tracer', 'limitless'] as const).flatMap((counter) => ENGINES.map((engine) => [counter, engine] as const)),
)("Linea's reference line counts today (--counter %s --engine %s)", (counter, engine) => {
  let node: RunningCommand;
  let dir: string;
  let excluded: string;
  let caller: string;
  let adder: string;
  const client = nodeClient(() => node.url);
  const { wallet, call, sign, send, withLimits } = client;
  const mine = async () => expect((await call('evm_mine')).error).toBeUndefined();
  const head = async () => Number((await call('eth_blockNumber')).result);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'l2devnet-lineref-osaka-'));
    const file = join(dir, 'limits.toml');
    const mainnet = readFileSync(join(FIXTURES, 'limits', 'linea-mainnet.toml'), 'utf8');
    writeFileSync(file, mainnet.replace(/= *[0-9_]+/g, '= 1000000000'));
    node = await runCommand([
      ...['--in-memory', '--port', '0', '--chain-id', String(CHAIN_ID), '--no-mining', '-v'],
      ...['--counter', counter, '--limits', file, '--engine', engine],
      // LineaL1L2BridgeSharedConfiguration.TEST_DEFAULT, the bridge of Linea's tracer tests.
      ...['--l1l2-bridge-contract', TEST_BRIDGE, '--l1l2-bridge-topic', MESSAGE_SENT],
    ]);
    expect(node.stdout()).toContain(`Engine:            ${engine}`);
    excluded = getCreateAddress({ from: wallet.address, nonce: 0 });
    caller = getCreateAddress({ from: wallet.address, nonce: 1 });
    adder = getCreateAddress({ from: wallet.address, nonce: 2 });
    for (const bytecode of [EXCLUDED.bytecode, CALLER.bytecode, ADDER.bytecode])
      expect((await send({ data: bytecode })).error).toBeUndefined();
    await mine();
  });
  afterAll(async () => {
    node.child.kill('SIGTERM');
    await node.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test('an empty block reports its constant and system-transaction rows', async () => {
    await mine();
    const { tracesCounters } = (await call('linea_getBlockTracesCountersV2', [{ blockNumber: await head() }]))
      .result as { tracesCounters: Record<string, number> };
    // BLOCK_DATA nROWS_DEPTH 14; the EIP-4788 (5), EIP-2935 (4) and final no-op (2) system transactions
    // in HUB, 3 + 3 + 2 in TXN_DATA; 38 bytes of BLOCK_L1_SIZE; the limitless counter's historical
    // block hashes ((256 + 1) · 6); spillage on top.
    expect(tracesCounters).toMatchObject({ BLOCK_DATA: 14 + 6, HUB: 11 + 12, TXN_DATA: 8 + 8, BLOCK_L1_SIZE: 38 });
    expect(tracesCounters.BLOCK_HASH).toBe(counter === 'limitless' ? 1542 + 1 : 1);
    expect(tracesCounters.BLOCK_TRANSACTIONS).toBe(0);
  });

  // EIP4788BeaconBlockRootSection / EIP2935HistoricalHash: storage rows only where the system
  // contract has code (isNonTrivialOperation); ZkCounter tallies their bounds whatever the state.
  test("without the system contracts' code the full tracer leaves out their 3 storage rows; the limitless counter's bounds stay", async () => {
    const contracts = ['0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02', '0x0000F90827F1C53a10cb7A02335B175320002935'];
    const codes = await Promise.all(contracts.map(async (a) => (await call('eth_getCode', [a, 'latest'])).result));
    expect(codes.every((c) => c.length > 2)).toBe(true);
    try {
      for (const a of contracts) await call('anvil_setCode', [a, '0x']);
      await mine();
      const { tracesCounters } = (await call('linea_getBlockTracesCountersV2', [{ blockNumber: await head() }]))
        .result as { tracesCounters: Record<string, number> };
      expect(tracesCounters.HUB).toBe(counter === 'tracer' ? 3 + 3 + 2 + 12 : 5 + 4 + 2 + 12);
      if (counter === 'tracer') {
        // As in Linea's acceptance-test genesis (no system contracts): DummyAdder.add(1) counts 227 here;
        // the HUB note says what the other 11 rows against its 216 are.
        expect(await client.adderCount(adder, 'HUB')).toBe(227);
      }
    } finally {
      for (const [i, a] of contracts.entries()) await call('anvil_setCode', [a, codes[i]]);
    }
  });

  // ExcludedPrecompilesTest.kt (full tracer) and ExcludedPrecompilesLimitlessTest.kt,
  // EthSendRawTransactionSimulationCheckLimitlessTest.kt (limitless).
  test(
    counter === 'tracer'
      ? 'RIPEMD-160 of "I am not allowed here": PRECOMPILE_RIPEMD_BLOCKS=1 (one 64-byte block) above 0'
      : 'RIPEMD-160 of "I am not allowed here": PRECOMPILE_RIPEMD_BLOCKS=21 (its bytes) above 0',
    async () => {
      await withLimits({ PRECOMPILE_RIPEMD_BLOCKS: 0 }, async () => {
        const data = new Interface(EXCLUDED.abi as string[]).encodeFunctionData('callRIPEMD160', [
          toUtf8Bytes('I am not allowed here'),
        ]);
        const answer = await call('eth_sendRawTransaction', [await sign({ to: excluded, data })]);
        const count = counter === 'tracer' ? 1 : 21;
        expect(answer.error?.message).toMatch(
          new RegExp(
            `^Transaction 0x[0-9a-f]{64} line count for module PRECOMPILE_RIPEMD_BLOCKS=${count} is above the limit 0$`,
          ),
        );
      });
    },
  );

  test(
    counter === 'tracer'
      ? 'BLAKE2f with 12 rounds: PRECOMPILE_BLAKE_ROUNDS=12 above 0, met before the effective call'
      : 'BLAKE2f with 12 rounds: PRECOMPILE_BLAKE_EFFECTIVE_CALLS=1 above 0 (rounds are not checked)',
    async () => {
      await withLimits({ PRECOMPILE_BLAKE_EFFECTIVE_CALLS: 0, PRECOMPILE_BLAKE_ROUNDS: 0 }, async () => {
        const data = new Interface(EXCLUDED.abi as string[]).encodeFunctionData('callBlake2f', [
          12,
          [
            '0x48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5',
            '0xd182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b',
          ],
          [`0x616263${'00'.repeat(29)}`, `0x${'00'.repeat(32)}`, `0x${'00'.repeat(32)}`, `0x${'00'.repeat(32)}`],
          [`0x${'00'.repeat(8)}`, `0x${'00'.repeat(8)}`],
          true,
        ]);
        const answer = await call('eth_sendRawTransaction', [await sign({ to: excluded, data })]);
        const expected = counter === 'tracer' ? 'PRECOMPILE_BLAKE_ROUNDS=12' : 'PRECOMPILE_BLAKE_EFFECTIVE_CALLS=1';
        expect(answer.error?.message).toMatch(new RegExp(`line count for module ${expected} is above the limit 0$`));
      });
    },
  );

  /**
   * ZkCounterTest.java (limitless) and L2L1LogsTests.java (full tracer), tracer/arithmetization/src/test:
   * BLOCK_L2_L1_LOGS counts logs of the bridge contract whose first topic is the bridge's.
   */
  test('L2-to-L1 logs: BLOCK_L2_L1_LOGS=2 for two bridge logs, 0 for a reverted one, another emitter, another first topic', async () => {
    const logT = `7f${MESSAGE_SENT}60006000a1`; // LOG1(0, 0, topic)
    const count = async () => {
      const report = (await call('l2_traceCallLineCounts', [{ from: wallet.address, to: TEST_BRIDGE, value: '0x3e8' }]))
        .result as { modules: Record<string, { count: number }> };
      return report.modules.BLOCK_L2_L1_LOGS.count;
    };
    // LOG1 with the topic and no data; MSTORE(2, 2); four words pushed, LOG1 of 15 bytes under the topic.
    const two = `0x${logT}6002600252600460036002${`7f${MESSAGE_SENT}`}600f6000a1`;
    expect((await call('anvil_setCode', [TEST_BRIDGE, two])).error).toBeUndefined();
    expect(await count()).toBe(2);
    const logAccount = `0x${'01'.repeat(20)}`;
    const revertAccount = `0x${'02'.repeat(20)}`;
    await call('anvil_setCode', [logAccount, `0x${logT}`]);
    await call('anvil_setCode', [revertAccount, `0x${logT}60006000fd`]);
    // LOG2 with the topic second; DELEGATECALL to a contract that logs and reverts; CALL to one that logs.
    const none =
      `0x7f${MESSAGE_SENT}600160006000a2` +
      `600060006000600073${revertAccount.slice(2)}5af450` +
      `6000600060006000600073${logAccount.slice(2)}5af150`;
    await call('anvil_setCode', [TEST_BRIDGE, none]);
    expect(await count()).toBe(0);
  });

  // EstimateGasModuleLimitOverflowTest.kt (full tracer; disabled since 2026-01-29, HUB=216 set at f36923aa).
  if (counter === 'tracer')
    test("HUB: DummyAdder.add(1) by linea_estimateGas is Linea's HUB=216 and the rows the note names", async () => {
      const { count, reference } = await client.measuredDeviation(adder, 'HUB', PROFILES.osaka.notes.HUB);
      // This chain's system contracts' storage rows (3), TX_INIT's EIP-7702 row (1), and today's
      // HUB spillage (12) where the test's tracer had 2.
      expect([reference, count]).toEqual([216, 216 + 3 + 1 + (12 - 2)]);
    });

  // EstimateGasModuleLimitOverflowLimitlessTest.kt with BlsMapFpToG1OverflowSetup.kt's four inputs.
  test('BLS12_MAP_FP_TO_G1 by linea_estimateGas: PRECOMPILE_BLS_MAP_FP_TO_G1_EFFECTIVE_CALLS=1 above 0', async () => {
    await withLimits({ PRECOMPILE_BLS_MAP_FP_TO_G1_EFFECTIVE_CALLS: 0 }, async () => {
      for (const input of FP_INPUTS) {
        const answer = await call('linea_estimateGas', [
          { from: wallet.address, to: caller, data: callTimes(0x10, input, 1), gasPrice: '0x3b9aca00' },
        ]);
        expect(answer.error).toEqual({
          code: -32000,
          message:
            'Transaction line count for module PRECOMPILE_BLS_MAP_FP_TO_G1_EFFECTIVE_CALLS=1 is above the limit 0',
        });
      }
    });
  });

  /**
   * EcDataLimitsTest.kt, ModExpLimitsTest.kt: transactions that fit one block but the last, which the
   * selector leaves for the next block with "Cumulated line count for module M=N is above the limit
   * L, stopping selection" (the limits of their moduleLimits.toml).
   */
  test.each([
    ['PRECOMPILE_ECADD_EFFECTIVE_CALLS', 512, 544, 17, () => callTimes(6, ECADD_INPUT, 32)],
    ['PRECOMPILE_ECMUL_EFFECTIVE_CALLS', 32, 33, 33, () => callTimes(7, ECMUL_INPUT, 1)],
    ['PRECOMPILE_ECRECOVER_EFFECTIVE_CALLS', 128, 129, 129, () => callTimes(1, ECRECOVER_INPUT, 1)],
    ['PRECOMPILE_MODEXP_EFFECTIVE_CALLS', 4, 5, 5, () => callTimes(5, MODEXP_INPUT, 1)],
    ['PRECOMPILE_ECPAIRING_FINAL_EXPONENTIATIONS', 16, 17, 17, () => callTimes(8, `0x${PAIR_NON_TRIVIAL}`, 1)],
    [
      'PRECOMPILE_ECPAIRING_MILLER_LOOPS',
      64,
      65,
      9,
      (i: number) => callTimes(8, `0x${PAIR_NON_TRIVIAL.repeat(i < 8 ? 8 : 1)}`, 1),
    ],
    [
      'PRECOMPILE_ECPAIRING_G2_MEMBERSHIP_CALLS',
      64,
      65,
      9,
      (i: number) => callTimes(8, `0x${PAIR_LEFT_TRIVIAL.repeat(i < 8 ? 8 : 1)}`, 1),
    ],
  ])('%s: the block holds %i, the last transaction makes it %i and waits', async (module, limit, count, txs, data) => {
    await withLimits({ [module]: limit }, async () => {
      for (let i = 0; i < txs; i++)
        expect((await send({ to: caller, data: data(i), gasLimit: 1_000_000 })).error).toBeUndefined();
      await mine();
      const block = (await call('eth_getBlockByNumber', ['latest', false])).result as { transactions: string[] };
      expect(block.transactions).toHaveLength(txs - 1);
      const { tracesCounters } = (await call('linea_getBlockTracesCountersV2', [{ blockNumber: await head() }]))
        .result as { tracesCounters: Record<string, number> };
      expect(tracesCounters[module]).toBeLessThanOrEqual(limit);
      // The selector's log line, printed once the block is committed.
      const line = `Cumulated line count for module ${module}=${count} is above the limit ${limit}, stopping selection`;
      for (let tries = 0; !node.stdout().includes(line) && tries < 50; tries++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(node.stdout()).toContain(line);
      await mine();
      const next = (await call('eth_getBlockByNumber', ['latest', false])).result as { transactions: string[] };
      expect(next.transactions).toHaveLength(1);
    });
  });
});
