'use strict';
/**
 * `npm run bench:load`: a bounded mixed load against the running command (in memory, 127.0.0.1).
 * HTTP keep-alive clients and WebSocket clients, each with one request in flight, read
 * (eth_blockNumber, eth_getBalance, eth_call of ERC20 balanceOf, eth_getLogs, eth_getBlockByNumber,
 * eth_getTransactionReceipt) while writer clients, one per dev account, send pre-signed ETH and
 * ERC20 transfers with eth_sendRawTransaction. Prints throughput, p50/p99 latency and errors per
 * method and the node's RSS at start, peak and end; then checks that every acknowledged
 * transaction was mined exactly once, and exits non-zero if not.
 *
 *   node scripts/bench/load.js [--duration S] [--clients N] [--quick] [--heap-snapshots DIR]
 *
 * --clients N runs N HTTP and N WebSocket clients (default 200 each, 60 s; --quick: 20 each, 10 s).
 * --heap-snapshots DIR starts the node with --heapsnapshot-signal and writes a snapshot of its
 * heap into DIR after start-up and after the load (each snapshot forces a full GC first).
 */
const { spawn } = require('node:child_process');
const { readFileSync, readdirSync } = require('node:fs');
const http = require('node:http');
const { join } = require('node:path');
const { parseArgs } = require('node:util');

const { createFeeMarket1559Tx } = require('@ethereumjs/tx');
const { bytesToHex, hexToBytes } = require('@ethereumjs/util');
const WebSocket = require('ws');

const { Chain, token: tokenArtifact, tokenAbi, erc20Transfer } = require('./lib');

const BIN = join(__dirname, '..', '..', 'packages', 'l2devnet', 'bin', 'l2devnet.js');
const HOST = '127.0.0.1';
/** Dev accounts 1..WRITERS each have one writer client; account 0 deploys the token. */
const WRITERS = 8;
/** Transactions signed per writer before the load starts (a writer that runs out stops writing). */
const SIGNED_PER_WRITER = Number(process.env.BENCH_SIGNED_PER_WRITER ?? 5000);
/** Largest JSON-RPC batch the node takes by default (--max-batch). */
const MAX_BATCH = 1000;

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string' },
    clients: { type: 'string' },
    quick: { type: 'boolean' },
    'heap-snapshots': { type: 'string' },
  },
});
const quick = flags.quick === true;
const SECONDS = Number(flags.duration ?? (quick ? 10 : 60));
const CLIENTS = Number(flags.clients ?? (quick ? 20 : 200));
const SNAPSHOT_DIR = flags['heap-snapshots'];
const signedPerWriter = quick ? Math.min(SIGNED_PER_WRITER, 2000) : SIGNED_PER_WRITER;

function startNode() {
  const nodeArgs =
    SNAPSHOT_DIR === undefined ? [] : ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOT_DIR}`];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, '--in-memory', '--host', HOST, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const onData = (d) => {
      out += d;
      const m = /Listening on (\S+):(\d+)/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ child, port: Number(m[2]), exited: new Promise((r) => child.once('exit', r)) });
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`node exited with ${code}`)));
  });
}

function rssMiB(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

/** Asks the node for a heap snapshot and waits until the file is complete. */
async function heapSnapshot(pid) {
  const before = new Set(readdirSync(SNAPSHOT_DIR));
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const fresh = readdirSync(SNAPSHOT_DIR).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (fresh.length === 0) continue;
    const path = join(SNAPSHOT_DIR, fresh[0]);
    // The file is written in one go while the node is paused; a parse of its tail tells it is whole.
    try {
      JSON.parse(readFileSync(path, 'utf8'));
      return path;
    } catch {
      // still being written
    }
  }
}

/** One HTTP keep-alive connection (its own agent) with one request in flight. */
function httpClient(port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: HOST, port, path: '/', method: 'POST', agent, headers: { 'Content-Type': 'application/json' } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString()));
            } catch (e) {
              reject(e);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

/** One WebSocket with one request in flight. */
function wsClient(port) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${HOST}:${port}/ws`);
    let waiting;
    ws.on('message', (data) => {
      const w = waiting;
      waiting = undefined;
      try {
        w?.resolve(JSON.parse(data.toString()));
      } catch (e) {
        w?.reject(e);
      }
    });
    ws.on('close', () => waiting?.reject(new Error('socket closed')));
    ws.on('error', (e) => (waiting ? waiting.reject(e) : reject(e)));
    ws.on('open', () =>
      resolve({
        send: (body) =>
          new Promise((res, rej) => {
            waiting = { resolve: res, reject: rej };
            ws.send(body);
          }),
        close: () => ws.close(),
      }),
    );
  });
}

const samples = new Map(); // method → latencies (ms)
const errors = new Map(); // method → count
const firstError = new Map(); // method → message
function record(method, ms, error) {
  if (!samples.has(method)) samples.set(method, []);
  samples.get(method).push(ms);
  if (error !== undefined) {
    errors.set(method, (errors.get(method) ?? 0) + 1);
    if (!firstError.has(method)) firstError.set(method, error);
  }
}

let id = 0;
/** One timed call; resolves to the result, or undefined after a counted error. */
async function timed(send, method, params) {
  const t = performance.now();
  let answer;
  try {
    answer = await send(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
  } catch (e) {
    record(method, performance.now() - t, `transport: ${e.message}`);
    return undefined;
  }
  const error = answer.error === undefined ? undefined : `${answer.error.code} ${answer.error.message}`;
  record(method, performance.now() - t, error);
  return answer.result;
}

async function rpc(send, method, params = []) {
  const answer = await send(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

async function batch(send, calls) {
  const out = [];
  for (let i = 0; i < calls.length; i += MAX_BATCH) {
    const body = calls
      .slice(i, i + MAX_BATCH)
      .map(([method, params], j) => ({ jsonrpc: '2.0', id: j, method, params }));
    const answers = await send(JSON.stringify(body));
    answers.sort((a, b) => a.id - b.id);
    for (const a of answers) {
      if (a.error !== undefined) throw new Error(`${body[a.id].method}: ${a.error.message}`);
      out.push(a.result);
    }
  }
  return out;
}

const hex = (n) => `0x${n.toString(16)}`;
let nodePid;

(async () => {
  // Keys and the chain's rules (chain id, hardfork) for signing; the node uses the same defaults.
  const keys = await Chain.create({ accounts: WRITERS + 1 });
  const common = keys.common;
  const accounts = keys.accounts.map((a) => ({ address: bytesToHex(a.address), key: a.privateKey }));
  await keys.close();
  const sign = (account, nonce, fields) =>
    bytesToHex(
      createFeeMarket1559Tx(
        {
          nonce: BigInt(nonce),
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
          gasLimit: 100_000n,
          ...fields,
        },
        { common },
      )
        .sign(account.key)
        .serialize(),
    );

  const node = await startNode();
  const pid = node.child.pid;
  nodePid = pid;
  const admin = httpClient(node.port);

  // Set-up: the ERC20 fixture, and tokens for every writer.
  const deployer = accounts[0];
  const data = tokenArtifact.bytecode + tokenAbi.encodeDeploy(['Load', 'L', 10n ** 30n]).slice(2);
  const deployHash = await rpc(admin, 'eth_sendRawTransaction', [sign(deployer, 0, { data, gasLimit: 3_000_000n })]);
  const token = (await rpc(admin, 'eth_getTransactionReceipt', [deployHash])).contractAddress;
  for (let w = 1; w <= WRITERS; w++) {
    const fund = erc20Transfer(hexToBytes(accounts[w].address), 10n ** 24n);
    await rpc(admin, 'eth_sendRawTransaction', [sign(deployer, w, { to: token, data: fund })]);
  }

  // Pre-signed load: each writer alternates an ETH transfer and an ERC20 transfer to a fresh address.
  const t0 = performance.now();
  const signedTxs = [];
  for (let w = 1; w <= WRITERS; w++) {
    const list = [];
    for (let nonce = 0; nonce < signedPerWriter; nonce++) {
      const to = new Uint8Array(20);
      new DataView(to.buffer).setUint32(12, w);
      new DataView(to.buffer).setUint32(16, nonce + 1);
      list.push(
        nonce % 2 === 0
          ? sign(accounts[w], nonce, { to, value: 1n, gasLimit: 21_000n })
          : sign(accounts[w], nonce, { to: token, data: erc20Transfer(to, 1n) }),
      );
    }
    signedTxs.push(list);
  }
  console.log(
    `## Mixed load: ${CLIENTS} HTTP keep-alive + ${CLIENTS} WebSocket clients for ${SECONDS} s ` +
      `(${WRITERS} of them writers; ${WRITERS * signedPerWriter} transfers signed in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );

  let heapBefore;
  if (SNAPSHOT_DIR !== undefined) heapBefore = await heapSnapshot(pid);
  const rss = { start: rssMiB(pid), peak: 0, end: 0 };
  rss.peak = rss.start;
  const sampler = setInterval(() => {
    rss.peak = Math.max(rss.peak, rssMiB(pid));
  }, 250);

  let latestHead = Number(await rpc(admin, 'eth_blockNumber'));
  const acknowledged = [];
  const recentHashes = [deployHash];
  const balanceOf = (address) => ({
    from: address,
    to: token,
    data: tokenAbi.encodeFunctionData('balanceOf', [address]),
  });
  const readers = [
    async (send) => {
      const head = await timed(send, 'eth_blockNumber', []);
      if (head !== undefined) latestHead = Number(head);
    },
    (send) => timed(send, 'eth_getBalance', [accounts[1 + (id % WRITERS)].address, 'latest']),
    (send) => timed(send, 'eth_call', [balanceOf(accounts[1 + (id % WRITERS)].address), 'latest']),
    // The last 20 blocks' Transfer logs of the token.
    (send) =>
      timed(send, 'eth_getLogs', [
        { fromBlock: hex(Math.max(0, latestHead - 20)), toBlock: hex(latestHead), address: token },
      ]),
    (send) => timed(send, 'eth_getBlockByNumber', ['latest', false]),
    (send) => timed(send, 'eth_getTransactionReceipt', [recentHashes[Math.floor(Math.random() * recentHashes.length)]]),
  ];
  const end = Date.now() + SECONDS * 1000;
  let exhausted = 0;

  async function writer(send, w) {
    for (const raw of signedTxs[w - 1]) {
      if (Date.now() >= end) return;
      const hash = await timed(send, 'eth_sendRawTransaction', [raw]);
      if (hash === undefined) continue;
      acknowledged.push(hash);
      if (recentHashes.length < 256) recentHashes.push(hash);
      else recentHashes[acknowledged.length % 256] = hash;
    }
    exhausted++;
  }

  async function reader(send) {
    while (Date.now() < end) await readers[Math.floor(Math.random() * readers.length)](send);
  }

  const sockets = [];
  for (let i = 0; i < CLIENTS; i++) sockets.push(await wsClient(node.port));
  const work = [];
  for (let i = 0; i < CLIENTS; i++) {
    const viaHttp = httpClient(node.port);
    const viaWs = sockets[i];
    const send = viaWs.send;
    // Writers: half of them on HTTP, half on WebSocket.
    if (i < WRITERS / 2) work.push(writer(viaHttp, 1 + i), writer(send, 1 + WRITERS / 2 + i));
    else work.push(reader(viaHttp), reader(send));
  }
  const started = performance.now();
  await Promise.all(work);
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  for (const s of sockets) s.close();

  let total = 0;
  let totalErrors = 0;
  console.log(`\n${'method'.padEnd(28)} ${'calls'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} errors`);
  for (const [method, list] of [...samples].sort()) {
    list.sort((a, b) => a - b);
    const at = (q) => list[Math.min(list.length - 1, Math.floor(q * list.length))];
    const e = errors.get(method) ?? 0;
    total += list.length;
    totalErrors += e;
    console.log(
      `${method.padEnd(28)} ${String(list.length).padStart(8)} ${at(0.5).toFixed(2).padStart(8)} ${at(0.99).toFixed(2).padStart(8)} ${e}` +
        (e > 0 ? ` (first: ${firstError.get(method)})` : ''),
    );
  }
  console.log(
    `throughput: ${Math.round(total / elapsed)} req/s (${total} requests in ${elapsed.toFixed(1)} s), ${totalErrors} errors`,
  );
  if (exhausted > 0) console.log(`note: ${exhausted} writers used up their ${signedPerWriter} signed transfers`);

  // Every acknowledged transaction mined exactly once (automine: nothing is left pending).
  const head = Number(await rpc(admin, 'eth_blockNumber'));
  rss.end = rssMiB(pid);
  const blocks = await batch(
    admin,
    Array.from({ length: head + 1 }, (_, n) => ['eth_getBlockByNumber', [hex(n), false]]),
  );
  const seen = new Map();
  for (const b of blocks) for (const h of b.transactions) seen.set(h, (seen.get(h) ?? 0) + 1);
  const receipts = await batch(
    admin,
    acknowledged.map((h) => ['eth_getTransactionReceipt', [h]]),
  );
  const problems = [];
  acknowledged.forEach((h, i) => {
    const r = receipts[i];
    if (r === null) problems.push(`${h}: no receipt`);
    else if (seen.get(h) !== 1) problems.push(`${h}: in ${seen.get(h) ?? 0} blocks`);
    else if (!blocks[Number(r.blockNumber)].transactions.includes(h)) problems.push(`${h}: not in its receipt's block`);
  });
  const pool = await rpc(admin, 'txpool_status');
  console.log(
    `RSS: ${rss.start.toFixed(0)} MiB at start, ${rss.peak.toFixed(0)} MiB peak, ${rss.end.toFixed(0)} MiB at end ` +
      `(${head + 1} blocks)`,
  );
  if (SNAPSHOT_DIR !== undefined) {
    const heapAfter = await heapSnapshot(pid);
    console.log(`heap snapshots: ${heapBefore}, ${heapAfter}; RSS after them ${rssMiB(pid).toFixed(0)} MiB`);
  }
  console.log(
    `exactly once: ${acknowledged.length} acknowledged, ${acknowledged.length - problems.length} mined exactly once, ` +
      `${problems.length} not; pool ${Number(pool.pending)} pending, ${Number(pool.queued)} queued`,
  );
  for (const p of problems.slice(0, 10)) console.log(`  ${p}`);

  process.kill(pid, 'SIGTERM');
  await node.exited;
  nodePid = undefined;
  process.exit(problems.length === 0 && acknowledged.length > 0 ? 0 : 1);
})().catch((e) => {
  console.error(e);
  if (nodePid !== undefined) process.kill(nodePid, 'SIGTERM');
  process.exit(1);
});
