/**
 * geth's tracers through JSON-RPC, on the flow of fixtures/contracts/TraceFlow.sol (nested calls, a
 * caught revert, a delegatecall, a precompile, a create, logs, a reverting transaction), compared
 * with the answers Anvil 1.7.1 gave for the same flow (fixtures/traces/anvil-1.7.1.json, recorded by
 * scripts/trace-flow.js). Where Anvil departs from geth this node answers as geth does, and the
 * comparison says so:
 *  - callTracer's top frame carries the transaction's gas limit (geth's callTracer:
 *    `if depth == 0 { call.Gas = t.gasLimit }`); Anvil reports the gas left after intrinsic gas;
 *  - 4byteTracer skips precompiles (geth: "those are just fancy opcodes"); Anvil counts them;
 *  - the struct logger leaves out a refund of 0 and an empty memory (geth's StructLog marshals them
 *    `omitempty`); Anvil writes `refund: 0` and `memory: []`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { rpcCall, runCommand } from './command';
import type { RunningCommand } from './command';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { traceFlow } = require('../../../scripts/trace-flow.js') as {
  traceFlow(url: string): Promise<Record<string, unknown>>;
};

const reference = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'traces', 'anvil-1.7.1.json'), 'utf8'),
) as Record<string, unknown>;
const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
type Frame = { gas: string; to: string; input: string; calls?: Frame[]; lineCounts?: Record<string, number> };

/** The reference as geth would answer: the top frame's gas is the transaction's gas limit. */
function asGeth(name: string, value: unknown, gasLimit: string): unknown {
  if (name.includes('callTracer') && !name.startsWith('block')) return { ...(value as Frame), gas: gasLimit };
  return value;
}

/** A struct logger answer of Anvil's as geth writes it: no `refund` of 0, no empty `memory`. */
function structLogsAsGeth(value: unknown): unknown {
  const trace = value as { structLogs: Record<string, unknown>[] };
  return {
    ...trace,
    structLogs: trace.structLogs.map(({ refund, memory, ...log }) => ({
      ...log,
      ...(refund !== 0 && { refund }),
      ...(Array.isArray(memory) && memory.length > 0 && { memory }),
    })),
  };
}

describe('debug_trace* with geth tracers, against a recorded Anvil run of the same flow', () => {
  let node: RunningCommand;
  let ours: Record<string, unknown>;
  const call = (method: string, params: unknown[]) => rpcCall(node.url, method, params);

  beforeAll(async () => {
    // Anvil's blocks carry the zero address as coinbase, which prestateTracer lists with its fees.
    node = await runCommand([
      '--in-memory',
      '--port',
      '0',
      '--hardfork',
      'prague',
      '--coinbase',
      `0x${'00'.repeat(20)}`,
    ]);
    ours = await traceFlow(node.url);
  });
  afterAll(async () => {
    node.child.kill('SIGTERM');
    await node.exited;
  });

  const GAS: Record<string, string> = {
    'run: callTracer': '0xf4240',
    'run: callTracer withLog': '0xf4240',
    'run: callTracer onlyTopCall': '0xf4240',
    'deploy: callTracer': '0x2dc6c0',
    'boom: callTracer': '0x493e0',
    'call run(7): callTracer': '0xf4240',
  };

  test.each(Object.keys(GAS))('%s matches, the top frame as geth gives it', (name) => {
    expect(ours[name]).toEqual(asGeth(name, reference[name], GAS[name]));
  });

  test.each(['boom: struct logger', 'boom: struct logger with memory, no stack'])('%s matches', (name) => {
    expect(ours[name]).toEqual(structLogsAsGeth(reference[name]));
  });

  test.each(['run: prestateTracer', 'run: prestateTracer diffMode', 'boom: prestateTracer diffMode'])(
    '%s matches, the sender balance being what this chain charged',
    async (name) => {
      // The two nodes charge different base fees, so the sender's balance is checked against this
      // chain's own state before and after the transaction instead.
      const tx = name.startsWith('run') ? 'run: callTracer' : 'boom: callTracer';
      const ourTrace = ours[name] as Record<string, Record<string, { balance?: string }>>;
      const expected = JSON.parse(JSON.stringify(reference[name])) as typeof ourTrace;
      const blockOf = async () => {
        const [traced] = ours['block of run: callTracer'] as { txHash: string }[];
        const receipt = (await call('eth_getTransactionReceipt', [traced.txHash])).result as { blockNumber: string };
        return BigInt(receipt.blockNumber) + (tx.startsWith('boom') ? 1n : 0n);
      };
      const n = await blockOf();
      const balance = async (at: bigint) =>
        (await call('eth_getBalance', [FROM, `0x${at.toString(16)}`])).result as string;
      const sender = FROM;
      if (name.endsWith('diffMode')) {
        expected.pre[sender].balance = await balance(n - 1n);
        expected.post[sender].balance = await balance(n);
      } else {
        (expected as unknown as Record<string, { balance: string }>)[sender].balance = await balance(n - 1n);
      }
      expect(ourTrace).toEqual(expected);
    },
  );

  test('4byteTracer matches, without the precompile call geth leaves out', () => {
    const expected = { ...(reference['run: 4byteTracer'] as Record<string, number>) };
    delete expected['0x00000000-28'];
    expect(ours['run: 4byteTracer']).toEqual(expected);
  });

  test('debug_traceBlockByNumber gives each transaction of the block with its hash', () => {
    const [traced] = ours['block of run: callTracer'] as { txHash: string; result: unknown }[];
    const [recorded] = reference['block of run: callTracer'] as { txHash: string; result: unknown }[];
    expect(traced.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(traced.result).toEqual({ ...(recorded.result as Frame), gas: '0xf4240' });
    expect(traced.result).toEqual(ours['run: callTracer']);
  });

  test('debug_traceBlockByHash, debug_traceTransaction at an old block, noopTracer and muxTracer', async () => {
    const [traced] = ours['block of run: callTracer'] as { txHash: string }[];
    const receipt = (await call('eth_getTransactionReceipt', [traced.txHash])).result as { blockHash: string };
    const byHash = await call('debug_traceBlockByHash', [receipt.blockHash, { tracer: 'callTracer' }]);
    expect(byHash.result).toEqual(ours['block of run: callTracer']);
    // Later blocks do not change the trace of an older transaction.
    await call('eth_sendTransaction', [{ from: FROM, to: FROM, value: '0x1' }]);
    expect((await call('debug_traceTransaction', [traced.txHash, { tracer: 'callTracer' }])).result).toEqual(
      ours['run: callTracer'],
    );
    expect((await call('debug_traceTransaction', [traced.txHash, { tracer: 'noopTracer' }])).result).toEqual({});
    const mux = await call('debug_traceTransaction', [
      traced.txHash,
      { tracer: 'muxTracer', tracerConfig: { callTracer: { onlyTopCall: true }, '4byteTracer': {} } },
    ]);
    expect(mux.result).toEqual({
      callTracer: ours['run: callTracer onlyTopCall'],
      '4byteTracer': ours['run: 4byteTracer'],
    });
  });

  test('lineCountTracer: prover line counts per call frame, adding up to the transaction', async () => {
    const [traced] = ours['block of run: callTracer'] as { txHash: string }[];
    const answer = (await call('debug_traceTransaction', [traced.txHash, { tracer: 'lineCountTracer' }])).result as {
      tracer: string;
      lineCounts: Record<string, number>;
      frames: Frame;
    };
    expect(answer.tracer).toBe('osaka');
    // The transaction was alone in its block: its counts are the ones l2_traceLineCounts reports.
    const report = (await call('l2_traceLineCounts', [traced.txHash])).result as {
      modules: Record<string, { count: number }>;
    };
    for (const module of ['ADD', 'HUB', 'ROM', 'EXT', 'SHAKIRA_DATA'])
      expect(answer.lineCounts[module]).toBe(report.modules[module].count);
    const top = answer.frames;
    expect(top.calls?.map((f) => (f as unknown as { type: string }).type)).toEqual([
      'CALL',
      'STATICCALL',
      'DELEGATECALL',
      'STATICCALL',
      'CREATE',
      'CALL',
    ]);
    // A frame's lines include its sub-calls': the top frame's ROM covers every fragment below it.
    const childRom = (top.calls ?? []).reduce((s, f) => s + (f.lineCounts?.ROM ?? 0), 0);
    expect(top.lineCounts?.ROM).toBeGreaterThanOrEqual(childRom);
    expect(top.calls?.[0].lineCounts?.ADD).toBeGreaterThan(0);
    expect(answer.lineCounts.HUB).toBeGreaterThan(top.lineCounts?.HUB ?? 0);
  });

  test('debug_traceCall takes state overrides; struct logger options limit and disableStorage', async () => {
    const flow = (ours['run: callTracer'] as Frame).to;
    const code = '0x6001600055600054' + '00'; // SSTORE(0, 1), SLOAD(0), STOP
    const answer = await call('debug_traceCall', [
      { from: FROM, to: flow, gas: '0x30000' },
      'latest',
      { stateOverrides: { [flow]: { code } }, limit: 3 },
    ]);
    const result = answer.result as { failed: boolean; structLogs: { op: string; storage?: unknown }[] };
    expect(result.failed).toBe(false);
    expect(result.structLogs.map((l) => l.op)).toEqual(['PUSH1', 'PUSH1', 'SSTORE']);
    expect(result.structLogs[2].storage).toEqual({
      ['0x' + '0'.repeat(64)]: '0x' + '0'.repeat(63) + '1',
    });
    const bare = await call('debug_traceCall', [
      { from: FROM, to: flow, gas: '0x30000' },
      'latest',
      { stateOverrides: { [flow]: { code } }, disableStorage: true, disableStack: true },
    ]);
    const logs = (bare.result as { structLogs: Record<string, unknown>[] }).structLogs;
    expect(logs).toHaveLength(6);
    expect(logs.every((l) => l.storage === undefined && l.stack === undefined)).toBe(true);
  });

  test('flatCallTracer: the callTracer frames as Parity-style traces, precompile calls left out', async () => {
    // Anvil answers {} to flatCallTracer, so these are checked against this node's own callTracer.
    const [traced] = ours['block of run: callTracer'] as { txHash: string }[];
    const receipt = (await call('eth_getTransactionReceipt', [traced.txHash])).result as {
      blockHash: string;
      blockNumber: string;
    };
    const flat = (await call('debug_traceTransaction', [traced.txHash, { tracer: 'flatCallTracer' }])).result as Record<
      string,
      unknown
    >[];
    const nested = ours['run: callTracer'] as Frame & { calls: (Frame & { type: string; gasUsed: string })[] };
    expect(flat.map((f) => f.traceAddress)).toEqual([[], [0], [1], [2], [3], [4]]);
    expect(flat.map((f) => (f.action as { callType?: string }).callType ?? 'create')).toEqual([
      'call',
      'call',
      'staticcall',
      'delegatecall',
      'create',
      'call',
    ]);
    expect(flat[0]).toMatchObject({
      blockHash: receipt.blockHash,
      blockNumber: Number(receipt.blockNumber),
      transactionHash: traced.txHash,
      transactionPosition: 0,
      subtraces: 5,
      type: 'call',
      action: { from: FROM, to: nested.to, gas: '0xf4240', input: nested.input, value: '0x0' },
    });
    const created = nested.calls.find((c) => c.type === 'CREATE') as Frame & { gasUsed: string; output: string };
    expect(flat[4]).toMatchObject({
      type: 'create',
      action: { creationMethod: 'create', init: created.input },
      result: { address: created.to, code: created.output, gasUsed: created.gasUsed },
    });
    expect(flat[2]).toMatchObject({ error: 'execution reverted', action: { value: '0x0' } });
    const parity = (
      await call('debug_traceTransaction', [
        traced.txHash,
        { tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true, includePrecompiles: true } },
      ])
    ).result as Record<string, unknown>[];
    expect(parity).toHaveLength(7);
    expect(parity[2].error).toBe('Reverted');
  });

  test('debug_traceCall: block overrides set the context the call sees; timeout aborts a trace', async () => {
    const clock = '0x00000000000000000000000000000000000c10c0';
    // TIMESTAMP, NUMBER, COINBASE into memory; RETURN 96 bytes
    const code = '0x425f52436020524160405260605ff3';
    const answer = await call('debug_traceCall', [
      { from: FROM, to: clock, gas: '0x30000' },
      'latest',
      {
        tracer: 'callTracer',
        stateOverrides: { [clock]: { code } },
        blockOverrides: { time: '0x1234', number: '0x99', coinbase: '0x00000000000000000000000000000000000000cb' },
      },
    ]);
    const output = (answer.result as { output: string }).output;
    expect(output).toBe('0x' + '1234'.padStart(64, '0') + '99'.padStart(64, '0') + 'cb'.padStart(64, '0'));
    const looper = '0x00000000000000000000000000000000000100ab';
    const started = performance.now();
    // The gas cap's 300M gas: the 30M this asked for ran out in ~0.5 s on the engine, too close to the limit.
    const aborted = await call('debug_traceCall', [
      { from: FROM, to: looper, gas: '0x11e1a300' },
      'latest',
      { tracer: 'callTracer', stateOverrides: { [looper]: { code: '0x5b600056' } }, timeout: '300ms' },
    ]);
    expect(aborted.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 300ms)' });
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(
      (await call('debug_traceCall', [{ from: FROM, to: looper }, 'latest', { timeout: '5 seconds' }])).error,
    ).toMatchObject({ code: -32602 });
    // A gas limit below the mined block's gas use: the call's context is its own, so it runs.
    const small = await call('debug_traceCall', [
      { from: FROM, to: looper, gas: '0x5208' },
      'latest',
      { tracer: 'callTracer', blockOverrides: { gasLimit: '0x1' } },
    ]);
    expect(small.error).toBeUndefined();
    // A LOG too large to pay for reaches the tracer before the gas check: the trace answers out of gas.
    const logger = '0x00000000000000000000000000000000000000a3';
    const huge = await call('debug_traceCall', [
      { from: FROM, to: logger, gas: '0x10000' },
      'latest',
      {
        tracer: 'callTracer',
        tracerConfig: { withLog: true },
        stateOverrides: { [logger]: { code: '0x67ffffffffffffffff5fa0' } },
      },
    ]);
    expect(huge.result).toMatchObject({ error: 'out of gas' });
    expect(
      (await call('debug_traceCall', [{ from: FROM, to: looper }, 'latest', { blockOverrides: { hour: '0x1' } }]))
        .error,
    ).toMatchObject({ code: -32602 });
  });

  test('a SELFDESTRUCT is a frame of its own (callTracer, flatCallTracer); the faulting instruction carries the error', async () => {
    const doomed = '0x00000000000000000000000000000000000d00d0';
    const heir = '00000000000000000000000000000000000000be';
    const request = { from: FROM, to: doomed, value: '0x5', gas: '0x30000' };
    const overrides = { [doomed]: { code: `0x73${heir}ff` } }; // SELFDESTRUCT(heir)
    const nested = await call('debug_traceCall', [
      request,
      'latest',
      { tracer: 'callTracer', stateOverrides: overrides },
    ]);
    expect((nested.result as { calls: unknown[] }).calls).toEqual([
      { type: 'SELFDESTRUCT', from: doomed, to: `0x${heir}`, value: '0x5', gas: '0x0', gasUsed: '0x0', input: '0x' },
    ]);
    const flat = await call('debug_traceCall', [
      request,
      'latest',
      { tracer: 'flatCallTracer', stateOverrides: overrides },
    ]);
    expect((flat.result as unknown[])[1]).toMatchObject({
      type: 'suicide',
      action: { address: doomed, balance: '0x5', refundAddress: `0x${heir}` },
      traceAddress: [0],
    });
    // PUSH1 1, JUMP: no JUMPDEST there.
    const bad = await call('debug_traceCall', [
      { from: FROM, to: doomed, gas: '0x30000' },
      'latest',
      { stateOverrides: { [doomed]: { code: '0x600156' } } },
    ]);
    const logs = (bad.result as { failed: boolean; structLogs: { op: string; error?: string }[] }).structLogs;
    expect((bad.result as { failed: boolean }).failed).toBe(true);
    expect(logs.map((l) => [l.op, l.error])).toEqual([
      ['PUSH1', undefined],
      ['JUMP', 'invalid jump destination'],
    ]);
  });

  test("callTracer gives a Panic revert geth's reason", async () => {
    const panicker = '0x00000000000000000000000000000000000a11c0';
    // Panic(0x11) as revert data: selector, then the code word.
    const code = `0x7f4e487b71${'00'.repeat(28)}5f52601160045260245ffd`;
    const answer = await call('debug_traceCall', [
      { from: FROM, to: panicker, gas: '0x30000' },
      'latest',
      { tracer: 'callTracer', stateOverrides: { [panicker]: { code } } },
    ]);
    expect(answer.result).toMatchObject({
      error: 'execution reverted',
      revertReason: 'arithmetic underflow or overflow',
      output: `0x4e487b71${'11'.padStart(64, '0')}`,
    });
  });

  test('bad requests: an unknown tracer, an unknown transaction, bad options; the node stays up', async () => {
    const [traced] = ours['block of run: callTracer'] as { txHash: string }[];
    expect((await call('debug_traceTransaction', [traced.txHash, { tracer: 'jsTracer' }])).error).toEqual({
      code: -32000,
      message: 'tracer not found: jsTracer',
    });
    expect((await call('debug_traceTransaction', [`0x${'00'.repeat(32)}`, {}])).error).toEqual({
      code: -32000,
      message: 'transaction not found',
    });
    expect((await call('debug_traceTransaction', [traced.txHash, { limit: -1 }])).error).toMatchObject({
      code: -32602,
    });
    expect((await call('debug_traceTransaction', [traced.txHash, { tracer: 5 }])).error).toMatchObject({
      code: -32602,
    });
    expect((await call('debug_traceBlockByNumber', ['0x0', {}])).error).toMatchObject({ code: -32000 });
    expect((await call('eth_blockNumber', [])).result).toMatch(/^0x/);
  });
});
