/**
 * Anvil's flags, as an Anvil user types them, on the real command: short forms, the genesis
 * timestamp and base fee, the code size limit, the pool order, auto-impersonation, CORS, --silent,
 * state files; and Anvil's flags this node does not take, each refused in one line that says why.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BIN, rpcCall, runCommand, runToEnd } from './command';
import type { RunningCommand } from './command';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const ANVIL = join(__dirname, '..', '..', '..', 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil');
const STRANGER = '0x00000000000000000000000000000000000000c1';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'l2devnet-anvil-flags-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function stop(node: RunningCommand): Promise<void> {
  node.child.kill('SIGTERM');
  await node.exited;
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Init code deploying `size` zero bytes of code: PUSH3 size, PUSH1 0, RETURN. */
const deployZeros = (size: number) => `0x62${size.toString(16).padStart(6, '0')}6000f3`;

test('-p, -a and -m are --port, --accounts and --mnemonic', async () => {
  const port = await freePort();
  const mnemonic = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  const node = await runCommand(['--in-memory', '-p', String(port), '-a', '2', '-m', mnemonic]);
  try {
    expect(node.url).toBe(`http://127.0.0.1:${port}`);
    const accounts = (await rpcCall(node.url, 'eth_accounts')).result as string[];
    // m/44'/60'/0'/0/0 of the "abandon ... about" phrase.
    expect(accounts).toEqual(['0x9858effd232b4033e47d90003d41ec34ecaeda94', expect.any(String)]);
  } finally {
    await stop(node);
  }
});

test('--timestamp and --block-base-fee-per-gas make the genesis block; --order fifo takes the pool in arrival order', async () => {
  const node = await runCommand([
    ...['--in-memory', '--port', '0', '--timestamp', '1700000000', '--block-base-fee-per-gas', '1000000000'],
    ...['--order', 'fifo', '--no-mining'],
  ]);
  try {
    const genesis = (await rpcCall(node.url, 'eth_getBlockByNumber', ['0x0', false])).result;
    expect(genesis.timestamp).toBe(`0x${(1_700_000_000).toString(16)}`);
    expect(genesis.baseFeePerGas).toBe('0x3b9aca00');
    // The cheaper transaction came first: with fifo it is mined first, with fees it would be second.
    const bob = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    const cheap = await rpcCall(node.url, 'eth_sendTransaction', [
      { from: ALICE, to: STRANGER, value: '0x1', maxPriorityFeePerGas: '0x3b9aca00' },
    ]);
    const dear = await rpcCall(node.url, 'eth_sendTransaction', [
      { from: bob, to: STRANGER, value: '0x1', maxPriorityFeePerGas: '0x77359400' },
    ]);
    await rpcCall(node.url, 'evm_mine');
    const block = (await rpcCall(node.url, 'eth_getBlockByNumber', ['0x1', false])).result;
    expect(block.transactions).toEqual([cheap.result, dear.result]);
  } finally {
    await stop(node);
  }
});

test('--code-size-limit and --disable-code-size-limit move the limit on deployed code (EIP-170)', async () => {
  const deploy = async (node: RunningCommand, size: number) => {
    const sent = await rpcCall(node.url, 'eth_sendTransaction', [
      { from: ALICE, data: deployZeros(size), gas: '0x1000000' },
    ]);
    return (await rpcCall(node.url, 'eth_getTransactionReceipt', [sent.result])).result.status;
  };
  const small = await runCommand(['--in-memory', '--port', '0', '--code-size-limit', '100']);
  try {
    expect(await deploy(small, 100)).toBe('0x1');
    expect(await deploy(small, 101)).toBe('0x0');
  } finally {
    await stop(small);
  }
  const open = await runCommand([
    '--in-memory',
    '--port',
    '0',
    '--disable-code-size-limit',
    '--max-tx-gas',
    '30000000',
  ]);
  try {
    // 70,000 bytes: past both the 24,576 of EIP-170 and the 65,536 of EIP-7954.
    expect(await deploy(open, 70_000)).toBe('0x1');
  } finally {
    await stop(open);
  }
});

test('--auto-impersonate sends from any address', async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '--auto-impersonate']);
  try {
    await rpcCall(node.url, 'anvil_setBalance', [STRANGER, '0xde0b6b3a7640000']);
    const sent = await rpcCall(node.url, 'eth_sendTransaction', [{ from: STRANGER, to: ALICE, value: '0x1' }]);
    const receipt = (await rpcCall(node.url, 'eth_getTransactionReceipt', [sent.result])).result;
    expect(receipt).toMatchObject({ from: STRANGER, status: '0x1' });
  } finally {
    await stop(node);
  }
});

test('--allow-origin names the origin browsers may call from; --no-cors sends no CORS headers', async () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
  const headers = { 'Content-Type': 'application/json' };
  const named = await runCommand(['--in-memory', '--port', '0', '--allow-origin', 'https://app.example']);
  try {
    const res = await fetch(named.url, { method: 'POST', headers, body });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const preflight = await fetch(named.url, { method: 'OPTIONS' });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
  } finally {
    await stop(named);
  }
  const none = await runCommand(['--in-memory', '--port', '0', '--no-cors']);
  try {
    const res = await fetch(none.url, { method: 'POST', headers, body });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    await stop(none);
  }
});

test('--silent prints nothing until anvil_setLoggingEnabled(true)', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, '--in-memory', '--port', String(port), '--silent', '-v'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 100; i++) {
      const up = await rpcCall(url, 'eth_chainId').catch(() => undefined);
      if (up !== undefined) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const quiet = await rpcCall(url, 'eth_sendTransaction', [{ from: ALICE, to: STRANGER, value: '0x1' }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(out).toBe('');
    expect((await rpcCall(url, 'anvil_setLoggingEnabled', [true])).result).toBeNull();
    const heard = await rpcCall(url, 'eth_sendTransaction', [{ from: ALICE, to: STRANGER, value: '0x1' }]);
    for (let i = 0; i < 100 && !out.includes(heard.result); i++) await new Promise((r) => setTimeout(r, 50));
    expect(out).toContain(
      `eth_sendTransaction\n\n    Transaction: ${heard.result}\n    Gas used: 21000\n\n    Block Number: 2\n`,
    );
    expect(out).not.toContain(quiet.result);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});

test("--state FILE: written at the stop as Anvil writes it (Anvil's --load-state reads it), loaded at the next start; --load-state reads an Anvil JSON state", async () => {
  const file = join(dir, 'state.txt');
  const first = await runCommand(['--in-memory', '--port', '0', '--state', file]);
  await rpcCall(first.url, 'anvil_setBalance', [STRANGER, '0x1234']);
  await rpcCall(first.url, 'anvil_setCode', [STRANGER, '0x6001']);
  await stop(first);
  // Anvil's state file: its dump's JSON, which Anvil's --load-state reads (below).
  const written = JSON.parse(readFileSync(file, 'utf8'));
  expect(written.accounts[STRANGER]).toEqual({ nonce: 0, balance: '0x1234', code: '0x6001', storage: {} });
  const anvilPort = await freePort();
  const reader = spawn(ANVIL, ['--port', String(anvilPort), '--silent', '--load-state', file], { stdio: 'ignore' });
  try {
    const anvilUrl = `http://127.0.0.1:${anvilPort}`;
    let answer;
    for (let i = 0; i < 200 && answer === undefined; i++) {
      answer = await rpcCall(anvilUrl, 'eth_getBalance', [STRANGER, 'latest']).catch(() => undefined);
      if (answer === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    expect(answer.result).toBe('0x1234');
    expect((await rpcCall(anvilUrl, 'eth_getCode', [STRANGER, 'latest'])).result).toBe('0x6001');
  } finally {
    reader.kill('SIGTERM');
  }
  const second = await runCommand(['--in-memory', '--port', '0', '--state', file]);
  try {
    expect((await rpcCall(second.url, 'eth_getBalance', [STRANGER, 'latest'])).result).toBe('0x1234');
    expect((await rpcCall(second.url, 'eth_getCode', [STRANGER, 'latest'])).result).toBe('0x6001');
  } finally {
    await stop(second);
  }

  const anvil = join(dir, 'anvil-state.json');
  writeFileSync(
    anvil,
    JSON.stringify({
      block: { number: '0x5' },
      accounts: {
        [STRANGER]: { nonce: 3, balance: '0x10', code: '0x6002', storage: { '0x1': '0x2a', '0x100': '0x123' } },
      },
    }),
  );
  const loaded = await runCommand(['--in-memory', '--port', '0', '--load-state', anvil]);
  try {
    expect((await rpcCall(loaded.url, 'eth_getBalance', [STRANGER, 'latest'])).result).toBe('0x10');
    expect((await rpcCall(loaded.url, 'eth_getTransactionCount', [STRANGER, 'latest'])).result).toBe('0x3');
    expect((await rpcCall(loaded.url, 'eth_getStorageAt', [STRANGER, '0x1', 'latest'])).result).toBe(
      `0x${'2a'.padStart(64, '0')}`,
    );
    // Odd-length quantities (Anvil writes them unpadded).
    expect((await rpcCall(loaded.url, 'eth_getStorageAt', [STRANGER, '0x100', 'latest'])).result).toBe(
      `0x${'123'.padStart(64, '0')}`,
    );
  } finally {
    await stop(loaded);
  }
  // --dump-state with --state-interval writes while the node runs.
  const periodic = join(dir, 'periodic.txt');
  const running = await runCommand(['--in-memory', '--port', '0', '--dump-state', periodic, '--state-interval', '0.2']);
  try {
    for (let i = 0; i < 40 && !existsSync(periodic); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(periodic)).toBe(true);
  } finally {
    await stop(running);
  }
});

test.each([
  [['--hardfork', 'Prague'], 'Prague'],
  [['--hardfork', 'spuriousdragon'], 'SpuriousDragon'],
  [['--hardfork', 'latest'], 'Osaka'],
])("%j: Anvil's names of the hardforks", async (args, name) => {
  const node = await runCommand(['--in-memory', '--port', '0', ...args]);
  try {
    expect((await rpcCall(node.url, 'anvil_nodeInfo')).result.hardFork).toBe(name);
  } finally {
    await stop(node);
  }
});

test('--init, --no-mine, -q, --config-out and --dump-state DIR as Anvil takes them', async () => {
  const genesis = join(dir, 'init.json');
  writeFileSync(
    genesis,
    JSON.stringify({
      config: { chainId: 4242, londonBlock: 0, shanghaiTime: 0, cancunTime: 0, terminalTotalDifficulty: 0 },
      gasLimit: '0x1c9c380',
      difficulty: '0x0',
      alloc: { [STRANGER]: { balance: '0x64' } },
    }),
  );
  const config = join(dir, 'config-out.json');
  const states = join(dir, 'states');
  mkdirSync(states);
  // -q prints no ready line: the node is found on its port instead, once --config-out is written.
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [BIN, ...['--in-memory', '--port', String(port), '--init', genesis, '--no-mine', '-q']].concat([
      '--config-out',
      config,
      '--dump-state',
      states,
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 200 && !existsSync(config); i++) await new Promise((r) => setTimeout(r, 50));
    expect((await rpcCall(url, 'eth_chainId')).result).toBe('0x1092');
    expect((await rpcCall(url, 'eth_getBalance', [STRANGER, 'latest'])).result).toBe('0x64');
    expect((await rpcCall(url, 'anvil_getAutomine')).result).toBe(false);
    const written = JSON.parse(readFileSync(config, 'utf8'));
    expect(Object.keys(written)).toEqual([
      'available_accounts',
      'private_keys',
      'wallet',
      'base_fee',
      'gas_price',
      'gas_limit',
      'genesis_timestamp',
    ]);
    expect(written.private_keys[0]).toBe('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  expect(out).toBe('');
  expect(existsSync(join(states, 'state.json'))).toBe(true);
});

test.each([
  [['--load-state', '/nonexistent/state.json'], 'error: --load-state /nonexistent/state.json: ENOENT'],
  [['--state-interval', '5'], 'error: --state-interval goes with --dump-state'],
  [['--order', 'random'], 'error: --order must be fees or fifo; got "random"'],
  [['--chain-id', '-5'], 'error: --chain-id must be a decimal or 0x-hex integer; got "-5"'],
  [['--gas-limit', '10'], 'error: --gas-limit must be at least 21000; got "10"'],
  [['--accounts', '100000'], 'error: --accounts must be at most 10000; got "100000"'],
  [['--fork-transaction-hash', '0x00'], 'error: --fork-transaction-hash: a fork starts at a whole block'],
  [['--fork-block-number', '5'], 'error: --fork-block-number goes with --fork-url'],
  [['--gas-price', '1'], 'error: --gas-price: the gas price follows the base fee here'],
  [['--prune-history'], 'error: --prune-history: the node keeps every block and its state'],
  [['--disable-block-gas-limit'], 'error: --disable-block-gas-limit: a block holds what its gas limit allows'],
  [['--code-size-limit', '10', '--disable-code-size-limit'], 'error: --code-size-limit and --disable-code-size-limit'],
  [['--limits', join(__dirname, '..', '..', '..', 'fixtures', 'limits', 'tiny.toml')], 'add --tracer london'],
  [['--network', 'optimism'], 'error: --network: this node emulates Linea'],
  [['--ipc'], 'error: --ipc: no IPC socket'],
  [['--no-storage-caching'], 'error: --no-storage-caching goes with --fork-url'],
  [['--hardfork', 'shanghaii'], 'error: --hardfork must be one of chainstart'],
])('%j stops the start in one line and exits 2', async (args, message) => {
  const result = await runToEnd(['--in-memory', '--port', '0', ...args]);
  expect(result.code).toBe(2);
  expect(result.stderr.split('\n')[0]).toContain(message);
});
