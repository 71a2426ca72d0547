/**
 * The first commands of a Foundry or viem user, unchanged, against a fresh default node (the command
 * as it starts with no flag but a data directory and a free port): cast's sends with no fee flag,
 * its WebSocket URL on `/`, the pending block, automine turned back on, and `forge script --broadcast`
 * deploying through the CREATE2 deployer that the dev genesis carries, with Multicall3 and Permit2.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { createPublicClient, encodeFunctionData, getContractAddress, http, keccak256, parseAbi, webSocket } from 'viem';
import { foundry } from 'viem/chains';

import { runCommand } from './command';
import type { RunningCommand } from './command';

const exec = promisify(execFile);
const BIN_DIR = join(__dirname, '..', '..', '..', 'node_modules', '@foundry-rs');
const CAST = join(BIN_DIR, 'cast-linux-amd64', 'bin', 'cast');
const FORGE = join(BIN_DIR, 'forge-linux-amd64', 'bin', 'forge');
const ALICE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const BOB = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CREATE2_DEPLOYER = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';
const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';

let dir: string;
let node: RunningCommand;
let url: string;
let wsUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'l2devnet-first-'));
  node = await runCommand(['--port', '0', '--data-dir', join(dir, 'data')]);
  url = node.url;
  wsUrl = url.replace('http://', 'ws://');
});
afterAll(async () => {
  node.child.kill('SIGTERM');
  await node.exited;
  rmSync(dir, { recursive: true, force: true });
});

const cast = async (...args: string[]) => (await exec(CAST, args, { timeout: 60_000 })).stdout.trim();

test('cast block-number over the WebSocket URL the banner prints (ws://host:port, on /)', async () => {
  expect(await cast('block-number', '--rpc-url', wsUrl)).toMatch(/^\d+$/);
});

test('viem webSocket() on ws://host:port', async () => {
  const client = createPublicClient({ chain: foundry, transport: webSocket(wsUrl) });
  try {
    expect(typeof (await client.getBlockNumber())).toBe('bigint');
  } finally {
    (await client.transport.getRpcClient()).close();
  }
});

test('cast block pending and cast base-fee pending decode the pending block', async () => {
  const head = Number(await cast('block-number', '--rpc-url', url));
  const pending = JSON.parse(await cast('block', 'pending', '--json', '--rpc-url', url));
  expect(Number(pending.number)).toBe(head + 1);
  expect(pending.hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(BigInt(await cast('base-fee', 'pending', '--rpc-url', url))).toBeGreaterThan(0n);
});

test('cast send with no fee flag: a transfer and a creation are mined', async () => {
  const send = async (...args: string[]) =>
    JSON.parse(await cast('send', '--rpc-url', url, '--private-key', ALICE_KEY, '--json', ...args));
  expect((await send(BOB, '--value', '1')).status).toBe('0x1');
  // Init code returning a runtime of one byte, STOP: MSTORE8(0, 0), RETURN(0, 1).
  const created = await send('--create', '0x600060005360016000f3');
  expect(created.status).toBe('0x1');
  expect(created.contractAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
});

test('automine turned back on mines what cast sent while it was off', async () => {
  const rpc = (method: string, ...params: string[]) => cast('rpc', '--rpc-url', url, method, ...params);
  await rpc('evm_setAutomine', 'false');
  const hash = await cast('send', '--async', '--rpc-url', url, '--private-key', ALICE_KEY, BOB, '--value', '1');
  expect(JSON.parse(await rpc('eth_getTransactionReceipt', hash))).toBeNull();
  await rpc('evm_setAutomine', 'true');
  expect(JSON.parse(await cast('receipt', hash, '--json', '--rpc-url', url)).status).toBe('0x1');
});

test('the dev genesis carries the CREATE2 deployer, Multicall3 and Permit2: viem multicall, Permit2 on this chain', async () => {
  const client = createPublicClient({ chain: foundry, transport: http(url) });
  for (const address of [CREATE2_DEPLOYER, MULTICALL3, PERMIT2])
    expect((await client.getCode({ address }))?.length).toBeGreaterThan(2);
  const permit2 = parseAbi(['function DOMAIN_SEPARATOR() view returns (bytes32)']);
  const [separator, blockNumber] = await client.multicall({
    multicallAddress: MULTICALL3,
    allowFailure: false,
    contracts: [
      { address: PERMIT2, abi: permit2, functionName: 'DOMAIN_SEPARATOR' },
      {
        address: MULTICALL3,
        abi: parseAbi(['function getBlockNumber() view returns (uint256)']),
        functionName: 'getBlockNumber',
      },
    ],
  });
  // keccak256(abi.encode(EIP712Domain typehash, keccak256("Permit2"), 31337, Permit2)), as its constructor caches it.
  expect(separator).toBe('0x4d553c58ae79a6c4ba64f0e690a5d1cd2deff8c6b91cf38300e0f2b76f9ee346');
  expect(blockNumber).toBe(await client.getBlockNumber());
  expect(encodeFunctionData({ abi: permit2, functionName: 'DOMAIN_SEPARATOR' })).toBe('0x3644e515');
});

/** solc's command line as forge calls it (--version, --standard-json), over solc-js from npm: no download. */
const SOLC_SHIM = `#!/usr/bin/env node
const solc = require(${JSON.stringify(require.resolve('solc'))});
if (process.argv.includes('--version')) {
  process.stdout.write('solc, the solidity compiler commandline interface\\nVersion: ' + solc.version() + '\\n');
  process.exit(0);
}
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => process.stdout.write(solc.compile(input)));
`;

const COUNTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Counter { uint256 public number; function increment() external { number++; } }
`;

// A script as forge-std's would be, without the library: the cheatcodes' address and the two it uses.
const SCRIPT = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
import {Counter} from "../src/Counter.sol";
interface Vm { function startBroadcast() external; function stopBroadcast() external; }
contract Deploy {
  Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
  function run() external {
    vm.startBroadcast();
    Counter c = new Counter{salt: bytes32(uint256(1))}();
    c.increment();
    vm.stopBroadcast();
  }
}
`;

test('forge script --broadcast deploys a salted contract through the CREATE2 deployer, unchanged', async () => {
  const project = join(dir, 'project');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(project, 'script'));
  writeFileSync(join(project, 'foundry.toml'), '[profile.default]\nsrc = "src"\nout = "out"\nlibs = []\n');
  writeFileSync(join(project, 'src', 'Counter.sol'), COUNTER);
  writeFileSync(join(project, 'script', 'Deploy.s.sol'), SCRIPT);
  const solc = join(dir, 'solc');
  writeFileSync(solc, SOLC_SHIM);
  chmodSync(solc, 0o755);
  const args = ['script', 'script/Deploy.s.sol', '--use', solc, '--offline', '--rpc-url', url];
  const { stdout } = await exec(FORGE, [...args, '--broadcast', '--private-key', ALICE_KEY], {
    cwd: project,
    env: { ...process.env, HOME: dir },
    timeout: 120_000,
  });
  expect(stdout).toContain('ONCHAIN EXECUTION COMPLETE & SUCCESSFUL');
  const artifact = JSON.parse((await exec('cat', [join(project, 'out', 'Counter.sol', 'Counter.json')])).stdout) as {
    bytecode: { object: `0x${string}` };
  };
  const address = getContractAddress({
    opcode: 'CREATE2',
    from: CREATE2_DEPLOYER,
    salt: `0x${'1'.padStart(64, '0')}`,
    bytecodeHash: keccak256(artifact.bytecode.object),
  });
  const client = createPublicClient({ chain: foundry, transport: http(url) });
  const number = await client.readContract({
    address,
    abi: parseAbi(['function number() view returns (uint256)']),
    functionName: 'number',
  });
  expect(number).toBe(1n);
});
