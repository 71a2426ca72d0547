/**
 * SIGKILL at random moments, many times over, on one data directory. Between kills the node runs
 * in the modes where a transaction is acknowledged but not mined at once: automine with a full
 * block (BLOCK_TRANSACTIONS is lowered so a backlog is easy to build), interval mining, manual
 * mining with evm_mine at random moments, and queued nonce gaps (nonce n+2 sent before n+1).
 * After every restart each hash acknowledged so far is either mined exactly once or still pending;
 * none is gone, and no acknowledged block is lost.
 *
 * The schedule comes from a seeded PRNG; the seed is printed, and KILL_TEST_SEED=<seed> replays it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Common } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import { Chain } from '@l2devnet/core';

import { runCommand } from './command';
import type { RunningCommand } from './command';
import { prng } from '../../core/test/prng';

const KILLS = 22;
/** A block holds this many transactions here, so a few pending ones already fill it. */
const BLOCK_TRANSACTIONS = 4;
const SENDERS = 3;
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

type Mode = 'auto' | 'interval' | 'manual';
const MODE_FLAGS: Record<Mode, string[]> = { auto: [], interval: ['--block-time', '1'], manual: ['--no-mining'] };

interface Acked {
  hash: string;
  sender: string;
  nonce: number;
  /** Set once the hash has been seen in a block: it must stay there. */
  block?: { number: number; hash: string };
}

let dir: string;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = await res.json();
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

/** Many calls in JSON-RPC batches (the node takes up to 1000 per batch). */
async function callMany(url: string, calls: [string, unknown[]][]): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; i < calls.length; i += 500) {
    const body = calls.slice(i, i + 500).map(([method, params], j) => ({ jsonrpc: '2.0', id: j, method, params }));
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answers = (await res.json()) as { id: number; result?: unknown; error?: { message: string } }[];
    answers.sort((a, b) => a.id - b.id);
    for (const a of answers) {
      if (a.error !== undefined) throw new Error(`${body[a.id].method}: ${a.error.message}`);
      out.push(a.result);
    }
  }
  return out;
}

test('SIGKILL at random moments in every mining mode loses no acknowledged transaction', async () => {
  const seed = Number(process.env.KILL_TEST_SEED ?? Math.floor(Math.random() * 2 ** 32));
  console.log(`kill test seed ${seed} (KILL_TEST_SEED=${seed} replays it)`);
  const random = prng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
  const fail = (round: number, what: string): never => {
    throw new Error(`seed ${seed}, after kill ${round}: ${what}`);
  };

  dir = mkdtempSync(join(tmpdir(), 'l2devnet-kill-'));
  const dataDir = join(dir, 'data');
  const limits = join(dir, 'limits.toml');
  const production = readFileSync(
    join(__dirname, '..', '..', '..', 'fixtures', 'limits', 'linea-mainnet.toml'),
    'utf8',
  );
  writeFileSync(limits, production.replace(/BLOCK_TRANSACTIONS *= *\d+/, `BLOCK_TRANSACTIONS = ${BLOCK_TRANSACTIONS}`));

  // Transfers signed on demand with the dev keys, one fixed transaction per (sender, nonce): a
  // resend after a restart is the same transaction, never a second one at that nonce.
  const keys = await Chain.create({ accounts: SENDERS });
  const common: Common = keys.common;
  const accounts = keys.accounts.map((a) => ({ address: bytesToHex(a.address), key: a.privateKey }));
  await keys.close();
  const signed = new Map<string, string>();
  const raw = (s: number, nonce: number) => {
    const id = `${s}:${nonce}`;
    let r = signed.get(id);
    if (r === undefined) {
      const tx = createFeeMarket1559Tx(
        {
          nonce: BigInt(nonce),
          to: BOB,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
        },
        { common },
      );
      r = bytesToHex(tx.sign(accounts[s].key).serialize());
      signed.set(id, r);
    }
    return r;
  };

  const acked = new Map<string, Acked>();
  const ackedNonces = accounts.map(() => new Set<number>());
  let highestAckedBlock = -1;

  /** Every acknowledged hash is mined exactly once or pending; blocks seen hold their place. */
  async function check(url: string, round: number): Promise<void> {
    const head = Number(await call(url, 'eth_blockNumber'));
    if (head < highestAckedBlock)
      fail(round, `head ${head} is below block ${highestAckedBlock}, which held acknowledged transactions`);
    const blocks = await callMany(
      url,
      Array.from({ length: head + 1 }, (_, n): [string, unknown[]] => [
        'eth_getBlockByNumber',
        [`0x${n.toString(16)}`, true],
      ]),
    );
    const where = new Map<string, number>();
    const slots = new Set<string>();
    for (const block of blocks) {
      for (const tx of block.transactions as { hash: string; from: string; nonce: string }[]) {
        if (where.has(tx.hash))
          fail(round, `${tx.hash} is in block ${where.get(tx.hash)} and again in ${Number(block.number)}`);
        where.set(tx.hash, Number(block.number));
        const slot = `${tx.from}:${Number(tx.nonce)}`;
        if (slots.has(slot)) fail(round, `nonce ${Number(tx.nonce)} of ${tx.from} is mined twice`);
        slots.add(slot);
      }
    }
    const pool = await call(url, 'txpool_content');
    const all = [...acked.values()];
    const receipts = await callMany(
      url,
      all.map((a): [string, unknown[]] => ['eth_getTransactionReceipt', [a.hash]]),
    );
    const byHash = await callMany(
      url,
      all.map((a): [string, unknown[]] => ['eth_getTransactionByHash', [a.hash]]),
    );
    const late: { what: string; hash: string; block: string }[] = [];
    all.forEach((a, i) => {
      const what = `acknowledged ${a.hash} (nonce ${a.nonce} of ${a.sender})`;
      const n = where.get(a.hash);
      if (a.block !== undefined) {
        if (n !== a.block.number || blocks[n].hash !== a.block.hash)
          fail(
            round,
            `${what} was mined in block ${a.block.number}; now ${n === undefined ? 'in no block' : `in block ${n}`}`,
          );
      }
      if (n !== undefined) {
        const r = receipts[i];
        if (r === null || r.status !== '0x1' || Number(r.blockNumber) !== n || r.blockHash !== blocks[n].hash)
          fail(round, `${what} is in block ${n} but its receipt is ${JSON.stringify(r)}`);
        a.block = { number: n, hash: blocks[n].hash };
        if (n > highestAckedBlock) highestAckedBlock = n;
        return;
      }
      if (byHash[i] === null) fail(round, `${what} is gone: neither mined nor pending`);
      if (byHash[i].blockNumber !== null) {
        // Interval mining goes on during the check: mined after the blocks were read, it must be
        // in that later block.
        if (Number(byHash[i].blockNumber) > head) {
          late.push({ what, hash: a.hash, block: byHash[i].blockNumber });
          return;
        }
        fail(round, `${what} claims block ${byHash[i].blockNumber}, which does not hold it`);
      }
      const sender = toChecksumAddress(a.sender); // txpool_content's keys are checksummed, as geth's
      const inPool = pool.pending[sender]?.[a.nonce] ?? pool.queued[sender]?.[a.nonce];
      if (inPool?.hash !== a.hash) fail(round, `${what} is pending but not in txpool_content`);
      if (slots.has(`${a.sender}:${a.nonce}`))
        fail(round, `${what} is pending while its nonce is mined by another transaction`);
    });
    for (const l of late) {
      const block = await call(url, 'eth_getBlockByNumber', [l.block, false]);
      if (!(block.transactions as string[]).includes(l.hash))
        fail(round, `${l.what} claims block ${l.block}, which does not hold it`);
    }
  }

  /** One sender's stream until the node dies: transfers, sometimes nonce n+2 before n+1. */
  async function stream(url: string, s: number, alive: () => boolean): Promise<void> {
    const address = accounts[s].address;
    let next: number;
    try {
      next = Number(await call(url, 'eth_getTransactionCount', [address, 'pending']));
    } catch (e) {
      if (alive()) throw e;
      return;
    }
    const send = async (nonce: number) => {
      try {
        const hash = await call(url, 'eth_sendRawTransaction', [raw(s, nonce)]);
        acked.set(hash, { hash, sender: address, nonce });
        ackedNonces[s].add(nonce);
      } catch (e) {
        // Sent before a kill and never answered: the node may have kept it (already known) and
        // since mined it (nonce too low). Neither was acknowledged, so neither is checked.
        if (alive() && !/already known|nonce too low/.test((e as Error).message)) throw e;
      }
    };
    while (alive()) {
      while (ackedNonces[s].has(next)) next++;
      if (random() < 0.15 && !ackedNonces[s].has(next + 1)) {
        await send(next + 1);
        if (alive()) await new Promise((r) => setTimeout(r, random() * 30));
        await send(next);
        next += 2;
      } else {
        await send(next);
        next += 1;
      }
      await new Promise((r) => setTimeout(r, random() * 25));
    }
  }

  const started = Date.now();
  const counts: Record<Mode, number> = { auto: 0, interval: 0, manual: 0 };
  let node: RunningCommand | undefined;
  try {
    for (let round = 0; round <= KILLS; round++) {
      const mode: Mode = round === 0 ? 'manual' : pick(['auto', 'auto', 'interval', 'manual']);
      node = await runCommand(['--data-dir', dataDir, '--port', '0', '--limits', limits, ...MODE_FLAGS[mode]]);
      const url = node.url;
      await check(url, round);
      if (round === KILLS) break;
      counts[mode]++;

      let alive = true;
      const isAlive = () => alive;
      const work: Promise<void>[] = [];
      if (mode === 'auto' && random() < 0.5) {
        // A backlog under manual mining, then automine again: its blocks are full.
        await call(url, 'evm_setAutomine', [false]);
        await Promise.all(
          accounts.map(async (_, s) => {
            for (let i = 0; i < 2 + Math.floor(random() * 4); i++) {
              const nonce = Number(await call(url, 'eth_getTransactionCount', [accounts[s].address, 'pending']));
              const hash = await call(url, 'eth_sendRawTransaction', [raw(s, nonce)]);
              acked.set(hash, { hash, sender: accounts[s].address, nonce });
              ackedNonces[s].add(nonce);
            }
          }),
        );
        await call(url, 'evm_setAutomine', [true]);
      }
      for (let s = 0; s < SENDERS; s++) work.push(stream(url, s, isAlive));
      if (mode === 'manual') {
        work.push(
          (async () => {
            while (alive) {
              await new Promise((r) => setTimeout(r, 20 + random() * 150));
              await call(url, 'evm_mine').catch((e: Error) => {
                if (alive) throw e;
              });
            }
          })(),
        );
      }
      await new Promise((r) => setTimeout(r, random() * 1200));
      alive = false;
      node.child.kill('SIGKILL');
      await node.exited;
      node = undefined;
      await Promise.all(work);
    }
    const mined = [...acked.values()].filter((a) => a.block !== undefined).length;
    console.log(
      `${KILLS} kills (${counts.auto} automine, ${counts.interval} interval, ${counts.manual} manual) in ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s; ${acked.size} acknowledged, ${mined} mined, ${acked.size - mined} pending`,
    );
    expect(acked.size).toBeGreaterThan(100);
    expect(mined).toBeGreaterThan(50);
  } finally {
    if (node !== undefined) {
      node.child.kill('SIGTERM');
      await node.exited;
    }
  }
}, 90_000);
