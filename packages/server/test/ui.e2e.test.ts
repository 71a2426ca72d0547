/**
 * The page the node serves, in a real browser (Debian's chromium driven by playwright-core): the
 * head (live over the WebSocket), a block with its line counts against the limits (an overflowing
 * module marked and first), a transaction with its call tree and counts, the exclusions list and an
 * excluded transaction, an address with a storage read, the limits, search, and "not found".
 * Screenshots go to test-output/.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { LineLimits } from '@l2devnet/core';
import { creditsOf } from '@l2devnet/rpc';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

const ROOT = join(__dirname, '..', '..', '..');
/** The command, as a user starts it. */
const BIN = join(ROOT, 'packages', 'l2devnet', 'bin', 'l2devnet.js');
const SHOTS = join(ROOT, 'test-output');
const counter = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'contracts', 'Counter.json'), 'utf8')) as {
  bytecode: string;
};
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const INCREMENT = '0xd09de08a';

let node: TestNode;
let browser: Browser;
let page: Page;
let contract: string;
let mined: string;
let excluded: string;
const call = async (method: string, params: unknown[] = []) =>
  (await node.post({ jsonrpc: '2.0', id: 1, method, params })).json;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  node = await startTestNode({
    chain: { lineLimits: LineLimits.fromFile(join(ROOT, 'fixtures', 'limits', 'linea-mainnet.toml'), 'osaka') },
  });
  contract = await node.deploy(counter.bytecode);
  mined = (await call('eth_sendTransaction', [{ from: ALICE, to: contract, data: INCREMENT, gas: '0x30000' }])).result;
  // An excluded transaction: refused at submission while ADD's limit is 1.
  await call('l2_setLineLimits', [{ ADD: 1 }]);
  const refused = await call('eth_sendTransaction', [{ from: ALICE, to: contract, data: INCREMENT, gas: '0x30000' }]);
  excluded = /(0x[0-9a-f]{64})/.exec(refused.error.message)?.[1] as string;
  // The block that holds `mined` is now over ADD's limit: its view marks it.
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await node?.close();
});

/** Opens the page at `hash`, loaded afresh (a hash the page already shows would not render again). */
const open = async (hash: string) => {
  await page.goto('about:blank');
  await page.goto(`${node.url}/${hash}`);
  await page.waitForFunction(() => !document.getElementById('view')?.textContent?.startsWith('Loading'));
};

test('GET / from a browser is the page; from a JSON-RPC client it is still refused', async () => {
  const html = await fetch(node.url, { headers: { Accept: 'text/html' } });
  expect(html.status).toBe(200);
  expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await html.text()).toContain('<title>l2devnet</title>');
  expect((await fetch(`${node.url}/ui`)).status).toBe(200);
  expect((await fetch(node.url)).status).toBe(405);
});

test('the head view, live: a block mined while it is open shows', async () => {
  await open('#/');
  await page.getByRole('heading', { name: /Head/ }).waitFor();
  expect(await page.locator('[data-testid=blocks] tr').count()).toBe(1 + 3); // header + blocks 2, 1, 0
  await page.locator('#live', { hasText: 'live' }).waitFor();
  await call('evm_mine');
  await page.locator('#live', { hasText: 'block 3' }).waitFor({ timeout: 10_000 });
  await page.locator('[data-testid=blocks] a', { hasText: /^3$/ }).first().waitFor();
  // A transaction waiting for its block is listed as pending.
  await call('evm_setAutomine', [false]);
  const waiting = (
    await call('eth_sendTransaction', [{ from: ALICE, to: '0x00000000000000000000000000000000000000c1', value: '0x1' }])
  ).result;
  await open('#/');
  expect(await page.locator('[data-testid=pending]').textContent()).toContain(waiting);
  await page.screenshot({ path: join(SHOTS, 'head.png'), fullPage: true });
  await call('evm_mine');
  await call('evm_setAutomine', [true]);
});

test('a block: its transactions, and its line counts against the limits, the overflowing module first and marked', async () => {
  await open('#/block/2');
  await page.locator('[data-testid=line-counts]').waitFor();
  const first = page.locator('[data-testid=line-counts] tr').nth(1);
  expect(await first.getAttribute('data-module')).toBe('ADD');
  expect(await first.getAttribute('class')).toBe('over');
  expect(await first.textContent()).toContain('ADD — over');
  expect(await page.locator('[data-testid=transactions]').textContent()).toContain(mined);
  await page.screenshot({ path: join(SHOTS, 'block.png'), fullPage: true });
});

test('a transaction: status, call tree and line counts; an excluded one shows its record', async () => {
  await open(`#/tx/${mined}`);
  await page.locator('[data-testid=status]', { hasText: 'success' }).waitFor();
  expect(await page.locator('[data-testid=call-tree]').textContent()).toContain(`CALL ${contract} ${INCREMENT}`);
  expect(await page.locator('[data-testid=line-counts] tr[data-module=ADD]').count()).toBe(1);
  // The binding module (ADD, over its limit) and the call frame its lines came from: the contract's.
  expect(await page.locator('[data-testid=binding-frame]').textContent()).toMatch(
    new RegExp(`^Most of ADD's lines came from the CALL to ${contract}: \\d+ of them$`),
  );
  await page.screenshot({ path: join(SHOTS, 'transaction.png'), fullPage: true });
  await open(`#/tx/${excluded}`);
  await page.getByRole('heading', { name: 'Transaction excluded' }).waitFor();
  expect(await page.locator('main').textContent()).toMatch(/line count for module ADD=\d+ is above the limit 1/);
  // The transaction as it was submitted, from the bytes its record keeps.
  expect(await page.locator('[data-testid=submitted-input]').textContent()).toBe(INCREMENT);
});

test('exclusions, filterable by stage, each linking to its transaction', async () => {
  await open('#/exclusions');
  await page.locator('[data-testid=exclusions]').waitFor();
  expect(await page.locator('[data-testid=exclusions]').textContent()).toContain(excluded);
  await page.screenshot({ path: join(SHOTS, 'exclusions.png'), fullPage: true });
  await open('#/exclusions/SEQUENCER');
  expect(await page.locator('[data-testid=exclusions]').textContent()).not.toContain(excluded);
  // Module, count and limit in columns; filterable by module.
  await open('#/exclusions');
  const row = page.locator('[data-testid=exclusions] tr', { hasText: excluded });
  expect(await row.locator('td').nth(2).textContent()).toBe('ADD');
  expect(await row.locator('td').nth(4).textContent()).toBe('1');
  await page.fill('#moduleFilter', 'MUL');
  await page.press('#moduleFilter', 'Enter');
  await page.getByRole('heading', { name: 'Exclusions (0)' }).waitFor();
  await open('#/exclusions/RPC?module=ADD');
  await page.getByRole('heading', { name: 'Exclusions (1)' }).waitFor();
  await page.locator(`[data-testid=exclusions] a`, { hasText: excluded }).click();
  await page.getByRole('heading', { name: 'Transaction excluded' }).waitFor();
});

test('an address: balance, nonce, code size, a storage slot and a proof; the limits in force', async () => {
  await open(`#/address/${contract}`);
  expect(await page.locator('main').textContent()).toMatch(/Code size\d+ bytes/);
  await page.fill('#slotKey', '0x0');
  await page.click('#slot button');
  await page.locator('#slotValue', { hasText: /^0x0{63}1$/ }).waitFor();
  await page.click('#proof');
  await page
    .locator('#proofOut', { hasText: /account proof of \d+ nodes; .*verified against state root 0x[0-9a-f]{64}$/ })
    .waitFor();
  await open('#/limits');
  expect(await page.locator('[data-testid=limits] tr', { hasText: /^ADD1$/ }).count()).toBe(1);
});

test('search finds blocks, transactions and addresses; what does not exist is "not found"', async () => {
  await open('#/');
  await page.fill('#q', '1');
  await page.press('#q', 'Enter');
  await page.getByRole('heading', { name: 'Block 1' }).waitFor();
  await page.fill('#q', mined);
  await page.press('#q', 'Enter');
  await page.getByRole('heading', { name: 'Transaction' }).waitFor();
  await open(`#/tx/0x${'ab'.repeat(32)}`);
  await page.locator('[data-testid=not-found]').waitFor();
  await open('#/block/999');
  expect(await page.locator('[data-testid=not-found]').textContent()).toBe('Block 999 not found');
});

test('the limits view shows the limits in force and each change made while it is open', async () => {
  await open('#/limits');
  await page.locator('[data-testid=limits]').waitFor();
  await call('l2_setLineLimits', [{ MUL: 5 }]);
  await page.locator('[data-testid=limit-changes] tr', { hasText: /MUL1310725$/ }).waitFor({ timeout: 10_000 });
  await call('l2_resetLineLimits');
  await page.locator('[data-testid=limit-changes] tr', { hasText: /ADD1524288$/ }).waitFor({ timeout: 10_000 });
  await page.screenshot({ path: join(SHOTS, 'limits.png'), fullPage: true });
});

test('a page open while its node restarts (the command, stopped and started again) reconnects and shows new blocks', async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = probe.address() as AddressInfo;
      probe.close(() => resolve(p));
    });
  });
  const start = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, '--in-memory', '--port', String(port)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Listening on')) resolve(child);
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
  const stop = (child: ChildProcess) => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));
  let child = await start();
  const tab = await browser.newPage();
  try {
    await tab.goto(`http://127.0.0.1:${port}/#/`);
    await tab.getByRole('heading', { name: /Head/ }).waitFor();
    await stop(child);
    child = await start();
    // A block of the new node; the page, connected again, shows it (on reconnecting or as it is mined).
    await fetch(`http://127.0.0.1:${port}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
    });
    await tab.locator('[data-testid=blocks] a', { hasText: /^1$/ }).first().waitFor({ timeout: 15_000 });
  } finally {
    await tab.close();
    await stop(child);
  }
});

test("the command's page decodes a transaction's call and events with --artifacts", async () => {
  const child = spawn(
    process.execPath,
    [BIN, '--in-memory', '--port', '0', '--artifacts', join(ROOT, 'fixtures', 'contracts')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Listening on (\S+):(\d+)/.exec(out);
      if (m !== null) resolve(`http://${m[1]}:${m[2]}`);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  const send = async (method: string, params: unknown[]) =>
    (
      await (
        await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
      ).json()
    ).result;
  const tab = await browser.newPage();
  try {
    const deployed = await send('eth_sendTransaction', [{ from: ALICE, data: counter.bytecode }]);
    const address = (await send('eth_getTransactionReceipt', [deployed])).contractAddress;
    const hash = await send('eth_sendTransaction', [{ from: ALICE, to: address, data: INCREMENT, gas: '0x30000' }]);
    await tab.goto(`${url}/#/tx/${hash}`);
    await tab.locator('[data-testid=call]', { hasText: 'Counter::increment()' }).waitFor();
    expect(await tab.locator('[data-testid=events]').textContent()).toMatch(/^emit Incremented\(/);
  } finally {
    await tab.close();
    await new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));
  }
});

test('on a keyed node the page asks for the key, then uses /v3/<KEY>; a wrong key is asked again', async () => {
  const keyed = await startTestNode({ apiKeys: ['page-key'], dailyCredits: 1_000_000 });
  const context = await browser.newContext();
  const tab = await context.newPage();
  try {
    // The page itself is served without a key; nothing else is.
    expect((await fetch(keyed.url, { headers: { Accept: 'text/html' } })).status).toBe(200);
    await tab.goto(`${keyed.url}/#/`);
    await tab.getByRole('heading', { name: 'API key' }).waitFor();
    await tab.fill('#keyInput', 'wrong-key');
    await tab.press('#keyInput', 'Enter');
    await tab.getByRole('heading', { name: 'API key' }).waitFor();
    await tab.fill('#keyInput', 'page-key');
    await tab.press('#keyInput', 'Enter');
    await tab.getByRole('heading', { name: /Head/ }).waitFor();
    expect(await tab.locator('main').textContent()).toContain('Chain id31337');
    // The page's requests were charged to the key like any other: the day's use is more than this call's.
    const probe = await keyed.post({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, '/v3/page-key');
    expect(Number(probe.headers.get('x-credits-used'))).toBeGreaterThan(creditsOf('eth_chainId'));
  } finally {
    await context.close();
    await keyed.close();
  }
});
