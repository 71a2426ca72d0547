/**
 * The message services between the L1 and the L2 (fixtures/contracts/messaging): their interface
 * is Linea's (every selector, event topic and custom error the SDK's ABIs name), and they behave as
 * Linea's do in both directions: hashes and rolling hashes, anchoring, claiming, Merkle proofs built
 * as Linea's SDK builds them, fees and refunds, and each refusal with Linea's custom error.
 */
import { join } from 'node:path';

import {
  BrowserProvider,
  Contract,
  ContractFactory,
  Interface,
  keccak256,
  AbiCoder,
  concat,
  parseEther,
  ZeroAddress,
  ZeroHash,
  toBeHex,
} from 'ethers';
import type { Signer } from 'ethers';

import { bytesToHex } from '@ethereumjs/util';
import { Chain, L1_MESSAGE_SERVICE, L2_MESSAGE_SERVICE, MessageRelay } from '@l2devnet/core';
import { createProvider, createRpc } from '@l2devnet/rpc';

import { createDevnet } from '../src';
import type { Devnet } from '../src';

const MESSAGING = join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'messaging');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const L1Artifact = require(join(MESSAGING, 'LineaRollup.json')) as { abi: object[]; bytecode: string };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const L2Artifact = require(join(MESSAGING, 'L2MessageService.json')) as { abi: object[]; bytecode: string };

/**
 * Selectors and topics in the ABIs of @consensys/linea-sdk 0.3.0 (the version on npm), for what
 * these contracts implement, and where the SDK predates them, Linea's current interface
 * (contracts/src/rollup/interfaces/ILineaRollupBase.sol: DataFinalizedV3, currentFinalizedShnarf):
 * every one must be the same here.
 */
const LINEA_L1: Record<string, string> = {
  claimMessageWithProof: '0x6463fb2a',
  currentL2BlockNumber: '0x695378f5',
  isMessageClaimed: '0x9ee8b211',
  l2MerkleRootsDepths: '0x60e83cf3',
  nextMessageNumber: '0xb837dbe9',
  rollingHashes: '0x914e57eb',
  sender: '0x67e404ce',
  sendMessage: '0x9f3ce55a',
  L2MerkleRootAdded: '0x300e6f978eee6a4b0bba78dd8400dc64fd5652dbfc868a2258e16d0977be222b',
  L2MessagingBlockAnchored: '0x3c116827db9db3a30c1a25db8b0ee4bab9d2b223560209cfd839601b621c726d',
  DataFinalizedV3: '0xa0262dc79e4ccb71ceac8574ae906311ae338aa4a2044fd4ec4b99fad5ab60cb',
  stateRootHashes: '0x8be745d1',
  StartingRootHashDoesNotMatch: '0xead4c30e',
  currentFinalizedShnarf: '0xcd9b9e9a',
  MessageClaimed: '0xa4c827e719e911e8f19393ccdb85b5102f08f0910604d340ba38390b7ff2ab0e',
  MessageSent: '0xe856c2b8bd4eb0027ce32eeaf595c21b0b6b4644b326e5b7bd80a1cf8db72e6c',
  RollingHashUpdated: '0xea3b023b4c8680d4b4824f0143132c95476359a2bb70a81d6c5a36f6918f6339',
  FeePaymentFailed: '0xa57c4df4',
  FeeTooLow: '0x732f9413',
  InvalidMerkleProof: '0xb05e92fa',
  L2MerkleRootAlreadyAnchored: '0xe5d14425',
  L2MerkleRootDoesNotExist: '0x4e686675',
  MessageAlreadyClaimed: '0x335a4a90',
  MessageSendingFailed: '0x54613443',
  ProofLengthDifferentThanMerkleDepth: '0x5e3fd6ad',
  ValueSentTooLow: '0xb03b6932',
  ZeroAddressNotAllowed: '0x8579befe',
};
const LINEA_L2: Record<string, string> = {
  anchorL1L2MessageHashes: '0x3c362146',
  claimMessage: '0x491e0936',
  INBOX_STATUS_CLAIMED: '0x91f7b901',
  INBOX_STATUS_RECEIVED: '0x48922ab7',
  INBOX_STATUS_UNKNOWN: '0x7d1e8c55',
  inboxL1L2MessageStatus: '0x0f6893ca',
  l1RollingHashes: '0x7fe335d3',
  lastAnchoredL1MessageNumber: '0x9340a1d1',
  minimumFeeInWei: '0x89945883',
  nextMessageNumber: '0xb837dbe9',
  sender: '0x67e404ce',
  sendMessage: '0x9f3ce55a',
  L1L2MessageHashesAddedToInbox: '0x9995fb3da0c2de4012f2b814b6fc29ce7507571dcb20b8d0bd38621a842df1eb',
  MessageClaimed: '0xa4c827e719e911e8f19393ccdb85b5102f08f0910604d340ba38390b7ff2ab0e',
  MessageSent: '0xe856c2b8bd4eb0027ce32eeaf595c21b0b6b4644b326e5b7bd80a1cf8db72e6c',
  MinimumFeeChanged: '0x6d8040017e56a6d91bb242def14af5d7eae1eaff7475e45c678dac5d49d35498',
  RollingHashUpdated: '0x99b65a4301b38c09fb6a5f27052d73e8372bbe8f6779d678bfe8a41b66cce7ac',
  ServiceVersionMigrated: '0x6f4cd2683fd248db2513412cb2f25f767694689d6f083941f7437c8fe1f87964',
  FeePaymentFailed: '0xa57c4df4',
  FeeTooLow: '0x732f9413',
  FinalRollingHashIsZero: '0x36a4bb94',
  L1MessageNumberSynchronizationWrong: '0xd39e75f9',
  L1RollingHashSynchronizationWrong: '0x7557a60a',
  MessageDoesNotExistOrHasAlreadyBeenClaimed: '0x992d87c3',
  MessageHashesListLengthHigherThanOneHundred: '0x3b174434',
  MessageSendingFailed: '0x54613443',
  ValueSentTooLow: '0xb03b6932',
  ZeroAddressNotAllowed: '0x8579befe',
};

/** Every function, event and error of `abi` by name, with its selector or topic. */
function selectors(abi: object[]): Record<string, string> {
  const out: Record<string, string> = {};
  new Interface(abi as never).forEachFunction((f) => (out[f.name] = f.selector));
  new Interface(abi as never).forEachEvent((e) => (out[e.name] = e.topicHash));
  new Interface(abi as never).forEachError((e) => (out[e.name] = e.selector));
  return out;
}

const abi = AbiCoder.defaultAbiCoder();
const hashMessage = (from: string, to: string, fee: bigint, value: bigint, nonce: bigint, data: string) =>
  keccak256(
    abi.encode(['address', 'address', 'uint256', 'uint256', 'uint256', 'bytes'], [from, to, fee, value, nonce, data]),
  );
const pair = (a: string, b: string) => keccak256(concat([a, b]));

/** Linea's SDK's tree: 2^depth leaves (the message hashes, then zero hashes), keccak(left ‖ right). */
function merkleTree(leaves: string[], depth: number): { root: string; proof: (i: number) => string[] } {
  const levels: string[][] = [[...leaves, ...Array<string>(2 ** depth - leaves.length).fill(ZeroHash)]];
  for (let d = 0; d < depth; d++) {
    const below = levels[d];
    levels.push(Array.from({ length: below.length / 2 }, (_, i) => pair(below[2 * i], below[2 * i + 1])));
  }
  return {
    root: levels[depth][0],
    proof: (i) => Array.from({ length: depth }, (_, d) => levels[d][(i >> d) ^ 1]),
  };
}

/** A balance read straight from the node (ethers answers a read identical to one a moment ago from its cache). */
const balance = async (provider: Devnet['provider'], address: string) =>
  BigInt((await provider.request({ method: 'eth_getBalance', params: [address, 'latest'] })) as string);

let devnet: Devnet;
let l1: Contract;
let l2: Contract;
let user: Signer;
let operator: Signer;
let l1Provider: BrowserProvider;
let l2Provider: BrowserProvider;
const MIN_FEE = parseEther('0.0001');

beforeAll(async () => {
  devnet = await createDevnet({ l1: true, log: () => {} });
  l1Provider = new BrowserProvider(devnet.l1!.provider as never);
  l2Provider = new BrowserProvider(devnet.provider as never);
  operator = await l1Provider.getSigner(devnet.accounts[9].address);
  const l1Deployer = await l1Provider.getSigner(devnet.accounts[0].address);
  const l2Deployer = await l2Provider.getSigner(devnet.accounts[0].address);
  const op = devnet.accounts[9].address;
  l1 = (await new ContractFactory(L1Artifact.abi as never, L1Artifact.bytecode, l1Deployer).deploy(op)) as Contract;
  l2 = (await new ContractFactory(L2Artifact.abi as never, L2Artifact.bytecode, l2Deployer).deploy(
    op,
    MIN_FEE,
  )) as Contract;
  await Promise.all([l1.waitForDeployment(), l2.waitForDeployment()]);
  // A service pays out what the other layer's sends locked up: Linea's hold the bridged ETH.
  const fund = (provider: Devnet['provider'], address: string) =>
    provider.request({ method: 'anvil_setBalance', params: [address, toBeHex(parseEther('1000'))] });
  await fund(devnet.l1!.provider, await l1.getAddress());
  await fund(devnet.provider, await l2.getAddress());
  user = await l1Provider.getSigner(devnet.accounts[1].address);
});
afterAll(() => devnet.close());

test("every selector, topic and error of Linea's SDK ABIs that these contracts implement is Linea's", () => {
  const l1Ours = selectors(L1Artifact.abi);
  const l2Ours = selectors(L2Artifact.abi);
  for (const [name, selector] of Object.entries(LINEA_L1)) expect([name, l1Ours[name]]).toEqual([name, selector]);
  for (const [name, selector] of Object.entries(LINEA_L2)) expect([name, l2Ours[name]]).toEqual([name, selector]);
});

test("L1 to L2: the message hash and rolling hash are Linea's; anchored, it is claimed once, its call made as its sender", async () => {
  const from = await user.getAddress();
  const to = devnet.accounts[2].address;
  const fee = parseEther('0.01');
  const value = parseEther('1');
  const sent = await (await (l1.connect(user) as Contract).sendMessage(to, fee, '0x', { value: value + fee })).wait();
  const event = l1.interface.parseLog(sent!.logs.find((l) => l.topics[0] === LINEA_L1.MessageSent)!)!;
  const hash = hashMessage(from, to, fee, value, 1n, '0x');
  expect(event.args._messageHash).toBe(hash);
  expect(await l1.rollingHashes(1n)).toBe(pair(ZeroHash, hash));

  // Not anchored yet: Linea's error.
  const l2User = await l2Provider.getSigner(devnet.accounts[3].address);
  // Sent with a gas limit (ethers answers an estimate identical to one a moment ago from its cache);
  // refusals seen through eth_call.
  const args = [from, to, fee, value, ZeroAddress, '0x', 1n] as const;
  const claim = () => (l2.connect(l2User) as Contract).claimMessage(...args, { gasLimit: 300_000n });
  const refused = () => (l2.connect(l2User) as Contract).claimMessage.staticCall(...args);
  await expect(refused()).rejects.toMatchObject({ data: expect.stringMatching(/^0x992d87c3/) });
  const l2Operator = await l2Provider.getSigner(devnet.accounts[9].address);
  await expect(
    (l2.connect(l2User) as Contract).anchorL1L2MessageHashes([hash], 1n, 1n, pair(ZeroHash, hash)),
  ).rejects.toThrow();
  await expect(
    (l2.connect(l2Operator) as Contract).anchorL1L2MessageHashes([hash], 1n, 1n, ZeroHash),
  ).rejects.toMatchObject({
    data: '0x36a4bb94',
  });
  await (
    await (l2.connect(l2Operator) as Contract).anchorL1L2MessageHashes([hash], 1n, 1n, pair(ZeroHash, hash))
  ).wait();
  expect(await l2.inboxL1L2MessageStatus(hash)).toBe(1n);
  expect(await l2.lastAnchoredL1MessageNumber()).toBe(1n);

  // The value goes to the destination; of the fee, an account without code gets back what the claim's gas did not use.
  const before = await balance(devnet.provider, to);
  await (await claim()).wait();
  const received = (await balance(devnet.provider, to)) - before;
  expect(received).toBeGreaterThanOrEqual(value);
  expect(received).toBeLessThan(value + fee);
  expect(await l2.inboxL1L2MessageStatus(hash)).toBe(2n);
  await expect(refused()).rejects.toMatchObject({ data: expect.stringMatching(/^0x992d87c3/) });
});

test('linea_estimateGas of a fee-paying claim to an account without code: the gas that claim uses on-chain, at the base fee', async () => {
  // The claim refunds the destination what its gas did not cost, at tx.gasprice (distributeFees):
  // estimated at a gas price of 0, the claim sent with that estimate ran out of gas on-chain.
  const from = await user.getAddress();
  const to = devnet.accounts[4].address;
  const fee = parseEther('0.01');
  const sent = await (await (l1.connect(user) as Contract).sendMessage(to, fee, '0x', { value: fee })).wait();
  const event = l1.interface.parseLog(sent!.logs.find((l) => l.topics[0] === LINEA_L1.MessageSent)!)!;
  const nonce = event.args._nonce as bigint;
  const hash = hashMessage(from, to, fee, 0n, nonce, '0x');
  const l2Operator = await l2Provider.getSigner(devnet.accounts[9].address);
  const rolling = await l1.rollingHashes(nonce);
  await (await (l2.connect(l2Operator) as Contract).anchorL1L2MessageHashes([hash], nonce, nonce, rolling)).wait();
  const claimer = devnet.accounts[5].address;
  const call = {
    from: claimer,
    to: await l2.getAddress(),
    data: l2.interface.encodeFunctionData('claimMessage', [from, to, fee, 0n, ZeroAddress, '0x', nonce]),
  };
  const estimate = (await devnet.provider.request({ method: 'linea_estimateGas', params: [call] })) as {
    gasLimit: string;
    baseFeePerGas: string;
    priorityFeePerGas: string;
  };
  const tip = BigInt(estimate.priorityFeePerGas);
  const txHash = (await devnet.provider.request({
    method: 'eth_sendTransaction',
    params: [
      {
        ...call,
        gas: estimate.gasLimit,
        maxFeePerGas: toBeHex(BigInt(estimate.baseFeePerGas) + tip),
        maxPriorityFeePerGas: toBeHex(tip),
      },
    ],
  })) as string;
  const receipt = (await devnet.provider.request({ method: 'eth_getTransactionReceipt', params: [txHash] })) as {
    status: string;
  };
  expect(receipt.status).toBe('0x1');
  expect(await l2.inboxL1L2MessageStatus(hash)).toBe(2n);
  // A sender who cannot buy that gas at the next base fee is refused, in Besu's words.
  const poor = '0x00000000000000000000000000000000000000a1';
  const refused = devnet.provider.request({ method: 'linea_estimateGas', params: [{ from: poor, to: poor }] });
  await expect(refused).rejects.toMatchObject({
    code: -32000,
    message: expect.stringMatching(
      /^transaction up-front cost 0x[0-9a-f]+ exceeds transaction sender account balance 0x0 for sender 0x0+a1$/,
    ),
  });
});

test("L2 to L1: a fee under the minimum is refused and the minimum is kept out of the message's fee; finalized as a Merkle root, the message is claimed with the SDK's proof once", async () => {
  const l2User = await l2Provider.getSigner(devnet.accounts[4].address);
  const from = await l2User.getAddress();
  const to = devnet.accounts[5].address;
  await expect(
    (l2.connect(l2User) as Contract).sendMessage(to, MIN_FEE - 1n, '0x', { value: MIN_FEE }),
  ).rejects.toMatchObject({
    data: '0x732f9413',
  });
  const fee = MIN_FEE + parseEther('0.002');
  const value = parseEther('2');
  const hashes: string[] = [];
  let block = 0;
  for (let i = 0; i < 3; i++) {
    const receipt = await (
      await (l2.connect(l2User) as Contract).sendMessage(to, fee, '0x', { value: value + fee })
    ).wait();
    const log = l2.interface.parseLog(receipt!.logs.find((l) => l.topics[0] === LINEA_L2.MessageSent)!)!;
    expect(log.args._fee).toBe(fee - MIN_FEE);
    expect(log.args._messageHash).toBe(hashMessage(from, to, fee - MIN_FEE, value, BigInt(i + 1), '0x'));
    hashes.push(log.args._messageHash);
    block = receipt!.blockNumber;
  }
  const tree = merkleTree(hashes, 5);
  // Linea's state root before and after the blocks: the one the L1 holds, and any root by hand.
  const last = await l1.currentL2BlockNumber();
  const parentRoot = await l1.stateRootHashes(last);
  const finalRoot = toBeHex(7, 32);
  const finalize = await (
    await (l1.connect(operator) as Contract).finalizeMessages(
      block,
      parentRoot,
      finalRoot,
      0,
      ZeroHash,
      [tree.root],
      5,
      [block - 2, block - 1, block],
    )
  ).wait();
  expect(finalize!.logs.map((l) => l.topics[0])).toEqual([
    LINEA_L1.L2MerkleRootAdded,
    LINEA_L1.L2MessagingBlockAnchored,
    LINEA_L1.L2MessagingBlockAnchored,
    LINEA_L1.L2MessagingBlockAnchored,
    LINEA_L1.DataFinalizedV3,
  ]);
  expect(await l1.l2MerkleRootsDepths(tree.root)).toBe(5n);
  expect(await l1.stateRootHashes(block)).toBe(finalRoot);
  const finalized = l1.interface.parseLog(finalize!.logs[4])!;
  expect(finalized.args.startBlockNumber).toBe(last + 1n);
  expect(finalized.args.endBlockNumber).toBe(BigInt(block));
  expect(finalized.args.finalStateRootHash).toBe(finalRoot);
  expect(finalized.args.shnarf).toBe(await l1.currentFinalizedShnarf());

  const params = (leafIndex: number, proof = tree.proof(leafIndex)) => ({
    proof,
    messageNumber: BigInt(leafIndex + 1),
    leafIndex,
    from,
    to,
    fee: fee - MIN_FEE,
    value,
    feeRecipient: ZeroAddress,
    merkleRoot: tree.root,
    data: '0x',
  });
  const claimer = await l1Provider.getSigner(devnet.accounts[6].address);
  const claim = (p: ReturnType<typeof params>) =>
    (l1.connect(claimer) as Contract).claimMessageWithProof(p, { gasLimit: 300_000n });
  const refused = (p: ReturnType<typeof params>) =>
    (l1.connect(claimer) as Contract).claimMessageWithProof.staticCall(p);
  await expect(refused(params(1, tree.proof(0)))).rejects.toMatchObject({ data: '0xb05e92fa' });
  await expect(refused(params(1, tree.proof(1).slice(1)))).rejects.toMatchObject({
    data: expect.stringMatching(/^0x5e3fd6ad/),
  });
  await expect(refused({ ...params(1), merkleRoot: toBeHex(1, 32) })).rejects.toMatchObject({ data: '0x4e686675' });
  const before = await balance(devnet.l1!.provider, to);
  await (await claim(params(1))).wait();
  expect((await balance(devnet.l1!.provider, to)) - before).toBeGreaterThanOrEqual(value);
  expect(await l1.isMessageClaimed(2n)).toBe(true);
  expect(await l1.isMessageClaimed(1n)).toBe(false);
  await expect(refused(params(1))).rejects.toMatchObject({ data: expect.stringMatching(/^0x335a4a90/) });
  // Only the node finalizes.
  await expect(
    (l1.connect(claimer) as Contract).finalizeMessages(
      block + 1,
      finalRoot,
      finalRoot,
      0,
      ZeroHash,
      [toBeHex(2, 32)],
      5,
      [],
    ),
  ).rejects.toThrow();
});

test("a claim's call sees the message's sender through sender(), and a reverting destination reverts the claim with its error", async () => {
  // A destination that stores sender() of the calling service, and one that reverts with data.
  const recorder = '0x' + '33'.repeat(20);
  const reverter = '0x' + '44'.repeat(20);
  // CALLER, PUSH4 sender(), ... : store sender() returned by msg.sender at slot 0.
  const recorderCode =
    '0x' +
    '6367e404ce' + // PUSH4 0x67e404ce
    '60e01b' + // PUSH1 0xe0 SHL
    '6000' +
    '52' + // PUSH1 0 MSTORE
    '6020' +
    '6000' +
    '6004' +
    '6000' +
    '33' +
    '5a' +
    'fa' + // STATICCALL(gas, caller, 0, 4, 0, 32)
    '50' + // POP
    '6000' +
    '51' +
    '6000' +
    '55' + // SSTORE(0, MLOAD(0))
    '00';
  await devnet.provider.request({ method: 'anvil_setCode', params: [recorder, recorderCode] });
  await devnet.provider.request({ method: 'anvil_setCode', params: [reverter, '0x61beef6000526002601efd'] });
  const from = devnet.accounts[7].address;
  const l2Operator = await l2Provider.getSigner(devnet.accounts[9].address);
  const l2User = await l2Provider.getSigner(devnet.accounts[3].address);
  const first = BigInt(await l2.lastAnchoredL1MessageNumber()) + 1n;
  const h1 = hashMessage(from, recorder, 0n, 0n, 100n, '0x01');
  const h2 = hashMessage(from, reverter, 0n, 0n, 101n, '0x01');
  const previous = await l2.l1RollingHashes(first - 1n);
  await (
    await (l2.connect(l2Operator) as Contract).anchorL1L2MessageHashes(
      [h1, h2],
      first,
      first + 1n,
      pair(pair(previous, h1), h2),
    )
  ).wait();
  await (await (l2.connect(l2User) as Contract).claimMessage(from, recorder, 0n, 0n, ZeroAddress, '0x01', 100n)).wait();
  expect(await l2Provider.getStorage(recorder, 0)).toBe(toBeHex(from.toLowerCase(), 32));
  expect(await l2.sender()).toBe(ZeroAddress);
  await expect(
    (l2.connect(l2User) as Contract).claimMessage(from, reverter, 0n, 0n, ZeroAddress, '0x01', 101n),
  ).rejects.toMatchObject({
    data: '0xbeef',
  });
  expect(await l2.inboxL1L2MessageStatus(h2)).toBe(1n);
});

test('a relay that starts after messages were sent (a node started again) anchors and finalizes what was left', async () => {
  const l1Chain = await Chain.create({
    chainId: 31338n,
    messaging: { layer: 'l1', peerChainId: 31337n },
    sequencerRules: false,
    lineCounting: false,
  });
  const l2Chain = await Chain.create({ messaging: { layer: 'l2', peerChainId: 31338n } });
  try {
    const l1p = new BrowserProvider(createProvider(createRpc(l1Chain)) as never);
    const l2p = new BrowserProvider(createProvider(createRpc(l2Chain)) as never);
    const abi = ['function sendMessage(address _to, uint256 _fee, bytes _calldata) payable'];
    const status = ['function inboxL1L2MessageStatus(bytes32) view returns (uint256)'];
    const depth = ['function l2MerkleRootsDepths(bytes32) view returns (uint256)'];
    const L1 = bytesToHex(L1_MESSAGE_SERVICE);
    const L2 = bytesToHex(L2_MESSAGE_SERVICE);
    const sender = await l1p.getSigner(bytesToHex(l1Chain.accounts[0].address));
    const l2Sender = await l2p.getSigner(bytesToHex(l2Chain.accounts[0].address));
    // Sent while no relay runs.
    const toL2 = await (
      await new Contract(L1, abi, sender).sendMessage(ZeroAddress.replace(/0$/, '1'), 0n, '0x', { value: 5n })
    ).wait();
    const toL1 = await (
      await new Contract(L2, abi, l2Sender).sendMessage(ZeroAddress.replace(/0$/, '1'), MIN_FEE, '0x', {
        value: MIN_FEE + 7n,
      })
    ).wait();
    const l1Hash = toL2!.logs.find((l) => l.topics[0] === LINEA_L1.MessageSent)!.topics[3];
    const l2Hash = toL1!.logs.find((l) => l.topics[0] === LINEA_L2.MessageSent)!.topics[3];
    const relay = new MessageRelay(l1Chain, l2Chain, (line) => {
      throw new Error(line);
    });
    await relay.idle();
    expect(await new Contract(L2, status, l2p).inboxL1L2MessageStatus(l1Hash)).toBe(1n);
    const root = merkleTree([l2Hash], 5).root;
    expect(await new Contract(L1, depth, l1p).l2MerkleRootsDepths(root)).toBe(5n);
  } finally {
    await l1Chain.close();
    await l2Chain.close();
  }
});
