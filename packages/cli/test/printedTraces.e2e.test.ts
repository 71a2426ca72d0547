/**
 * What the node prints, as a user reads it in its output: each request's method and each mined
 * transaction as Anvil prints them (by default), its console.log output and its call tree decoded
 * with the fixtures' ABIs (`-vv` … `-vvvv`, `--artifacts`), and an excluded transaction's module with
 * the call its lines came from.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { encodeFunctionData, parseAbi } from 'viem';

import { rpcCall, runCommand } from './command';
import type { RunningCommand } from './command';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const CONTRACTS = join(__dirname, '..', '..', '..', 'fixtures', 'contracts');
const logger = JSON.parse(readFileSync(join(CONTRACTS, 'ConsoleLogger.json'), 'utf8')) as { bytecode: string };
const abi = parseAbi(['function greet() returns (uint256)', 'function refuse()']);

/** Waits until the node has printed `pattern`. */
async function printed(node: RunningCommand, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const out = node.stdout();
    if (pattern.test(out)) return out;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not printed: ${pattern}\n${node.stdout()}`);
}

async function deployAndCall(node: RunningCommand) {
  const send = (tx: Record<string, string>) => rpcCall(node.url, 'eth_sendTransaction', [{ from: ALICE, ...tx }]);
  const deployed = await send({ data: logger.bytecode });
  const address = (await rpcCall(node.url, 'eth_getTransactionReceipt', [deployed.result])).result.contractAddress;
  const greet = await send({ to: address, data: encodeFunctionData({ abi, functionName: 'greet' }) });
  const refuse = await send({ to: address, data: encodeFunctionData({ abi, functionName: 'refuse' }), gas: '0x20000' });
  return { address, greet: greet.result as string, refuse: refuse.result as string };
}

test('-vvvv with --artifacts: console.log, decoded call trees, events, returns and reverts', async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '-vvvv', '--artifacts', CONTRACTS]);
  try {
    const { address, greet, refuse } = await deployAndCall(node);
    const out = await printed(
      node,
      new RegExp(`Transaction: ${refuse}\n {4}Gas used: \\d+\n {4}Error: reverted with: no greeting\n`),
    );
    const greetAt = out.indexOf(`    Transaction: ${greet}\n`);
    expect(greetAt).toBeGreaterThan(0);
    const greetTrace = out.slice(greetAt, out.indexOf(`Transaction: ${refuse}`)).split('\n');
    expect(greetTrace[1]).toMatch(/^ {4}Gas used: \d+$/);
    expect(greetTrace[2]).toBe('    console.log: greeted 1');
    expect(greetTrace[3]).toMatch(/^ {4}\[\d+\] ConsoleLogger::greet\(\)$/);
    // The console call comes first, then the event, as the contract does them.
    expect(greetTrace[4]).toMatch(/^ {4}├─ \[\d+\] console::log\(greeted 1\) \[staticcall\]$/);
    expect(
      greetTrace.some((l) => /emit Greeted\(who: 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266, times: 1\)/.test(l)),
    ).toBe(true);
    expect(greetTrace.some((l) => l.endsWith('└─ ← [Return] 1'))).toBe(true);
    const refuseTrace = out.slice(out.indexOf(`Transaction: ${refuse}`)).split('\n');
    expect(refuseTrace[3]).toMatch(/^ {4}\[\d+\] ConsoleLogger::refuse\(\)$/);
    expect(refuseTrace[4]).toBe('    └─ ← [Revert] no greeting');
    expect(address).toMatch(/^0x/);
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
  }
});

test("by default, each request and each transaction as Anvil prints them; --disable-console-log; -vvv adds the call an excluded transaction's lines came from", async () => {
  const plain = await runCommand(['--in-memory', '--port', '0']);
  try {
    const { address, greet } = await deployAndCall(plain);
    const out = await printed(plain, new RegExp(`Transaction: ${greet}\n {4}Gas used: \\d+\n\n {4}Block Number: 2\n`));
    // Anvil's lines: the method of each request, the creation with its contract, the block.
    expect(out).toContain('\neth_sendTransaction\n');
    expect(out).toContain('\neth_getTransactionReceipt\n');
    expect(out).toMatch(
      new RegExp(
        `\n {4}Transaction: 0x[0-9a-f]{64}\n {4}Contract created: ${address}\n {4}Gas used: \\d+\n\n {4}Block Number: 1\n {4}Block Hash: 0x[0-9a-f]{64}\n {4}Block Time: "[^"]+ \\+0000"\n`,
        'i',
      ),
    );
    expect(out).not.toContain('console.log');
    expect(out).not.toContain('ConsoleLogger::');
  } finally {
    plain.child.kill('SIGTERM');
    await plain.exited;
  }
  const noLogs = await runCommand([
    '--in-memory',
    '--port',
    '0',
    '-vvvv',
    '--disable-console-log',
    '--artifacts',
    CONTRACTS,
  ]);
  try {
    const { greet } = await deployAndCall(noLogs);
    // The call tree right after the gas: no console.log line between.
    const out = await printed(
      noLogs,
      new RegExp(`Transaction: ${greet}\n {4}Gas used: \\d+\n {4}\\[\\d+\\] ConsoleLogger::greet\\(\\)\n`),
    );
    expect(out).not.toContain('console.log:');
  } finally {
    noLogs.child.kill('SIGTERM');
    await noLogs.exited;
  }
  const node = await runCommand(['--in-memory', '--port', '0', '-vvv']);
  try {
    const { address } = await deployAndCall(node);
    await rpcCall(node.url, 'l2_setLineLimits', [{ MXP: 20 }]);
    // With its gas given, it is not estimated first: it reaches the RPC-stage check and is recorded.
    const answer = await rpcCall(node.url, 'eth_sendTransaction', [
      { from: ALICE, to: address, data: encodeFunctionData({ abi, functionName: 'greet' }), gas: '0x30000' },
    ]);
    expect(answer.error.message).toMatch(/line count for module MXP=\d+ is above the limit 20$/);
    const out = await printed(node, /excluded at stage RPC/);
    expect(out).toMatch(
      /Transaction 0x[0-9a-f]{64} excluded at stage RPC: Transaction 0x[0-9a-f]{64} line count for module MXP=\d+ is above the limit 20\n {2}most MXP lines \(\d+\) came from the CALL to 0x[0-9a-f]{40}\n/,
    );
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
  }
});

test('-vvv on code set by anvil_setCode: an empty revert is a revert, and the top frame counts the intrinsic gas', async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '-vvv']);
  try {
    const target = '0x00000000000000000000000000000000000000aa';
    // PUSH1 0, PUSH1 0, REVERT: 6 gas after the 21,000 intrinsic.
    await rpcCall(node.url, 'anvil_setCode', [target, '0x60006000fd']);
    const sent = await rpcCall(node.url, 'eth_sendTransaction', [{ from: ALICE, to: target, gas: '0x10000' }]);
    const out = await printed(
      node,
      new RegExp(`Transaction: ${sent.result}\n {4}Gas used: 21006\n {4}Error: reverted\n`),
    );
    const trace = out.slice(out.indexOf(`Transaction: ${sent.result}`)).split('\n');
    expect(trace[3]).toBe(`    [21006] ${target}::fallback()`);
    expect(trace[4]).toBe('    └─ ← [Revert] 0x');
    // The block is traced on the state it was built on, edited code included.
    const traced = await rpcCall(node.url, 'debug_traceTransaction', [sent.result, { tracer: 'callTracer' }]);
    expect(traced.result).toMatchObject({ gasUsed: '0x520e', error: 'execution reverted' });
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
  }
});
