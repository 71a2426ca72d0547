/**
 * Every option the command has, reached through createDevnet with the same meaning, group by group as
 * `l2devnet --help` lists them: each test sets the group's options and checks what each one does.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { bytesToHex } from '@ethereumjs/util';
import { deriveAccounts } from '@l2devnet/core';
import WebSocket from 'ws';

import { createDevnet, DevnetOptionError } from '../src';
import type { Devnet, DevnetOptions } from '../src';

// Node 20 defines Symbol.asyncDispose in its main realm only, not in jest's; `await using` needs it.
(Symbol as { asyncDispose?: symbol }).asyncDispose ??= Symbol.for('nodejs.asyncDispose');

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures');
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const CAROL = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'l2devnet-options-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const request = (devnet: Devnet, method: string, ...params: unknown[]) => devnet.provider.request({ method, params });

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const rpc = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

test('Network: listen, apiKeys, apiKeysFile, dailyCredits, maxBodyBytes, maxBatch, maxWsMessageBytes', async () => {
  const keys = join(dir, 'keys.txt');
  writeFileSync(keys, '# the team\nfile-key\n');
  await using devnet = await createDevnet({
    listen: { host: '127.0.0.1', port: 0 },
    apiKeys: ['list-key'],
    apiKeysFile: keys,
    dailyCredits: 200,
    maxBodyBytes: 1000,
    maxBatch: 2,
    maxWsMessageBytes: 512,
    maxWsBackpressureBytes: 64 * 1024,
  });
  const url = devnet.url as string;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  // Keyed mode: the keys given and the keys of the file; no other.
  expect((await post(`${url}/v3/list-key`, rpc('eth_chainId'))).json.result).toBe('0x7a69');
  expect((await post(`${url}/v3/file-key`, rpc('eth_chainId'))).json.result).toBe('0x7a69');
  expect((await post(`${url}/v3/other`, rpc('eth_chainId'))).status).toBe(401);
  // A body over 1,000 bytes, a batch over 2.
  expect((await post(`${url}/v3/list-key`, rpc('web3_sha3', [`0x${'ab'.repeat(600)}`]))).status).toBe(413);
  expect(
    (
      await post(
        `${url}/v3/list-key`,
        [1, 2, 3].map((id) => rpc('eth_chainId', [], id)),
      )
    ).json.error,
  ).toEqual({
    code: -32600,
    message: 'invalid request: a batch of 3 requests is over the limit of 2',
  });
  // 200 credits a day: eth_blockNumber costs 80, so the third call of the day is refused.
  for (let i = 0; i < 2; i++) await post(`${url}/v3/file-key`, rpc('eth_blockNumber'));
  const spent = await post(`${url}/v3/file-key`, rpc('eth_blockNumber'));
  expect(spent.json.error.code).toBe(-32005);
  // A WebSocket message over 512 bytes closes its socket.
  const ws = new WebSocket(`${devnet.wsUrl}/ws/v3/list-key`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const closed = new Promise<number>((resolve) => ws.once('close', resolve));
  ws.send(JSON.stringify(rpc('web3_sha3', [`0x${'ab'.repeat(400)}`])));
  expect(await closed).toBe(1006);
});

test('Chain: chainId, hardfork, gasLimit, mnemonic, derivationPath, accounts, balance, create2Deployer, finalityDepth, safeDepth', async () => {
  await using devnet = await createDevnet({
    chainId: 777,
    // Anvil's spelling of the fork.
    hardfork: 'Cancun',
    gasLimit: 20_000_000,
    mnemonic: MNEMONIC,
    derivationPath: "m/44'/60'/1'/0/",
    create2Deployer: false,
    accounts: 3,
    balance: '1.5',
    finalityDepth: 4,
    safeDepth: 2,
  });
  expect(await request(devnet, 'eth_chainId')).toBe('0x309');
  expect(devnet.chain.hardfork).toBe('cancun');
  expect(((await request(devnet, 'eth_getBlockByNumber', 'latest', false)) as { gasLimit: string }).gasLimit).toBe(
    '0x1312d00',
  );
  const derived = deriveAccounts(MNEMONIC, 3, "m/44'/60'/1'/0/").map((a) => bytesToHex(a.address));
  expect(devnet.accounts.map((a) => a.address.toLowerCase())).toEqual(derived);
  expect(derived[0]).not.toBe(bytesToHex(deriveAccounts(MNEMONIC, 1)[0].address));
  // No CREATE2 deployer; the other predeploys stay.
  expect(await request(devnet, 'eth_getCode', '0x4e59b44847b379578588920cA78FbF26c0B4956C', 'latest')).toBe('0x');
  expect(await request(devnet, 'eth_getCode', '0xcA11bde05977b3631167028862bE2a173976CA11', 'latest')).not.toBe('0x');
  expect(await request(devnet, 'eth_getBalance', derived[2], 'latest')).toBe('0x14d1120d7b160000');
  // A contract that returns the block number it runs in (NUMBER, MSTORE at 0, RETURN 32 bytes).
  await request(devnet, 'anvil_setCode', CAROL, '0x4360005260206000f3');
  await request(devnet, 'anvil_mine', '0x6');
  const numberAt = async (tag: string) => BigInt((await request(devnet, 'eth_call', { to: CAROL }, tag)) as string);
  expect(await numberAt('finalized')).toBe(2n);
  expect(await numberAt('safe')).toBe(4n);
});

test('Chain: genesis, as a path or as the parsed object', async () => {
  const genesis = {
    config: { chainId: 4242, londonBlock: 0, shanghaiTime: 0, cancunTime: 0, terminalTotalDifficulty: 0 },
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    alloc: { [BOB]: { balance: '0x64' } },
  };
  const file = join(dir, 'genesis.json');
  writeFileSync(file, JSON.stringify(genesis));
  for (const given of [file, genesis]) {
    await using devnet = await createDevnet({ genesis: given });
    expect(await request(devnet, 'eth_chainId')).toBe('0x1092');
    expect(await request(devnet, 'eth_getBalance', BOB, 'latest')).toBe('0x64');
  }
});

test('Mining: mining false mines on request; maxTransactions; poolBalanceChecks; blockTime mines on its own', async () => {
  {
    await using manual = await createDevnet({ mining: false, maxTransactions: 2, poolBalanceChecks: false });
    for (let i = 0; i < 3; i++) await request(manual, 'eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    expect(await request(manual, 'eth_blockNumber')).toBe('0x0');
    await request(manual, 'evm_mine');
    expect(await request(manual, 'eth_blockNumber')).toBe('0x1');
    // Two of the three in the block, the third in the next.
    expect(
      ((await request(manual, 'eth_getBlockByNumber', '0x1', false)) as { transactions: [] }).transactions,
    ).toHaveLength(2);
    expect(await request(manual, 'txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    // A sender that cannot pay is taken into the pool (Anvil's --disable-pool-balance-checks)...
    const poor = '0x00000000000000000000000000000000000000c2';
    await request(manual, 'anvil_impersonateAccount', poor);
    const hash = await request(manual, 'eth_sendTransaction', { from: poor, to: BOB, value: '0x1', gas: '0x5208' });
    expect(await request(manual, 'txpool_status')).toEqual({ pending: '0x2', queued: '0x0' });
    // ...and the block it would run in drops it.
    await request(manual, 'evm_mine');
    expect(await request(manual, 'eth_getTransactionReceipt', hash)).toBeNull();
    expect(await request(manual, 'txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
  }
  await using timed = await createDevnet({ blockTime: 0.05 });
  const deadline = Date.now() + 10_000;
  while ((await request(timed, 'eth_blockNumber')) === '0x0' && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  expect(await request(timed, 'eth_blockNumber')).not.toBe('0x0');
});

test('Storage: dataDir keeps the chain across a restart; import (with head) starts from a chain file', async () => {
  const dataDir = join(dir, 'chain');
  {
    await using first = await createDevnet({ dataDir });
    await request(first, 'eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
    await request(first, 'eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
  }
  {
    await using again = await createDevnet({ dataDir });
    expect(await request(again, 'eth_blockNumber')).toBe('0x2');
  }
  // The chain as geth export writes it, made by the command's export.
  const { execFileSync } = await import('node:child_process');
  const bin = join(__dirname, '..', 'bin', 'l2devnet.js');
  const file = join(dir, 'chain.rlp');
  execFileSync(process.execPath, [bin, 'export', file, '--data-dir', dataDir]);
  const lines: string[] = [];
  await using imported = await createDevnet({ import: file, head: 1, log: (line) => lines.push(line) });
  expect(await request(imported, 'eth_blockNumber')).toBe('0x1');
  expect(lines.join('\n')).toContain('imported 1 blocks');
  // A followed chain is mined on request only.
  expect(await request(imported, 'eth_mining')).toBe(false);
});

test('Prover line counts: tracer, limits, rpcLineCheck', async () => {
  {
    await using london = await createDevnet({ tracer: 'london', hardfork: 'london' });
    expect(((await request(london, 'l2_getLineLimits')) as Record<string, number>).BIN).toBeGreaterThan(0);
  }
  // London's production limits with HUB lowered under what a transfer takes.
  const limits = join(dir, 'low-hub.toml');
  const production = readFileSync(join(FIXTURES, 'limits', 'linea-london.toml'), 'utf8');
  writeFileSync(limits, production.replace(/^HUB = .*$/m, 'HUB = 10'));
  await using tiny = await createDevnet({ tracer: 'london', hardfork: 'london', limits, rpcLineCheck: false });
  expect(((await request(tiny, 'l2_getLineLimits')) as Record<string, number>).HUB).toBe(10);
  // With the RPC-stage check off, an overflowing transfer gets a hash and is excluded in its block.
  const hash = (await request(tiny, 'eth_sendTransaction', {
    from: ALICE,
    to: BOB,
    value: '0x1',
    gas: '0x5208',
  })) as string;
  expect(await request(tiny, 'eth_getTransactionReceipt', hash)).toBeNull();
  expect(await request(tiny, 'l2_getTransactionExclusionStatusV1', hash)).toMatchObject({
    txHash: hash,
    txRejectionStage: 'SEQUENCER',
  });
});

test("Linea's sequencer rules: sequencerRules, maxTxCalldataSize, maxBlockCalldataSize, maxTxGas, maxBlockGas", async () => {
  {
    await using linea = await createDevnet({
      maxTxCalldataSize: 4,
      maxBlockCalldataSize: 50,
      maxTxGas: 100_000,
      maxBlockGas: 90_000,
    });
    expect(linea.chain.sequencerRules).toMatchObject({
      maxTxCalldataSize: 4,
      maxBlockCalldataSize: 50,
      maxTxGasLimit: 100_000n,
      maxBlockGas: 90_000n,
    });
    const refused = await request(linea, 'eth_sendTransaction', { from: ALICE, to: BOB, data: '0x0102030405' }).catch(
      (e) => e,
    );
    expect(refused).toMatchObject({
      code: -32000,
      message: 'Calldata of transaction is greater than the allowed max of 4',
    });
  }
  await using ethereum = await createDevnet({ sequencerRules: false });
  expect(ethereum.chain.sequencerRules).toBeUndefined();
  await request(ethereum, 'eth_sendTransaction', { from: ALICE, to: BOB, data: '0x0102030405' });
  const badEvents = join(dir, 'events.txt');
  writeFileSync(badEvents, '0x01,0x02\n');
  await expect(createDevnet({ eventsDenyList: badEvents })).rejects.toThrow(
    `events deny list ${badEvents}: Invalid transaction event filter line: 0x01,0x02. Expected format: address,topic0,topic1,topic2,topic3`,
  );
  await expect(createDevnet({ maxBlockGas: 0 })).rejects.toThrow(
    new DevnetOptionError('createDevnet: option maxBlockGas must be at least 1; got "0"'),
  );
});

test("preset: a Linea network's chain id, limits, gas limit, rules and prices; other options override them", async () => {
  {
    await using sepolia = await createDevnet({ preset: 'linea-sepolia' });
    expect(await request(sepolia, 'eth_chainId')).toBe('0xe705');
    expect(sepolia.chain.gasLimit).toBe(61_000_000n);
    expect(((await request(sepolia, 'l2_getLineLimits')) as Record<string, number>).HUB).toBe(4_194_304);
    expect(sepolia.chain.sequencerRules?.pricing.fixedCostWei).toBe(0n);
  }
  await using mainnet = await createDevnet({ preset: 'linea-mainnet', chainId: 1234 });
  expect(await request(mainnet, 'eth_chainId')).toBe('0x4d2');
  expect(((await request(mainnet, 'l2_getLineLimits')) as Record<string, number>).HUB).toBe(2_097_152);
  expect(mainnet.chain.sequencerRules?.pricing.fixedCostWei).toBe(30_000_000n);
  await expect(createDevnet({ preset: 'linea-goerli' as never })).rejects.toThrow(
    new DevnetOptionError(
      'createDevnet: option preset must be one of linea-mainnet, linea-sepolia; got "linea-goerli"',
    ),
  );
});

test("the L1-L2 bridge: BLOCK_L2_L1_LOGS counts the configured contract's MessageSent logs; none by default, as Linea's", async () => {
  const TOPIC = 'e856c2b8bd4eb0027ce32eeaf595c21b0b6b4644b326e5b7bd80a1cf8db72e6c';
  const MAINNET_BRIDGE = '0x508Ca82Df566dCD1B0DE8296e70a96332cD644ec';
  const OTHER = '0x00000000000000000000000000000000000b0b0b';
  // LOG1(0, 0, MessageSent's topic)
  const code = `0x7f${TOPIC}60006000a1`;
  const logs = async (devnet: Devnet, at: string) => {
    await request(devnet, 'anvil_setCode', at, code);
    const report = (await request(devnet, 'l2_traceCallLineCounts', { to: at })) as {
      modules: Record<string, { count: number }>;
    };
    return report.modules.BLOCK_L2_L1_LOGS.count;
  };
  {
    await using plain = await createDevnet();
    expect(await logs(plain, MAINNET_BRIDGE)).toBe(0);
  }
  {
    await using mainnet = await createDevnet({ preset: 'linea-mainnet' });
    expect(await logs(mainnet, MAINNET_BRIDGE)).toBe(1);
    expect(await logs(mainnet, OTHER)).toBe(0);
  }
  await using own = await createDevnet({ l1l2BridgeContract: OTHER, l1l2BridgeTopic: `0x${TOPIC}` });
  expect(await logs(own, OTHER)).toBe(1);
  await expect(createDevnet({ l1l2BridgeContract: '0x12' })).rejects.toThrow(
    new DevnetOptionError(
      'createDevnet: option l1l2BridgeContract must be an address, 0x and 40 hex digits; got "0x12"',
    ),
  );
  await expect(createDevnet({ l1l2BridgeTopic: 'topic' })).rejects.toThrow(
    new DevnetOptionError('createDevnet: option l1l2BridgeTopic must be 32 bytes of hex (64 digits); got "topic"'),
  );
});

test("coinbase: Linea mainnet's by default, Sepolia's on its chain id, the one given, a refusal of a bad one", async () => {
  const coinbaseOf = async (devnet: Devnet) => {
    await devnet.provider.request({ method: 'evm_mine', params: [] });
    const block = (await devnet.provider.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as {
      miner: string;
    };
    return [await devnet.provider.request({ method: 'eth_coinbase', params: [] }), block.miner];
  };
  {
    await using plain = await createDevnet();
    expect(await coinbaseOf(plain)).toEqual(Array(2).fill('0x8f81e2e3f8b46467523463835f965ffe476e1c9e'));
  }
  {
    await using sepolia = await createDevnet({ preset: 'linea-sepolia' });
    expect(await coinbaseOf(sepolia)).toEqual(Array(2).fill('0xa27342f1b74c0cfb2cda74bac1628d0c1a9752f2'));
  }
  {
    await using given = await createDevnet({ coinbase: `0x${'00'.repeat(20)}` });
    expect(await coinbaseOf(given)).toEqual(Array(2).fill(`0x${'00'.repeat(20)}`));
  }
  await expect(createDevnet({ coinbase: '0x12' })).rejects.toThrow(
    new DevnetOptionError('createDevnet: option coinbase must be an address, 0x and 40 hex digits; got "0x12"'),
  );
});

test('Printed output: console, verbosity, consoleLog, artifacts, logFormat, configOut, through log', async () => {
  const lines: string[] = [];
  const configOut = join(dir, 'config-out.json');
  await using devnet = await createDevnet({
    console: true,
    verbosity: 4,
    consoleLog: false,
    artifacts: [join(FIXTURES, 'contracts')],
    logFormat: 'json',
    configOut,
    log: (line) => lines.push(line),
  });
  const hash = (await request(devnet, 'eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' })) as string;
  const deadline = Date.now() + 10_000;
  while (!lines.some((l) => l.includes(hash)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const at = lines.findIndex((l) => l.includes(hash));
  // The request's method, then the transaction and its block as Anvil prints them.
  expect(lines.slice(0, at)).toContain('eth_sendTransaction');
  expect(lines[at]).toBe(`    Transaction: ${hash}`);
  expect(lines[at + 1]).toBe('    Gas used: 21000');
  // -vvvv: the call tree of every transaction, here the one frame of a plain transfer.
  expect(lines[at + 2]).toMatch(/^ {4}\[21000\] 0x70997970c51812dc3a010c7d01b50e0d17dc79c8::/i);
  expect(lines[at + 3]).toMatch(/^ {4}└─ ← \[Return\]/);
  expect(lines[at + 5]).toBe('    Block Number: 1');
  expect(lines[at + 7]).toMatch(/^ {4}Block Time: "\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000"$/);
  // configOut: Anvil's file.
  const written = JSON.parse(readFileSync(configOut, 'utf8'));
  expect(written.available_accounts[0]).toBe(ALICE);
  expect(written.wallet).toEqual({
    derivation_path: "m/44'/60'/0'/0/",
    mnemonic: 'test test test test test test test test test test test junk',
  });
});

/** POSTs `body` to `url` naming `host` in its Host header (fetch cannot set it). */
function postAs(url: string, host: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { Host: host, 'Content-Type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

test('Network: allowHosts widens the Host names answered; logFormat json says notices as JSON lines', async () => {
  const lines: string[] = [];
  await using devnet = await createDevnet({
    listen: true,
    apiKeys: ['good-key'],
    allowHosts: ['devbox.lan'],
    logFormat: 'json',
    log: (line) => lines.push(line),
  });
  const url = `${devnet.url}/v3/good-key`;
  expect(await postAs(url, 'localhost:8545', rpc('eth_chainId'))).toBe(200);
  expect(await postAs(url, 'devbox.lan:8545', rpc('eth_chainId'))).toBe(200);
  expect(await postAs(url, 'evil.example', rpc('eth_chainId'))).toBe(403);
  expect(await postAs(`${devnet.url}/v3/wrong-key`, '127.0.0.1', rpc('eth_chainId'))).toBe(401);
  expect(lines.map((l) => JSON.parse(l))).toContainEqual({
    timestamp: expect.any(String),
    level: 'INFO',
    fields: { message: 'refused unknown API key wron…' },
    target: 'l2devnet',
  });
});

test('RPC: callFromOptional, logQueryTimeoutMs, rpcEvmTimeout, rpcGasCap', async () => {
  const LOOP = '0x5b600056'; // JUMPDEST, PUSH1 0, JUMP: runs until it is stopped
  await using devnet = await createDevnet({
    listen: true,
    callFromOptional: true,
    logQueryTimeoutMs: 1,
    rpcEvmTimeout: '300ms',
    rpcGasCap: 1_000_000_000,
  });
  await request(devnet, 'anvil_setCode', CAROL, LOOP);
  // /v3/<KEY> takes a call without `from`.
  const call = await post(`${devnet.url}/v3/any-key`, rpc('eth_call', [{ to: BOB }, 'latest']));
  expect(call.json.result).toBe('0x');
  const stopped = await devnet.provider
    .request({ method: 'eth_call', params: [{ to: CAROL }, 'latest'] })
    .catch((e) => e);
  expect(stopped).toMatchObject({ code: -32000, message: 'execution aborted (timeout = 300ms)' });
  // The gas cap bounds a call's gas, whatever it asks for: GAS at its start sees the cap less the
  // intrinsic 21,000 and its own 2.
  await request(devnet, 'anvil_setCode', CAROL, '0x5a60005260206000f3'); // GAS, MSTORE it, RETURN 32 bytes
  const left = await devnet.provider.request({ method: 'eth_call', params: [{ to: CAROL, gas: '0xffffffffff' }] });
  expect(BigInt(left as string)).toBe(1_000_000_000n - 21_002n);
  // eth_getLogs' time limit reaches the chain's reads.
  expect((devnet.chain as unknown as { reads: { logQueryTimeoutMs: number } }).reads.logQueryTimeoutMs).toBe(1);
  const options: DevnetOptions = { logQueryTimeoutMs: 0 };
  await expect(createDevnet(options)).rejects.toThrow(
    new DevnetOptionError('createDevnet: option logQueryTimeoutMs must be at least 1; got "0"'),
  );
});

test('workers: the threads calls run in, none with 0', async () => {
  const RETURN_CALLER = '0x3360005260206000f3'; // CALLER, MSTORE it, RETURN 32 bytes
  for (const workers of [1, 0]) {
    await using devnet = await createDevnet({ workers });
    await request(devnet, 'anvil_setCode', CAROL, RETURN_CALLER);
    expect(await devnet.chain.calls.workersReady()).toBe(workers > 0);
    const before = devnet.chain.calls.workerCalls;
    // Two at once: the first takes the main thread, the second a worker if there is one.
    const call = () => devnet.provider.request({ method: 'eth_call', params: [{ from: BOB, to: CAROL }, 'latest'] });
    const callers = await Promise.all([call(), call()]);
    expect(callers).toEqual(Array(2).fill(`0x${BOB.slice(2).toLowerCase().padStart(64, '0')}`));
    expect(devnet.chain.calls.workerCalls - before).toBe(workers);
  }
  for (const [workers, why] of [
    [-1, 'must be at least 0; got "-1"'],
    [1.5, 'must be an integer; got "1.5"'],
    [65, 'must be at most 64; got "65"'],
  ] as const)
    await expect(createDevnet({ workers })).rejects.toThrow(
      new DevnetOptionError(`createDevnet: option workers ${why}`),
    );
});

/** Files this process holds open under the system's temporary directory, unlinked or not (Linux). */
function openRowsFiles(): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((path) => path.includes('l2devnet-rows-'));
}

test('memoryLimit: past it the oldest rows go to a temporary file, and every block still reads as it did', async () => {
  const before = openRowsFiles();
  const devnet = await createDevnet({ memoryLimit: 1 });
  const hash = await request(devnet, 'eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
  const early = async () =>
    Promise.all([
      request(devnet, 'eth_getBlockByNumber', '0x1', true),
      request(devnet, 'eth_getTransactionReceipt', hash),
      request(devnet, 'eth_getProof', BOB, [], '0x1'),
      request(devnet, 'eth_getBalance', BOB, '0x0'),
    ]);
  const answers = await early();
  // About 5 KB of state a block: 2,000 blocks fill the map's first 8 MiB buffer.
  await request(devnet, 'anvil_mine', '0x7d0');
  expect(openRowsFiles().length).toBe(before.length + 1);
  expect(openRowsFiles().at(-1)).toMatch(/l2devnet-rows-\w+\/rows \(deleted\)$/);
  expect(await early()).toEqual(answers);
  expect(await request(devnet, 'eth_getBalance', BOB, 'latest')).toBe(
    `0x${(BigInt(answers[3] as string) + 1n).toString(16)}`,
  );
  await devnet.close();
  expect(openRowsFiles()).toEqual(before);

  await expect(createDevnet({ memoryLimit: 0 })).rejects.toThrow(
    new DevnetOptionError('createDevnet: option memoryLimit must be at least 1; got "0"'),
  );
  const dir = mkdtempSync(join(tmpdir(), 'l2devnet-limit-'));
  try {
    await expect(createDevnet({ memoryLimit: 8, dataDir: dir })).rejects.toThrow(
      new DevnetOptionError('createDevnet: options memoryLimit and dataDir exclude each other'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
