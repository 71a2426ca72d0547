/**
 * The message services' controls as Linea's contracts have them: pausing by type, roles, the rate
 * limit on what leaves each chain, the L2's minimum fee setter, the versions, the L1's record of what
 * the L2 anchored as of each finalization, and the L1's proof-less (V1) claim. Each function, event
 * and error the node implements has the selector or topic of Linea's SDK's ABIs.
 */
import {
  BrowserProvider,
  Contract,
  id,
  Interface,
  NonceManager,
  parseEther,
  toBeHex,
  Wallet,
  ZeroAddress,
} from 'ethers';
import type { InterfaceAbi, Signer } from 'ethers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LineaRollup__factory } = require('@consensys/linea-sdk/dist/typechain/factories/LineaRollup__factory');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const {
  L2MessageService__factory,
} = require('@consensys/linea-sdk/dist/typechain/factories/L2MessageService__factory');

import { createDevnet } from '../src';
import type { Devnet } from '../src';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const L1Artifact = require('../../../fixtures/contracts/messaging/LineaRollup.json') as { abi: InterfaceAbi };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const L2Artifact = require('../../../fixtures/contracts/messaging/L2MessageService.json') as { abi: InterfaceAbi };

const L1_SERVICE = '0xd19d4B5d358258f05D7B411E21A1460D11B0876F';
const L2_SERVICE = '0x508Ca82Df566dCD1B0DE8296e70a96332cD644ec';
const MIN_FEE = parseEther('0.0001');
const PAUSE = { GENERAL: 1, L1_L2: 2, L2_L1: 3, FINALIZATION: 6 };
const OPERATOR_KEY = id('l2devnet message service operator');

/** Every function, event and error of an ABI by name, with its selector or topic. */
function selectors(abi: InterfaceAbi): Record<string, string> {
  const out: Record<string, string> = {};
  const i = new Interface(abi);
  i.forEachFunction((f) => (out[f.name] = f.selector));
  i.forEachEvent((e) => (out[e.name] = e.topicHash));
  i.forEachError((e) => (out[e.name] = e.selector));
  return out;
}

let devnet: Devnet;
let l1: Contract;
let l2: Contract;
let operator: { l1: Signer; l2: Signer };
let user: { l1: Signer; l2: Signer };

beforeAll(async () => {
  devnet = await createDevnet({
    l1: true,
    messageAnchoringDelay: 'manual',
    finalizationInterval: 'manual',
    log: () => {},
  });
  const l1Provider = new BrowserProvider(devnet.l1!.provider as never);
  const l2Provider = new BrowserProvider(devnet.provider as never);
  // The services' operator: the node's own account, whose key is published (messaging/services.ts).
  operator = {
    l1: new NonceManager(new Wallet(OPERATOR_KEY, l1Provider)),
    l2: new NonceManager(new Wallet(OPERATOR_KEY, l2Provider)),
  };
  user = {
    l1: await l1Provider.getSigner(devnet.accounts[1].address),
    l2: await l2Provider.getSigner(devnet.accounts[1].address),
  };
  l1 = new Contract(L1_SERVICE, L1Artifact.abi, l1Provider);
  l2 = new Contract(L2_SERVICE, L2Artifact.abi, l2Provider);
});
afterAll(() => devnet?.close());

test("each control the services implement has Linea's SDK's selector, topic or error", () => {
  const names = [
    'hasRole',
    'isPaused',
    'pauseByType',
    'unPauseByType',
    'limitInWei',
    'periodInSeconds',
    'currentPeriodEnd',
    'currentPeriodAmountInWei',
    'resetRateLimitAmount',
    'resetAmountUsedInPeriod',
    'grantRole',
    'revokeRole',
    'renounceRole',
    'getRoleAdmin',
    'DEFAULT_ADMIN_ROLE',
    'RATE_LIMIT_SETTER_ROLE',
    'RoleGranted',
    'RoleRevoked',
    'AmountUsedInPeriodReset',
    'LimitAmountChanged',
    'RateLimitInitialized',
    'RateLimitExceeded',
  ];
  const l1Names = [
    ...names,
    'claimMessage',
    'inboxL2L1MessageStatus',
    'currentL2StoredL1MessageNumber',
    'currentL2StoredL1RollingHash',
    'stateRootHashes',
    'L1RollingHashDoesNotExistOnL1',
  ];
  const l2Names = [...names, 'setMinimumFee', 'minimumFeeInWei', 'MinimumFeeChanged', 'MINIMUM_FEE_SETTER_ROLE'];
  const [sdkL1, sdkL2] = [selectors(LineaRollup__factory.abi), selectors(L2MessageService__factory.abi)];
  const [ourL1, ourL2] = [selectors(L1Artifact.abi), selectors(L2Artifact.abi)];
  for (const n of l1Names) expect([n, ourL1[n]]).toEqual([n, sdkL1[n]]);
  for (const n of l2Names) expect([n, ourL2[n]]).toEqual([n, sdkL2[n]]);
});

test("pausing's events and errors are current Linea's, whose PauseType is a uint8 (the SDK's older ABI has uint256)", () => {
  // contracts/src/security/pausing/interfaces/IPauseManager.sol
  const current = new Interface([
    'event Paused(address messageSender, uint8 indexed pauseType)',
    'event UnPaused(address messageSender, uint8 indexed pauseType)',
    'error IsPaused(uint8 pauseType)',
    'error IsNotPaused(uint8 pauseType)',
  ]);
  for (const ours of [selectors(L1Artifact.abi), selectors(L2Artifact.abi)]) {
    expect(ours.Paused).toBe(current.getEvent('Paused')!.topicHash);
    expect(ours.UnPaused).toBe(current.getEvent('UnPaused')!.topicHash);
    expect(ours.IsPaused).toBe(current.getError('IsPaused')!.selector);
    expect(ours.IsNotPaused).toBe(current.getError('IsNotPaused')!.selector);
  }
});

test("the roles the SDK predates are current Linea's (PauseManager.sol, RateLimiter.sol)", async () => {
  for (const name of ['PAUSE_ALL_ROLE', 'UNPAUSE_ALL_ROLE', 'RATE_LIMIT_SETTER_ROLE', 'USED_RATE_LIMIT_RESETTER_ROLE'])
    for (const service of [l1, l2]) expect(await service[name]()).toBe(id(name));
  expect(await l2.MINIMUM_FEE_SETTER_ROLE()).toBe(id('MINIMUM_FEE_SETTER_ROLE'));
});

test("the versions are current Linea's (LineaRollupBase 8.0, L2MessageServiceBase 1.0)", async () => {
  expect(await l1.CONTRACT_VERSION()).toBe('8.0');
  expect(await l2.CONTRACT_VERSION()).toBe('1.0');
});

test('a paused type refuses its operation with IsPaused until the operator lifts it; others may not pause', async () => {
  const pause = async (service: Contract, signer: Signer, type: number) =>
    (await (service.connect(signer) as Contract).pauseByType(type)).wait();
  const send = (service: Contract, signer: Signer) =>
    (service.connect(signer) as Contract).sendMessage.staticCall(ZeroAddress.replace(/0$/, '1'), MIN_FEE, '0x', {
      value: MIN_FEE + 1n,
    });
  const receipt = await pause(l1, operator.l1, PAUSE.L1_L2);
  expect(l1.interface.parseLog(receipt!.logs[0])!.name).toBe('Paused');
  expect(await l1.isPaused(PAUSE.L1_L2)).toBe(true);
  await expect(send(l1, user.l1)).rejects.toMatchObject({ revert: { name: 'IsPaused', args: [2n] } });
  // GENERAL pauses everything on that chain.
  await pause(l2, operator.l2, PAUSE.GENERAL);
  await expect(send(l2, user.l2)).rejects.toMatchObject({ revert: { name: 'IsPaused', args: [1n] } });
  await expect((l1.connect(user.l1) as Contract).pauseByType.staticCall(PAUSE.L2_L1)).rejects.toMatchObject({
    reason: `AccessControl: account ${devnet.accounts[1].address.toLowerCase()} is missing role ${await l1.PAUSE_ALL_ROLE()}`,
  });
  await expect((l1.connect(operator.l1) as Contract).unPauseByType.staticCall(PAUSE.L2_L1)).rejects.toMatchObject({
    revert: { name: 'IsNotPaused', args: [3n] },
  });
  await (await (l1.connect(operator.l1) as Contract).unPauseByType(PAUSE.L1_L2)).wait();
  await (await (l2.connect(operator.l2) as Contract).unPauseByType(PAUSE.GENERAL)).wait();
  expect(await send(l1, user.l1)).toBeDefined();
  // A role granted lets its holder pause.
  const role = await l2.PAUSE_ALL_ROLE();
  const granted = await (
    await (l2.connect(operator.l2) as Contract).grantRole(role, devnet.accounts[1].address)
  ).wait();
  expect(l2.interface.parseLog(granted!.logs[0])!.name).toBe('RoleGranted');
  expect(await l2.hasRole(role, devnet.accounts[1].address)).toBe(true);
  await pause(l2, user.l2, PAUSE.L2_L1);
  expect(await l2.isPaused(PAUSE.L2_L1)).toBe(true);
  await (await (l2.connect(operator.l2) as Contract).unPauseByType(PAUSE.L2_L1)).wait();
});

test("what leaves a chain is rate limited as Linea's services are: 1,000 ETH a day, changed by the operator", async () => {
  for (const service of [l1, l2]) {
    expect(await service.limitInWei()).toBe(parseEther('1000'));
    expect(await service.periodInSeconds()).toBe(86_400n);
  }
  const to = devnet.accounts[2].address;
  const send = (value: bigint) =>
    (l2.connect(user.l2) as Contract).sendMessage(to, MIN_FEE, '0x', { value: value + MIN_FEE });
  await (await send(parseEther('1'))).wait();
  expect(await l2.currentPeriodAmountInWei()).toBe(parseEther('1'));
  await expect(
    (l2.connect(user.l2) as Contract).sendMessage.staticCall(to, MIN_FEE, '0x', {
      value: parseEther('1000') + MIN_FEE,
    }),
  ).rejects.toMatchObject({ revert: { name: 'RateLimitExceeded' } });
  const changed = await (await (l2.connect(operator.l2) as Contract).resetRateLimitAmount(parseEther('5000'))).wait();
  const event = l2.interface.parseLog(changed!.logs[0])!;
  expect([event.name, event.args.amount]).toEqual(['LimitAmountChanged', parseEther('5000')]);
  await (await send(parseEther('1000'))).wait();
  expect(await l2.currentPeriodAmountInWei()).toBe(parseEther('1001'));
  await (await (l2.connect(operator.l2) as Contract).resetAmountUsedInPeriod()).wait();
  expect(await l2.currentPeriodAmountInWei()).toBe(0n);
});

test('the L2 minimum fee is set by its setter role, with MinimumFeeChanged', async () => {
  const receipt = await (await (l2.connect(operator.l2) as Contract).setMinimumFee(MIN_FEE * 2n)).wait();
  const event = l2.interface.parseLog(receipt!.logs[0])!;
  expect([event.name, event.args.previousMinimumFee, event.args.newMinimumFee]).toEqual([
    'MinimumFeeChanged',
    MIN_FEE,
    MIN_FEE * 2n,
  ]);
  expect(await l2.minimumFeeInWei()).toBe(MIN_FEE * 2n);
  await (await (l2.connect(operator.l2) as Contract).setMinimumFee(MIN_FEE)).wait();
  await expect((l2.connect(user.l2) as Contract).setMinimumFee.staticCall(1n)).rejects.toMatchObject({
    reason: expect.stringMatching(/^AccessControl: account 0x[0-9a-f]{40} is missing role 0x[0-9a-f]{64}$/),
  });
});

test('a finalization records on the L1 the last L1 message the L2 had anchored, and its rolling hash', async () => {
  const to = devnet.accounts[3].address;
  await (await (l1.connect(user.l1) as Contract).sendMessage(to, 0n, '0x', { value: 5n })).wait();
  const number = (await l1.nextMessageNumber()) - 1n;
  await devnet.provider.request({ method: 'l2_anchorMessages', params: [] });
  await devnet.provider.request({ method: 'l2_finalize', params: [] });
  expect(await l1.currentL2StoredL1MessageNumber()).toBe(number);
  expect(await l1.currentL2StoredL1RollingHash()).toBe(await l1.rollingHashes(number));
});

test("the L1's proof-less claim (V1) knows no message, as Linea's after its messages moved to proofs", async () => {
  const args = [devnet.accounts[1].address, devnet.accounts[2].address, 0n, 1n, ZeroAddress, '0x', 1n] as const;
  await expect((l1.connect(user.l1) as Contract).claimMessage.staticCall(...args)).rejects.toMatchObject({
    revert: { name: 'MessageDoesNotExistOrHasAlreadyBeenClaimed' },
  });
  expect(await l1.inboxL2L1MessageStatus(toBeHex(1, 32))).toBe(0n);
});
