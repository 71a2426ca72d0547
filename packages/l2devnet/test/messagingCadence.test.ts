/**
 * When the node anchors and finalizes messages between its L1 and L2 (createDevnet's
 * messageAnchoringDelay and finalizationInterval, the command's --message-anchoring-delay and
 * --finalization-interval), and the hand-driven l2_anchorMessages and l2_finalize; each message then
 * claimed in process with viem, L2->L1 with the proof rebuilt as Linea's SDK rebuilds it.
 */
import {
  concat,
  createPublicClient,
  createWalletClient,
  custom,
  encodeFunctionData,
  keccak256,
  parseAbi,
  parseEther,
  parseEventLogs,
  zeroAddress,
  zeroHash,
} from 'viem';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

import { createDevnet } from '../src';
import type { Devnet, DevnetOptions } from '../src';

const L1_SERVICE = '0xd19d4B5d358258f05D7B411E21A1460D11B0876F';
const L2_SERVICE = '0x508Ca82Df566dCD1B0DE8296e70a96332cD644ec';
const MIN_FEE = 10n ** 14n;
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const abi = parseAbi([
  'function sendMessage(address _to, uint256 _fee, bytes _calldata) payable',
  'function claimMessage(address _from, address _to, uint256 _fee, uint256 _value, address _feeRecipient, bytes _calldata, uint256 _nonce)',
  'function claimMessageWithProof((bytes32[] proof, uint256 messageNumber, uint32 leafIndex, address from, address to, uint256 fee, uint256 value, address feeRecipient, bytes32 merkleRoot, bytes data) _params)',
  'event MessageSent(address indexed _from, address indexed _to, uint256 _fee, uint256 _value, uint256 _nonce, bytes _calldata, bytes32 indexed _messageHash)',
  'event L2MessagingBlockAnchored(uint256 indexed l2Block)',
  'event L2MerkleRootAdded(bytes32 indexed l2MerkleRoot, uint256 indexed treeDepth)',
]);

/** The clients of one devnet: a wallet and a reader on each chain. */
function clients(devnet: Devnet) {
  const l1 = devnet.l1!;
  return {
    l1: createPublicClient({ transport: custom(l1.provider) }),
    l2: createPublicClient({ transport: custom(devnet.provider) }),
    l1Wallet: createWalletClient({ account, chain: l1.viemChain, transport: custom(l1.provider) }),
    l2Wallet: createWalletClient({ account, chain: devnet.viemChain, transport: custom(devnet.provider) }),
  };
}

type Client = ReturnType<typeof clients>['l1'];
type Wallet = ReturnType<typeof clients>['l1Wallet'];

/** Sends a message with `value` to `to` from `wallet`'s chain's service; the MessageSent event's arguments and block. */
async function send(wallet: Wallet, reader: Client, to: Hex, fee: bigint, value: bigint) {
  const hash = await wallet.writeContract({
    address: wallet.chain!.id === 31337 ? L2_SERVICE : L1_SERVICE,
    abi,
    functionName: 'sendMessage',
    args: [to, fee, '0x'],
    value: value + fee,
  });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: 'MessageSent' });
  return { ...event.args, blockNumber: receipt.blockNumber };
}

/** A chain's head (viem's getBlockNumber answers from its cache for a few seconds). */
const head = async (chain: Pick<Devnet, 'provider'>) =>
  BigInt((await chain.provider.request({ method: 'eth_blockNumber' })) as string);

const status = async (devnet: Devnet, hash: Hex) =>
  ((await devnet.provider.request({ method: 'l2_getMessageStatus', params: [hash] })) as { status: string }).status;

/** The message's status once it is `wanted`, or after `ms` (3 s; less where it must not become `wanted`). */
async function statusOnce(devnet: Devnet, hash: Hex, wanted: string, ms = 3000): Promise<string> {
  for (let i = 0; i < ms / 20 && (await status(devnet, hash)) !== wanted; i++)
    await new Promise((r) => setTimeout(r, 20));
  return status(devnet, hash);
}

/** Linea's SDK's tree: 2^5 leaves (the message hashes, then zero hashes), keccak(left ‖ right). */
function merkleTree(leaves: Hex[]): { root: Hex; proof: (i: number) => Hex[] } {
  const levels: Hex[][] = [[...leaves, ...Array<Hex>(32 - leaves.length).fill(zeroHash)]];
  for (let d = 0; d < 5; d++) {
    const below = levels[d];
    levels.push(
      Array.from({ length: below.length / 2 }, (_, i) => keccak256(concat([below[2 * i], below[2 * i + 1]]))),
    );
  }
  return { root: levels[5][0], proof: (i) => Array.from({ length: 5 }, (_, d) => levels[d][(i >> d) ^ 1]) };
}

/** Claims the L2 message `m` on the L1 with its proof: leaf `leaf` of `tree`; the receipt's status. */
async function claimOnL1(
  wallet: Wallet,
  reader: Client,
  m: Awaited<ReturnType<typeof send>>,
  tree: ReturnType<typeof merkleTree>,
  leaf: number,
) {
  const hash = await wallet.writeContract({
    address: L1_SERVICE,
    abi,
    functionName: 'claimMessageWithProof',
    args: [
      {
        proof: tree.proof(leaf),
        messageNumber: m._nonce,
        leafIndex: leaf,
        from: m._from,
        to: m._to,
        fee: m._fee,
        value: m._value,
        feeRecipient: zeroAddress,
        merkleRoot: tree.root,
        data: m._calldata,
      },
    ],
  });
  return (await reader.waitForTransactionReceipt({ hash })).status;
}

async function withDevnet(opts: DevnetOptions, body: (devnet: Devnet) => Promise<void>): Promise<void> {
  const devnet = await createDevnet({ l1: true, log: () => {}, ...opts });
  try {
    await body(devnet);
  } finally {
    await devnet.close();
  }
}

test('manual: nothing is anchored or finalized until l2_anchorMessages and l2_finalize, which do it at once; the messages are then claimed in process, L2->L1 with its proof', () =>
  withDevnet({ messageAnchoringDelay: 'manual', finalizationInterval: 'manual' }, async (devnet) => {
    const { l1, l2, l1Wallet, l2Wallet } = clients(devnet);
    const to = '0x00000000000000000000000000000000000000a1';
    const down = await send(l1Wallet, l1, to, 0n, parseEther('1'));
    const mine = (d: Devnet['provider']) => d.request({ method: 'evm_mine' });
    await mine(devnet.l1!.provider);
    await mine(devnet.provider);
    expect(await status(devnet, down._messageHash)).toBe('sent');

    const anchored = await devnet.provider.request({ method: 'l2_anchorMessages' });
    expect(anchored).toEqual({ messageHashes: [down._messageHash], transactionHashes: [expect.any(String)] });
    const [anchoring] = (anchored as { transactionHashes: Hex[] }).transactionHashes;
    expect((await l2.getTransactionReceipt({ hash: anchoring })).status).toBe('success');
    expect(await status(devnet, down._messageHash)).toBe('claimable');
    expect(await devnet.l1!.provider.request({ method: 'l2_anchorMessages' })).toEqual({
      messageHashes: [],
      transactionHashes: [],
    });
    await l2.waitForTransactionReceipt({
      hash: await l2Wallet.writeContract({
        address: L2_SERVICE,
        abi,
        functionName: 'claimMessage',
        args: [account.address, to, 0n, parseEther('1'), zeroAddress, '0x', down._nonce],
        gas: 300_000n,
      }),
    });
    expect(await l2.getBalance({ address: to })).toBe(parseEther('1'));
    expect(await status(devnet, down._messageHash)).toBe('claimed');

    // Two L2 messages in two blocks: one finalization, one tree over both.
    const up = [
      await send(l2Wallet, l2, to, MIN_FEE, 5n),
      await send(l2Wallet, l2, '0x00000000000000000000000000000000000000a2', MIN_FEE, 7n),
    ];
    expect(up[1].blockNumber).toBe(up[0].blockNumber + 1n);
    expect(await status(devnet, up[0]._messageHash)).toBe('sent');
    const tree = merkleTree(up.map((m) => m._messageHash));
    const head = await l2.getBlockNumber();
    const finalized = (await devnet.l1!.provider.request({ method: 'l2_finalize' })) as Record<string, unknown>;
    expect(finalized).toEqual({
      l2BlockNumber: `0x${head.toString(16)}`,
      merkleRoots: [tree.root],
      messagingBlocks: up.map((m) => `0x${m.blockNumber.toString(16)}`),
      transactionHashes: [expect.any(String)],
    });
    const logs = parseEventLogs({
      abi,
      logs: (await l1.getTransactionReceipt({ hash: (finalized.transactionHashes as Hex[])[0] })).logs,
    });
    expect(logs.map((l) => l.eventName)).toEqual([
      'L2MerkleRootAdded',
      'L2MessagingBlockAnchored',
      'L2MessagingBlockAnchored',
    ]);
    expect(await status(devnet, up[1]._messageHash)).toBe('claimable');
    expect(await devnet.provider.request({ method: 'l2_finalize' })).toBeNull();

    const m = up[1];
    expect(await claimOnL1(l1Wallet, l1, m, tree, 1)).toBe('success');
    expect(await l1.getBalance({ address: m._to })).toBe(7n);
    expect(await status(devnet, m._messageHash)).toBe('claimed');
    expect(await status(devnet, up[0]._messageHash)).toBe('claimable');
  }));

test('an anchoring delay of 2 blocks: an L1 message is anchored once 2 L1 blocks are on top of its own', () =>
  withDevnet({ messageAnchoringDelay: 2 }, async (devnet) => {
    const { l1, l1Wallet } = clients(devnet);
    const m = await send(l1Wallet, l1, '0x00000000000000000000000000000000000000a1', 0n, 1n);
    await devnet.l1!.provider.request({ method: 'evm_mine' });
    expect(await statusOnce(devnet, m._messageHash, 'claimable', 300)).toBe('sent');
    await devnet.l1!.provider.request({ method: 'evm_mine' });
    expect(await statusOnce(devnet, m._messageHash, 'claimable')).toBe('claimable');
  }));

test('cadences in seconds: an L1 message anchored that long after the node saw it, an L2 message finalized on the next tick', () =>
  withDevnet({ messageAnchoringDelay: '1s', finalizationInterval: '1s' }, async (devnet) => {
    const { l1, l2, l1Wallet, l2Wallet } = clients(devnet);
    const down = await send(l1Wallet, l1, '0x00000000000000000000000000000000000000a1', 0n, 1n);
    const seen = Date.now();
    const up = await send(l2Wallet, l2, '0x00000000000000000000000000000000000000a1', MIN_FEE, 1n);
    expect(await status(devnet, down._messageHash)).toBe('sent');
    expect(await status(devnet, up._messageHash)).toBe('sent');
    expect(await statusOnce(devnet, down._messageHash, 'claimable')).toBe('claimable');
    expect(Date.now() - seen).toBeGreaterThanOrEqual(900);
    expect(await statusOnce(devnet, up._messageHash, 'claimable')).toBe('claimable');
  }));

test('a finalization interval of 3 blocks: L2 blocks 1 to 3 are finalized at block 3 in one transaction, and --auto-claim claims both messages with their proofs', () =>
  withDevnet({ finalizationInterval: 3, autoClaim: true }, async (devnet) => {
    const { l1, l2, l2Wallet } = clients(devnet);
    const to = ['0x00000000000000000000000000000000000000b1', '0x00000000000000000000000000000000000000b2'] as const;
    const up = [await send(l2Wallet, l2, to[0], MIN_FEE, 11n), await send(l2Wallet, l2, to[1], MIN_FEE, 13n)];
    expect(up.map((m) => m.blockNumber)).toEqual([1n, 2n]);
    expect(await statusOnce(devnet, up[1]._messageHash, 'claimable', 300)).toBe('sent');
    await devnet.provider.request({ method: 'evm_mine' });
    expect(await statusOnce(devnet, up[1]._messageHash, 'claimed')).toBe('claimed');
    expect(await statusOnce(devnet, up[0]._messageHash, 'claimed')).toBe('claimed');
    expect([await l1.getBalance({ address: to[0] }), await l1.getBalance({ address: to[1] })]).toEqual([11n, 13n]);
    const anchored = await l1.getContractEvents({
      address: L1_SERVICE,
      abi,
      eventName: 'L2MessagingBlockAnchored',
      fromBlock: 0n,
    });
    expect(anchored.map((e) => e.args.l2Block)).toEqual([1n, 2n]);
    expect(new Set(anchored.map((e) => e.transactionHash)).size).toBe(1);
    const roots = await l1.getContractEvents({
      address: L1_SERVICE,
      abi,
      eventName: 'L2MerkleRootAdded',
      fromBlock: 0n,
    });
    expect(roots.map((e) => e.args.l2MerkleRoot)).toEqual([merkleTree(up.map((m) => m._messageHash)).root]);
  }));

test("the operator's anchoring is a priority sender's transaction: first in the L2 block, ahead of a user who pays more (--tx-pool-priority-senders, as Linea's profile lists its coordinator)", () =>
  withDevnet({ mining: false }, async (devnet) => {
    const { l1, l1Wallet, l2Wallet } = clients(devnet);
    const user = await l2Wallet.sendTransaction({
      to: '0x00000000000000000000000000000000000000c1',
      value: 1n,
      maxPriorityFeePerGas: 10n ** 10n,
      maxFeePerGas: 10n ** 11n,
    });
    const m = await send(l1Wallet, l1, '0x00000000000000000000000000000000000000a1', 0n, 1n);
    const pooled = async () =>
      Number(((await devnet.provider.request({ method: 'txpool_status' })) as { pending: string }).pending);
    for (let i = 0; i < 150 && (await pooled()) < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await devnet.provider.request({ method: 'evm_mine' });
    const block = (await devnet.provider.request({ method: 'eth_getBlockByNumber', params: ['latest', true] })) as {
      transactions: { hash: Hex; from: Hex; maxPriorityFeePerGas: Hex }[];
    };
    expect(block.transactions.map((t) => t.hash).slice(1)).toEqual([user]);
    expect(BigInt(block.transactions[0].maxPriorityFeePerGas)).toBeLessThan(10n ** 10n);
    expect(await status(devnet, m._messageHash)).toBe('claimable');
  }));

test('an anchoring undone by a rollback of the L2 alone is made again at the next L1 block', () =>
  withDevnet({}, async (devnet) => {
    const { l1, l1Wallet } = clients(devnet);
    const m = await send(l1Wallet, l1, '0x00000000000000000000000000000000000000a1', 0n, 1n);
    expect(await statusOnce(devnet, m._messageHash, 'claimable')).toBe('claimable');
    await devnet.l1!.idle();
    // The anchoring is the L2's last block.
    expect(await devnet.provider.request({ method: 'anvil_rollback', params: [1] })).toBeNull();
    expect(await status(devnet, m._messageHash)).toBe('sent');
    await devnet.l1!.provider.request({ method: 'evm_mine' });
    expect(await statusOnce(devnet, m._messageHash, 'claimable')).toBe('claimable');
  }));

test('a rollback of the L1 alone below a message the L2 anchored takes the L2 back to before the anchoring; the next message is anchored', () =>
  withDevnet({}, async (devnet) => {
    const { l1, l2, l1Wallet } = clients(devnet);
    const l1Provider = devnet.l1!.provider;
    const m = await send(l1Wallet, l1, '0x00000000000000000000000000000000000000a1', 0n, 1n);
    expect(await statusOnce(devnet, m._messageHash, 'claimable')).toBe('claimable');
    await devnet.l1!.idle();
    const anchoredAt = await head(devnet);
    // The message's block goes; so does the L2's anchoring of it (and the L2 blocks after it).
    expect(await l1Provider.request({ method: 'anvil_rollback', params: [1] })).toBeNull();
    expect(await head(devnet)).toBe(anchoredAt - 1n);
    expect(await devnet.provider.request({ method: 'l2_getMessageStatus', params: [m._messageHash] })).toBeNull();
    // Without that, the L2 held message 1 anchored and this one, message 1 again, stayed "sent".
    const again = await send(l1Wallet, l1, '0x00000000000000000000000000000000000000a2', 0n, 2n);
    expect(again._nonce).toBe(m._nonce);
    expect(await statusOnce(devnet, again._messageHash, 'claimable')).toBe('claimable');
  }));

test('a reorg of the L1 alone that replaces a message the L2 anchored: the L2 drops the anchoring and anchors the new one', () =>
  withDevnet({}, async (devnet) => {
    const { l1, l1Wallet } = clients(devnet);
    const l1Provider = devnet.l1!.provider;
    const m = await send(l1Wallet, l1, '0x00000000000000000000000000000000000000a1', 0n, 1n);
    expect(await statusOnce(devnet, m._messageHash, 'claimable')).toBe('claimable');
    await devnet.l1!.idle();
    const data = encodeFunctionData({
      abi,
      functionName: 'sendMessage',
      args: ['0x00000000000000000000000000000000000000a3', 0n, '0x'],
    });
    const replacement = { from: account.address, to: L1_SERVICE, data, value: '0x3', gas: '0x30d40' };
    expect(await l1Provider.request({ method: 'anvil_reorg', params: [1, [[replacement, 0]]] })).toBeNull();
    expect(await devnet.provider.request({ method: 'l2_getMessageStatus', params: [m._messageHash] })).toBeNull();
    const logs = await l1.getContractEvents({ address: L1_SERVICE, abi, eventName: 'MessageSent', fromBlock: 0n });
    expect(logs).toHaveLength(1);
    const replaced = logs[0].args._messageHash!;
    expect(replaced).not.toBe(m._messageHash);
    await devnet.l1!.provider.request({ method: 'evm_mine' });
    expect(await statusOnce(devnet, replaced, 'claimable')).toBe('claimable');
  }));

test('a rollback of the L2 alone below a block the L1 finalized takes the L1 back to before the finalization; the next message is finalized and claimed with its proof', () =>
  withDevnet({}, async (devnet) => {
    const { l1, l2, l1Wallet, l2Wallet } = clients(devnet);
    const out = await send(l2Wallet, l2, '0x00000000000000000000000000000000000000d1', MIN_FEE, 1n);
    expect(await statusOnce(devnet, out._messageHash, 'claimable')).toBe('claimable');
    await devnet.l1!.idle();
    const finalizedAt = await head(devnet.l1!);
    // The message's block goes; so does the L1's finalization of it.
    expect(await devnet.provider.request({ method: 'anvil_rollback', params: [1] })).toBeNull();
    expect(await head(devnet.l1!)).toBe(finalizedAt - 1n);
    expect(await devnet.provider.request({ method: 'l2_getMessageStatus', params: [out._messageHash] })).toBeNull();
    // Without that, the L1 held this block number finalized: this message, sent in it again, was
    // "claimable" but had no root on the L1 to be proven against.
    const again = await send(l2Wallet, l2, '0x00000000000000000000000000000000000000d2', MIN_FEE, 2n);
    expect(again.blockNumber).toBe(out.blockNumber);
    expect(await statusOnce(devnet, again._messageHash, 'claimable')).toBe('claimable');
    await devnet.l1!.idle();
    expect(await claimOnL1(l1Wallet, l1, again, merkleTree([again._messageHash!]), 0)).toBe('success');
  }));

test('a revert of the L2 takes the L1 back with it: the message it had anchored is gone from both', () =>
  withDevnet({}, async (devnet) => {
    const { l1, l1Wallet } = clients(devnet);
    const snapshot = await devnet.provider.request({ method: 'evm_snapshot' });
    const m = await send(l1Wallet, l1, '0x00000000000000000000000000000000000000a1', 0n, 1n);
    expect(await statusOnce(devnet, m._messageHash, 'claimable')).toBe('claimable');
    expect(await devnet.provider.request({ method: 'evm_revert', params: [snapshot] })).toBe(true);
    expect(await devnet.provider.request({ method: 'l2_getMessageStatus', params: [m._messageHash] })).toBeNull();
    expect(await devnet.l1!.provider.request({ method: 'eth_blockNumber', params: [] })).toBe('0x0');
  }));

test(
  'a range of more than 500 messaging blocks is finalized in parts, each claimable with its own tree',
  () =>
    withDevnet({ finalizationInterval: 'manual' }, async (devnet) => {
      const { l1, l2, l1Wallet, l2Wallet } = clients(devnet);
      const up = [];
      for (let i = 0; i < 502; i++)
        up.push(await send(l2Wallet, l2, '0x00000000000000000000000000000000000000d1', MIN_FEE, 1n));
      const done = (await devnet.provider.request({ method: 'l2_finalize' })) as {
        merkleRoots: Hex[];
        messagingBlocks: Hex[];
        transactionHashes: Hex[];
      };
      expect(done.transactionHashes).toHaveLength(2);
      expect(done.messagingBlocks).toHaveLength(502);
      // The first part: 500 blocks, 500 messages in 16 trees; the second: the last 2.
      const last = merkleTree(up.slice(500).map((m) => m._messageHash));
      expect(done.merkleRoots).toHaveLength(17);
      expect(done.merkleRoots[16]).toBe(last.root);
      for (const hash of done.transactionHashes)
        expect((await l1.getTransactionReceipt({ hash })).status).toBe('success');
      const m = up[501];
      expect(await claimOnL1(l1Wallet, l1, m, last, 1)).toBe('success');
      expect(await status(devnet, up[0]._messageHash)).toBe('claimable');
    }),
  120_000,
);

test.each([
  [
    { messageAnchoringDelay: 'soon' },
    'messageAnchoringDelay must be a number of blocks (3), of seconds (10s, at most 2147483s) or manual; got "soon"',
  ],
  [
    { finalizationInterval: '0s' },
    'finalizationInterval must be a number of blocks from 1 (3), of seconds (10s, at most 2147483s) or manual; got "0s"',
  ],
  [
    { finalizationInterval: -1 },
    'finalizationInterval must be a number of blocks from 1 (3), of seconds (10s, at most 2147483s) or manual; got "-1"',
  ],
  [
    { finalizationInterval: 0 },
    'finalizationInterval must be a number of blocks from 1 (3), of seconds (10s, at most 2147483s) or manual; got "0"',
  ],
  [
    { messageAnchoringDelay: '2147484s' },
    'messageAnchoringDelay must be a number of blocks (3), of seconds (10s, at most 2147483s) or manual; got "2147484s"',
  ],
])('%j is refused with one line', async (opts, message) => {
  await expect(createDevnet({ l1: true, log: () => {}, ...opts })).rejects.toThrow(message);
});

test('the cadences need the L1', async () => {
  await expect(createDevnet({ finalizationInterval: 3, log: () => {} })).rejects.toThrow(/finalizationInterval.*l1/);
});
