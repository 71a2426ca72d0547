/**
 * Anvil's answers where scripts read them, measured against a real Anvil (1.7.1, from npm) in the
 * same test: the same calls to both, and the same JSON types and fields back (values that are each
 * node's own, hashes and times, are compared by type).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

const ANVIL = join(__dirname, '..', '..', '..', 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil');
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const STRANGER = '0x00000000000000000000000000000000000000c1';

type Call = (method: string, ...params: unknown[]) => Promise<any>;

let node: TestNode;
let anvil: ChildProcess;
let ours: Call;
let theirs: Call;
let anvilUrl: string;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function caller(url: string): Call {
  let id = 1;
  return async (method, ...params) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
}

/** A value's shape: its JSON type, and for objects and arrays the shapes inside, keys sorted. */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, shape((value as Record<string, unknown>)[k])]),
    );
  if (typeof value === 'string') return /^0x[0-9a-f]*$/i.test(value) ? 'hex' : 'string';
  return typeof value;
}

/**
 * A transaction's receipts on both: this node's at once (automine mines before it answers), Anvil's
 * once it has one (its automine can answer with the hash before the block is mined: 46 of 300
 * transfers had no receipt yet on the next request).
 */
async function receipts(h1: string, h2: string): Promise<[any, any]> {
  const a = await ours('eth_getTransactionReceipt', h1);
  expect(a).not.toBeNull();
  for (let i = 0; i < 100; i++) {
    const b = await theirs('eth_getTransactionReceipt', h2);
    if (b !== null) return [a, b];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Anvil has no receipt of ${h2} after 2 s`);
}

/** Both nodes' answers to the same call. */
async function both(method: string, ...params: unknown[]): Promise<[any, any]> {
  return [await ours(method, ...params), await theirs(method, ...params)];
}

beforeAll(async () => {
  node = await startTestNode();
  ours = caller(`${node.url}/`);
  const port = await freePort();
  anvil = spawn(ANVIL, ['--port', String(port), '--silent'], { stdio: 'ignore' });
  anvilUrl = `http://127.0.0.1:${port}`;
  theirs = caller(anvilUrl);
  for (let i = 0; ; i++) {
    try {
      await theirs('eth_chainId');
      break;
    } catch (e) {
      if (i > 200) throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
});
afterAll(async () => {
  anvil.kill('SIGTERM');
  await node.close();
});

test('evm_increaseTime answers the offset, anvil_setTime how far it moved the clock forward: JSON numbers', async () => {
  // Anvil's answer is its clock's whole offset, which its start can leave a second short (9 seen once).
  const [offsetHere, offsetThere] = await both('evm_increaseTime', 10);
  expect(offsetHere).toBe(10);
  expect([9, 10]).toContain(offsetThere);
  const future = Math.floor(Date.now() / 1000) + 86_400;
  const [a, b] = await both('anvil_setTime', future);
  expect([typeof a, typeof b]).toEqual(['number', 'number']);
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1);
  expect(Math.abs(a - (86_400 - 10))).toBeLessThanOrEqual(1);
  // Back in time: 0; then the offset is the new one.
  expect(await both('anvil_setTime', future - 100)).toEqual([0, 0]);
  const [c, d] = await both('evm_increaseTime', 1);
  expect(Math.abs(c - d)).toBeLessThanOrEqual(1);
  // Past 10^12, a time in milliseconds.
  const [e, f] = await both('anvil_setTime', (future + 100) * 1000);
  expect(Math.abs(e - f)).toBeLessThanOrEqual(1);
  expect(Math.abs(e - 200)).toBeLessThanOrEqual(1);
});

test('snapshot ids start at 0x0, and anvil_metadata lists them as Anvil does', async () => {
  expect(await both('evm_snapshot')).toEqual(['0x0', '0x0']);
  expect(await both('evm_snapshot')).toEqual(['0x1', '0x1']);
  const [a, b] = await both('anvil_metadata');
  expect(shape(a)).toEqual(shape(b));
  expect(Object.keys(a.snapshots)).toEqual(['0x0', '0x1']);
  expect(await both('evm_revert', '0x1')).toEqual([true, true]);
});

test("anvil_nodeInfo has Anvil's fields and types", async () => {
  const [a, b] = await both('anvil_nodeInfo');
  expect(shape(a)).toEqual(shape(b));
  expect(a.environment.chainId).toBe(31337);
});

test("a transfer's receipt has Anvil's fields (blobGasPrice too)", async () => {
  const [h1, h2] = await both('eth_sendTransaction', { from: ALICE, to: BOB, value: '0x1' });
  const [a, b] = await receipts(h1, h2);
  // Anvil adds its block's timestamp as a JSON number; geth's receipts (and the execution-apis' tests) have none.
  expect(typeof b.blockTimestamp).toBe('number');
  delete b.blockTimestamp;
  expect(shape(a)).toEqual(shape(b));
});

test('evm_mine({ blocks, timestamp }) mines that many blocks, the first at that time', async () => {
  const [before] = await both('eth_blockNumber');
  const [beforeTheirs] = [await theirs('eth_blockNumber')];
  const at = Math.floor(Date.now() / 1000) + 10 * 86_400;
  expect(await both('evm_mine', { blocks: 3, timestamp: at })).toEqual(['0x0', '0x0']);
  expect(BigInt(await ours('eth_blockNumber')) - BigInt(before)).toBe(3n);
  expect(BigInt(await theirs('eth_blockNumber')) - BigInt(beforeTheirs)).toBe(3n);
  const first = async (call: Call) =>
    Number(
      (await call('eth_getBlockByNumber', `0x${(BigInt(await call('eth_blockNumber')) - 2n).toString(16)}`, false))
        .timestamp,
    );
  expect(await first(ours)).toBe(at);
  expect(await first(theirs)).toBe(at);
});

test('eth_sendUnsignedTransaction sends from any address without its key', async () => {
  await both('anvil_setBalance', STRANGER, '0xde0b6b3a7640000');
  const [h1, h2] = await both('eth_sendUnsignedTransaction', { from: STRANGER, to: BOB, value: '0x1' });
  const [a, b] = await receipts(h1, h2);
  expect([a.status, b.status]).toEqual(['0x1', '0x1']);
  expect([a.from, b.from]).toEqual([STRANGER, STRANGER]);
});

test('anvil_setRpcUrl answers null', async () => {
  expect(await both('anvil_setRpcUrl', 'http://127.0.0.1:1')).toEqual([null, null]);
});

test("state dumps cross over: Anvil's anvil_dumpState loads here, and this node's loads into Anvil", async () => {
  const FRIEND = '0x00000000000000000000000000000000000000f1';
  const SLOT = `0x${'0'.repeat(63)}7`;
  const VALUE = `0x${'0'.repeat(62)}2a`;
  // On Anvil: an account with a balance, code and a slot; dumped, loaded here.
  await theirs('anvil_setBalance', FRIEND, '0x1234');
  await theirs('anvil_setCode', FRIEND, '0x6001600055');
  await theirs('anvil_setStorageAt', FRIEND, SLOT, VALUE);
  expect(await ours('anvil_loadState', await theirs('anvil_dumpState'))).toBe(true);
  expect(await ours('eth_getBalance', FRIEND, 'latest')).toBe('0x1234');
  expect(await ours('eth_getCode', FRIEND, 'latest')).toBe('0x6001600055');
  expect(await ours('eth_getStorageAt', FRIEND, SLOT, 'latest')).toBe(VALUE);
  // Here: another account; dumped, loaded into Anvil.
  const OTHER = '0x00000000000000000000000000000000000000f2';
  await ours('anvil_setBalance', OTHER, '0x5678');
  await ours('anvil_setStorageAt', OTHER, SLOT, VALUE);
  expect(await theirs('anvil_loadState', await ours('anvil_dumpState'))).toBe(true);
  expect(await theirs('eth_getBalance', OTHER, 'latest')).toBe('0x5678');
  expect(await theirs('eth_getStorageAt', OTHER, SLOT, 'latest')).toBe(VALUE);
});

test('anvil_setChainId answers null and changes eth_chainId, before any transaction', async () => {
  const node = await startTestNode();
  const port = await freePort();
  const fresh = spawn(ANVIL, ['--port', String(port), '--silent'], { stdio: 'ignore' });
  try {
    const mine = caller(`${node.url}/`);
    const anvilFresh = caller(`http://127.0.0.1:${port}`);
    for (let i = 0; ; i++) {
      try {
        await anvilFresh('eth_chainId');
        break;
      } catch (e) {
        if (i > 200) throw e;
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    expect([await mine('anvil_setChainId', 1234), await anvilFresh('anvil_setChainId', 1234)]).toEqual([null, null]);
    expect([await mine('eth_chainId'), await anvilFresh('eth_chainId')]).toEqual(['0x4d2', '0x4d2']);
  } finally {
    fresh.kill('SIGTERM');
    await node.close();
  }
});

test("Anvil's reads: eth_networkId, eth_requestAccounts, eth_getAccount, eth_getAccountInfo, raw transactions, by sender and nonce, code by hash", async () => {
  expect(await both('eth_networkId')).toEqual(['31337', '31337']);
  const [accountsHere, accountsThere] = await both('eth_requestAccounts');
  expect(accountsHere).toEqual(accountsThere);
  const [a, b] = await both('eth_getAccount', ALICE, 'latest');
  expect(shape(a)).toEqual(shape(b));
  const [c, d] = await both('eth_getAccountInfo', BOB, 'latest');
  expect(shape(c)).toEqual(shape(d));
  expect(c.code).toBe('0x');
  // A transfer from Bob on each: its raw bytes, and found again by its sender and nonce.
  const [h1, h2] = await both('eth_sendTransaction', { from: BOB, to: ALICE, value: '0x1' });
  const [raw1, raw2] = [await ours('eth_getRawTransactionByHash', h1), await theirs('eth_getRawTransactionByHash', h2)];
  expect(raw1).toMatch(/^0x02f8/);
  expect(raw2).toMatch(/^0x02f8/);
  const nonce = Number((await ours('eth_getTransactionByHash', h1)).nonce);
  const [found1, found2] = await both('eth_getTransactionBySenderAndNonce', BOB, nonce);
  expect([found1.hash, found2.hash]).toEqual([h1, h2]);
  expect(shape(found1)).toEqual(shape(found2));
  // Code by its hash: the CREATE2 deployer's, which both genesis states carry.
  const info = await ours('eth_getAccount', '0x4e59b44847b379578588920cA78FbF26c0B4956C', 'latest');
  expect(await both('debug_codeByHash', info.codeHash)).toEqual([
    await ours('eth_getCode', '0x4e59b44847b379578588920cA78FbF26c0B4956C', 'latest'),
    await theirs('eth_getCode', '0x4e59b44847b379578588920cA78FbF26c0B4956C', 'latest'),
  ]);
});

test("Otterscan's calls answer as Anvil's: hasCode at a JSON number, unknown blocks and transactions refused, inputs cut to the selector, the transaction's own operation", async () => {
  const flow = JSON.parse(
    readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'TraceFlow.json'), 'utf8'),
  ) as { bytecode: string };
  const FORWARDER = '0x00000000000000000000000000000000000000f0';
  const SINK = '0x00000000000000000000000000000000000000c2';
  /** Each node's whole answer, error included. */
  const raw = async (url: string, method: string, ...params: unknown[]) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const { result, error } = (await res.json()) as { result?: unknown; error?: unknown };
    return error === undefined ? { result } : { error };
  };
  const bothRaw = async (method: string, ...params: unknown[]) => [
    await raw(`${node.url}/`, method, ...params),
    await raw(anvilUrl, method, ...params),
  ];
  const [deploy1, deploy2] = await both('eth_sendTransaction', { from: ALICE, data: flow.bytecode });
  const [r1, r2] = await receipts(deploy1, deploy2);
  expect(r1.contractAddress).toBe(r2.contractAddress);
  // CALL(gas, SINK, CALLVALUE, 0, 0, 0, 0): forwards what it is sent.
  await both('anvil_setCode', FORWARDER, `0x600060006000600034${'73'}${SINK.slice(2)}5af100`);
  const [fwd1, fwd2] = await both('eth_sendTransaction', { from: ALICE, to: FORWARDER, value: '0x64', gas: '0x20000' });
  const [xfer1, xfer2] = await both('eth_sendTransaction', { from: ALICE, to: SINK, value: '0x5' });
  await receipts(xfer1, xfer2);
  const block = Number(r1.blockNumber);
  expect(Number(r2.blockNumber)).toBe(block);

  const [has1, has2] = await bothRaw('ots_hasCode', r1.contractAddress, block);
  expect(has1).toEqual({ result: true });
  expect(has1).toEqual(has2);
  for (const [method, ...params] of [
    ['ots_getBlockDetails', 9_999],
    ['ots_getBlockDetailsByHash', `0x${'11'.repeat(32)}`],
    ['ots_getBlockTransactions', 9_999, 0, 10],
    ['ots_getInternalOperations', `0x${'11'.repeat(32)}`],
  ] as const) {
    const [here, there] = await bothRaw(method, ...params);
    expect([method, here]).toEqual([method, there]);
    expect(here).toHaveProperty('error');
  }
  const [page1, page2] = await both('ots_getBlockTransactions', block, 0, 10);
  expect(page1.fullblock.transactions.map((t: { input: string }) => t.input)).toEqual(
    page2.fullblock.transactions.map((t: { input: string }) => t.input),
  );
  expect(page1.fullblock.transactions[0].input).toBe(flow.bytecode.slice(0, 10));
  for (const [h1, h2] of [
    [deploy1, deploy2],
    [fwd1, fwd2],
    [xfer1, xfer2],
  ])
    expect(await ours('ots_getInternalOperations', h1)).toEqual(await theirs('ots_getInternalOperations', h2));
  expect(await ours('ots_getInternalOperations', xfer1)).toEqual([{ type: 0, from: ALICE, to: SINK, value: '0x5' }]);
});
