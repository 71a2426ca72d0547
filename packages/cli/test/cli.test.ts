import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import { Chain } from '@l2devnet/core';

import { HELP } from '../src/flags';
import { BIN, rpcCall, runCommand, runToEnd } from './command';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'l2devnet-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Nothing listens on the port any more: a connection is refused. */
function nobodyListens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

test('--help documents every flag', async () => {
  const { code, stdout } = await runToEnd(['--help']);
  expect(code).toBe(0);
  expect(stdout).toBe(HELP);
  for (const flag of [
    '--host',
    '--port',
    '--chain-id',
    '--hardfork',
    '--gas-limit',
    '--mnemonic',
    '--accounts',
    '--balance',
    '--genesis',
    '--data-dir',
    '--in-memory',
    '--memory-limit',
    '--block-time',
    '--no-mining',
    '--limits',
    '--no-rpc-line-check',
    '--api-key',
    '--api-keys',
    '--daily-credits',
    '--finality-depth',
    '--safe-depth',
    '--rpc-evm-timeout',
    '--rpc-gas-cap',
    '--workers',
    '--sequencer-rules',
    '--preset',
    '--max-tx-calldata-size',
    '--max-block-calldata-size',
    '--max-tx-gas',
    '--max-block-gas',
  ]) {
    expect(stdout).toContain(flag);
  }
});

test.each([
  [['--port', 'abc'], '--port must be an integer of at least 0; got "abc"'],
  [['--hardfork', 'nope'], '--hardfork must be one of'],
  [['--in-memory', '--data-dir', 'x'], '--in-memory and --data-dir cannot be combined'],
  [['--bogus'], "Unknown option '--bogus'"],
  [['--balance', 'lots'], '--balance must be an amount of ETH'],
  [['--tracer', 'paris'], '--tracer must be one of london, osaka; got "paris"'],
  [['--preset', 'linea-goerli'], '--preset must be one of linea-mainnet, linea-sepolia; got "linea-goerli"'],
  [['--sequencer-rules', 'maybe'], '--sequencer-rules must be on or off; got "maybe"'],
  [['--max-tx-calldata-size', '-1'], '--max-tx-calldata-size'],
  [['--rpc-gas-cap', 'lots'], '--rpc-gas-cap must be a decimal or 0x-hex integer; got "lots"'],
  [['--counter', 'zk'], '--counter must be one of tracer, limitless; got "zk"'],
  [
    ['--l1l2-bridge-contract', 'bridge'],
    '--l1l2-bridge-contract must be an address, 0x and 40 hex digits; got "bridge"',
  ],
  [['--engine', 'evmone'], '--engine must be l2devnet or ethereumjs; got "evmone"'],
  [['--coinbase', 'miner'], '--coinbase must be an address, 0x and 40 hex digits; got "miner"'],
  [['--l1l2-bridge-topic', '0x12'], '--l1l2-bridge-topic must be 32 bytes of hex (64 digits); got "0x12"'],
  [
    ['--tx-pool-priority-senders', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266,0x12'],
    '--tx-pool-priority-senders must be addresses, 0x and 40 hex digits; got "0x12"',
  ],
  [
    ['--counter', 'limitless', '--tracer', 'london'],
    "--counter limitless counts for the osaka tracer only (Linea's ZkCounter refuses earlier forks)",
  ],
  [['--rpc-evm-timeout', '5 seconds'], '--rpc-evm-timeout must be a duration like 5s, 500ms or 2m; got "5 seconds"'],
  [['--workers', 'all'], '--workers must be an integer of at least 0; got "all"'],
  [['--workers', '65'], '--workers must be at most 64; got "65"'],
  [['--in-memory', '--memory-limit', '0'], '--memory-limit must be an integer of at least 1; got "0"'],
  [['--in-memory', '--memory-limit', '1G'], '--memory-limit must be an integer of at least 1; got "1G"'],
  [['--memory-limit', '64'], '--memory-limit applies with --in-memory (a chain in --data-dir is on disk already)'],
])('a bad flag %j exits with code 2 and says why', async (args, message) => {
  const { code, stderr } = await runToEnd(args);
  expect(code).toBe(2);
  expect(stderr).toContain(message);
});

test('a module the counter counts but the limits file lacks stops the start, naming the first its tracer lists', async () => {
  const file = join(dir, 'limits.toml');
  writeFileSync(file, '[traces-limits]\nADD = 1\n');
  // ZkTracer lists HUB first (Hub.getModulesToCount), ZkCounter its checked modules, BLAKE_MODEXP_DATA first.
  for (const [counter, module] of [
    ['tracer', 'HUB'],
    ['limitless', 'BLAKE_MODEXP_DATA'],
  ]) {
    const { code, stderr } = await runToEnd(['--in-memory', '--limits', file, '--counter', counter]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `limits file ${file}: module ${module}, counted by the osaka tracer, has no limit (MODULE_NOT_DEFINED)`,
    );
  }
});

test('the limits file Linea ships for mainnet is the default; --tracer london reads its own default', async () => {
  for (const [args, module] of [
    [[], 'BLS_DATA'],
    [['--tracer', 'london', '--hardfork', 'london'], 'BIN'],
  ] as const) {
    const node = await runCommand(['--in-memory', '--port', '0', ...args]);
    try {
      const limits = (await rpcCall(node.url, 'l2_getLineLimits')).result as Record<string, number>;
      expect(limits[module]).toBeGreaterThan(0);
    } finally {
      node.child.kill('SIGTERM');
      await node.exited;
    }
    expect(node.stderr()).toBe('');
  }
});

test("the sequencer acceptance tests' limits file starts the node, with a warning for each thing let through", async () => {
  const file = join(__dirname, '..', '..', '..', 'fixtures', 'limits', 'linea-sequencer-acceptance-tx-overflow.toml');
  const node = await runCommand(['--in-memory', '--port', '0', '--tracer', 'london', '--limits', file]);
  try {
    expect((await rpcCall(node.url, 'l2_getLineLimits')).result).toMatchObject({
      ADD: 70,
      EXT: 20,
      SHF: 20,
      GAS: 262144,
    });
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
  }
  expect(node.stderr()).toBe(
    `warning: limits file ${file}: line 73: PRECOMPILE_ECPAIRING_MILLER_LOOPS is given again; the first value is kept\n` +
      `warning: limits file ${file}: ignoring keys the line counter does not count: PHONEY_RLP, TX_RLP\n`,
  );
});

test('--counter limitless: a key neither counter counts is let through with a warning, as the sequencer ignores it', async () => {
  const mainnet = join(__dirname, '..', '..', '..', 'fixtures', 'limits', 'linea-mainnet.toml');
  const file = join(dir, 'limitless.toml');
  writeFileSync(file, readFileSync(mainnet, 'utf8').replace('[traces-limits]', '[traces-limits]\nBIN = 5'));
  const node = await runCommand(['--in-memory', '--port', '0', '--counter', 'limitless', '--limits', file]);
  try {
    expect(node.stdout()).toContain("Line counts:       Linea's osaka tracer, limitless counter (ZkCounter)\n");
    const limits = (await rpcCall(node.url, 'l2_getLineLimits')).result as Record<string, number>;
    expect(limits.BIN).toBeUndefined();
    expect(limits.RLP_AUTH).toBeGreaterThan(0); // unchecked by ZkCounter, still required of the file
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
  }
  expect(node.stderr()).toBe(`warning: limits file ${file}: ignoring keys the line counter does not count: BIN\n`);
});

test('prints chain id, accounts, keys, mnemonic, data dir and address, then a ready line; SIGTERM shuts it down cleanly', async () => {
  const node = await runCommand(['--data-dir', dir, '--port', '0', '--chain-id', '1234']);
  const out = node.stdout();
  expect(out).toContain('Available Accounts');
  expect(out).toContain('(0) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000.000000000000000000 ETH)');
  expect(out).toContain('(0) 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  expect(out).toContain('Mnemonic:          test test test test test test test test test test test junk');
  expect(out).toContain(`Data directory:    ${dir}`);
  expect(out).toMatch(/Chain ID\n=+\n1234\n/);
  expect(out).toContain(
    "Sequencer rules:   Linea's: calldata 60000/tx, 109000/block; gas 24000000/tx, 55000000/block; no blob transactions, no precompile recipients",
  );
  expect(out).toContain("Line counts:       Linea's osaka tracer, full tracer (ZkTracer)\n");
  expect(out).toContain("Engine:            l2devnet (the node's own EVM)\n");
  expect(out).toContain(
    'Linea methods:     linea_estimateGas, linea_getTransactionExclusionStatusV1, linea_sendBundle,',
  );
  expect((await rpcCall(node.url, 'eth_chainId')).result).toBe('0x4d2');
  const port = Number(new URL(node.url).port);
  node.child.kill('SIGTERM');
  expect(await node.exited).toEqual({ code: 0, signal: null });
  expect(await nobodyListens(port)).toBe(true);
});

test('a restart on the same data dir resumes the chain', async () => {
  const first = await runCommand(['--data-dir', dir, '--port', '0']);
  const hash = (await rpcCall(first.url, 'eth_sendTransaction', [{ from: ALICE, to: BOB, value: '0x7' }])).result;
  first.child.kill('SIGTERM');
  await first.exited;
  const second = await runCommand(['--data-dir', dir, '--port', '0']);
  try {
    expect((await rpcCall(second.url, 'eth_blockNumber')).result).toBe('0x1');
    expect((await rpcCall(second.url, 'eth_getTransactionReceipt', [hash])).result.status).toBe('0x1');
    expect((await rpcCall(second.url, 'eth_getBalance', [BOB, 'latest'])).result).toBe('0x21e19e0c9bab2400007');
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
});

test('SIGKILL during a stream of transactions loses nothing acknowledged', async () => {
  // Sign the stream up front with the dev key, as a wallet would.
  const signer = await Chain.create({ accounts: 1 });
  const key = signer.accounts[0].privateKey;
  const raws = Array.from({ length: 400 }, (_, nonce) =>
    bytesToHex(
      createFeeMarket1559Tx(
        {
          nonce: BigInt(nonce),
          to: BOB,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
        },
        { common: signer.common },
      )
        .sign(key)
        .serialize(),
    ),
  );
  await signer.close();

  const node = await runCommand(['--data-dir', dir, '--port', '0']);
  const acknowledged: string[] = [];
  let killed = false;
  const stream = (async () => {
    for (const raw of raws) {
      try {
        const answer = await rpcCall(node.url, 'eth_sendRawTransaction', [raw]);
        if (answer.result === undefined) throw new Error(JSON.stringify(answer.error));
        acknowledged.push(answer.result);
      } catch (e) {
        if (killed) return;
        throw e;
      }
    }
  })();
  const deadline = Date.now() + 30_000;
  while (acknowledged.length < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  killed = true;
  node.child.kill('SIGKILL');
  await node.exited;
  await stream;
  expect(acknowledged.length).toBeGreaterThanOrEqual(50);

  const again = await runCommand(['--data-dir', dir, '--port', '0']);
  try {
    const head = BigInt((await rpcCall(again.url, 'eth_blockNumber')).result);
    expect(head).toBeGreaterThanOrEqual(BigInt(acknowledged.length));
    for (const hash of acknowledged) {
      expect((await rpcCall(again.url, 'eth_getTransactionReceipt', [hash])).result?.status).toBe('0x1');
    }
    const nonce = BigInt((await rpcCall(again.url, 'eth_getTransactionCount', [ALICE, 'latest'])).result);
    expect(nonce).toBe(head);
    // The head block and its state are whole: its stateRoot opens and the chain goes on from it.
    expect((await rpcCall(again.url, 'eth_getBalance', [BOB, 'latest'])).result).toBe(
      `0x${(10_000n * 10n ** 18n + head).toString(16)}`,
    );
    const next = await rpcCall(again.url, 'eth_sendRawTransaction', [raws[Number(head)]]);
    expect(next.error).toBeUndefined();
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
});

describe('a start that cannot go on says why in one line and exits 2', () => {
  test('a second node on a taken port names the port and the process holding it', async () => {
    const first = await runCommand(['--in-memory', '--port', '0']);
    try {
      const port = new URL(first.url).port;
      const second = await runToEnd(['--in-memory', '--port', port, '--chain-id', '777']);
      expect(second.code).toBe(2);
      expect(second.stderr).toBe(
        `error: cannot listen on 127.0.0.1:${port}: port ${port} is in use by process ${first.child.pid} (${process.execPath} ${BIN} --in-memory --port 0)\n`,
      );
      // The first still answers alone.
      expect((await rpcCall(first.url, 'eth_chainId')).result).toBe('0x7a69');
      // A new data directory whose start failed is not left behind: the next start makes its chain anew.
      const data = join(dir, 'never-started');
      const failed = await runToEnd(['--data-dir', data, '--port', port]);
      expect(failed.code).toBe(2);
      expect(existsSync(data)).toBe(false);
      const fresh = await runCommand(['--data-dir', data, '--port', '0', '--chain-id', '777']);
      expect((await rpcCall(fresh.url, 'eth_chainId')).result).toBe('0x309');
      fresh.child.kill('SIGTERM');
      await fresh.exited;
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });

  test('a data directory under a file says so in one sentence', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const run = await runToEnd(['--data-dir', join(file, 'chain'), '--port', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error: ${join(file, 'chain')} is not a directory (a file stands at or above it): start with another --data-dir\n`,
    );
  });

  test('a host that is no address says so', async () => {
    const run = await runToEnd(['--in-memory', '--host', '999.1.1.1', '--port', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('error: cannot listen on 999.1.1.1:0: 999.1.1.1 is not a valid address or host name\n');
  });

  test("a data directory of another program's files, or another program's LevelDB, is not taken over", async () => {
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const files = await runToEnd(['--data-dir', dir, '--port', '0']);
    expect(files.code).toBe(2);
    expect(files.stderr).toContain(`error: ${dir} is not an l2devnet database: it holds other files (notes.txt)`);
    const level = join(dir, 'level');
    const { Level } = await import('level');
    const db = new Level(level);
    await db.put('theirs', 'value');
    await db.close();
    const foreign = await runToEnd(['--data-dir', level, '--port', '0']);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain(
      `error: ${level} is not an l2devnet database: it holds a LevelDB database written by another program`,
    );
  });

  test('a reopened chain refuses another chain id and says which other options it keeps its own of', async () => {
    const data = join(dir, 'chain');
    const made = await runCommand(['--data-dir', data, '--port', '0']);
    made.child.kill('SIGTERM');
    await made.exited;
    const other = await runToEnd(['--data-dir', data, '--port', '0', '--chain-id', '5']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('has chain id 31337, not 5');
    const again = await runCommand([
      ...['--data-dir', data, '--port', '0', '--accounts', '2', '--balance', '5'],
      ...['--timestamp', '1700000000', '--block-base-fee-per-gas', '7'],
    ]);
    try {
      const block0 = (await rpcCall(again.url, 'eth_getBlockByNumber', ['0x0', false])).result;
      const warned = () =>
        again
          .stderr()
          .split('\n')
          .filter((l) => l.startsWith('warning'));
      // stderr's own pipe may come after the ready line on stdout.
      for (let i = 0; i < 100 && warned().length < 4; i++) await new Promise((r) => setTimeout(r, 20));
      expect(warned()).toEqual([
        `warning: the chain in ${data} keeps its number of accounts (10); --accounts 2 is ignored`,
        `warning: the chain in ${data} keeps its accounts' balances; --balance 5 is ignored`,
        `warning: the chain in ${data} keeps its genesis timestamp (${BigInt(block0.timestamp)}); --timestamp 1700000000 is ignored`,
        `warning: the chain in ${data} keeps its genesis base fee (1000000000); --block-base-fee-per-gas 7 is ignored`,
      ]);
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  });
});
