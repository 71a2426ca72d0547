/**
 * The call workers (callPool.ts, callWorker.ts): calls and traces run in them answer as the main
 * thread's, with the same errors, on the state of the block asked for (edits and new blocks
 * included), and a call pinned by its time limit holds up no other.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { bytesToHex, hexToBytes } from '@ethereumjs/util';

import { deploy, send, word } from '../../../test/helpers';
import { Chain } from '../../chain/chain';
import type { ChainOptions } from '../../chain/chain';
import { DEFAULT_LIMITS, LineLimits } from '../../lines/lineLimits';
import { NodeClock } from '../../chain/clock';
import type { SimulatedBlock } from '../simulate';
import { CallPool } from './callPool';
import type { CallRequest } from '../simulator';

const COUNTER_INCREMENT = '0xd09de08a';
const COUNTER_COUNT = '0x06661abd';
/** Init code returning BLOCKHASH(NUMBER - 1): NUMBER PUSH1 1 SWAP1 SUB BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const PARENT_HASH = hexToBytes('0x43600190034060005260206000f3');
/** Init code that never ends: JUMPDEST PUSH1 0 JUMP. */
const LOOP = hexToBytes('0x5b600056');

/**
 * A chain with fixed time, so two of them make the same blocks; with workers, each of its calls runs
 * in them, even one that arrives while no other runs (which would take the main thread).
 */
async function open(opts: ChainOptions): Promise<Chain> {
  const chain = await Chain.create({ clock: new NodeClock(() => 1_750_000_000_000), ...opts });
  chain.calls.setMainWhenIdle(false);
  return chain;
}

/** The answer, or the error's class, kind, message and fields: what the RPC layer maps. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return { value: await p };
  } catch (e) {
    return { error: (e as Error).constructor.name, ...(e as object), message: (e as Error).message };
  }
}

describe('call workers', () => {
  const chains: Chain[] = [];
  afterEach(async () => {
    for (const chain of chains.splice(0)) await chain.close();
  });

  /**
   * `record` on a chain whose calls run in the workers and on one alike whose calls run on the main
   * thread: the two records are equal, the first chain ran `uses` calls in the workers and the second
   * none. Returns the record.
   */
  async function inWorkersAsOnMain<T>(
    uses: number,
    record: (chain: Chain) => Promise<T>,
    opts: ChainOptions = {},
  ): Promise<T> {
    const records: T[] = [];
    for (const workers of [2, 0]) {
      const chain = await open({ ...opts, workers });
      chains.push(chain);
      expect(await chain.calls.workersReady()).toBe(workers > 0);
      const before = chain.calls.workerCalls;
      records.push(await record(chain));
      expect(chain.calls.workerCalls - before).toBe(workers > 0 ? uses : 0);
    }
    expect(records[0]).toEqual(records[1]);
    return records[0];
  }

  test('eth_call, eth_estimateGas and eth_createAccessList run in the workers and answer as the main thread', async () => {
    // Seven requests called, estimated and listed; then five calls.
    const { answers, parent } = await inWorkersAsOnMain(7 * 3 + 5, async (chain) => {
      const answers: unknown[] = [];
      const counter = await deploy(chain, 'Counter');
      const reverter = await deploy(chain, 'Reverter');
      const from = chain.accounts[0].address;
      const poor = hexToBytes(`0x${'77'.repeat(20)}`);
      const requests: CallRequest[] = [
        { to: counter, data: hexToBytes(COUNTER_COUNT) },
        { from, to: counter, data: hexToBytes(COUNTER_INCREMENT) },
        { to: reverter, data: hexToBytes('0x5b2dd100') },
        { to: reverter, data: hexToBytes('0x0e64d54c') },
        { from: poor, to: counter, value: 1n },
        { from, to: counter, data: hexToBytes(COUNTER_INCREMENT), gas: 21_000n },
        { data: PARENT_HASH },
      ];
      for (const req of requests) {
        answers.push(await outcome(chain.calls.call(req, chain.headNumber)));
        answers.push(await outcome(chain.calls.estimateGas(req, chain.headNumber)));
        answers.push(await outcome(chain.calls.createAccessList(req, chain.headNumber)));
      }
      // With state overrides (a slot, and ECRECOVER moved), at an earlier block, and after a
      // transaction and a state edit at the head.
      const overrides = [
        { address: counter, stateDiff: [[word(0n), word(7n)]] as [Uint8Array, Uint8Array][] },
        { address: hexToBytes(`0x${'00'.repeat(19)}01`), movePrecompileTo: hexToBytes(`0x${'00'.repeat(19)}77`) },
      ];
      answers.push(await outcome(chain.calls.call(requests[0], chain.headNumber, { overrides })));
      answers.push(await outcome(chain.calls.call(requests[0], chain.headNumber - 1n)));
      await send(chain, 0, { to: counter, data: hexToBytes(COUNTER_INCREMENT) });
      await chain.dev.setStorageAt(counter, word(0n), word(41n));
      answers.push(await outcome(chain.calls.call(requests[0], chain.headNumber)));
      answers.push(await outcome(chain.calls.call(requests[0], chain.headNumber - 1n)));
      answers.push(await outcome(chain.calls.call(requests[6], chain.headNumber)));
      return { answers, parent: (await chain.reads.getBlockByNumber(chain.headNumber - 1n))!.hash() };
    });
    // What was compared: values, errors of their classes with their fields, state as edited.
    expect(answers.at(-3)).toEqual({ value: expect.objectContaining({ returnValue: word(41n) }) });
    expect(answers.at(-5)).toEqual({ value: expect.objectContaining({ returnValue: word(7n) }) });
    expect(answers.at(-1)).toEqual({ value: expect.objectContaining({ returnValue: parent }) });
    expect(answers[6]).toMatchObject({ error: 'ExecutionRevertedError', kind: 'executionReverted', reason: 'nope' });
    expect(answers[12]).toMatchObject({ error: 'InsufficientFundsError', kind: 'insufficientFunds', have: 0n });
    expect(bytesToHex((answers[9] as { data: Uint8Array }).data)).toBe(`0xcb362b34${bytesToHex(word(42n)).slice(2)}`);
  });

  test('traces of calls, mined transactions and blocks, and line counts of calls, run in the workers and answer as the main thread', async () => {
    // Three tracers on a call and on a transaction, a block's traces, two calls' line counts.
    const traces = await inWorkersAsOnMain(3 * 2 + 1 + 2, async (chain) => {
      const traces: unknown[] = [];
      const counter = await deploy(chain, 'Counter');
      const increment = { from: chain.accounts[0].address, to: counter, data: hexToBytes(COUNTER_INCREMENT) };
      const hash = await send(chain, 0, { to: counter, data: increment.data });
      for (const options of [
        { enableMemory: true },
        { tracer: 'callTracer' },
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ]) {
        traces.push(await chain.traces.traceCall(increment, chain.headNumber, [], options));
        traces.push(await chain.traces.traceTransaction(hash, options));
      }
      traces.push(await chain.traces.traceBlock(chain.headNumber, { tracer: 'callTracer' }));
      // l2_traceCallLineCounts: estimated first, then counted at the estimate.
      traces.push(await chain.lines.callLineCounts(increment, chain.headNumber));
      traces.push(await chain.lines.callLineCounts({ ...increment, gas: 100_000n }, chain.headNumber));
      return traces;
    });
    expect(traces[0]).toMatchObject({ tracer: 'structLogger', failed: false });
    expect(traces[7]).toMatchObject({ HUB: expect.any(Number) });
    expect(traces[6]).toEqual([
      { txHash: expect.any(Uint8Array), result: expect.objectContaining({ tracer: 'callTracer' }) },
    ]);
  });

  test('eth_simulateV1 runs in the workers: the same blocks, receipts, calls and errors as on the main thread', async () => {
    const results = await inWorkersAsOnMain(2, async (chain) => {
      const results: unknown[] = [];
      const counter = await deploy(chain, 'Counter');
      const increment = { from: chain.accounts[0].address, to: counter, data: hexToBytes(COUNTER_INCREMENT) };
      for (const [input, validation] of [
        // Two blocks: a legacy call (a gas price) and an EIP-1559 one, then a read of the count.
        [
          [
            { calls: [{ ...increment, gasPrice: 2n }, increment] },
            { calls: [{ to: counter, data: hexToBytes(COUNTER_COUNT) }] },
          ],
          false,
        ],
        [[{ calls: [{ ...increment, nonce: 99n }] }], true], // a nonce too high: SimulateError -38011
      ] as const) {
        const outcomeOf = await outcome(
          chain.calls.simulate(chain.headNumber, input as never, { validation, traceTransfers: false }),
        );
        const value = (outcomeOf as { value?: SimulatedBlock[] }).value;
        results.push(
          value === undefined
            ? outcomeOf
            : value.map(({ block, receipts, calls }) => ({
                hash: bytesToHex(block.hash()),
                header: block.header.serialize(),
                txs: block.transactions.map((tx) => bytesToHex(tx.hash())),
                receipts,
                calls,
              })),
        );
      }
      return results;
    });
    expect(results[0]).toHaveLength(2);
    expect(results[1]).toMatchObject({ error: 'SimulateError', code: -38011 });
  });

  test("linea_estimateGas's estimate runs in the workers, judged by the limits in force when it is asked", async () => {
    const lineLimits = LineLimits.parse(readFileSync(DEFAULT_LIMITS.osaka, 'utf8'), 'mainnet');
    const outcomes = await inWorkersAsOnMain(
      2,
      async (chain) => {
        const counter = await deploy(chain, 'Counter');
        const increment = { from: chain.accounts[0].address, to: counter, data: hexToBytes(COUNTER_INCREMENT) };
        const estimated = await outcome(chain.calls.estimateGas(increment, chain.headNumber, true));
        await chain.lines.setLineLimits({ HUB: 10 });
        return [estimated, await outcome(chain.calls.estimateGas(increment, chain.headNumber, true))];
      },
      { lineLimits },
    );
    expect(outcomes[0]).toEqual({ value: { gas: expect.any(BigInt), lineCounts: expect.any(Object) } });
    expect(outcomes[1]).toMatchObject({ error: 'LineLimitExceededError', module: 'HUB', limit: 10 });
  });

  test("a genesis file's fork schedule: a worker runs each call under its block's fork, and reads a database on disk", async () => {
    const T = 1_750_000_000;
    const genesis = {
      config: {
        chainId: 4545,
        ...Object.fromEntries(
          ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg', 'istanbul']
            .concat(['berlin', 'london', 'mergeNetsplit'])
            .map((fork) => [`${fork}Block`, 0]),
        ),
        terminalTotalDifficulty: 0,
        shanghaiTime: T + 100,
      },
      timestamp: `0x${T.toString(16)}`,
      gasLimit: '0x1c9c380',
      alloc: {},
    };
    // Init code PUSH0, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: PUSH0 is Shanghai's.
    const push0 = { data: hexToBytes('0x5f60005260206000f3') };
    const dir = mkdtempSync(join(tmpdir(), 'l2devnet-workers-'));
    try {
      const answers: unknown[][] = [[], []];
      for (const [i, workers] of [2, 0].entries()) {
        const create = () =>
          open({ genesis, workers, dataDir: workers > 0 ? dir : undefined, clock: new NodeClock(() => T * 1000) });
        let chain = await create();
        await chain.mine({ timestamp: BigInt(T + 200) });
        if (workers > 0) {
          // Reopened from its directory: the worker reads the stored state.
          await chain.close();
          chain = await create();
          expect(await chain.calls.workersReady()).toBe(true);
        }
        chains.push(chain);
        const before = chain.calls.workerCalls;
        answers[i].push(await outcome(chain.calls.call(push0, 0n)));
        answers[i].push(await outcome(chain.calls.call(push0, 1n)));
        expect(chain.calls.workerCalls - before).toBe(workers > 0 ? 2 : 0);
      }
      expect(answers[0]).toEqual(answers[1]);
      expect(answers[0][0]).toMatchObject({ error: 'ExecutionHaltedError' });
      expect(answers[0][1]).toEqual({ value: expect.objectContaining({ returnValue: word(0n) }) });
    } finally {
      for (const chain of chains.splice(0)) await chain.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a call stopped by its time limit fails as on the main thread, and holds up no other call', async () => {
    const chain = await open({ workers: 2, rpcEvmTimeoutMs: 300 });
    const onMain = await open({ workers: 0, rpcEvmTimeoutMs: 300 });
    chains.push(chain, onMain);
    await chain.calls.workersReady();
    const counter = await deploy(chain, 'Counter');
    const finished: string[] = [];
    const loop = outcome(chain.calls.call({ data: LOOP }, chain.headNumber)).then((r) => {
      finished.push('loop');
      return r;
    });
    await chain.calls.call({ to: counter, data: hexToBytes(COUNTER_COUNT) }, chain.headNumber);
    finished.push('count');
    const stopped = await loop;
    expect(finished).toEqual(['count', 'loop']);
    expect(stopped).toMatchObject({ error: 'ExecutionTimeoutError', message: 'execution aborted (timeout = 300ms)' });
    expect(stopped).toEqual(await outcome(onMain.calls.call({ data: LOOP }, onMain.headNumber)));
  });

  test('a call that arrives while none runs takes the main thread, one that arrives while another runs a worker', async () => {
    const idle = CallPool.setIdle(50);
    try {
      const chain = await Chain.create({ workers: 2, rpcEvmTimeoutMs: 300 });
      chains.push(chain);
      const counter = await deploy(chain, 'Counter');
      const count = () => chain.calls.call({ to: counter, data: hexToBytes(COUNTER_COUNT) }, chain.headNumber);
      // The earlier tests' threads stop; calls one at a time start none.
      await new Promise((r) => setTimeout(r, 200));
      expect(chain.calls.workerThreads).toBe(0);
      const ran = chain.calls.workerCalls;
      const answer = await count();
      for (let i = 0; i < 3; i++) expect(await count()).toEqual(answer);
      expect(chain.calls.workerThreads).toBe(0);
      expect(chain.calls.workerCalls).toBe(ran);
      // Three at once: the first takes the main thread, the other two a worker once one is ready.
      await chain.calls.workersReady();
      const before = chain.calls.workerCalls;
      expect(await Promise.all([count(), count(), count()])).toEqual([answer, answer, answer]);
      expect(chain.calls.workerCalls - before).toBe(2);
      // A call that runs long on the main thread holds up no call that arrives while it runs.
      const finished: string[] = [];
      const loop = outcome(chain.calls.call({ data: LOOP }, chain.headNumber)).then((r) => {
        finished.push('loop');
        return r;
      });
      expect(await count()).toEqual(answer);
      finished.push('count');
      expect(await loop).toMatchObject({ error: 'ExecutionTimeoutError' });
      expect(finished).toEqual(['count', 'loop']);
      expect(chain.calls.workerCalls - before).toBe(3);
    } finally {
      CallPool.setIdle(idle);
    }
  });

  test('a thread still starting is not stopped for want of calls', async () => {
    const idle = CallPool.setIdle(10);
    try {
      const chain = await open({ workers: 2 });
      chains.push(chain);
      // The earlier tests' threads stop; new ones take longer than 10 ms to start, and are kept until ready.
      await new Promise((r) => setTimeout(r, 100));
      expect(chain.calls.workerThreads).toBe(0);
      await chain.calls.workersReady();
      expect(chain.calls.workerThreads).toBe(2);
      await new Promise((r) => setTimeout(r, 100));
      expect(chain.calls.workerThreads).toBe(0);
    } finally {
      CallPool.setIdle(idle);
    }
  });

  test('the threads stop when no call came for a while, and start again with the next call', async () => {
    const idle = CallPool.setIdle(300);
    try {
      const chain = await open({ workers: 2 });
      chains.push(chain);
      await chain.calls.workersReady();
      const counter = await deploy(chain, 'Counter');
      const count = () => chain.calls.call({ to: counter, data: hexToBytes(COUNTER_COUNT) }, chain.headNumber);
      const before = chain.calls.workerCalls;
      // Calls every 100 ms keep them.
      for (let i = 0; i < 6; i++) {
        await count();
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(chain.calls.workerThreads).toBe(2);
      expect(chain.calls.workerCalls - before).toBe(6);
      await new Promise((r) => setTimeout(r, 600));
      expect(chain.calls.workerThreads).toBe(0);
      // The next call runs on the main thread while they start.
      const answer = await count();
      expect(chain.calls.workerCalls - before).toBe(6);
      expect(chain.calls.workerThreads).toBe(2);
      await chain.calls.workersReady();
      expect(await count()).toEqual(answer);
      expect(chain.calls.workerCalls - before).toBe(7);
    } finally {
      CallPool.setIdle(idle);
    }
  });
});
