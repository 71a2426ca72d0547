import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { rpcCall, runCommand } from './command';
import type { RunningCommand } from './command';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
/** JUMPDEST PUSH1 0 JUMP: loops until its gas runs out. */
const LOOP = '0x5b600056';
/** Calls itself twice per frame, with no JUMPDEST anywhere: a call tree as large as the gas allows. */
const FORK_BOMB = `0x${'5f5f5f5f5f305af150'.repeat(2)}00`;
const LOOPER = '0x00000000000000000000000000000000000100ab';
const BOMB = '0x00000000000000000000000000000000000100bc';

/**
 * Sends `eth_blockNumber` one after another until `done`; returns the slowest answer's time (ms).
 * A node that stopped serving while it executes would hold an answer for the whole run (1.5 s and
 * more); the bound the tests set (500 ms) only tells that apart, with room for a loaded CI machine.
 */
async function slowestAnswerWhile(url: string, done: () => boolean): Promise<{ slowest: number; answers: number }> {
  let slowest = 0;
  let answers = 0;
  while (!done()) {
    const start = performance.now();
    const answer = await rpcCall(url, 'eth_blockNumber');
    expect(answer.result).toMatch(/^0x/);
    slowest = Math.max(slowest, performance.now() - start);
    answers++;
  }
  return { slowest, answers };
}

describe('a simulation that runs forever', () => {
  let node: RunningCommand;
  let dir: string;
  beforeAll(async () => {
    // Limits out of reach: a looping transaction is mined, not refused for its line counts.
    dir = mkdtempSync(join(tmpdir(), 'l2devnet-exec-'));
    const limits = join(dir, 'limits.toml');
    const production = readFileSync(
      join(__dirname, '..', '..', '..', 'fixtures', 'limits', 'linea-mainnet.toml'),
      'utf8',
    );
    writeFileSync(limits, production.replace(/= *[0-9_]+/g, '= 1000000000'));
    // A gas cap out of reach as well: at the default one (10x the block gas limit) the engine runs
    // the loop out of gas in about a second, before the timeout.
    node = await runCommand([
      ...['--in-memory', '--port', '0', '--limits', limits],
      ...['--rpc-evm-timeout', '1500ms', '--call-from-optional', '--rpc-gas-cap', '1000000000000'],
    ]);
    expect((await rpcCall(node.url, 'anvil_setCode', [LOOPER, LOOP])).result).toBe(null);
    expect((await rpcCall(node.url, 'anvil_setCode', [BOMB, FORK_BOMB])).result).toBe(null);
  });
  afterAll(async () => {
    node.child.kill('SIGTERM');
    // Should a test have left it running something long, it must not outlive the run.
    const stuck = setTimeout(() => node.child.kill('SIGKILL'), 5_000);
    await node.exited;
    clearTimeout(stuck);
    rmSync(dir, { recursive: true, force: true });
  });

  test.each([
    ['eth_call', [{ from: ALICE, to: LOOPER }, 'latest']],
    ['eth_call', [{ from: ALICE, to: BOMB }, 'latest']],
    ['eth_estimateGas', [{ from: ALICE, to: LOOPER }, 'latest']],
    ['eth_createAccessList', [{ from: ALICE, to: LOOPER }, 'latest']],
  ])(
    '%s %j is aborted at the timeout with geth error, and other clients are served meanwhile',
    async (method, params) => {
      let finished = false;
      const start = performance.now();
      const call = rpcCall(node.url, method, params).finally(() => {
        finished = true;
      });
      const { slowest, answers } = await slowestAnswerWhile(node.url, () => finished);
      const answer = await call;
      const elapsed = performance.now() - start;
      expect(answer.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 1.5s)' });
      expect(elapsed).toBeGreaterThanOrEqual(1_400);
      expect(elapsed).toBeLessThan(4_000);
      expect(answers).toBeGreaterThan(10);
      expect(slowest).toBeLessThan(500);
    },
  );

  test('after an aborted call the node answers calls and mines as before', async () => {
    await rpcCall(node.url, 'eth_call', [{ to: LOOPER }, 'latest']);
    const sent = await rpcCall(node.url, 'eth_sendTransaction', [{ from: ALICE, to: BOB, value: '0x1' }]);
    expect((await rpcCall(node.url, 'eth_getTransactionReceipt', [sent.result])).result.status).toBe('0x1');
    expect((await rpcCall(node.url, 'eth_call', [{ to: BOB }, 'latest'])).result).toBe('0x');
    expect((await rpcCall(node.url, 'eth_estimateGas', [{ from: ALICE, to: BOB }, 'latest'])).result).toBe('0x5208');
  });

  test('a transaction that loops is mined to its gas limit while other clients are served', async () => {
    let finished = false;
    const sent = rpcCall(node.url, 'eth_sendTransaction', [{ from: ALICE, to: LOOPER, gas: '0xf42400' }]).finally(
      () => {
        finished = true;
      },
    );
    const { slowest } = await slowestAnswerWhile(node.url, () => finished);
    const hash = (await sent).result;
    const receipt = (await rpcCall(node.url, 'eth_getTransactionReceipt', [hash])).result;
    expect(receipt.status).toBe('0x0');
    expect(receipt.gasUsed).toBe('0xf42400');
    expect(slowest).toBeLessThan(500);
  });

  test('mining ten thousand blocks at once leaves room for other clients', async () => {
    const before = BigInt((await rpcCall(node.url, 'eth_blockNumber')).result);
    let finished = false;
    const mined = rpcCall(node.url, 'anvil_mine', ['0x2710']).finally(() => {
      finished = true;
    });
    const { slowest, answers } = await slowestAnswerWhile(node.url, () => finished);
    expect((await mined).result).toBe(null);
    expect(BigInt((await rpcCall(node.url, 'eth_blockNumber')).result)).toBe(before + 10_000n);
    expect(answers).toBeGreaterThan(10);
    expect(slowest).toBeLessThan(500);
  });
});
