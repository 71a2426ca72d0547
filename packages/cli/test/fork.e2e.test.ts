/**
 * --fork-url against a real upstream this project does not write: Anvil on 127.0.0.1, with a chain
 * built here (a token with 300 holders, 200 funded accounts), behind a proxy that counts what the
 * forked node asks. The forked node's reads equal the upstream's at the fork block, its proofs are
 * the upstream's, a block of the upstream replayed on it comes out with the upstream's roots, and a
 * second start on the same cache asks the upstream for no state.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ethers } from 'ethers';

import { createDevnet } from '../../l2devnet/src';
import { rpcCall, runCommand, runToEnd } from './command';
import type { RunningCommand } from './command';
import { countingProxy, freePort, startAnvil } from './upstream';
import type { CountingProxy, Upstream } from './upstream';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'contracts');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const TestToken = require(join(FIXTURES, 'TestToken.json')) as { abi: ethers.InterfaceAbi; bytecode: string };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Counter = require(join(FIXTURES, 'Counter.json')) as { bytecode: string };
const token = new ethers.Interface(TestToken.abi);
const MNEMONIC = 'test test test test test test test test test test test junk';
const dev = (i: number) => ethers.HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`);
const hex = (n: bigint | number) => `0x${n.toString(16)}`;

let anvil: Upstream;
let proxy: CountingProxy;
let cacheDir: string;
let forkBlock: bigint;
let tokenAddress: string;
const holders: string[] = [];
const funded: string[] = [];

/** Runs `calls` on the upstream in one block. */
async function inOneBlock(calls: [string, unknown[]][]): Promise<any> {
  for (const [method, params] of calls) await anvil.call(method, params);
  // A block a second after its parent: Anvil would give two blocks of one second the same timestamp.
  const parent = await anvil.call('eth_getBlockByNumber', ['latest', false]);
  await anvil.call('evm_setNextBlockTimestamp', [hex(BigInt(parent.timestamp) + 1n)]);
  await anvil.call('evm_mine');
  return anvil.call('eth_getBlockByNumber', ['latest', false]);
}

async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
  const body = await rpcCall(url, method, params);
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function stop(node: RunningCommand): Promise<void> {
  node.child.kill('SIGTERM');
  await node.exited;
}

function fork(args: string[] = []): Promise<RunningCommand> {
  return runCommand(['--in-memory', '--port', '0', '--fork-url', proxy.url, ...args]);
}

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await countingProxy(anvil.url);
  cacheDir = mkdtempSync(join(tmpdir(), 'l2devnet-fork-cache-'));
  await anvil.call('evm_setAutomine', [false]);
  const deployer = dev(0).address;
  const deployTx = await anvil.call('eth_sendTransaction', [
    { from: deployer, data: TestToken.bytecode + token.encodeDeploy(['Fork', 'FRK', 10n ** 24n]).slice(2) },
  ]);
  await anvil.call('evm_mine');
  tokenAddress = (await anvil.call('eth_getTransactionReceipt', [deployTx])).contractAddress;
  for (let i = 0; i < 300; i++) holders.push(ethers.getAddress(ethers.zeroPadValue(hex(0x1000 + i), 20)));
  for (let i = 0; i < 200; i++) funded.push(ethers.getAddress(ethers.zeroPadValue(hex(0x900000 + i), 20)));
  await inOneBlock(
    holders.map((h, i) => [
      'eth_sendTransaction',
      [
        {
          from: dev(1).address,
          to: tokenAddress,
          data: token.encodeFunctionData('mint', [h, BigInt(i + 1) * 10n ** 18n]),
        },
      ],
    ]),
  );
  await inOneBlock(
    funded.map((a, i) => [
      'eth_sendTransaction',
      [{ from: dev(2).address, to: a, value: hex(BigInt(i + 1) * 10n ** 15n) }],
    ]),
  );
  forkBlock = BigInt(await anvil.call('eth_blockNumber'));
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
  rmSync(cacheDir, { recursive: true, force: true });
});

/**
 * The upstream as the fork found it (an evm_snapshot): the first engine's run below mines on it, the
 * second's starts from it again.
 */
let upstreamAtFork: string | undefined;

// On both engines, a node each: the node's own and ethereumjs, the reference it is held to.
describe.each(['l2devnet', 'ethereumjs'] as const)('a fork of the upstream at its block N (--engine %s)', (engine) => {
  let node: RunningCommand;
  /** The upstream's block N+1, built after the fork from these signed transactions. */
  let replayed: { block: any; raws: string[] };
  /** The first engine's node fills the cache later tests start from; the second has one of its own, and fetches as the first did. */
  let cache: string;

  beforeAll(async () => {
    if (upstreamAtFork === undefined) upstreamAtFork = await anvil.call('evm_snapshot');
    else expect(await anvil.call('evm_revert', [upstreamAtFork])).toBe(true);
    cache = engine === 'l2devnet' ? cacheDir : mkdtempSync(join(tmpdir(), 'l2devnet-fork-cache-'));
    proxy.reset();
    node = await fork([
      ...['--fork-block-number', String(forkBlock), '--fork-cache', cache, '--engine', engine],
      ...['--accounts', '0', '--no-mining', '--order', 'fifo'],
    ]);
    expect(node.stdout()).toContain(`Engine:            ${engine}`);
  });
  afterAll(async () => {
    await stop(node);
    if (cache !== cacheDir) rmSync(cache, { recursive: true, force: true });
  });

  test('starts at the fork block: its number, hash and chain id are the upstream', async () => {
    expect(BigInt(await call(node.url, 'eth_blockNumber'))).toBe(forkBlock);
    expect(await call(node.url, 'eth_chainId')).toBe(await anvil.call('eth_chainId'));
    const mine = await call(node.url, 'eth_getBlockByNumber', ['latest', false]);
    const theirs = await anvil.call('eth_getBlockByNumber', [hex(forkBlock), false]);
    expect(mine.hash).toBe(theirs.hash);
    expect(mine.stateRoot).toBe(theirs.stateRoot);
    expect(node.stdout()).toContain(`Forked from:       ${proxy.url} at block ${forkBlock} (${theirs.hash})`);
  });

  test("every state read equals the upstream's at the fork block, fetched with proofs", async () => {
    const at = hex(forkBlock);
    for (const h of holders.filter((_, i) => i % 10 === 0)) {
      const data = token.encodeFunctionData('balanceOf', [h]);
      expect(await call(node.url, 'eth_call', [{ to: tokenAddress, data }, 'latest'])).toBe(
        await anvil.call('eth_call', [{ to: tokenAddress, data }, at]),
      );
    }
    for (const a of funded.filter((_, i) => i % 10 === 0))
      expect(await call(node.url, 'eth_getBalance', [a, 'latest'])).toBe(await anvil.call('eth_getBalance', [a, at]));
    expect(await call(node.url, 'eth_getCode', [tokenAddress, 'latest'])).toBe(
      await anvil.call('eth_getCode', [tokenAddress, at]),
    );
    expect(await call(node.url, 'eth_getTransactionCount', [dev(1).address, 'latest'])).toBe(
      await anvil.call('eth_getTransactionCount', [dev(1).address, at]),
    );
    // Only state by proof and code were asked, never a balance or a slot by value.
    expect(proxy.calls.filter((m) => m === 'eth_getProof').length).toBeGreaterThan(30);
    expect(proxy.calls).toContain('eth_getCode');
    expect(proxy.calls).not.toContain('eth_getBalance');
    expect(proxy.calls).not.toContain('eth_getStorageAt');
  });

  test("eth_getProof on forked state is the upstream's proof, node for node", async () => {
    const slot = ethers.solidityPackedKeccak256(['uint256', 'uint256'], [holders[7], 0]);
    for (const [address, slots] of [
      [tokenAddress, [slot, ethers.ZeroHash]],
      [funded[3], []],
      ['0x00000000000000000000000000000000000000aa', []],
    ] as [string, string[]][]) {
      const mine = await call(node.url, 'eth_getProof', [address, slots, 'latest']);
      const theirs = await anvil.call('eth_getProof', [address, slots, hex(forkBlock)]);
      expect(mine.accountProof).toEqual(theirs.accountProof);
      expect(mine.storageHash).toBe(theirs.storageHash);
      expect(mine.storageProof.map((p: any) => [p.value, p.proof])).toEqual(
        theirs.storageProof.map((p: any) => [p.value, p.proof]),
      );
    }
  });

  test("a block of the upstream replayed on the fork has the upstream's state, receipts and transactions roots", async () => {
    const chainId = BigInt(await anvil.call('eth_chainId'));
    const fees = { maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId, type: 2 };
    const nonce = async (w: ethers.HDNodeWallet) =>
      Number(await anvil.call('eth_getTransactionCount', [w.address, 'latest']));
    const [d0, d3, d4] = [dev(0), dev(3), dev(4)];
    const n0 = await nonce(d0);
    // No slot is set to zero here: Anvil keeps a zeroed slot in its storage trie, with the value
    // zero, where Ethereum deletes it (foundry-rs/foundry#15934 says the same of its simulated roots),
    // so its root would differ. Deletions are replayed against a second l2devnet below.
    const raws = [
      await d0.signTransaction({
        ...fees,
        nonce: n0,
        gasLimit: 100_000n,
        to: tokenAddress,
        data: token.encodeFunctionData('transfer', [holders[0], 5n]),
      }),
      await d0.signTransaction({
        ...fees,
        nonce: n0 + 1,
        gasLimit: 100_000n,
        to: tokenAddress,
        data: token.encodeFunctionData('transfer', [funded[9], 10n ** 20n]),
      }),
      // A new account, and a new contract.
      await d3.signTransaction({
        ...fees,
        nonce: await nonce(d3),
        gasLimit: 21_000n,
        to: ethers.zeroPadValue('0xabcdef', 20),
        value: 12345n,
      }),
      await d4.signTransaction({ ...fees, nonce: await nonce(d4), gasLimit: 500_000n, data: Counter.bytecode }),
    ];
    const block = await inOneBlock(raws.map((r) => ['eth_sendRawTransaction', [r]]));
    expect(block.transactions).toHaveLength(4);
    replayed = { block, raws };

    for (const r of raws) await call(node.url, 'eth_sendRawTransaction', [r]);
    await call(node.url, 'anvil_setNextBlockBaseFeePerGas', [block.baseFeePerGas]);
    await call(node.url, 'evm_mine', [block.timestamp]);
    const mine = await call(node.url, 'eth_getBlockByNumber', ['latest', false]);
    expect(BigInt(mine.number)).toBe(forkBlock + 1n);
    expect(mine.transactions).toEqual(block.transactions);
    for (const field of ['stateRoot', 'receiptsRoot', 'transactionsRoot', 'logsBloom', 'gasUsed', 'parentHash'])
      expect([field, mine[field]]).toEqual([field, block[field]]);
  });

  test('blocks up to the fork block, their transactions, receipts and logs are the upstream', async () => {
    const theirs = await anvil.call('eth_getBlockByNumber', [hex(forkBlock - 1n), true]);
    expect(await call(node.url, 'eth_getBlockByNumber', [hex(forkBlock - 1n), true])).toEqual(theirs);
    expect(await call(node.url, 'eth_getBlockByHash', [theirs.hash, false])).toEqual(
      await anvil.call('eth_getBlockByHash', [theirs.hash, false]),
    );
    const tx = theirs.transactions[0].hash;
    expect(await call(node.url, 'eth_getTransactionReceipt', [tx])).toEqual(
      await anvil.call('eth_getTransactionReceipt', [tx]),
    );
    // State before the fork block is the upstream's too.
    expect(await call(node.url, 'eth_getBalance', [funded[0], '0x1'])).toBe(
      await anvil.call('eth_getBalance', [funded[0], '0x1']),
    );
    // Logs across the fork: the upstream's up to block N, this node's after.
    const filter = { address: tokenAddress, fromBlock: '0x0', toBlock: 'latest' };
    const logs = await call(node.url, 'eth_getLogs', [filter]);
    expect(logs).toHaveLength(301 + 2);
    expect(logs.slice(0, 301)).toEqual(await anvil.call('eth_getLogs', [{ ...filter, toBlock: hex(forkBlock) }]));
    expect(logs[301].transactionHash).toBe(replayed.block.transactions[0]);
    // A transaction of the upstream's is counted by running its block again up to it.
    const report = await call(node.url, 'l2_traceLineCounts', [theirs.transactions[7].hash]);
    expect(BigInt(report.blockNumber)).toBe(forkBlock - 1n);
    expect(report.modules.HUB.count).toBeGreaterThan(100);
    // A transaction the upstream mined after the fork block is not this chain's.
    const later = await anvil.call('eth_sendTransaction', [{ from: dev(5).address, to: funded[0], value: '0x1' }]);
    await anvil.call('evm_mine');
    expect(await call(node.url, 'eth_getTransactionByHash', [later])).toBeNull();
  });

  test("a receipt polled for a transaction in this node's pool does not ask the upstream", async () => {
    const w = dev(7);
    const nonce = Number(await call(node.url, 'eth_getTransactionCount', [w.address, 'latest']));
    const raw = await w.signTransaction({
      ...{ to: funded[0], value: 1n, nonce, gasLimit: 21_000n, chainId: 31337n, type: 2 },
      ...{ maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n },
    });
    const hash = await call(node.url, 'eth_sendRawTransaction', [raw]);
    proxy.reset();
    expect(await call(node.url, 'eth_getTransactionReceipt', [hash])).toBeNull();
    expect(proxy.calls).toEqual([]);
  });
});

test('a second start on the same fork block and cache asks the upstream for no state', async () => {
  const reads = async (url: string) => {
    const out: unknown[] = [];
    for (const h of holders.filter((_, i) => i % 10 === 0))
      out.push(
        await call(url, 'eth_call', [{ to: tokenAddress, data: token.encodeFunctionData('balanceOf', [h]) }, 'latest']),
      );
    for (const a of funded.filter((_, i) => i % 10 === 0)) out.push(await call(url, 'eth_getBalance', [a, 'latest']));
    out.push(await call(url, 'eth_getCode', [tokenAddress, 'latest']));
    return out;
  };
  const args = ['--fork-block-number', String(forkBlock), '--fork-cache', cacheDir, '--accounts', '0'];
  const first = await fork(args);
  const before = await reads(first.url);
  await stop(first);
  proxy.reset();
  const second = await fork(args);
  try {
    expect(await reads(second.url)).toEqual(before);
    expect(proxy.calls.filter((m) => m !== 'eth_chainId')).toEqual([]);
  } finally {
    await stop(second);
  }
});

test('dev accounts are funded on the fork, proven in one batch; cheats, mining and line counts work on forked state', async () => {
  proxy.reset();
  const node = await fork(['--fork-block-number', String(forkBlock), '--no-fork-cache']);
  try {
    // The ten dev accounts' proofs and the root's went in one request.
    expect(Math.max(...proxy.batches.map((b) => b.filter((m) => m === 'eth_getProof').length))).toBeGreaterThanOrEqual(
      11,
    );
    expect(await call(node.url, 'eth_getBalance', [dev(0).address, 'latest'])).toBe(hex(10_000n * 10n ** 18n));
    const provider = new ethers.JsonRpcProvider(node.url, undefined, { staticNetwork: true });
    const signer = await provider.getSigner(dev(0).address);
    const sent = await signer.sendTransaction({ to: funded[1], value: 1n });
    expect((await sent.wait())?.status).toBe(1);
    // A holder of the upstream's token sends it, impersonated.
    await call(node.url, 'anvil_impersonateAccount', [holders[20]]);
    await call(node.url, 'anvil_setBalance', [holders[20], hex(10n ** 18n)]);
    const hash = await call(node.url, 'eth_sendTransaction', [
      { from: holders[20], to: tokenAddress, data: token.encodeFunctionData('transfer', [holders[21], 10n ** 18n]) },
    ]);
    expect((await call(node.url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1');
    const balance = await call(node.url, 'eth_call', [
      { to: tokenAddress, data: token.encodeFunctionData('balanceOf', [holders[21]]) },
      'latest',
    ]);
    expect(BigInt(balance)).toBe(23n * 10n ** 18n);
    const report = await call(node.url, 'l2_traceLineCounts', [hash]);
    expect(report.modules.HUB.count).toBeGreaterThan(100);
    expect(report.overflow).toBeNull();
    // Nothing here goes below the fork block: fee history starts at it, a rollback stops there.
    await expect(call(node.url, 'anvil_rollback', [hex(20n)])).rejects.toThrow(
      /cannot roll back 20 blocks from block \d+/,
    );
    const history = await call(node.url, 'eth_feeHistory', ['0x10', 'latest', []]);
    expect(BigInt(history.oldestBlock)).toBe(forkBlock);
    expect(history.baseFeePerGas.every((f: string) => BigInt(f) > 0n)).toBe(true);
    // anvil_metadata names the fork; anvil_reset goes back to the fork block, dev accounts funded.
    const fork = await anvil.call('eth_getBlockByNumber', [hex(forkBlock), false]);
    expect((await call(node.url, 'anvil_metadata')).forkedNetwork).toEqual({
      chainId: 31337,
      forkBlockNumber: Number(forkBlock),
      forkBlockHash: fork.hash,
    });
    await call(node.url, 'anvil_reset', [{ forking: { jsonRpcUrl: proxy.url, blockNumber: Number(forkBlock) } }]);
    expect(BigInt(await call(node.url, 'eth_blockNumber'))).toBe(forkBlock);
    expect(await call(node.url, 'eth_getBalance', [dev(0).address, 'latest'])).toBe(hex(10_000n * 10n ** 18n));
    expect(
      BigInt(
        await call(node.url, 'eth_call', [
          { to: tokenAddress, data: token.encodeFunctionData('balanceOf', [holders[21]]) },
          'latest',
        ]),
      ),
    ).toBe(22n * 10n ** 18n);
  } finally {
    await stop(node);
  }
});

describe('a remote that cannot be used', () => {
  test.each([
    [
      'nothing listening',
      async () => `http://127.0.0.1:${await freePort()}`,
      ['--fork-retries', '0'],
      'did not answer: connection refused',
    ],
    ['another chain id', async () => proxy.url, ['--fork-chain-id', '1'], 'serves chain id 31337, not 1'],
    ['a block it does not have', async () => proxy.url, ['--fork-block-number', '999999'], 'has no block 999999'],
    ['not http', async () => 'ftp://127.0.0.1:1', [], '--fork-url must be http:// or https://'],
    [
      'a hardfork that cannot continue its header',
      async () => proxy.url,
      ['--hardfork', 'cancun'],
      'has a prague header, which hardfork cancun cannot continue',
    ],
  ])('%s stops the start in one line', async (_, url, args, message) => {
    const result = await runToEnd([
      '--in-memory',
      '--port',
      '0',
      '--no-fork-cache',
      '--fork-url',
      await url(),
      ...args,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(message);
  });

  test('an answer that is not JSON-RPC stops the start in one line', async () => {
    proxy.mode = 'garbage';
    try {
      const result = await runToEnd([
        '--in-memory',
        '--port',
        '0',
        '--no-fork-cache',
        '--fork-url',
        proxy.url,
        '--fork-retries',
        '1',
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr.split('\n')[0]).toBe(
        `error: the fork remote ${proxy.url} did not answer: what it sent is not JSON-RPC (tried 2 times)`,
      );
    } finally {
      proxy.mode = 'pass';
    }
  });

  test('a remote without eth_getProof stops the start in one line saying why', async () => {
    proxy.mode = 'noProofs';
    try {
      const result = await runToEnd(['--in-memory', '--port', '0', '--no-fork-cache', '--fork-url', proxy.url]);
      expect(result.code).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(
        new RegExp(
          `^error: the fork remote ${proxy.url} answered eth_getProof with an error: the method eth_getProof does not exist/is not available; a fork needs eth_getProof at block \\d+ \\(an archive node for an old block\\)$`,
        ),
      );
    } finally {
      proxy.mode = 'pass';
    }
  });

  test('a remote that stops answering mid-run fails the read that needs it, naming it; the node stays up and the read works later', async () => {
    const node = await fork(['--no-fork-cache', '--fork-timeout', '300', '--fork-retries', '1', '--accounts', '0']);
    try {
      proxy.mode = 'hang';
      const failed = await rpcCall(node.url, 'eth_getBalance', [funded[42], 'latest']);
      expect(failed.error.message).toBe(
        `the fork remote ${proxy.url} did not answer: timed out after 300 ms (tried 2 times)`,
      );
      expect(BigInt(await call(node.url, 'eth_blockNumber'))).toBeGreaterThanOrEqual(forkBlock);
      proxy.mode = 'pass';
      expect(await call(node.url, 'eth_getBalance', [funded[42], 'latest'])).toBe(
        await anvil.call('eth_getBalance', [funded[42], 'latest']),
      );
    } finally {
      proxy.mode = 'pass';
      await stop(node);
    }
  });
});

test("a deletion on forked state has the upstream's root: a second l2devnet upstream, a slot zeroed whose sibling was never read", async () => {
  const upstream = await runCommand(['--in-memory', '--port', '0', '--no-mining']);
  let node: RunningCommand | undefined;
  try {
    // A contract that stores calldata[32:64] at slot calldata[0:32] (PUSH1 32 CALLDATALOAD PUSH1 0
    // CALLDATALOAD SSTORE STOP), holding two slots whose hashed keys part at the first nibble: its
    // storage trie is one branch with two leaves.
    const store = '0x' + '5e'.repeat(20);
    const [kept, zeroed] = [ethers.zeroPadValue('0x01', 32), ethers.ZeroHash];
    expect([ethers.keccak256(kept)[2], ethers.keccak256(zeroed)[2]]).toEqual(['b', '2']);
    await call(upstream.url, 'anvil_setCode', [store, '0x6020356000355500']);
    await call(upstream.url, 'anvil_setStorageAt', [store, kept, ethers.zeroPadValue('0x07', 32)]);
    await call(upstream.url, 'anvil_setStorageAt', [store, zeroed, ethers.zeroPadValue('0x09', 32)]);
    await call(upstream.url, 'evm_mine');
    node = await runCommand([
      '--in-memory',
      '--port',
      '0',
      '--fork-url',
      upstream.url,
      '--no-fork-cache',
      '--accounts',
      '0',
      '--no-mining',
    ]);
    const w = dev(6);
    const raw = await w.signTransaction({
      to: store,
      data: ethers.concat([zeroed, ethers.ZeroHash]),
      gasLimit: 100_000n,
      nonce: 0,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
      chainId: 31337n,
      type: 2,
    });
    await call(upstream.url, 'eth_sendRawTransaction', [raw]);
    await call(upstream.url, 'evm_mine');
    const block = await call(upstream.url, 'eth_getBlockByNumber', ['latest', false]);
    await call(node.url, 'eth_sendRawTransaction', [raw]);
    await call(node.url, 'anvil_setNextBlockBaseFeePerGas', [block.baseFeePerGas]);
    await call(node.url, 'evm_mine', [block.timestamp]);
    const mine = await call(node.url, 'eth_getBlockByNumber', ['latest', false]);
    expect([mine.hash, mine.stateRoot, mine.receiptsRoot]).toEqual([block.hash, block.stateRoot, block.receiptsRoot]);
    // The storage trie is now the one leaf that was never read before the deletion.
    const proof = await call(node.url, 'eth_getProof', [store, [kept, zeroed], 'latest']);
    expect(proof).toEqual(await call(upstream.url, 'eth_getProof', [store, [kept, zeroed], 'latest']));
    expect(proof.storageProof.map((p: any) => p.value)).toEqual(['0x7', '0x0']);
  } finally {
    if (node !== undefined) await stop(node);
    await stop(upstream);
  }
});

test('a forked data directory resumes with its local blocks when --fork-url is given again, and says so in one line when not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'l2devnet-fork-data-'));
  const args = ['--port', '0', '--data-dir', dir, '--fork-url', proxy.url, '--fork-block-number', String(forkBlock)];
  try {
    const first = await runCommand(args);
    const hash = await call(first.url, 'eth_sendTransaction', [{ from: dev(0).address, to: funded[2], value: '0x1' }]);
    const mined = await call(first.url, 'eth_getTransactionReceipt', [hash]);
    await stop(first);
    const second = await runCommand(args);
    try {
      expect(BigInt(await call(second.url, 'eth_blockNumber'))).toBe(forkBlock + 1n);
      expect((await call(second.url, 'eth_getBlockByNumber', ['latest', false])).hash).toBe(mined.blockHash);
      expect(BigInt(await call(second.url, 'eth_getBalance', [funded[2], 'latest']))).toBe(
        BigInt(await anvil.call('eth_getBalance', [funded[2], hex(forkBlock)])) + 1n,
      );
      expect(await call(second.url, 'eth_getCode', [tokenAddress, 'latest'])).toBe(
        await anvil.call('eth_getCode', [tokenAddress, hex(forkBlock)]),
      );
    } finally {
      await stop(second);
    }
    const without = await runToEnd(['--port', '0', '--data-dir', dir]);
    expect(without.code).toBe(2);
    expect(without.stderr.split('\n')[0]).toBe(
      `error: the chain in this data directory is forked from chain 31337 at block ${forkBlock}: start with --fork-url of a node of that chain`,
    );
    const elsewhere = await runToEnd([...args.slice(0, -1), String(forkBlock - 1n)]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr.split('\n')[0]).toContain(`is forked at block ${forkBlock}, not ${forkBlock - 1n}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--preset linea-mainnet forks a chain of Linea mainnet's chain id, with the network's limits; another chain id is refused", async () => {
  const linea = await startAnvil(['--chain-id', '59144']);
  try {
    const node = await runCommand([
      '--in-memory',
      '--port',
      '0',
      '--preset',
      'linea-mainnet',
      '--fork-url',
      linea.url,
      '--no-fork-cache',
    ]);
    try {
      expect(await call(node.url, 'eth_chainId')).toBe('0xe708');
      expect(node.stdout()).toMatch(/Line limits: +\S*linea-mainnet\.toml/);
      expect((await call(node.url, 'l2_getLineLimits')).HUB).toBeGreaterThan(0);
    } finally {
      await stop(node);
    }
    const refused = await runToEnd([
      '--in-memory',
      '--port',
      '0',
      '--preset',
      'linea-mainnet',
      '--fork-url',
      proxy.url,
      '--no-fork-cache',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.split('\n')[0]).toContain('serves chain id 31337, not 59144');
  } finally {
    await linea.stop();
  }
});

test("lines TXHASH --fork-url runs a remote transaction again after its block's earlier ones and prints its counts against the limits", async () => {
  const block = await anvil.call('eth_getBlockByNumber', [hex(forkBlock - 1n), false]);
  const hash = block.transactions[150];
  const result = await runToEnd(['lines', hash, '--fork-url', proxy.url, '--no-fork-cache']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const [said, title] = result.stdout.split('\n');
  expect(said).toBe(
    `run again on a fork of ${proxy.url} at block ${forkBlock - 2n}, after the block's 150 transaction(s) before it`,
  );
  expect(title).toBe(`transaction ${hash}, block ${forkBlock - 1n}, tracer osaka`);
  expect(result.stdout).toMatch(/^HUB +~? +[1-9]\d* +\d+ +\d+\.\d%$/m);
  expect(result.stdout).toContain('no module over its limit');
  const dir = mkdtempSync(join(tmpdir(), 'l2devnet-limits-'));
  const tiny = join(dir, 'hub-100.toml');
  const mainnet = readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'limits', 'linea-mainnet.toml'), 'utf8');
  writeFileSync(tiny, mainnet.replace(/^HUB +=.*$/m, 'HUB = 100'));
  const over = await runToEnd(['lines', hash, '--fork-url', proxy.url, '--no-fork-cache', '--limits', tiny]);
  expect(over.code).toBe(0);
  rmSync(dir, { recursive: true, force: true });
  expect(over.stdout).toMatch(/first over its limit: HUB=[1-9]\d* above 100/);
  const unknown = await runToEnd(['lines', `0x${'ab'.repeat(32)}`, '--fork-url', proxy.url, '--no-fork-cache']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr.split('\n')[0]).toBe(
    `error: 0x${'ab'.repeat(32)} is not a mined transaction of the fork remote ${proxy.url}`,
  );
});

test('createDevnet forks in process: the same options, the same chain', async () => {
  const devnet = await createDevnet({
    forkUrl: proxy.url,
    forkBlockNumber: forkBlock,
    forkCache: false,
    log: () => {},
  });
  try {
    expect(devnet.chain.headNumber).toBe(forkBlock);
    const data = token.encodeFunctionData('balanceOf', [holders[30]]);
    expect(await devnet.provider.request({ method: 'eth_call', params: [{ to: tokenAddress, data }, 'latest'] })).toBe(
      await anvil.call('eth_call', [{ to: tokenAddress, data }, hex(forkBlock)]),
    );
  } finally {
    await devnet.close();
  }
  await expect(createDevnet({ forkBlockNumber: 5 })).rejects.toThrow(
    'createDevnet: option forkBlockNumber goes with option forkUrl',
  );
});

test('anvil_reset({ forking }) makes an in-memory node a fork of any remote at any block, as Hardhat and viem ask; listeners carry on', async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '--no-mining']);
  try {
    const filter = await call(node.url, 'eth_newBlockFilter');
    const data = token.encodeFunctionData('balanceOf', [holders[40]]);
    await call(node.url, 'hardhat_reset', [{ forking: { jsonRpcUrl: proxy.url, blockNumber: Number(forkBlock) } }]);
    expect(BigInt(await call(node.url, 'eth_blockNumber'))).toBe(forkBlock);
    expect(await call(node.url, 'eth_call', [{ to: tokenAddress, data }, 'latest'])).toBe(
      await anvil.call('eth_call', [{ to: tokenAddress, data }, hex(forkBlock)]),
    );
    expect((await call(node.url, 'anvil_metadata')).forkedNetwork.forkBlockNumber).toBe(Number(forkBlock));
    // viem's test client: the same remote at another block.
    const { createTestClient, http } = await import('viem');
    const client = createTestClient({ mode: 'anvil', transport: http(node.url) });
    await client.reset({ blockNumber: forkBlock - 1n, jsonRpcUrl: proxy.url });
    // The credits spent are written every second to the chain's database: the new one's, not the
    // closed one's (the node used to stop at that write, "Database is not open").
    await new Promise((r) => setTimeout(r, 1_100));
    expect(BigInt(await call(node.url, 'eth_blockNumber'))).toBe(forkBlock - 1n);
    expect(BigInt(await call(node.url, 'eth_call', [{ to: tokenAddress, data }, 'latest']))).toBe(41n * 10n ** 18n);
    // The block filter made before both resets still hears blocks.
    await call(node.url, 'evm_mine');
    const mined = await call(node.url, 'eth_getBlockByNumber', ['latest', false]);
    expect(await call(node.url, 'eth_getFilterChanges', [filter])).toContain(mined.hash);
    // A remote that is not there: refused with its reason, the fork stays.
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    await expect(call(node.url, 'anvil_reset', [{ forking: { jsonRpcUrl: nowhere } }])).rejects.toThrow(
      `the fork remote ${nowhere} did not answer: connection refused`,
    );
    expect(BigInt(await call(node.url, 'eth_blockNumber'))).toBe(forkBlock);
    await expect(call(node.url, 'anvil_reset', [{ forking: { blockNumber: 'ten' } }])).rejects.toThrow(
      'forking.blockNumber must be a block number',
    );
  } finally {
    await stop(node);
  }
  const dir = mkdtempSync(join(tmpdir(), 'l2devnet-fork-data-'));
  const onDisk = await runCommand(['--port', '0', '--data-dir', dir]);
  try {
    await expect(call(onDisk.url, 'anvil_reset', [{ forking: { jsonRpcUrl: proxy.url } }])).rejects.toThrow(
      'forking another remote or block needs an in-memory node: a data directory holds one chain',
    );
  } finally {
    await stop(onDisk);
    rmSync(dir, { recursive: true, force: true });
  }
});
