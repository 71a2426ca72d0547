'use strict';
/**
 * `npm run bench -- --peers`: this node against Anvil, Hardhat (2.x, its Rust engine) and Ganache,
 * each started on 127.0.0.1 with the same mnemonic and chain id, the same bounded scenarios over
 * HTTP, one table of figures with each one's ratio to the best. The peers are installed on first use
 * into scripts/peers (their own lockfile, not part of the workspace). Throughput comes from wrk
 * (`apt-get install wrk`) when it is installed, so the client is not the bottleneck; eth_call
 * calldata varies on every request so that no cache can answer it.
 *
 * Flags: --only NAME[,NAME] (nodes to run), --transfers N (default 1000), --seconds S (wrk runs,
 * default 5), --more-blocks N (mined before eth_getLogs is measured again, default 20000),
 * --l2devnet-args "FLAGS" (more flags for l2devnet, e.g. "--workers 0").
 *
 * Forking (this node and Anvil): both fork the same upstream (an Anvil holding the token and its
 * holders) through a proxy that counts their requests: start-up, the first and a second eth_call of
 * balanceOf, a transfer, and the first call again after a restart on the on-disk cache.
 */
const { execFileSync, spawn } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const { Wallet, Interface, HDNodeWallet } = require('ethers');

const { compare, workloads } = require('./lineCounting');
const { postLua, wrk, wrkInstalled } = require('./wrk');

const ROOT = join(__dirname, '..', '..');
const PEERS = join(__dirname, '..', 'peers');
const MNEMONIC = 'test test test test test test test test test test test junk';
const CHAIN_ID = 31337n;

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const TRANSFERS = Number(flag('transfers', 1000));
const SECONDS = Number(flag('seconds', 5));
const MORE_BLOCKS = Number(flag('more-blocks', 20000));
const ONLY = flag('only', 'l2devnet,anvil,hardhat,ganache').split(',');
/** More flags for l2devnet (--l2devnet-args "--workers 0"). */
const L2DEVNET_ARGS = flag('l2devnet-args', '')
  .split(' ')
  .filter((a) => a !== '');

const NODES = {
  l2devnet: (port, blockTime) => ({
    // The installed command, as a package script or a global install runs it.
    cmd: process.execPath,
    // --silent as Anvil's below: neither prints a line per request, transaction and block.
    args: [join(ROOT, 'node_modules', '.bin', 'l2devnet'), '--in-memory', '--silent', '--port', `${port}`].concat(
      blockTime ? ['--block-time', '1'] : [],
      L2DEVNET_ARGS,
    ),
  }),
  anvil: (port, blockTime) => ({
    cmd: join(PEERS, 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil'),
    args: ['--host', '127.0.0.1', '--port', `${port}`, '--mnemonic', MNEMONIC, '--silent'].concat(
      blockTime ? ['--block-time', '1'] : [],
    ),
  }),
  hardhat: (port, blockTime) => ({
    cmd: process.execPath,
    args: [
      join(PEERS, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js'),
      'node',
      '--hostname',
      '127.0.0.1',
      '--port',
      `${port}`,
    ],
    cwd: PEERS,
    env: { ...process.env, HARDHAT_BLOCK_TIME_MS: blockTime ? '1000' : '' },
  }),
  ganache: (port, blockTime) => ({
    cmd: process.execPath,
    args: [
      join(PEERS, 'node_modules', 'ganache', 'dist', 'node', 'cli.js'),
      '--server.host',
      '127.0.0.1',
      '--server.port',
      `${port}`,
      '--wallet.mnemonic',
      MNEMONIC,
      '--chain.chainId',
      '31337',
      '--logging.quiet',
    ].concat(blockTime ? ['--miner.blockTime', '1'] : []),
  }),
};

function installPeers() {
  if (existsSync(join(PEERS, 'node_modules', 'hardhat')) && existsSync(join(PEERS, 'node_modules', 'ganache'))) return;
  console.log('Installing the peers into scripts/peers (first run only)...');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEERS, stdio: 'inherit' });
}

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A JSON-RPC client over keep-alive HTTP (Node's fetch). */
function client(url) {
  let id = 1;
  return async function call(method, params = []) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method, params });
    const post = () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    let res;
    try {
      res = await post();
    } catch (e) {
      // A kept-alive connection the server closed while idle (uWS and Hardhat close them after a
      // few seconds, e.g. during a wrk run): once more, on a new connection.
      if (e.cause?.code !== 'UND_ERR_SOCKET') throw e;
      res = await post();
    }
    const answer = await res.json();
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
}

/** Starts a node and waits for its first answer; resolves with the time that took. */
async function start(name, blockTime) {
  const port = await freePort();
  const spec = NODES[name](port, blockTime);
  const url = `http://127.0.0.1:${port}/`;
  const t = performance.now();
  const child = spawn(spec.cmd, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const call = client(url);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${stderr.slice(0, 500)}`);
    if (performance.now() - t > 60_000) throw new Error(`${name} did not answer within 60 s`);
    try {
      await call('eth_blockNumber');
      break;
    } catch {
      await sleep(5);
    }
  }
  return { name, child, url, port, call, startupMs: performance.now() - t };
}

function stop(node) {
  node.child.kill('SIGKILL');
}

function rssMiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return NaN;
  }
}

function median(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median latency (ms) of `fn` over `n` runs, bounded by 10 s. */
async function latency(n, fn) {
  for (let i = 0; i < 3; i++) await fn(); // warm-up
  const samples = [];
  const end = performance.now() + 10_000;
  for (let i = 0; i < n && performance.now() < end; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

/** As `latency`, NaN when the node does not serve the method. */
async function latencyOrNaN(n, fn) {
  try {
    return await latency(n, fn);
  } catch {
    return NaN;
  }
}

/** Requests per second of `lua`'s requests over `connections` connections. */
async function throughput(url, connections, lua, fallbackBody) {
  if (wrkInstalled()) return wrk(url, { connections, seconds: SECONDS, lua }).rps;
  // Without wrk: `connections` loops of fetch in this process (the client costs as much as the node).
  let done = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        await (
          await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: fallbackBody() })
        ).text();
        done++;
      }
    }),
  );
  return done / SECONDS;
}

/**
 * The ERC20 fixture compiled for Shanghai, the newest fork Ganache runs (the fixture's own build
 * targets a later one); every node runs these same bytes.
 */
function shanghaiToken() {
  const solc = require('solc');
  const input = {
    language: 'Solidity',
    sources: { 'ERC20.sol': { content: readFileSync(join(ROOT, 'fixtures', 'contracts', 'ERC20.sol'), 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'shanghai',
      outputSelection: { 'ERC20.sol': { TestToken: ['abi', 'evm.bytecode.object'] } },
    },
  };
  const compiled = JSON.parse(solc.compile(JSON.stringify(input))).contracts['ERC20.sol'].TestToken;
  return { abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
}
const token = shanghaiToken();
const tokenAbi = new Interface(token.abi);
const deployer = HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/60'/0'/0/0");

/** Signed transactions, the same bytes for every node. */
function signedTransfers(tokenAddress, firstNonce, count) {
  return signedTransfersFrom(deployer, tokenAddress, firstNonce, count);
}

/** `count` transfers of one token unit from `from` to 0x…01, 0x…02, ... */
function signedTransfersFrom(from, tokenAddress, firstNonce, count) {
  const recipients = Array.from({ length: count }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
  return signedTransfersTo(tokenAddress, firstNonce, recipients, 1n, from);
}

/** Transfers of `amount` to each of `recipients`, signed by `from` (default the deployer). */
function signedTransfersTo(tokenAddress, firstNonce, recipients, amount, from = deployer) {
  const wallet = new Wallet(from.privateKey);
  const txs = [];
  for (let i = 0; i < recipients.length; i++) {
    const to = recipients[i];
    txs.push(
      wallet.signTransaction({
        type: 2,
        chainId: CHAIN_ID,
        nonce: firstNonce + i,
        to: tokenAddress,
        data: tokenAbi.encodeFunctionData('transfer', [to, amount]),
        gasLimit: 100_000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      }),
    );
  }
  return Promise.all(txs);
}

async function waitReceipt(call, hash, timeoutMs = 30_000) {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const r = await call('eth_getTransactionReceipt', [hash]);
    if (r !== null) return r;
    if (performance.now() > end) throw new Error(`no receipt for ${hash}`);
    await sleep(20);
  }
}

async function deployToken(call) {
  const wallet = new Wallet(deployer.privateKey);
  const raw = await wallet.signTransaction({
    type: 2,
    chainId: CHAIN_ID,
    nonce: 0,
    data: token.bytecode + tokenAbi.encodeDeploy(['Bench', 'B', 10n ** 30n]).slice(2),
    gasLimit: 3_000_000n,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  const hash = await call('eth_sendRawTransaction', [raw]);
  const receipt = await waitReceipt(call, hash);
  if (receipt.status !== '0x1') throw new Error('token deployment failed');
  return receipt.contractAddress;
}

function callLua(tokenAddress) {
  const from = deployer.address.toLowerCase();
  return `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local head = '{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"from":"${from}","to":"${tokenAddress}","data":"0x70a08231000000000000000000000000'
request = function()
  local a = string.format("%04x%04x%04x%04x%04x%04x%04x%04x%04x%04x", math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535), math.random(0, 65535))
  return wrk.format(nil, nil, nil, head .. a .. '"},"latest"]}')
end
`;
}

const BLOCK_NUMBER_LUA = postLua('{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}');

/** Every scenario against one node; each figure with whether more is better. */
async function measureNode(name) {
  const r = {};
  const node = await start(name, false);
  const { call } = node;
  try {
    r.startup = node.startupMs;
    const tokenAddress = await deployToken(call);
    const txs = await signedTransfers(tokenAddress, 1, TRANSFERS);
    // One after another, each sent when the previous one's answer came back (automine).
    let t = performance.now();
    let last;
    for (const raw of txs) last = await call('eth_sendRawTransaction', [raw]);
    await waitReceipt(call, last);
    r.transfers = TRANSFERS / ((performance.now() - t) / 1000);

    const from = deployer.address.toLowerCase();
    const callBody = () =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [
          { from, to: tokenAddress, data: tokenAbi.encodeFunctionData('balanceOf', [Wallet.createRandom().address]) },
          'latest',
        ],
      });
    r.ethCall1 = await throughput(node.url, 1, callLua(tokenAddress), callBody);
    r.ethCall = await throughput(node.url, 16, callLua(tokenAddress), callBody);
    r.ethCall64 = await throughput(node.url, 64, callLua(tokenAddress), callBody);

    const transfer = { from, to: tokenAddress, data: tokenAbi.encodeFunctionData('transfer', [deployer.address, 1n]) };
    r.estimateGas = await latency(200, () => call('eth_estimateGas', [transfer]));
    const simulate = {
      blockStateCalls: [
        {
          calls: Array.from({ length: 100 }, (_, i) => ({
            from,
            to: tokenAddress,
            data: tokenAbi.encodeFunctionData('transfer', [`0x${(i + 1).toString(16).padStart(40, '0')}`, 1n]),
          })),
        },
      ],
    };
    r.simulate100 = await latencyOrNaN(20, () => call('eth_simulateV1', [simulate, 'latest']));
    // Traced with callTracer, which every node answers alike. The default struct logger's steps are
    // timed only where a node returns them: Anvil answers it with no steps unless started with
    // --steps-tracing (a 163-byte answer against this node's 65 KB of 270 steps).
    r.traceTransfer = await latencyOrNaN(50, () => call('debug_traceTransaction', [last, { tracer: 'callTracer' }]));
    const steps = await call('debug_traceTransaction', [last]).then(
      (t) => t?.structLogs?.length ?? 0,
      () => 0,
    );
    r.traceSteps = steps > 0 ? await latencyOrNaN(50, () => call('debug_traceTransaction', [last])) : NaN;
    r.blockNumber = await throughput(node.url, 32, BLOCK_NUMBER_LUA, () =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    );

    const transferTopic = tokenAbi.getEvent('Transfer').topicHash;
    const recipientTopic = `0x${'7'.padStart(64, '0')}`;
    const allLogs = async () => {
      const logs = await call('eth_getLogs', [
        { fromBlock: '0x0', toBlock: 'latest', address: tokenAddress, topics: [transferTopic] },
      ]);
      if (logs.length < TRANSFERS) throw new Error(`${name}: ${logs.length} Transfer logs`);
    };
    const oneTopic = () =>
      call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [transferTopic, null, recipientTopic] }]);
    r.logsAll = await latency(20, allLogs);
    r.logsTopic = await latency(50, oneTopic);

    const head = Number(await call('eth_blockNumber'));
    const back = `0x${Math.max(0, head - 1000).toString(16)}`;
    const slots = [0, 1, 2].map((n) => `0x${n.toString(16).padStart(64, '0')}`);
    const proof = async (block) => {
      try {
        await call('eth_getProof', [tokenAddress, slots, block]);
        return true;
      } catch {
        return false;
      }
    };
    r.proofLatest = (await proof('latest'))
      ? await latency(50, () => call('eth_getProof', [tokenAddress, slots, 'latest']))
      : NaN;
    r.proofOld = (await proof(back)) ? await latency(50, () => call('eth_getProof', [tokenAddress, slots, back])) : NaN;
    r.blockFull = await latency(200, () => call('eth_getBlockByNumber', ['latest', true]));
    try {
      r.blockReceipts = await latency(200, () => call('eth_getBlockReceipts', ['latest']));
    } catch {
      r.blockReceipts = NaN;
    }

    // eth_getLogs again on a longer chain.
    // In requests of 1,000 blocks, within 5 minutes (Anvil takes minutes for 20,000).
    t = performance.now();
    let mined = 0;
    while (mined < MORE_BLOCKS && performance.now() - t < 300_000) {
      const n = Math.min(1000, MORE_BLOCKS - mined);
      if (name === 'ganache') await call('evm_mine', [{ blocks: n }]);
      else if (name === 'hardhat') await call('hardhat_mine', [`0x${n.toString(16)}`]);
      else await call('anvil_mine', [`0x${n.toString(16)}`]);
      mined += n;
    }
    r.mineMore = mined === MORE_BLOCKS ? (performance.now() - t) / 1000 : NaN;
    if (mined === MORE_BLOCKS) {
      r.logsAllLong = await latency(20, allLogs);
      r.logsTopicLong = await latency(50, oneTopic);
    }
    r.rss = rssMiB(node.child.pid);
  } finally {
    stop(node);
  }

  // Transfers from 10 senders at once, automine: each sender's next one sent when its last is answered.
  const many = await start(name, false);
  try {
    const tokenAddress = await deployToken(many.call);
    // The ten dev accounts: the deployer funds the other nine, then each sends its share.
    const senders = Array.from({ length: 10 }, (_, i) =>
      HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`),
    );
    const others = senders.slice(1).map((w) => w.address);
    const fund = await signedTransfersTo(tokenAddress, 1, others, 10n ** 24n);
    let last;
    for (const raw of fund) last = await many.call('eth_sendRawTransaction', [raw]);
    await waitReceipt(many.call, last);
    const each = Math.ceil(TRANSFERS / 10);
    const signed = await Promise.all(
      senders.map((w, i) => signedTransfersFrom(w, tokenAddress, i === 0 ? 1 + others.length : 0, each)),
    );
    const t = performance.now();
    const lasts = await Promise.all(
      signed.map(async (txs) => {
        let hash;
        for (const raw of txs) hash = await many.call('eth_sendRawTransaction', [raw]);
        return hash;
      }),
    );
    for (const hash of lasts) await waitReceipt(many.call, hash, 60_000);
    r.transfers10 = (each * 10) / ((performance.now() - t) / 1000);
  } finally {
    stop(many);
  }

  if (name === 'l2devnet' || name === 'anvil') Object.assign(r, await measureFork(name));

  // The same transfers with a block every second: sent without waiting, until the last is mined.
  const timed = await start(name, true);
  try {
    const tokenAddress = await deployToken(timed.call);
    const txs = await signedTransfers(tokenAddress, 1, TRANSFERS);
    const t = performance.now();
    let last;
    for (const raw of txs) last = await timed.call('eth_sendRawTransaction', [raw]);
    await waitReceipt(timed.call, last, 60_000);
    r.transfersTimed = TRANSFERS / ((performance.now() - t) / 1000);
  } finally {
    stop(timed);
  }
  return r;
}

/** A proxy to `target` counting the HTTP requests and JSON-RPC calls sent through it. */
function countingProxy(target) {
  const proxy = { url: '', requests: 0, calls: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      proxy.requests++;
      try {
        const parsed = JSON.parse(body);
        proxy.calls += Array.isArray(parsed) ? parsed.length : 1;
      } catch {
        proxy.calls++;
      }
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()))
        .catch(() => res.writeHead(502).end());
    });
  });
  proxy.close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      proxy.url = `http://127.0.0.1:${server.address().port}`;
      resolve(proxy);
    }),
  );
}

/** `name` forking an upstream Anvil that holds the token and 200 holders; the upstream's requests counted. */
async function measureFork(name) {
  const upstream = await start('anvil', false);
  const proxy = await countingProxy(upstream.url);
  const cache = mkdtempSync(join(tmpdir(), 'l2devnet-bench-fork-'));
  const r = {};
  try {
    const tokenAddress = await deployToken(upstream.call);
    const txs = await signedTransfers(tokenAddress, 1, 200);
    let last;
    for (const raw of txs) last = await upstream.call('eth_sendRawTransaction', [raw]);
    await waitReceipt(upstream.call, last);
    const forkBlock = await upstream.call('eth_blockNumber');
    const forkArgs =
      name === 'l2devnet'
        ? ['--fork-url', proxy.url, '--fork-block-number', String(Number(forkBlock)), '--fork-cache', cache]
        : ['--fork-url', proxy.url, '--fork-block-number', String(Number(forkBlock))];
    // Anvil keeps its fork cache under $HOME/.foundry/cache: a fresh HOME for each measurement's first start.
    const env = { ...process.env, HOME: cache };
    const holder = `0x${'7'.padStart(40, '0')}`;
    const balanceOf = { to: tokenAddress, data: tokenAbi.encodeFunctionData('balanceOf', [holder]) };
    const forkOnce = async () => {
      const port = await freePort();
      const spec = NODES[name](port, false);
      const t = performance.now();
      const child = spawn(spec.cmd, [...spec.args, ...forkArgs], { cwd: spec.cwd, env, stdio: 'ignore' });
      const call = client(`http://127.0.0.1:${port}/`);
      for (;;) {
        if (child.exitCode !== null) throw new Error(`${name} fork exited`);
        try {
          await call('eth_blockNumber');
          break;
        } catch {
          await sleep(5);
        }
      }
      return { child, call, startupMs: performance.now() - t };
    };
    const timed = async (fn) => {
      const t = performance.now();
      await fn();
      return performance.now() - t;
    };
    proxy.requests = 0;
    const first = await forkOnce();
    try {
      r.forkStartup = first.startupMs;
      r.forkCallCold = await timed(() => first.call('eth_call', [balanceOf, 'latest']));
      r.forkCallWarm = await timed(() => first.call('eth_call', [balanceOf, 'latest']));
      const [raw] = await signedTransfers(tokenAddress, 201, 1);
      r.forkTransfer = await timed(async () =>
        waitReceipt(first.call, await first.call('eth_sendRawTransaction', [raw])),
      );
      r.forkRequests = proxy.requests;
    } finally {
      first.child.kill('SIGTERM');
      await new Promise((resolve) => (first.child.exitCode !== null ? resolve() : first.child.once('exit', resolve)));
    }
    proxy.requests = 0;
    const second = await forkOnce();
    try {
      r.forkCallCached = await timed(() => second.call('eth_call', [balanceOf, 'latest']));
      r.forkRequestsCached = proxy.requests;
    } finally {
      second.child.kill('SIGKILL');
    }
  } finally {
    await proxy.close();
    stop(upstream);
    rmSync(cache, { recursive: true, force: true });
  }
  return r;
}

const ROWS = [
  ['startup', 'start-up to first answer (ms)', false],
  ['ethCall1', 'eth_call ERC20 balanceOf, 1 connection (/s)', true],
  ['ethCall', 'eth_call ERC20 balanceOf, 16 connections (/s)', true],
  ['ethCall64', 'eth_call ERC20 balanceOf, 64 connections (/s)', true],
  ['estimateGas', 'eth_estimateGas of an ERC20 transfer (ms)', false],
  ['simulate100', 'eth_simulateV1 of 100 ERC20 transfers (ms)', false],
  ['traceTransfer', 'debug_traceTransaction of an ERC20 transfer, callTracer (ms)', false],
  ['traceSteps', 'the same, struct logger (ms; blank where a node returns no steps)', false],
  ['transfers', `${TRANSFERS} signed ERC20 transfers one after another, automine (tx/s)`, true],
  ['transfersTimed', `the same, --block-time 1, sent without waiting (tx/s)`, true],
  ['transfers10', `${TRANSFERS} ERC20 transfers from 10 senders at once, automine (tx/s)`, true],
  ['logsAll', `eth_getLogs all ${TRANSFERS} Transfer logs (ms)`, false],
  ['logsTopic', 'eth_getLogs one recipient topic (ms)', false],
  ['blockNumber', 'eth_blockNumber, 32 connections (/s)', true],
  ['proofLatest', 'eth_getProof at latest (ms)', false],
  ['proofOld', 'eth_getProof 1,000 blocks back (ms)', false],
  ['blockFull', 'eth_getBlockByNumber(latest, true) (ms)', false],
  ['blockReceipts', 'eth_getBlockReceipts(latest) (ms)', false],
  ['mineMore', `mining ${MORE_BLOCKS} empty blocks (s)`, false],
  ['logsAllLong', `eth_getLogs all Transfer logs, ${MORE_BLOCKS} blocks later (ms)`, false],
  ['logsTopicLong', `eth_getLogs one recipient topic, ${MORE_BLOCKS} blocks later (ms)`, false],
  ['rss', `RSS after the run, ${MORE_BLOCKS} blocks mined (MiB)`, false],
  ['forkStartup', 'fork of an upstream Anvil: start-up to first answer (ms)', false],
  ['forkCallCold', 'fork: first eth_call of balanceOf (ms)', false],
  ['forkCallWarm', 'fork: the same eth_call again (ms)', false],
  ['forkTransfer', 'fork: a signed ERC20 transfer, sent to mined (ms)', false],
  ['forkRequests', 'fork: HTTP requests to the upstream for all of the above', false],
  ['forkCallCached', 'fork restarted on its disk cache: first eth_call (ms)', false],
  ['forkRequestsCached', 'fork restarted on its disk cache: HTTP requests to the upstream', false],
];

function cell(value, best) {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} (${(value / best).toFixed(2)}×)`;
}

(async () => {
  installPeers();
  console.log(
    `## Peers: the same scenarios over HTTP on 127.0.0.1${wrkInstalled() ? ', throughput by wrk' : ' (no wrk: throughput by an in-process client)'}`,
  );
  const results = {};
  for (const name of ONLY) {
    process.stdout.write(`${name}...`);
    try {
      results[name] = await measureNode(name);
      console.log(' done');
    } catch (e) {
      console.log(` failed: ${e.message.split('\n')[0]}${e.cause ? ` (${e.cause.message ?? e.cause})` : ''}`);
      results[name] = {};
    }
  }
  const names = Object.keys(results);
  console.log(`\n| figure | ${names.join(' | ')} |`);
  console.log(`|---|${names.map(() => '---:').join('|')}|`);
  for (const [key, label, more] of ROWS) {
    const values = names.map((n) => results[n][key]);
    const finite = values.filter(Number.isFinite);
    const best = finite.length === 0 ? NaN : more ? Math.max(...finite) : Math.min(...finite);
    console.log(`| ${label} | ${values.map((v) => cell(v, best)).join(' | ')} |`);
  }
  console.log('\nRatios are to the best figure of the row (more is better for /s and tx/s, less for the rest).');
  if (ONLY.includes('l2devnet')) {
    // scripts/bench/lineCounting.js's comparison, run here so that its ratio comes from the same run.
    const { off, tracer, limitless } = await compare(workloads['ERC20 transfer'], ['off', 'tracer', 'limitless']);
    const cost = (x) => `${((x / off - 1) * 100).toFixed(1)}%`;
    console.log(
      `Line counting on block building (in process, ERC20 transfers, one per block): ${off.toFixed(3)} ms a block not counting; ` +
        `${tracer.toFixed(3)} ms with the full tracer (+${cost(tracer)}), ${limitless.toFixed(3)} ms with the limitless counter (+${cost(limitless)}).`,
    );
  }
})();
