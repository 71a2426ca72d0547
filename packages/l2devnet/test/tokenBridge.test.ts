/**
 * Linea's token bridge between the devnet's L1 and L2 (fixtures/contracts/messaging/TokenBridge.sol,
 * at Linea's addresses): a user's ERC-20 deployed on the L1 crosses to the L2, where its bridged
 * token is deployed on the first crossing with the native token's name, symbol and decimals, and
 * comes back; each crossing is a message claimed by the node (--auto-claim), driven with viem alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  createPublicClient,
  createWalletClient,
  custom,
  parseAbi,
  parseEther,
  parseEventLogs,
  zeroAddress,
} from 'viem';
import type { Abi, Hex } from 'viem';
import { Interface } from 'ethers';
import { privateKeyToAccount } from 'viem/accounts';
import { decodeFunctionData, encodeFunctionData, getAddress, keccak256, parseSignature, toBytes, zeroHash } from 'viem';

import { createDevnet } from '../src';
import type { Devnet } from '../src';

const L1_BRIDGE = '0x051F1D88f0aF5763fB888eC4378b4D8B29ea3319';
const L2_BRIDGE = '0x353012dc4a9A6cF55c941bADC267f82004A8ceB9';
const MIN_FEE = 10n ** 14n;
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const operator = privateKeyToAccount(keccak256(toBytes('l2devnet message service operator')));
const token = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'TestToken.json'), 'utf8'),
) as { abi: Abi; bytecode: Hex };
const bridgeAbi = parseAbi([
  'function bridgeToken(address _token, uint256 _amount, address _recipient) payable',
  'function nativeToBridgedToken(uint256 chainId, address native) view returns (address)',
  'function bridgedToNativeToken(address bridged) view returns (address)',
  'function setReserved(address _token)',
  'function sourceChainId() view returns (uint256)',
  'function targetChainId() view returns (uint256)',
  'function remoteSender() view returns (address)',
  'function CONTRACT_VERSION() view returns (string)',
  'event BridgingInitiatedV2(address indexed sender, address indexed recipient, address indexed token, uint256 amount)',
  'event BridgingFinalizedV2(address indexed nativeToken, address indexed bridgedToken, uint256 amount, address indexed recipient)',
  'event NewToken(address indexed token)',
  'event NewTokenDeployed(address indexed bridgedToken, address indexed nativeToken)',
  'event MessageSent(address indexed _from, address indexed _to, uint256 _fee, uint256 _value, uint256 _nonce, bytes _calldata, bytes32 indexed _messageHash)',
  'error ReservedToken(address token)',
]);
const erc20 = parseAbi([
  'function approve(address spender, uint256 amount) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
]);

let devnet: Devnet;
let c: ReturnType<typeof clients>;

function clients(d: Devnet) {
  return {
    l1: createPublicClient({ transport: custom(d.l1!.provider) }),
    l2: createPublicClient({ transport: custom(d.provider) }),
    l1Wallet: createWalletClient({ account, chain: d.l1!.viemChain, transport: custom(d.l1!.provider) }),
    l2Wallet: createWalletClient({ account, chain: d.viemChain, transport: custom(d.provider) }),
    l1Operator: createWalletClient({ account: operator, chain: d.l1!.viemChain, transport: custom(d.l1!.provider) }),
  };
}

/** `read()` once it answers `wanted`, or what it answers after 10 s. */
async function eventually<T>(read: () => Promise<T>, wanted: T): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const now = await read();
    if (now === wanted) return now;
    await new Promise((r) => setTimeout(r, 20));
  }
  return read();
}

const status = async (hash: Hex) =>
  ((await devnet.provider.request({ method: 'l2_getMessageStatus', params: [hash] })) as { status: string }).status;

/** `artifact` (an ERC-20 taking name, symbol and supply) deployed on the L1 by the test account: its address. */
async function deployOnL1(artifact: { abi: Abi; bytecode: Hex }, name: string, symbol: string, supply: bigint) {
  const hash = await c.l1Wallet.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: [name, symbol, supply],
  });
  return getAddress((await c.l1.waitForTransactionReceipt({ hash })).contractAddress!);
}

/** `amount` of `native` approved to the L1 bridge and bridged to `recipient` by the test account: the receipt. */
async function bridgeFromL1(native: Hex, amount: bigint, recipient: Hex) {
  await c.l1.waitForTransactionReceipt({
    hash: await c.l1Wallet.writeContract({
      address: native,
      abi: erc20,
      functionName: 'approve',
      args: [L1_BRIDGE, amount],
    }),
  });
  return c.l1.waitForTransactionReceipt({
    hash: await c.l1Wallet.writeContract({
      address: L1_BRIDGE,
      abi: bridgeAbi,
      functionName: 'bridgeToken',
      args: [native, amount, recipient],
    }),
  });
}

/** `amount` of `native` bridged to the test account and auto-claimed on the L2: the L2's bridged token. */
async function crossToL2(native: Hex, amount: bigint): Promise<Hex> {
  const sent = await bridgeFromL1(native, amount, account.address);
  const { _messageHash } = parseEventLogs({ abi: bridgeAbi, logs: sent.logs, eventName: 'MessageSent' })[0].args;
  expect(await eventually(() => status(_messageHash), 'claimed')).toBe('claimed');
  return c.l2.readContract({
    address: L2_BRIDGE,
    abi: bridgeAbi,
    functionName: 'nativeToBridgedToken',
    args: [BigInt(c.l1Wallet.chain.id), native],
  });
}

const bridgedBalance = (bridged: Hex) =>
  c.l2.readContract({ address: bridged, abi: erc20, functionName: 'balanceOf', args: [account.address] });

const permitAbi = parseAbi(['function permit(address,address,uint256,uint256,uint8,bytes32,bytes32)']);

/** permit(...) calldata: the test account's first EIP-2612 permit (nonce 0) of `value` of `tokenAddress` (EIP-712 name `name`) to `spender`, signed with viem. */
async function permitCalldata(
  wallet: ReturnType<typeof clients>['l1Wallet'],
  name: string,
  tokenAddress: Hex,
  spender: Hex,
  value: bigint,
  deadline: bigint,
) {
  const signature = await wallet.signTypedData({
    domain: { name, version: '1', chainId: wallet.chain.id, verifyingContract: tokenAddress },
    types: {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    message: { owner: account.address, spender, value, nonce: 0n, deadline },
  });
  const { r, s, v } = parseSignature(signature);
  return encodeFunctionData({ abi: permitAbi, args: [account.address, spender, value, deadline, Number(v), r, s] });
}

beforeAll(async () => {
  devnet = await createDevnet({ l1: true, autoClaim: true, log: () => {} });
  c = clients(devnet);
});
afterAll(() => devnet?.close());

test("the bridges sit at Linea's addresses, each knowing the other and both chain ids", async () => {
  const l1Id = BigInt(c.l1Wallet.chain.id);
  const l2Id = BigInt(c.l2Wallet.chain.id);
  const read = (client: typeof c.l1, address: Hex, functionName: 'sourceChainId' | 'targetChainId' | 'remoteSender') =>
    client.readContract({ address, abi: bridgeAbi, functionName });
  expect([await read(c.l1, L1_BRIDGE, 'sourceChainId'), await read(c.l1, L1_BRIDGE, 'targetChainId')]).toEqual([
    l1Id,
    l2Id,
  ]);
  expect([await read(c.l2, L2_BRIDGE, 'sourceChainId'), await read(c.l2, L2_BRIDGE, 'targetChainId')]).toEqual([
    l2Id,
    l1Id,
  ]);
  expect(await read(c.l1, L1_BRIDGE, 'remoteSender')).toBe(L2_BRIDGE);
  expect(await read(c.l2, L2_BRIDGE, 'remoteSender')).toBe(L1_BRIDGE);
  expect(await c.l1.readContract({ address: L1_BRIDGE, abi: bridgeAbi, functionName: 'CONTRACT_VERSION' })).toBe('1.1');
});

test("a user's ERC-20 crosses from the L1 to the L2 and back, its bridged token deployed on the first crossing", async () => {
  const l1Id = BigInt(c.l1Wallet.chain.id);
  const native = await deployOnL1(token, 'Dev Token', 'DEV', parseEther('1000'));
  const recipient = '0x00000000000000000000000000000000000000b2';
  const amount = parseEther('10');
  const sent = await bridgeFromL1(native, amount, recipient);
  const events = parseEventLogs({ abi: bridgeAbi, logs: sent.logs });
  expect(events.map((e) => e.eventName)).toEqual(['NewToken', 'MessageSent', 'BridgingInitiatedV2']);
  const message = events.find((e) => e.eventName === 'MessageSent')!.args as { _messageHash: Hex };

  // The node anchors the message and claims it on the L2: the bridged token is deployed and minted.
  expect(await eventually(() => status(message._messageHash), 'claimed')).toBe('claimed');
  const bridgedToken = await c.l2.readContract({
    address: L2_BRIDGE,
    abi: bridgeAbi,
    functionName: 'nativeToBridgedToken',
    args: [l1Id, native],
  });
  expect(bridgedToken).not.toBe(zeroAddress);
  expect(
    await c.l2.readContract({
      address: L2_BRIDGE,
      abi: bridgeAbi,
      functionName: 'bridgedToNativeToken',
      args: [bridgedToken],
    }),
  ).toBe(native);
  for (const field of ['name', 'symbol', 'decimals'] as const)
    expect(await c.l2.readContract({ address: bridgedToken, abi: erc20, functionName: field })).toEqual(
      await c.l1.readContract({ address: native, abi: erc20, functionName: field }),
    );
  expect(
    await c.l2.readContract({ address: bridgedToken, abi: erc20, functionName: 'balanceOf', args: [recipient] }),
  ).toBe(amount);
  expect(await c.l1.readContract({ address: native, abi: erc20, functionName: 'balanceOf', args: [L1_BRIDGE] })).toBe(
    amount,
  );
  const deployed = await c.l2.getContractEvents({
    address: L2_BRIDGE,
    abi: bridgeAbi,
    eventName: 'NewTokenDeployed',
    fromBlock: 0n,
  });
  expect(deployed.map((e) => e.args)).toEqual([{ bridgedToken, nativeToken: native }]);

  // Back to the L1: the bridged tokens burned on the L2 (from an allowance), the native ones released.
  await devnet.provider.request({ method: 'anvil_setBalance', params: [recipient, '0xde0b6b3a7640000'] });
  await devnet.provider.request({ method: 'anvil_impersonateAccount', params: [recipient] });
  const back = createWalletClient({ account: recipient, chain: devnet.viemChain, transport: custom(devnet.provider) });
  await c.l2.waitForTransactionReceipt({
    hash: await back.writeContract({
      address: bridgedToken,
      abi: erc20,
      functionName: 'approve',
      args: [L2_BRIDGE, amount],
    }),
  });
  const home = '0x00000000000000000000000000000000000000b3';
  const returned = await c.l2.waitForTransactionReceipt({
    hash: await back.writeContract({
      address: L2_BRIDGE,
      abi: bridgeAbi,
      functionName: 'bridgeToken',
      args: [bridgedToken, parseEther('4'), home],
      value: MIN_FEE,
    }),
  });
  const backMessage = parseEventLogs({ abi: bridgeAbi, logs: returned.logs, eventName: 'MessageSent' })[0].args;
  expect(await eventually(() => status(backMessage._messageHash), 'claimed')).toBe('claimed');
  expect(await c.l1.readContract({ address: native, abi: erc20, functionName: 'balanceOf', args: [home] })).toBe(
    parseEther('4'),
  );
  expect(
    await c.l2.readContract({ address: bridgedToken, abi: erc20, functionName: 'balanceOf', args: [recipient] }),
  ).toBe(parseEther('6'));
  const finalized = await c.l1.getContractEvents({
    address: L1_BRIDGE,
    abi: bridgeAbi,
    eventName: 'BridgingFinalizedV2',
    fromBlock: 0n,
  });
  expect(finalized.map((e) => e.args)).toEqual([
    { nativeToken: native, bridgedToken: zeroAddress, amount: parseEther('4'), recipient: home },
  ]);
}, 60_000);

test('a reserved token refuses to cross', async () => {
  const kept = await deployOnL1(token, 'Kept', 'KEPT', 1000n);
  await c.l1.waitForTransactionReceipt({
    hash: await c.l1Operator.writeContract({
      address: L1_BRIDGE,
      abi: bridgeAbi,
      functionName: 'setReserved',
      args: [kept],
    }),
  });
  await expect(
    c.l1.simulateContract({
      account,
      address: L1_BRIDGE,
      abi: bridgeAbi,
      functionName: 'bridgeToken',
      args: [kept, 1n, account.address],
    }),
  ).rejects.toThrow(/ReservedToken/);
});

test("the bridge's functions, events and errors are Linea's ITokenBridge's", () => {
  // contracts/src/bridging/token/interfaces/ITokenBridge.sol and TokenBridgeBase.sol (linea-monorepo cb180134).
  const linea = new Interface([
    'function bridgeToken(address _token, uint256 _amount, address _recipient) payable',
    'function bridgeTokenWithPermit(address _token, uint256 _amount, address _recipient, bytes _permitData) payable',
    'function completeBridging(address _nativeToken, uint256 _amount, address _recipient, uint256 _chainId, bytes _tokenMetadata)',
    'function confirmDeployment(address[] _tokens) payable',
    'function setDeployed(address[] _nativeTokens)',
    'function setReserved(address _token)',
    'function removeReserved(address _token)',
    'function setCustomContract(address _nativeToken, address _targetContract)',
    'function nativeToBridgedToken(uint256, address) view returns (address)',
    'function bridgedToNativeToken(address) view returns (address)',
    'function messageService() view returns (address)',
    'function remoteSender() view returns (address)',
    'function sourceChainId() view returns (uint256)',
    'function targetChainId() view returns (uint256)',
    'function CONTRACT_VERSION() view returns (string)',
    'event TokenReserved(address indexed token)',
    'event ReservationRemoved(address indexed token)',
    'event CustomContractSet(address indexed nativeToken, address indexed customContract, address indexed setBy)',
    'event BridgingInitiatedV2(address indexed sender, address indexed recipient, address indexed token, uint256 amount)',
    'event BridgingFinalizedV2(address indexed nativeToken, address indexed bridgedToken, uint256 amount, address indexed recipient)',
    'event NewToken(address indexed token)',
    'event NewTokenDeployed(address indexed bridgedToken, address indexed nativeToken)',
    'event TokenDeployed(address indexed token)',
    'event DeploymentConfirmed(address[] tokens, address indexed confirmedBy)',
    'error ReservedToken(address token)',
    'error AlreadyBridgedToken(address token)',
    'error InvalidPermitData(bytes4 permitData, bytes4 permitSelector)',
    'error PermitNotFromSender(address owner)',
    'error PermitNotAllowingBridge(address spender)',
    'error ZeroAmountNotAllowed(uint256 amount)',
    'error NotReserved(address token)',
    'error TokenNotDeployed(address token)',
    'error NativeToBridgedTokenAlreadySet(address token)',
    'error StatusAddressNotAllowed(address token)',
    'error TokenListEmpty()',
  ]);
  const ours = new Interface(
    JSON.parse(
      readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'messaging', 'TokenBridge.json'), 'utf8'),
    ).abi,
  );
  linea.forEachFunction((f) => expect([f.name, ours.getFunction(f.name)?.selector]).toEqual([f.name, f.selector]));
  linea.forEachEvent((e) => expect([e.name, ours.getEvent(e.name)?.topicHash]).toEqual([e.name, e.topicHash]));
  linea.forEachError((e) => expect([e.name, ours.getError(e.name)?.selector]).toEqual([e.name, e.selector]));
});

test('bridgeTokenWithPermit: an EIP-2612 permit signed with viem lets the bridge take the tokens in one transaction', async () => {
  const permitToken = JSON.parse(
    readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'PermitToken.json'), 'utf8'),
  ) as { abi: Abi; bytecode: Hex };
  const tokenAddress = await deployOnL1(permitToken, 'Permit Token', 'PRM', parseEther('100'));
  const amount = parseEther('3');
  const deadline = 2n ** 40n;
  const permitData = await permitCalldata(c.l1Wallet, 'Permit Token', tokenAddress, L1_BRIDGE, amount, deadline);
  const receipt = await c.l1.waitForTransactionReceipt({
    hash: await c.l1Wallet.writeContract({
      address: L1_BRIDGE,
      abi: parseAbi(['function bridgeTokenWithPermit(address,uint256,address,bytes) payable']),
      functionName: 'bridgeTokenWithPermit',
      args: [tokenAddress, amount, account.address, permitData],
    }),
  });
  expect(receipt.status).toBe('success');
  expect(
    await c.l1.readContract({ address: tokenAddress, abi: erc20, functionName: 'balanceOf', args: [L1_BRIDGE] }),
  ).toBe(amount);
  // A permit for someone else's tokens is refused as Linea's bridge refuses it.
  const [, , , , v, r, sig] = decodeFunctionData({ abi: permitAbi, data: permitData }).args;
  const other = encodeFunctionData({ abi: permitAbi, args: [L1_BRIDGE, L1_BRIDGE, amount, deadline, v, r, sig] });
  await expect(
    c.l1.simulateContract({
      account,
      address: L1_BRIDGE,
      abi: parseAbi([
        'function bridgeTokenWithPermit(address,uint256,address,bytes) payable',
        'error PermitNotFromSender(address owner)',
      ]),
      functionName: 'bridgeTokenWithPermit',
      args: [tokenAddress, amount, account.address, other],
    }),
  ).rejects.toThrow(/PermitNotFromSender/);
});

test("the bridged token takes EIP-2612 permits as Linea's BridgedToken (ERC20PermitUpgradeable) does: bridgeTokenWithPermit sends it home without an approve", async () => {
  const native = await deployOnL1(token, 'Home Token', 'HOME', parseEther('100'));
  const bridged = await crossToL2(native, 20n);
  const l2Wallet = createWalletClient({ account, chain: devnet.viemChain, transport: custom(devnet.provider) });
  const domain = await c.l2.readContract({
    address: bridged,
    abi: parseAbi([
      'function eip712Domain() view returns (bytes1, string, string, uint256, address, bytes32, uint256[])',
    ]),
    functionName: 'eip712Domain',
  });
  expect(domain).toEqual(['0x0f', 'Home Token', '1', BigInt(devnet.viemChain.id), bridged, zeroHash, []]);
  const expired = await permitCalldata(l2Wallet, 'Home Token', bridged, L2_BRIDGE, 8n, 1n);
  await expect(c.l2.call({ account: account.address, to: bridged, data: expired })).rejects.toThrow(
    /ERC20Permit: expired deadline/,
  );
  const permitData = await permitCalldata(l2Wallet, 'Home Token', bridged, L2_BRIDGE, 8n, 2n ** 40n);
  const home = '0x00000000000000000000000000000000000000b7';
  const sent = await c.l2.waitForTransactionReceipt({
    hash: await l2Wallet.writeContract({
      address: L2_BRIDGE,
      abi: parseAbi(['function bridgeTokenWithPermit(address,uint256,address,bytes) payable']),
      functionName: 'bridgeTokenWithPermit',
      args: [bridged, 8n, home, permitData],
      value: MIN_FEE,
    }),
  });
  expect(sent.status).toBe('success');
  expect(
    await c.l2.readContract({
      address: bridged,
      abi: parseAbi(['function nonces(address) view returns (uint256)']),
      functionName: 'nonces',
      args: [account.address],
    }),
  ).toBe(1n);
  const { _messageHash } = parseEventLogs({ abi: bridgeAbi, logs: sent.logs, eventName: 'MessageSent' })[0].args;
  expect(await eventually(() => status(_messageHash), 'claimed')).toBe('claimed');
  expect(await c.l1.readContract({ address: native, abi: erc20, functionName: 'balanceOf', args: [home] })).toBe(8n);
  expect(await bridgedBalance(bridged)).toBe(12n);
}, 60_000);

test('a snapshot reverted takes a crossing back on both chains; the token then crosses again, to the same bridged address', async () => {
  const native = await deployOnL1(token, 'Snap', 'SNAP', parseEther('100'));
  // evm_snapshot on the L2's paths remembers both chains; evm_revert there takes both back.
  const snapshot = await devnet.provider.request({ method: 'evm_snapshot', params: [] });
  const bridged = await crossToL2(native, 5n);
  expect(await bridgedBalance(bridged)).toBe(5n);
  expect(await devnet.provider.request({ method: 'evm_revert', params: [snapshot] })).toBe(true);
  expect(await c.l2.getCode({ address: bridged })).toBeUndefined();
  expect(await c.l1.readContract({ address: native, abi: erc20, functionName: 'balanceOf', args: [L1_BRIDGE] })).toBe(
    0n,
  );
  expect(await crossToL2(native, 5n)).toBe(bridged);
  expect(await bridgedBalance(bridged)).toBe(5n);
}, 60_000);

// Last in the file: it resets both chains.
test('a rollback of the L1 alone takes a crossing back on the L2 too, and the token crosses again; after anvil_reset on /l1 a token crosses on the new chains', async () => {
  const native = await deployOnL1(token, 'Roll', 'ROLL', parseEther('100'));
  const bridged = await crossToL2(native, 7n);
  expect(await bridgedBalance(bridged)).toBe(7n);
  await devnet.l1!.idle();
  // The L1's bridging block goes: the L2's anchoring, claim and bridged token go with it.
  expect(await devnet.l1!.provider.request({ method: 'anvil_rollback', params: [1] })).toBeNull();
  expect(await c.l2.getCode({ address: bridged })).toBeUndefined();
  expect(await c.l1.readContract({ address: native, abi: erc20, functionName: 'balanceOf', args: [L1_BRIDGE] })).toBe(
    0n,
  );
  expect(await crossToL2(native, 7n)).toBe(bridged);
  expect(await bridgedBalance(bridged)).toBe(7n);

  expect(await devnet.l1!.provider.request({ method: 'anvil_reset', params: [] })).toBeNull();
  expect(await c.l2.getCode({ address: bridged })).toBeUndefined();
  const again = await deployOnL1(token, 'Reset', 'RST', parseEther('100'));
  const bridgedAgain = await crossToL2(again, 9n);
  expect(await bridgedBalance(bridgedAgain)).toBe(9n);
  expect(await c.l2.readContract({ address: bridgedAgain, abi: erc20, functionName: 'symbol', args: [] })).toBe('RST');
}, 60_000);
