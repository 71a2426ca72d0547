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

import { formatLineReport } from '../src/lines';
import { rpcCall, runCommand, runToEnd } from './command';
import type { RunningCommand } from './command';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures');
const ALICE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const CHAIN_ID = 59144;
const artifact = (name: string) =>
  JSON.parse(readFileSync(join(FIXTURES, 'contracts', 'linea', `${name}.json`), 'utf8')) as {
    abi: unknown[];
    bytecode: string;
  };
const MULMOD = artifact('MulmodExecutor');
const STORAGE = artifact('SimpleStorage');

describe("Linea's reference line counts (--tracer london --hardfork london)", () => {
  let node: RunningCommand;
  let dir: string;
  const wallet = new Wallet(ALICE_KEY);
  let nonce = 0;
  let mulmod: string;
  let storage: string;

  const call = async (method: string, params: unknown[] = []) => rpcCall(node.url, method, params);
  const sign = (tx: { to?: string; data: string; gasLimit?: number }) =>
    wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce: nonce,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      gasLimit: tx.gasLimit ?? 5_000_000,
      to: tx.to,
      data: tx.data,
    });
  /** Sends a signed transaction; counts the nonce as used when the node took it. */
  const send = async (tx: { to?: string; data: string; gasLimit?: number }) => {
    const answer = await call('eth_sendRawTransaction', [await sign(tx)]);
    if (answer.error === undefined) nonce++;
    return answer;
  };
  const withLimit = async (module: string, limit: number, run: () => Promise<void>) => {
    expect((await call('l2_setLineLimits', [{ [module]: limit }])).error).toBeUndefined();
    try {
      await run();
    } finally {
      expect((await call('l2_resetLineLimits')).error).toBeUndefined();
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'l2devnet-lineref-'));
    const limits = join(dir, 'limits.toml');
    const acceptance = readFileSync(join(FIXTURES, 'limits', 'linea-sequencer-acceptance-tx-overflow.toml'), 'utf8');
    writeFileSync(limits, acceptance.replace(/= *[0-9_]+/g, '= 1000000000'));
    node = await runCommand([
      ...['--in-memory', '--port', '0', '--chain-id', String(CHAIN_ID)],
      ...['--tracer', 'london', '--hardfork', 'london', '--limits', limits],
    ]);
    const deploy = async (bytecode: string) => {
      const address = getCreateAddress({ from: wallet.address, nonce });
      const answer = await send({ data: bytecode });
      expect(answer.error).toBeUndefined();
      return address;
    };
    mulmod = await deploy(MULMOD.bytecode);
    storage = await deploy(STORAGE.bytecode);
  });
  afterAll(async () => {
    node.child.kill('SIGTERM');
    await node.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test('MulmodExecutor.executeMulmod(5000) by eth_sendRawTransaction: EXT=33939 above 20', async () => {
    await withLimit('EXT', 20, async () => {
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
    await withLimit('ADD', 70, async () => {
      const data = new Interface(STORAGE.abi as string[]).encodeFunctionData('add', [100]);
      const answer = await call('eth_sendRawTransaction', [await sign({ to: storage, data })]);
      expect(answer.error?.message).toMatch(/line count for module ADD=2017 is above the limit 70$/);
    });
  });

  test('deploying SimpleStorage: ROM=2369 above 2300', async () => {
    await withLimit('ROM', 2300, async () => {
      const answer = await call('eth_sendRawTransaction', [await sign({ data: STORAGE.bytecode })]);
      expect(answer.error?.message).toMatch(/line count for module ROM=2369 is above the limit 2300$/);
    });
  });

  test('the hex text of add(100) as calldata: SHF=31 above 20', async () => {
    await withLimit('SHF', 20, async () => {
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
    await withLimit('EXT', 5, async () => {
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
    await withLimit('EXT', 7, async () => {
      const answer = await call('linea_estimateGas', [{ from: wallet.address, to: target }]);
      expect(answer.error?.message).toBe('Transaction line count for module EXT=8 is above the limit 7');
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
    const fresh = getCreateAddress({ from: wallet.address, nonce });
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
    await withLimit('ADD', 5, async () => {
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
    await withLimit('EXT', 20, async () => {
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
