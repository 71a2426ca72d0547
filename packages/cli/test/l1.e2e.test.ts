/**
 * --l1: an L1 beside the L2 in one process, on the one port under /l1, driven by real clients (viem
 * over HTTP, a raw WebSocket), in open and keyed mode, resumed from a data directory.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { LineaSDK, OnChainMessageStatus } from '@consensys/linea-sdk';
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers';

import {
  concat,
  createPublicClient,
  createWalletClient,
  custom,
  encodeFunctionData,
  http,
  keccak256,
  parseAbi,
  parseEther,
  parseEventLogs,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';

import { createDevnet } from '../../l2devnet/src';
import { rpcCall, runCommand, runToEnd } from './command';
import type { RunningCommand } from './command';

const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const DEV0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/**
 * The messages' and the token bridge's round trips run on both engines (both chains on each): the
 * node's own and ethereumjs, the reference it is held to.
 */
const ENGINES = ['l2devnet', 'ethereumjs'] as const;
/** Linea mainnet's addresses, where a chain made with --l1 holds the message services. */
const L1_SERVICE = '0xd19d4B5d358258f05D7B411E21A1460D11B0876F';
const L2_SERVICE = '0x508Ca82Df566dCD1B0DE8296e70a96332cD644ec';
const L1_BRIDGE = '0x051F1D88f0aF5763fB888eC4378b4D8B29ea3319';
const L2_BRIDGE = '0x353012dc4a9A6cF55c941bADC267f82004A8ceB9';

/** viem clients of the node at `url`: a reader and dev account 0's wallet on each chain. */
function clientsOf(url: string) {
  const chainOf = (id: number, at: string) =>
    ({
      id,
      name: String(id),
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [at] } },
    }) as const;
  const l1Url = `${url}/l1`;
  const account = privateKeyToAccount(KEY0);
  return {
    l1: createPublicClient({ transport: http(l1Url) }),
    l2: createPublicClient({ transport: http(url) }),
    l1Wallet: createWalletClient({ account, chain: chainOf(31338, l1Url), transport: http(l1Url) }),
    l2Wallet: createWalletClient({ account, chain: chainOf(31337, url), transport: http(url) }),
  };
}

async function stop(node: RunningCommand): Promise<void> {
  node.child.kill('SIGTERM');
  await node.exited;
}

async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
  const body = await rpcCall(url, method, params);
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

test('the L1 is its own chain at /l1: its own chain id, blocks and transfers, the same funded dev accounts', async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '--l1']);
  try {
    expect(node.stdout()).toContain(
      `L1:                chain id 31338 at ${node.url}/l1 and ${node.url.replace('http', 'ws')}/l1/ws`,
    );
    const l2 = createPublicClient({ transport: http(node.url) });
    const l1 = createPublicClient({ transport: http(`${node.url}/l1`) });
    expect([await l2.getChainId(), await l1.getChainId()]).toEqual([31337, 31338]);
    expect(await l1.getBalance({ address: DEV0 })).toBe(parseEther('10000'));
    const chain = {
      id: 31338,
      name: 'l1',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [`${node.url}/l1`] } },
    } as const;
    const wallet = createWalletClient({ account: privateKeyToAccount(KEY0), chain, transport: http(`${node.url}/l1`) });
    const hash = await wallet.sendTransaction({ to: '0x00000000000000000000000000000000000000aa', value: 5n });
    expect((await l1.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await l1.getBlockNumber()).toBe(1n);
    expect(await l2.getBlockNumber()).toBe(0n);
    expect(await l2.getBalance({ address: '0x00000000000000000000000000000000000000aa' })).toBe(0n);
    // The transaction is the L1's alone.
    expect(await call(`${node.url}/l1`, 'eth_getTransactionByHash', [hash])).toMatchObject({ hash });
    expect(await call(node.url, 'eth_getTransactionByHash', [hash])).toBeNull();
    // The L1's WebSocket hears the L1's blocks.
    const ws = new WebSocket(`${node.url.replace('http', 'ws')}/l1/ws`);
    await new Promise((resolve) => ws.once('open', resolve));
    const messages: any[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(m.toString())));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    await new Promise((r) => setTimeout(r, 100));
    await call(`${node.url}/l1`, 'evm_mine');
    for (let i = 0; i < 50 && messages.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    ws.close();
    expect(messages[1]?.params?.result?.number).toBe('0x2');
  } finally {
    await stop(node);
  }
});

test('keyed mode covers the L1 paths; without --l1 they are not there', async () => {
  const keyed = await runCommand(['--in-memory', '--port', '0', '--l1', '--api-key', 'K1']);
  try {
    expect(await call(`${keyed.url}/l1/v3/K1`, 'eth_chainId')).toBe('0x7a6a');
    const refused = await fetch(`${keyed.url}/l1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    expect(refused.status).toBe(401);
  } finally {
    await stop(keyed);
  }
  const plain = await runCommand(['--in-memory', '--port', '0']);
  try {
    const missing = await fetch(`${plain.url}/l1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    expect(missing.status).toBe(404);
  } finally {
    await stop(plain);
  }
});

test("the L1 has none of Linea's methods; without --l1, the messaging methods say how to get one", async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '--l1']);
  try {
    const transfer = { from: DEV0, to: DEV0, value: '0x1' };
    // The L2 answers Linea's estimate; the L1, a plain Ethereum chain, does not know it (as Anvil or geth).
    expect((await rpcCall(node.url, 'linea_estimateGas', [transfer])).result.gasLimit).toBe('0x5208');
    for (const [method, params] of [
      ['linea_estimateGas', [transfer]],
      ['linea_getBlockTracesCountersV2', [{ blockNumber: '0x0' }]],
      ['l2_traceCallLineCounts', [transfer]],
      ['linea_sendBundle', [{ txs: [], blockNumber: '0x1' }]],
      ['l2_getLineLimits', []],
    ] as const) {
      expect((await rpcCall(`${node.url}/l1`, method, [...params])).error).toEqual({
        code: -32601,
        message: `the method ${method} does not exist/is not available`,
      });
    }
    // The messaging methods are on both chains' paths.
    expect((await rpcCall(`${node.url}/l1`, 'l2_getMessageStatus', [`0x${'11'.repeat(32)}`])).result).toBeNull();
    expect(await call(`${node.url}/l1`, 'eth_blockNumber')).toBe('0x0');
  } finally {
    await stop(node);
  }
  const plain = await runCommand(['--in-memory', '--port', '0']);
  try {
    for (const [method, params] of [
      ['l2_getMessageStatus', [`0x${'11'.repeat(32)}`]],
      ['l2_getMessageStatus', ['not a hash']],
      ['l2_anchorMessages', []],
      ['l2_finalize', []],
    ] as const) {
      expect((await rpcCall(plain.url, method, [...params])).error).toEqual({
        code: -32601,
        message: `${method} needs the devnet's L1: start l2devnet with --l1 (createDevnet({ l1: true }) in process)`,
      });
    }
    expect(await call(plain.url, 'eth_blockNumber')).toBe('0x0');
  } finally {
    await stop(plain);
  }
});

test("eth_estimateGas of a call that names no fee: at the next base fee on the L2, as Besu's under Linea; at 0 on the L1, as geth's", async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '--l1']);
  try {
    // GASPRICE, PUSH1 0, SSTORE, STOP: a first write of a non-zero price costs 19,900 gas more than of 0.
    const reader = '0x00000000000000000000000000000000000000e1';
    const call = { from: DEV0, to: reader };
    const estimates: bigint[] = [];
    for (const url of [node.url, `${node.url}/l1`]) {
      expect((await rpcCall(url, 'anvil_setCode', [reader, '0x3a60005500'])).error).toBeUndefined();
      estimates.push(BigInt((await rpcCall(url, 'eth_estimateGas', [call])).result));
    }
    const [l2, l1] = estimates;
    expect(l2 - l1).toBeGreaterThanOrEqual(19_900n);
    // eth_sendTransaction fills in that estimate: the L2's write goes through with the price it paid.
    const hash = (await rpcCall(node.url, 'eth_sendTransaction', [call])).result;
    const receipt = (await rpcCall(node.url, 'eth_getTransactionReceipt', [hash])).result;
    expect(receipt.status).toBe('0x1');
    const stored = (await rpcCall(node.url, 'eth_getStorageAt', [reader, '0x0', 'latest'])).result;
    expect(BigInt(stored)).toBe(BigInt(receipt.effectiveGasPrice));
  } finally {
    await stop(node);
  }
});

test("with --l1, the L2's finalized and safe are the last L2 block finalized on the L1 as of the L1's finalized block", async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '--l1', '--finalization-interval', 'manual']);
  const l1 = `${node.url}/l1`;
  const tags = async () =>
    Promise.all(
      ['finalized', 'safe'].map(async (t) => (await call(node.url, 'eth_getBlockByNumber', [t, false])).number),
    );
  const settle = async (want: string[]) => {
    for (let i = 0; i < 100 && JSON.stringify(await tags()) !== JSON.stringify(want); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await tags()).toEqual(want);
  };
  try {
    await call(node.url, 'anvil_mine', ['0x5']);
    await settle(['0x0', '0x0']);
    const before = await call(l1, 'evm_snapshot');
    expect((await call(node.url, 'l2_finalize')).l2BlockNumber).toBe('0x5');
    expect(await call(l1, 'eth_call', [{ to: L1_SERVICE, data: '0x695378f5' }])).toBe(`0x${'5'.padStart(64, '0')}`);
    await settle(['0x5', '0x5']);
    // The L1 goes back before its finalization: so do the L2's tags.
    expect(await call(l1, 'evm_revert', [before])).toBe(true);
    await settle(['0x0', '0x0']);
    // Finalized again, in an L1 block the L1 does not call final yet: the L2 waits for it.
    await call(l1, 'evm_mine');
    await call(l1, 'l2_setFinality', [{ safe: '0x1', finalized: '0x1' }]);
    expect((await call(node.url, 'l2_finalize')).l2BlockNumber).toBe('0x5');
    await call(node.url, 'anvil_mine', ['0x1']);
    await settle(['0x0', '0x0']);
    await call(l1, 'l2_setFinality', [null]);
    await call(l1, 'evm_mine');
    await settle(['0x5', '0x5']);
  } finally {
    await stop(node);
  }
});

test('a snapshot or reset on either chain takes the other with it: messages sent after a revert of the L1 or the L2 alone, or a reset of the L1, are relayed and provable', async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '--l1']);
  const l1Url = `${node.url}/l1`;
  const abi = parseAbi([
    'function sendMessage(address _to, uint256 _fee, bytes _calldata) payable',
    'function l2MerkleRootsDepths(bytes32) view returns (uint256)',
    'event MessageSent(address indexed _from, address indexed _to, uint256 _fee, uint256 _value, uint256 _nonce, bytes _calldata, bytes32 indexed _messageHash)',
  ]);
  /** Sends a message from `from`'s service; its hash and block. */
  const send = async (url: string, service: string, value: bigint) => {
    const data = encodeFunctionData({ abi, functionName: 'sendMessage', args: [DEV0, 10n ** 15n, '0x'] });
    const hash = await call(url, 'eth_sendTransaction', [
      { from: DEV0, to: service, data, value: `0x${(value + 10n ** 15n).toString(16)}` },
    ]);
    const receipt = await call(url, 'eth_getTransactionReceipt', [hash]);
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: 'MessageSent' });
    return event.args._messageHash;
  };
  const status = async (hash: string) => (await call(node.url, 'l2_getMessageStatus', [hash]))?.status ?? null;
  const becomes = async (hash: string, want: string) => {
    for (let i = 0; i < 100 && (await status(hash)) !== want; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await status(hash)).toBe(want);
  };
  /** The depth of the L1's Merkle root over an L2 message alone in its block: 5 once it can be proven there. */
  const provable = async (hash: `0x${string}`) => {
    let level: `0x${string}`[] = [hash, ...Array<`0x${string}`>(31).fill(`0x${'00'.repeat(32)}`)];
    while (level.length > 1)
      level = Array.from({ length: level.length / 2 }, (_, i) => keccak256(concat([level[2 * i], level[2 * i + 1]])));
    const data = encodeFunctionData({ abi, functionName: 'l2MerkleRootsDepths', args: [level[0]] });
    return BigInt(await call(l1Url, 'eth_call', [{ to: L1_SERVICE, data }, 'latest']));
  };
  try {
    // The L1 alone goes back after its message was anchored on the L2: the anchoring goes too.
    const before = await call(l1Url, 'evm_snapshot');
    const first = await send(l1Url, L1_SERVICE, 1n);
    await becomes(first, 'claimable');
    expect(await call(l1Url, 'evm_revert', [before])).toBe(true);
    expect(await status(first)).toBeNull();
    const again = await send(l1Url, L1_SERVICE, 2n);
    await becomes(again, 'claimable');

    // The L2 alone goes back after its message's block was finalized on the L1: so does the finalization.
    const l2Before = await call(node.url, 'evm_snapshot');
    const out = await send(node.url, L2_SERVICE, 3n);
    await becomes(out, 'claimable');
    expect(await call(node.url, 'evm_revert', [l2Before])).toBe(true);
    expect(await status(out)).toBeNull();
    const outAgain = await send(node.url, L2_SERVICE, 4n);
    await becomes(outAgain, 'claimable');
    expect(await provable(outAgain)).toBe(5n);

    // A reset of the L1 starts the L2 again too.
    expect(await call(l1Url, 'anvil_reset', [])).toBeNull();
    expect([await call(node.url, 'eth_blockNumber'), await call(l1Url, 'eth_blockNumber')]).toEqual(['0x0', '0x0']);
    const afterReset = await send(l1Url, L1_SERVICE, 5n);
    await becomes(afterReset, 'claimable');
  } finally {
    await stop(node);
  }
});

test('a data directory keeps both chains: a restart resumes each at its own head', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'l2devnet-l1-'));
  try {
    const args = ['--port', '0', '--data-dir', dir, '--l1'];
    const first = await runCommand(args);
    await call(`${first.url}/l1`, 'anvil_mine', ['0x3']);
    await call(first.url, 'anvil_mine', ['0x2']);
    await stop(first);
    const second = await runCommand(args);
    try {
      expect(await call(`${second.url}/l1`, 'eth_blockNumber')).toBe('0x3');
      expect(await call(second.url, 'eth_blockNumber')).toBe('0x2');
    } finally {
      await stop(second);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.each([
  [['--l1', '--l1-chain-id', '31337'], 'error: --l1-chain-id must differ from the L2\'s chain id; got "31337"'],
  [['--l1-block-time', '2'], 'error: --l1-block-time goes with --l1'],
  [['--auto-claim'], 'error: --auto-claim goes with --l1'],
  [['--l1', '--l1-block-time', '0'], 'error: --l1-block-time must be a positive number of seconds; got "0"'],
  [['--finalization-interval', '3'], 'error: --finalization-interval goes with --l1'],
  [
    ['--l1', '--message-anchoring-delay', '2 blocks'],
    'error: --message-anchoring-delay must be a number of blocks (3), of seconds (10s, at most 2147483s) or manual; got "2 blocks"',
  ],
])('%j stops the start in one line', async (args, message) => {
  const result = await runToEnd(['--in-memory', '--port', '0', ...args]);
  expect(result.code).toBe(2);
  expect(result.stderr.split('\n')[0]).toBe(message);
});

test('createDevnet({ l1: true }) gives the L1 a provider of its own', async () => {
  const devnet = await createDevnet({ l1: true, log: () => {} });
  try {
    expect(await devnet.l1?.provider.request({ method: 'eth_chainId' })).toBe('0x7a6a');
    expect(devnet.l1?.viemChain.id).toBe(31338);
    await devnet.l1?.provider.request({ method: 'evm_mine' });
    expect(devnet.l1?.chain.headNumber).toBe(1n);
    expect(devnet.chain.headNumber).toBe(0n);
  } finally {
    await devnet.close();
  }
  const none = await createDevnet({ log: () => {} });
  expect(none.l1).toBeUndefined();
  await none.close();
});

test.each(ENGINES)(
  'an L1 message is anchored on the L2 after its L1 block, and claimed there with viem (--engine %s)',
  async (engine) => {
    const node = await runCommand(['--in-memory', '--port', '0', '--l1', '--engine', engine]);
    expect(node.stdout()).toContain(`Engine:            ${engine}`);
    try {
      const l1Abi = parseAbi([
        'function sendMessage(address _to, uint256 _fee, bytes _calldata) payable',
        'event MessageSent(address indexed _from, address indexed _to, uint256 _fee, uint256 _value, uint256 _nonce, bytes _calldata, bytes32 indexed _messageHash)',
      ]);
      const l2Abi = parseAbi([
        'function inboxL1L2MessageStatus(bytes32) view returns (uint256)',
        'function minimumFeeInWei() view returns (uint256)',
        'function claimMessage(address _from, address _to, uint256 _fee, uint256 _value, address _feeRecipient, bytes _calldata, uint256 _nonce)',
      ]);
      const l1Url = `${node.url}/l1`;
      const { l1, l2, l1Wallet, l2Wallet } = clientsOf(node.url);
      expect(await l2.readContract({ address: L2_SERVICE, abi: l2Abi, functionName: 'minimumFeeInWei' })).toBe(
        10n ** 14n,
      );

      const to = '0x00000000000000000000000000000000000000bb';
      const [fee, value] = [parseEther('0.001'), parseEther('3')];
      const sent = await l1Wallet.writeContract({
        address: L1_SERVICE,
        abi: l1Abi,
        functionName: 'sendMessage',
        args: [to, fee, '0x'],
        value: value + fee,
      });
      const receipt = await l1.waitForTransactionReceipt({ hash: sent });
      const [event] = parseEventLogs({ abi: l1Abi, logs: receipt.logs, eventName: 'MessageSent' });
      const status = () =>
        l2.readContract({
          address: L2_SERVICE,
          abi: l2Abi,
          functionName: 'inboxL1L2MessageStatus',
          args: [event.args._messageHash],
        });
      for (let i = 0; i < 100 && (await status()) !== 1n; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await status()).toBe(1n);

      const claim = await l2Wallet.writeContract({
        address: L2_SERVICE,
        abi: l2Abi,
        functionName: 'claimMessage',
        args: [DEV0, to, fee, value, '0x0000000000000000000000000000000000000000', '0x', event.args._nonce],
        gas: 300_000n,
      });
      expect((await l2.waitForTransactionReceipt({ hash: claim })).status).toBe('success');
      expect(await status()).toBe(2n);
      expect(await l2.getBalance({ address: to })).toBeGreaterThanOrEqual(value);
      // l2_getMessageStatus, on either chain's path.
      for (const url of [node.url, l1Url])
        expect(await call(url, 'l2_getMessageStatus', [event.args._messageHash])).toEqual({
          direction: 'L1->L2',
          status: 'claimed',
          nonce: '0x1',
          blockNumber: `0x${receipt.blockNumber.toString(16)}`,
        });
      expect(await call(node.url, 'l2_getMessageStatus', [`0x${'12'.repeat(32)}`])).toBeNull();
      expect((await rpcCall(node.url, 'l2_getMessageStatus', ['0x12'])).error.code).toBe(-32602);
    } finally {
      await stop(node);
    }
  },
);

test.each(ENGINES)(
  "an L2 message is finalized on the L1 after its L2 block, and claimed there with the proof Linea's SDK builds (--engine %s)",
  async (engine) => {
    const node = await runCommand(['--in-memory', '--port', '0', '--l1', '--engine', engine]);
    expect(node.stdout()).toContain(`Engine:            ${engine}`);
    try {
      const l2Abi = parseAbi([
        'function sendMessage(address _to, uint256 _fee, bytes _calldata) payable',
        'event MessageSent(address indexed _from, address indexed _to, uint256 _fee, uint256 _value, uint256 _nonce, bytes _calldata, bytes32 indexed _messageHash)',
      ]);
      const l1Abi = parseAbi([
        'function l2MerkleRootsDepths(bytes32) view returns (uint256)',
        'function isMessageClaimed(uint256) view returns (bool)',
        'event L2MessagingBlockAnchored(uint256 indexed l2Block)',
        'function claimMessageWithProof((bytes32[] proof, uint256 messageNumber, uint32 leafIndex, address from, address to, uint256 fee, uint256 value, address feeRecipient, bytes32 merkleRoot, bytes data) _params)',
      ]);
      const { l1, l2, l1Wallet, l2Wallet } = clientsOf(node.url);

      const to = '0x00000000000000000000000000000000000000cc';
      const [fee, value] = [parseEther('0.0011'), parseEther('4')];
      const sent = await l2Wallet.writeContract({
        address: L2_SERVICE,
        abi: l2Abi,
        functionName: 'sendMessage',
        args: [to, fee, '0x'],
        value: value + fee,
      });
      const receipt = await l2.waitForTransactionReceipt({ hash: sent });
      const [event] = parseEventLogs({ abi: l2Abi, logs: receipt.logs, eventName: 'MessageSent' });
      // The sequencer's bridge setting is the L2 service: its MessageSent is an L2-to-L1 log in the line counts.
      expect((await call(node.url, 'l2_traceLineCounts', [sent])).modules.BLOCK_L2_L1_LOGS.count).toBe(1);
      // The SDK's tree: 2^5 leaves, the block's messages then zero hashes, keccak(left ‖ right).
      let level: `0x${string}`[] = [event.args._messageHash, ...Array<`0x${string}`>(31).fill(`0x${'00'.repeat(32)}`)];
      const proof: `0x${string}`[] = [];
      while (level.length > 1) {
        proof.push(level[1]);
        const next: `0x${string}`[] = [];
        for (let i = 0; i < level.length; i += 2) next.push(keccak256(concat([level[i], level[i + 1]])));
        level = next;
      }
      const root = level[0];
      const depth = () =>
        l1.readContract({ address: L1_SERVICE, abi: l1Abi, functionName: 'l2MerkleRootsDepths', args: [root] });
      for (let i = 0; i < 100 && (await depth()) !== 5n; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await depth()).toBe(5n);
      const anchored = await l1.getContractEvents({
        address: L1_SERVICE,
        abi: l1Abi,
        eventName: 'L2MessagingBlockAnchored',
        fromBlock: 0n,
      });
      expect(anchored.map((e) => e.args.l2Block)).toEqual([receipt.blockNumber]);
      expect((await call(node.url, 'l2_getMessageStatus', [event.args._messageHash])).status).toBe('claimable');

      const claim = await l1Wallet.writeContract({
        address: L1_SERVICE,
        abi: l1Abi,
        functionName: 'claimMessageWithProof',
        args: [
          {
            proof,
            messageNumber: event.args._nonce,
            leafIndex: 0,
            from: DEV0,
            to,
            fee: event.args._fee,
            value,
            feeRecipient: '0x0000000000000000000000000000000000000000',
            merkleRoot: root,
            data: '0x',
          },
        ],
        gas: 300_000n,
      });
      expect((await l1.waitForTransactionReceipt({ hash: claim })).status).toBe('success');
      expect(
        await l1.readContract({
          address: L1_SERVICE,
          abi: l1Abi,
          functionName: 'isMessageClaimed',
          args: [event.args._nonce],
        }),
      ).toBe(true);
      expect(await l1.getBalance({ address: to })).toBeGreaterThanOrEqual(value);
      expect(await call(node.url, 'l2_getMessageStatus', [event.args._messageHash])).toMatchObject({
        direction: 'L2->L1',
        status: 'claimed',
      });
    } finally {
      await stop(node);
    }
  },
);

/** Linea's SDK on `node`'s two chains, signing with the first dev account, and its two message services. */
function lineaSdk(node: RunningCommand) {
  const sdk = new LineaSDK({
    network: 'localhost',
    l1RpcUrl: `${node.url}/l1`,
    l2RpcUrl: node.url,
    mode: 'read-write',
    l1SignerPrivateKey: KEY0,
    l2SignerPrivateKey: KEY0,
  });
  return { sdk, onL1: sdk.getL1Contract(L1_SERVICE, L2_SERVICE), onL2: sdk.getL2Contract(L2_SERVICE) };
}

/** `read()` once it answers `want`, or what it answers after ~2 s. */
async function until(read: () => Promise<unknown>, want: unknown): Promise<unknown> {
  for (let i = 0; i < 100 && (await read()) !== want; i++) await new Promise((r) => setTimeout(r, 20));
  return read();
}

test.each(ENGINES)(
  "Linea's SDK (@consensys/linea-sdk 0.3.0, unchanged) finds, proves and claims messages in both directions (--engine %s)",
  async (engine) => {
    const node = await runCommand(['--in-memory', '--port', '0', '--l1', '--engine', engine]);
    expect(node.stdout()).toContain(`Engine:            ${engine}`);
    try {
      const { sdk, onL1, onL2 } = lineaSdk(node);
      const send = async (url: string, service: string, fee: bigint, value: bigint) => {
        const wallet = new Wallet(KEY0, new JsonRpcProvider(url, undefined, { staticNetwork: true }));
        const abi = ['function sendMessage(address _to, uint256 _fee, bytes _calldata) payable'];
        const tx = await new Contract(service, abi, wallet).sendMessage(
          '0x00000000000000000000000000000000000000ee',
          fee,
          '0x',
          {
            value: value + fee,
          },
        );
        return (await tx.wait())!.hash;
      };

      // L1 to L2: anchored by the node, claimable on the L2, claimed there through the SDK.
      const [toL2] = await onL1.getMessagesByTransactionHash(
        await send(`${node.url}/l1`, L1_SERVICE, parseEther('0.01'), parseEther('1')),
      );
      expect(await until(() => onL2.getMessageStatus(toL2.messageHash), OnChainMessageStatus.CLAIMABLE)).toBe(
        OnChainMessageStatus.CLAIMABLE,
      );
      // With a gas limit: an estimate made without a gas price (as geth makes it) leaves out the fee's payment.
      await (await onL2.claim(toL2, { gasLimit: 300_000n })).wait();
      expect(await onL2.getMessageStatus(toL2.messageHash)).toBe(OnChainMessageStatus.CLAIMED);

      // L2 to L1: finalized by the node, its proof rebuilt by the SDK from the chains' events, claimed on the L1.
      const [toL1] = await onL2.getMessagesByTransactionHash(
        await send(node.url, L2_SERVICE, parseEther('0.0011'), parseEther('2')),
      );
      expect(await until(() => onL1.getMessageStatus(toL1.messageHash), OnChainMessageStatus.CLAIMABLE)).toBe(
        OnChainMessageStatus.CLAIMABLE,
      );
      const proof = await onL1.getMessageProof(toL1.messageHash);
      expect([proof.leafIndex, proof.proof.length]).toEqual([0, 5]);
      await (await onL1.claim(toL1)).wait();
      expect(await onL1.getMessageStatus(toL1.messageHash)).toBe(OnChainMessageStatus.CLAIMED);

      // The SDK's claiming service: it claims with proofs once the L2 service says it moved to them
      // (ServiceVersionMigrated(2), which the L2 service emits with its first message).
      const claiming = sdk.getL1ClaimingService(L1_SERVICE, L2_SERVICE);
      expect(await claiming.isClaimingNeedingProof(toL1.messageHash)).toBe(true);
      const [again] = await onL2.getMessagesByTransactionHash(
        await send(node.url, L2_SERVICE, parseEther('0.0011'), parseEther('3')),
      );
      expect(await until(() => claiming.getMessageStatus(again.messageHash), OnChainMessageStatus.CLAIMABLE)).toBe(
        OnChainMessageStatus.CLAIMABLE,
      );
      await (await claiming.claimMessage(again)).wait();
      expect(await claiming.getMessageStatus(again.messageHash)).toBe(OnChainMessageStatus.CLAIMED);
    } finally {
      await stop(node);
    }
  },
);

test.each(ENGINES)(
  "an ERC-20 crosses through the token bridge and back, each crossing claimed by hand with Linea's SDK (--engine %s)",
  async (engine) => {
    const node = await runCommand(['--in-memory', '--port', '0', '--l1', '--engine', engine]);
    expect(node.stdout()).toContain(`Engine:            ${engine}`);
    try {
      const { onL1, onL2 } = lineaSdk(node);
      // No cache: ethers answers a nonce asked for again within 250 ms from its cache.
      const provider = (url: string) => new JsonRpcProvider(url, undefined, { staticNetwork: true, cacheTimeout: -1 });
      const l1Wallet = new Wallet(KEY0, provider(`${node.url}/l1`));
      const l2Wallet = new Wallet(KEY0, provider(node.url));
      const bridgeAbi = [
        'function bridgeToken(address _token, uint256 _amount, address _recipient) payable',
        'function nativeToBridgedToken(uint256 chainId, address native) view returns (address)',
      ];
      const erc20 = [
        'function approve(address, uint256) returns (bool)',
        'function balanceOf(address) view returns (uint256)',
      ];
      const token = JSON.parse(
        readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'TestToken.json'), 'utf8'),
      ) as { abi: object[]; bytecode: string };
      const native = await (
        await new ContractFactory(token.abi, token.bytecode, l1Wallet).deploy('Hand', 'HND', parseEther('100'))
      ).getAddress();
      /** Approves and bridges `amount` of `asset` on `wallet`'s chain to DEV0; the message the SDK reads from its transaction. */
      const bridge = async (wallet: Wallet, bridgeAt: string, asset: string, amount: bigint, fee: bigint) => {
        await (await new Contract(asset, erc20, wallet).approve(bridgeAt, amount)).wait();
        const tx = await new Contract(bridgeAt, bridgeAbi, wallet).bridgeToken(asset, amount, DEV0, { value: fee });
        return (await tx.wait())!.hash;
      };

      // To the L2: the SDK claims it (the claim deploys the bridged token and mints to DEV0).
      const [toL2] = await onL1.getMessagesByTransactionHash(await bridge(l1Wallet, L1_BRIDGE, native, 30n, 0n));
      expect(await until(() => onL2.getMessageStatus(toL2.messageHash), OnChainMessageStatus.CLAIMABLE)).toBe(
        OnChainMessageStatus.CLAIMABLE,
      );
      await (await onL2.claim(toL2, { gasLimit: 3_000_000n })).wait();
      expect(await onL2.getMessageStatus(toL2.messageHash)).toBe(OnChainMessageStatus.CLAIMED);
      const l1ChainId = BigInt(await call(`${node.url}/l1`, 'eth_chainId'));
      const bridged = await new Contract(L2_BRIDGE, bridgeAbi, l2Wallet).nativeToBridgedToken(l1ChainId, native);
      expect(await new Contract(bridged, erc20, l2Wallet).balanceOf(DEV0)).toBe(30n);

      // Back to the L1: burned on the L2, finalized by the node, claimed with the proof the SDK builds.
      const [toL1] = await onL2.getMessagesByTransactionHash(
        await bridge(l2Wallet, L2_BRIDGE, bridged, 12n, parseEther('0.0001')),
      );
      expect(await until(() => onL1.getMessageStatus(toL1.messageHash), OnChainMessageStatus.CLAIMABLE)).toBe(
        OnChainMessageStatus.CLAIMABLE,
      );
      await (await onL1.claim(toL1)).wait();
      expect(await onL1.getMessageStatus(toL1.messageHash)).toBe(OnChainMessageStatus.CLAIMED);
      expect(await new Contract(native, erc20, l1Wallet).balanceOf(L1_BRIDGE)).toBe(18n);
      expect(await new Contract(bridged, erc20, l2Wallet).balanceOf(DEV0)).toBe(18n);
    } finally {
      await stop(node);
    }
  },
);

test('--auto-claim: the node claims each message once it can, in both directions, calldata and all', async () => {
  const node = await runCommand(['--in-memory', '--port', '0', '--l1', '--auto-claim']);
  try {
    const l1Url = `${node.url}/l1`;
    // A destination on each chain that keeps the calldata's first word in slot 0 (CALLDATALOAD 0, SSTORE 0).
    const sink = '0x00000000000000000000000000000000000000ff';
    for (const url of [l1Url, node.url]) await call(url, 'anvil_setCode', [sink, '0x60003560005500']);
    const word = `0x${'ab'.repeat(32)}` as const;
    const abi = ['function sendMessage(address _to, uint256 _fee, bytes _calldata) payable'];
    const send = async (url: string, service: string, fee: bigint) => {
      const wallet = new Wallet(KEY0, new JsonRpcProvider(url, undefined, { staticNetwork: true }));
      await (await new Contract(service, abi, wallet).sendMessage(sink, fee, word, { value: fee + 3n })).wait();
    };
    const slot = (url: string) => call(url, 'eth_getStorageAt', [sink, '0x0', 'latest']);
    await send(l1Url, L1_SERVICE, parseEther('0.001'));
    expect(await until(() => slot(node.url), word)).toBe(word);
    expect(BigInt(await call(node.url, 'eth_getBalance', [sink, 'latest']))).toBe(3n);
    await send(node.url, L2_SERVICE, parseEther('0.0002'));
    expect(await until(() => slot(l1Url), word)).toBe(word);
    expect(BigInt(await call(l1Url, 'eth_getBalance', [sink, 'latest']))).toBe(3n);
    expect(node.stderr()).toBe('');
  } finally {
    await stop(node);
  }
});

test("docs/l1-messages.md's example: createDevnet({ l1: true, autoClaim: true }) in process, a message sent with viem arrives on the L2", async () => {
  const devnet = await createDevnet({ l1: true, autoClaim: true, log: () => {} });
  try {
    const to = '0x00000000000000000000000000000000000000a1';
    const account = privateKeyToAccount(KEY0);
    const l1 = createWalletClient({ account, chain: devnet.l1!.viemChain, transport: custom(devnet.l1!.provider) });
    const abi = parseAbi(['function sendMessage(address,uint256,bytes) payable']);
    await l1.writeContract({
      address: '0xd19d4B5d358258f05D7B411E21A1460D11B0876F',
      abi,
      functionName: 'sendMessage',
      args: [to, 0n, '0x'],
      value: parseEther('1'),
    });
    const l2 = createPublicClient({ transport: custom(devnet.provider) });
    for (let i = 0; i < 100 && (await l2.getBalance({ address: to })) === 0n; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await l2.getBalance({ address: to })).toBe(parseEther('1'));
  } finally {
    await devnet.close();
  }
});

test("a node killed between a message's send and its anchoring or finalization delivers it after a restart", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'l2devnet-l1-kill-'));
  // Both chains mine only when asked: the operator's transactions wait in the pools when the node is killed.
  const args = ['--port', '0', '--data-dir', dir, '--l1', '--no-mining', '--l1-block-time', '3600'];
  const kill = async (node: RunningCommand) => {
    node.child.kill('SIGKILL');
    await node.exited;
  };
  const send = async (url: string, service: string, fee: bigint) => {
    const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true });
    const abi = ['function sendMessage(address _to, uint256 _fee, bytes _calldata) payable'];
    const data = new Contract(service, abi).interface.encodeFunctionData('sendMessage', [DEV0, fee, '0x']);
    const tx = await new Wallet(KEY0, provider).sendTransaction({
      to: service,
      data,
      value: fee + 5n,
      gasLimit: 200_000n,
    });
    provider.destroy();
    await call(url, 'evm_mine');
    const receipt = await call(url, 'eth_getTransactionReceipt', [tx.hash]);
    return receipt.logs.find(
      (l: { topics: string[] }) => l.topics[0] === '0xe856c2b8bd4eb0027ce32eeaf595c21b0b6b4644b326e5b7bd80a1cf8db72e6c',
    ).topics[3] as string;
  };
  const pending = async (url: string) => BigInt((await call(url, 'txpool_status')).pending);
  const settle = () => new Promise((r) => setTimeout(r, 200));
  try {
    // L1 to L2: mined on the L1, its anchoring waiting in the L2's pool, then killed.
    let node = await runCommand(args);
    const toL2 = await send(`${node.url}/l1`, L1_SERVICE, 0n);
    await settle();
    expect(await pending(node.url)).toBe(1n);
    await kill(node);
    node = await runCommand(args);
    await settle();
    await call(node.url, 'evm_mine');
    expect((await call(node.url, 'l2_getMessageStatus', [toL2])).status).toBe('claimable');

    // L2 to L1: mined on the L2, its finalization waiting in the L1's pool, then killed.
    const toL1 = await send(node.url, L2_SERVICE, parseEther('0.0001'));
    await settle();
    expect(await pending(`${node.url}/l1`)).toBe(1n);
    await kill(node);
    node = await runCommand(args);
    await settle();
    await call(`${node.url}/l1`, 'evm_mine');
    expect((await call(node.url, 'l2_getMessageStatus', [toL1])).status).toBe('claimable');
    expect(node.stderr()).toBe('');
    await stop(node);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
