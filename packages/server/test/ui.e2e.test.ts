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
import { encodeDeployData, encodeFunctionData, parseAbi } from 'viem';
import type { Abi } from 'viem';
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

/** The command started in memory on an ephemeral port with `args`; its URL once it listens. */
function startCommand(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, '--in-memory', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Listening on (\S+):(\d+)/.exec(out);
      if (m !== null) resolve({ child, url: `http://${m[1]}:${m[2]}` });
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

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
    .locator('#proofOut', {
      hasText:
        /account proof of \d+ nodes; .*verified against state root 0x[0-9a-f]{64}Linea proof \(linea_getProof\): the account's leaf; verified against Linea state root 0x[0-9a-f]{64}$/,
    })
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
  await page.locator('[data-testid=limit-changes] tr', { hasText: /MUL131,0725$/ }).waitFor({ timeout: 10_000 });
  await call('l2_resetLineLimits');
  await page.locator('[data-testid=limit-changes] tr', { hasText: /ADD1524,288$/ }).waitFor({ timeout: 10_000 });
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
  const { child, url } = await startCommand(['--artifacts', join(ROOT, 'fixtures', 'contracts')]);
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

describe("views as clear as Otterscan's", () => {
  const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
  const SINK = '0x00000000000000000000000000000000000000c2';
  const FORWARDER = '0x00000000000000000000000000000000000000f0';
  const token = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'contracts', 'TestToken.json'), 'utf8')) as {
    abi: Abi;
    bytecode: `0x${string}`;
  };
  let tokenAddress: string;
  let deployHash: string;
  let transferHash: string;
  let failedHash: string;
  let forwardHash: string;
  const send = async (tx: Record<string, unknown>) => {
    const answer = await call('eth_sendTransaction', [{ from: ALICE, ...tx }]);
    expect(answer.error).toBeUndefined();
    return answer.result as string;
  };

  beforeAll(async () => {
    await call('l2_resetLineLimits');
    deployHash = await send({
      data: encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: ['Test Token', 'TKN', 10n ** 21n] }),
    });
    tokenAddress = (await call('eth_getTransactionReceipt', [deployHash])).result.contractAddress;
    const transfer = (amount: bigint) =>
      encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [BOB, amount] });
    transferHash = await send({ to: tokenAddress, data: transfer(15n * 10n ** 17n) });
    failedHash = await send({ to: tokenAddress, data: transfer(10n ** 30n), gas: '0x30000' });
    // CALL(gas, SINK, CALLVALUE, 0, 0, 0, 0): forwards what it is sent.
    await call('anvil_setCode', [FORWARDER, `0x600060006000600034${'73'}${SINK.slice(2)}5af100`]);
    forwardHash = await send({ to: FORWARDER, value: '0x64', gas: '0x20000' });
  });

  const rowOf = (label: string) => page.locator('table.rows tr', { has: page.locator('th', { hasText: label }) });

  test('phone width: every view fits 390 px, nothing scrolls sideways but the wide tables', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      for (const [name, hash] of [
        ['head', '#/'],
        ['block', '#/block/2'],
        ['transaction', `#/tx/${transferHash}`],
        ['address', `#/address/${tokenAddress}`],
        ['exclusion', `#/tx/${excluded}`],
        ['exclusions', '#/exclusions'],
        ['limits', '#/limits'],
      ]) {
        await phone.goto('about:blank');
        await phone.goto(`${node.url}/${hash}`);
        await phone.waitForFunction(() => !document.getElementById('view')?.textContent?.startsWith('Loading'));
        const width = await phone.evaluate(() => document.documentElement.scrollWidth);
        expect([name, width]).toEqual([name, 390]);
        await phone.screenshot({ path: join(SHOTS, `${name}-phone.png`), fullPage: true });
      }
    } finally {
      await phone.close();
    }
  });

  test('numbers as people read them: separators, gwei, ETH without trailing zeros, times with "ago"', async () => {
    await open('#/block/2');
    expect(await rowOf('Gas used / limit').textContent()).toMatch(/ \/ 30,000,000 \(/);
    expect(await rowOf('Base fee').textContent()).toMatch(/^Base fee[\d.]+ gwei \([\d,]+ wei\)$/);
    expect(await rowOf('Time').textContent()).toMatch(/^Time\d+ (sec|min|hr|day)s? ago \(\d{4}-\d\d-\d\dT/);
    await open(`#/address/0x${'00'.repeat(19)}c9`);
    expect(await page.locator('[data-testid=balance]').textContent()).toBe('0 ETH');
    await open(`#/address/${ALICE}`);
    expect(await page.locator('[data-testid=balance]').textContent()).toMatch(/^9,99\d\.\d+ ETH$/);
    await open('#/limits');
    expect(await page.locator('[data-testid=limits] tr', { hasText: /^HUB/ }).textContent()).toBe('HUB2,097,152');
    await page.screenshot({ path: join(SHOTS, 'limits.png'), fullPage: true });
  });

  test('a transaction: fee with its burnt and tip parts, gas price, type, nonce, position, time and confirmations', async () => {
    await open(`#/tx/${transferHash}`);
    const receipt = (await call('eth_getTransactionReceipt', [transferHash])).result;
    const tx = (await call('eth_getTransactionByHash', [transferHash])).result;
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    const shown = await page.locator('[data-testid=fee]').textContent();
    expect(BigInt(Math.round(Number(shown?.replace(' ETH', '')) * 1e18))).toBeGreaterThan((fee * 999n) / 1000n);
    expect(await rowOf('Transaction fee').textContent()).toMatch(/ETH \(burnt [\d.]+ ETH, tip [\d.]+ ETH\)$/);
    expect(await rowOf('Gas price').textContent()).toMatch(
      /^Gas price[\d.]+ gwei \(max [\d.]+ gwei, max tip 1 gwei\)$/,
    );
    expect(await rowOf('Type').textContent()).toBe('Type2 (EIP-1559)');
    expect(await rowOf('Nonce').textContent()).toBe(`Nonce${Number(tx.nonce)}`);
    expect(await rowOf('Position in block').textContent()).toBe(`Position in block${Number(tx.transactionIndex)}`);
    expect(await page.locator('[data-testid=confirmations]').textContent()).toMatch(/^\d+ confirmations?$/);
    expect(await rowOf('Time').textContent()).toMatch(/ago/);
    await page.screenshot({ path: join(SHOTS, 'transaction.png'), fullPage: true });
  });

  test('decoded without --artifacts: token transfers with the token, well-known calls, revert reasons, each event with its address', async () => {
    await open(`#/tx/${transferHash}`);
    expect(await page.locator('[data-testid=call]').textContent()).toBe(`transfer(${BOB}, 1500000000000000000)`);
    const events = page.locator('[data-testid=events]');
    expect(await events.textContent()).toBe(`Transfer 1.5 TKN from ${ALICE} to ${BOB} at ${tokenAddress}`);
    expect(await events.locator(`a[href="#/address/${tokenAddress}"]`).count()).toBe(1);
    await open(`#/tx/${failedHash}`);
    await page.locator('[data-testid=status]', { hasText: 'reverted' }).waitFor();
    expect(await page.locator('[data-testid=revert-reason]').textContent()).toBe('Error("insufficient balance")');
  });

  test('a log the page cannot read whole (a Transfer without data) does not take the transaction view down', async () => {
    const emitter = '0x00000000000000000000000000000000000000e7';
    const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
    const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
    const carol = '0x00000000000000000000000000000000000000c3';
    // LOG3(0, 0, Transfer, ALICE, carol), STOP: an ERC-20 Transfer's topics with no amount.
    const code = `0x7f${word(carol)}7f${word(ALICE)}7f${word(TRANSFER)}60006000a300`;
    expect((await call('anvil_setCode', [emitter, code])).error).toBeUndefined();
    const hash = await send({ to: emitter, gas: '0x20000' });
    await open(`#/tx/${hash}`);
    await page.locator('[data-testid=status]', { hasText: 'success' }).waitFor();
    expect(await page.locator('[data-testid=events]').textContent()).toBe(
      `Transfer 0 tokens from ${ALICE} to ${carol} at ${emitter}`,
    );
  });

  test('the call tree: each target a link, the value a call moves, the gas it used', async () => {
    await open(`#/tx/${forwardHash}`);
    const tree = page.locator('[data-testid=call-tree]');
    expect(await tree.locator(`a[href="#/address/${SINK}"]`).count()).toBe(1);
    expect(await tree.textContent()).toMatch(
      new RegExp(
        `^CALL ${FORWARDER} transfer of ETH \\(no calldata\\) value 0\\.0000000000000001 ETH gas [\\d,]+CALL ${SINK}`,
      ),
    );
  });

  test("an address: its transactions, the tokens it holds, a contract's creator", async () => {
    await open(`#/address/${BOB}`);
    expect(await page.locator('[data-testid=tokens]').textContent()).toBe('TokenBalanceTKN1.5');
    await open(`#/address/${tokenAddress}`);
    expect(await page.locator('[data-testid=history]').textContent()).toContain(transferHash);
    expect(await rowOf('Created by').textContent()).toBe(`Created by${ALICE} in ${deployHash}`);
    await page.screenshot({ path: join(SHOTS, 'address.png'), fullPage: true });
  });

  test('a block: the ones before and after, an empty one says so, one that left a transaction out shows it', async () => {
    const head = Number((await call('eth_blockNumber')).result);
    await open(`#/block/${head - 1}`);
    expect(await page.locator('a[rel=prev]').getAttribute('href')).toBe(`#/block/${head - 2}`);
    expect(await page.locator('a[rel=next]').getAttribute('href')).toBe(`#/block/${head}`);
    await call('evm_mine');
    await open(`#/block/${head + 1}`);
    expect(await page.locator('[data-testid=no-transactions]').textContent()).toBe('No transactions in this block.');
    expect(await page.locator('[data-testid=transactions]').count()).toBe(0);
    expect(await page.locator('a[rel=next]').count()).toBe(0);
    // A transaction the sequencer leaves out of a block (a forced exclusion): the block names it.
    expect((await call('l2_forceExclusion', [{ to: SINK, stage: 'SEQUENCER', module: 'MUL' }])).error).toBeUndefined();
    const left = await send({ to: SINK, value: '0x1' });
    await send({ to: BOB, value: '0x1' });
    const record = (await call('l2_getTransactionExclusionStatusV1', [left])).result;
    await open(`#/block/${Number(record.blockNumber)}`);
    expect(await page.locator('[data-testid=block-exclusions]').textContent()).toContain(left);
    await page.screenshot({ path: join(SHOTS, 'block.png'), fullPage: true });
  });

  test('line counts: the modules that matter first, the rest folded; no frame named for a block-level binding module', async () => {
    await open(`#/tx/${transferHash}`);
    expect(await page.locator('[data-testid=line-counts-rest] summary').textContent()).toMatch(
      /^\d+ more modules? under 1% of the limit$/,
    );
    const report = (await call('l2_traceLineCounts', [forwardHash])).result;
    await open(`#/tx/${forwardHash}`);
    // A value forward's binding module is a block-level one: no frame is named for it.
    expect(report.binding).toMatch(/^BLOCK_/);
    expect(await page.locator('[data-testid=binding-frame]').count()).toBe(0);
    // An exclusion record gets the same bars.
    await open(`#/tx/${excluded}`);
    expect(await page.locator('[data-testid=line-counts] tr[data-module=ADD]').getAttribute('class')).toBe('over');
    await page.screenshot({ path: join(SHOTS, 'exclusion.png'), fullPage: true });
  });

  test('live on every view: a pending transaction shows its block once mined, a new exclusion shows without a reload', async () => {
    await call('evm_setAutomine', [false]);
    try {
      const waiting = await send({ to: SINK, value: '0x2' });
      await open(`#/tx/${waiting}`);
      expect(await page.locator('[data-testid=status]').textContent()).toBe('pending');
      await call('evm_mine');
      await page.locator('[data-testid=status]', { hasText: 'success' }).waitFor({ timeout: 5_000 });
    } finally {
      await call('evm_setAutomine', [true]);
    }
    await open('#/exclusions');
    const before = await page.locator('[data-testid=exclusions] tr').count();
    expect((await call('l2_forceExclusion', [{ to: SINK, stage: 'RPC', module: 'MUL' }])).error).toBeUndefined();
    const refused = await call('eth_sendTransaction', [{ from: ALICE, to: SINK, value: '0x3' }]);
    expect(refused.error).toBeDefined();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid=exclusions] tr').length === n + 1,
      before,
      { timeout: 5_000 },
    );
    await page.screenshot({ path: join(SHOTS, 'exclusions.png'), fullPage: true });
  });

  test('search: latest, an address without 0x, a search after one that found nothing, and what the box takes', async () => {
    const search = async (q: string) => {
      await page.fill('#q', q);
      await page.press('#q', 'Enter');
    };
    await open('#/');
    await search('foo');
    await page.locator('[data-testid=not-found]', { hasText: '"foo" not found' }).waitFor();
    expect(await page.locator('[data-testid=search-hint]').textContent()).toMatch(/block number, latest, an address/);
    await search('1');
    await page.getByRole('heading', { name: 'Block 1', exact: true }).waitFor();
    await search('latest');
    const head = Number((await call('eth_blockNumber')).result);
    await page.getByRole('heading', { name: `Block ${head}`, exact: true }).waitFor();
    await search(BOB.slice(2));
    await page.getByRole('heading', { name: 'Address' }).waitFor();
    expect(await page.locator('main').textContent()).toContain(BOB);
    await search('0xabc');
    await page.locator('[data-testid=search-hint]').waitFor();
  });

  test('accessible: a labelled search with a button and the / shortcut, a titled tab, landmarks, the current view marked, no missing icon', async () => {
    const missing: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
    await open('#/block/1');
    expect(await page.title()).toBe('Block 1 · l2devnet');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.getByRole('search').waitFor();
    await page.getByRole('button', { name: 'Search' }).waitFor();
    await page.getByLabel('Search blocks, transactions and addresses').waitFor();
    await page.locator('main').click();
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('q');
    await open('#/limits');
    expect(await page.title()).toBe('Line limits · l2devnet');
    expect(await page.getByRole('link', { name: 'Limits' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('link', { name: 'Head' }).getAttribute('aria-current')).toBeNull();
    expect(missing).toEqual([]);
  });
});

test('with --l1, the messages view lists both directions with their status and claim, live', async () => {
  const { child, url } = await startCommand(['--l1']);
  const rpcAt = async (path: string, method: string, params: unknown[] = []) => {
    const body = await (
      await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
    ).json();
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  const abi = parseAbi([
    'function sendMessage(address _to, uint256 _fee, bytes _calldata) payable',
    'function claimMessage(address _from, address _to, uint256 _fee, uint256 _value, address _feeRecipient, bytes _calldata, uint256 _nonce)',
  ]);
  const L1_SERVICE = '0xd19d4B5d358258f05D7B411E21A1460D11B0876F';
  const L2_SERVICE = '0x508Ca82Df566dCD1B0DE8296e70a96332cD644ec';
  const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
  const fee = 10n ** 15n;
  const sendMessage = (path: string, service: string, value: bigint) =>
    rpcAt(path, 'eth_sendTransaction', [
      {
        from: ALICE,
        to: service,
        value: `0x${(value + fee).toString(16)}`,
        data: encodeFunctionData({ abi, functionName: 'sendMessage', args: [BOB, fee, '0x'] }),
      },
    ]);
  const tab = await browser.newPage();
  try {
    await tab.goto(`${url}/#/messages`);
    await tab.getByRole('heading', { name: 'Messages (0)' }).waitFor();
    expect(await tab.getByRole('link', { name: 'Messages' }).isVisible()).toBe(true);
    await sendMessage('/l1', L1_SERVICE, 5n);
    await sendMessage('/', L2_SERVICE, 7n);
    // Both appear without a reload, and become claimable once anchored and finalized.
    const rows = tab.locator('[data-testid=messages] tr[data-message]');
    await tab.waitForFunction(
      () =>
        [...document.querySelectorAll('[data-testid=message-status]')].map((e) => e.textContent).join() ===
        'claimable,claimable',
      undefined,
      { timeout: 10_000 },
    );
    expect(await rows.nth(0).textContent()).toMatch(/^L1→L21/);
    expect(await rows.nth(1).textContent()).toMatch(/^L2→L11/);
    // The L1 message claimed on the L2: claimed, with the claim's transaction.
    const claim = await rpcAt('/', 'eth_sendTransaction', [
      {
        from: ALICE,
        to: L2_SERVICE,
        data: encodeFunctionData({
          abi,
          functionName: 'claimMessage',
          args: [ALICE, BOB, fee, 5n, ALICE, '0x', 1n],
        }),
      },
    ]);
    await tab.locator('[data-testid=message-status]', { hasText: 'claimed' }).waitFor({ timeout: 10_000 });
    expect(await rows.nth(0).locator(`a[href="#/tx/${claim}"]`).count()).toBe(1);
    await tab.screenshot({ path: join(SHOTS, 'messages.png'), fullPage: true });
    // Beside an L1 a Linea proof is of a block the L1 has finalized: the address view shows that one.
    await tab.goto(`${url}/#/address/${BOB}`);
    await tab.click('#proof');
    await tab
      .locator('#proofOut', {
        hasText:
          /Linea proof \(linea_getProof\)( at the finalized block)?: the account's leaf; verified against Linea state root 0x[0-9a-f]{64}$/,
      })
      .waitFor({ timeout: 10_000 });
    // A token's crossing through the token bridge is a message that says what it carries.
    const testToken = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'contracts', 'TestToken.json'), 'utf8')) as {
      abi: Abi;
      bytecode: `0x${string}`;
    };
    const deployed = await rpcAt('/l1', 'eth_sendTransaction', [
      {
        from: ALICE,
        data: encodeDeployData({
          abi: testToken.abi,
          bytecode: testToken.bytecode,
          args: ['Bridge Me', 'BRG', 10n ** 21n],
        }),
      },
    ]);
    const tokenAddress = ((await rpcAt('/l1', 'eth_getTransactionReceipt', [deployed])) as { contractAddress: string })
      .contractAddress;
    const L1_BRIDGE = '0x051F1D88f0aF5763fB888eC4378b4D8B29ea3319';
    await rpcAt('/l1', 'eth_sendTransaction', [
      {
        from: ALICE,
        to: tokenAddress,
        data: encodeFunctionData({ abi: testToken.abi, functionName: 'approve', args: [L1_BRIDGE, 5000n] }),
      },
    ]);
    await rpcAt('/l1', 'eth_sendTransaction', [
      {
        from: ALICE,
        to: L1_BRIDGE,
        data: encodeFunctionData({
          abi: parseAbi(['function bridgeToken(address,uint256,address) payable']),
          functionName: 'bridgeToken',
          args: [tokenAddress as `0x${string}`, 5000n, BOB],
        }),
      },
    ]);
    await tab.goto(`${url}/#/messages`);
    await tab
      .locator('[data-testid=message-carries]', {
        hasText: `token crossing: 5,000 of ${tokenAddress.toLowerCase()} to ${BOB}`,
      })
      .waitFor({ timeout: 10_000 });
    expect(await tab.locator('[data-testid=message-carries]').first().textContent()).toBe('ETH');
  } finally {
    await tab.close();
    await new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));
  }
});
