/**
 * One contract flow, written as a user of each client library would: deploy the ERC20 fixture,
 * transfer, read the receipt and the Transfer logs (with their block's timestamp), fetch the block by
 * its hash, call a reverting function, fetch a proof and verify it, trace the transfer with the call
 * tracer and simulate another with eth_simulateV1. The same flow runs over the in-process provider,
 * and over HTTP and WebSocket on both profiles' paths (packages/server/test/clients.e2e.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { hexToBytes } from '@ethereumjs/util';
import { Contract, ContractFactory, Wallet } from 'ethers';
import type { AbstractProvider } from 'ethers';
import type { Account, Chain as ViemChain, PublicClient, TestClient, Transport, WalletClient } from 'viem';
import { decodeEventLog, parseAbi } from 'viem';
import type { Web3 } from 'web3';

import { verifyProof } from './proofVerifier';

const fixtures = join(__dirname, '..', '..', '..', 'fixtures', 'contracts');
export const token = JSON.parse(readFileSync(join(fixtures, 'TestToken.json'), 'utf8')) as {
  abi: any[];
  bytecode: `0x${string}`;
};
export const reverter = JSON.parse(readFileSync(join(fixtures, 'Reverter.json'), 'utf8')) as {
  abi: any[];
  bytecode: `0x${string}`;
};

export const ALICE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const ALICE = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const BOB = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** transfer(BOB, 1): the call every client simulates. */
export const TRANSFER_ONE_TO_BOB = `0xa9059cbb${BOB.slice(2).toLowerCase().padStart(64, '0')}${'1'.padStart(64, '0')}`;
const TRUE_WORD = `0x${'1'.padStart(64, '0')}`;

/** What the node answers for the same transfer, whichever client asked: raw JSON-RPC, checked here once. */
export async function expectNodeViews(
  request: (method: string, params: unknown[]) => Promise<any>,
  tx: { hash: string; blockHash: string; gasUsed: bigint; token: string },
): Promise<void> {
  const block = await request('eth_getBlockByHash', [tx.blockHash, false]);
  expect(block.transactions).toContain(tx.hash);
  // execution-apis: a log and a mined transaction carry their block's timestamp.
  const logs = await request('eth_getLogs', [{ blockHash: tx.blockHash, address: tx.token }]);
  expect(logs).toHaveLength(1);
  expect(logs[0].blockTimestamp).toBe(block.timestamp);
  expect((await request('eth_getTransactionByHash', [tx.hash])).blockTimestamp).toBe(block.timestamp);
  const trace = await request('debug_traceTransaction', [tx.hash, { tracer: 'callTracer' }]);
  expect(trace).toMatchObject({ type: 'CALL', to: tx.token.toLowerCase(), gasUsed: `0x${tx.gasUsed.toString(16)}` });
  expect(trace.input.slice(0, 10)).toBe('0xa9059cbb');
  const [simulated] = await request('eth_simulateV1', [
    { blockStateCalls: [{ calls: [{ from: ALICE, to: tx.token, data: TRANSFER_ONE_TO_BOB }] }] },
    'latest',
  ]);
  expect(simulated.calls[0]).toMatchObject({ status: '0x1', returnData: TRUE_WORD });
  expect(BigInt(simulated.calls[0].maxUsedGas)).toBeGreaterThanOrEqual(BigInt(simulated.calls[0].gasUsed));
}

export async function ethersFlow(provider: AbstractProvider): Promise<void> {
  const wallet = new Wallet(ALICE_KEY, provider);
  expect((await provider.getNetwork()).chainId).toBe(31337n);

  const factory = new ContractFactory(token.abi, token.bytecode, wallet);
  const deployed = await factory.deploy('Test', 'TST', 1_000_000n);
  await deployed.waitForDeployment();
  const erc20 = new Contract(await deployed.getAddress(), token.abi, wallet);
  expect(await erc20.balanceOf(wallet.address)).toBe(1_000_000n);

  const tx = await erc20.transfer(BOB, 250n);
  const receipt = await tx.wait();
  expect(receipt?.status).toBe(1);
  expect(receipt?.logs).toHaveLength(1);
  expect(await erc20.balanceOf(BOB)).toBe(250n);

  const events = await erc20.queryFilter(erc20.filters.Transfer(wallet.address, BOB), 0, 'latest');
  expect(events).toHaveLength(1);
  expect((events[0] as unknown as { args: unknown[] }).args[2]).toBe(250n);

  await expect(erc20.transfer(BOB, 10_000_000n)).rejects.toMatchObject({ reason: 'insufficient balance' });

  const rev = await new ContractFactory(reverter.abi, reverter.bytecode, wallet).deploy();
  await rev.waitForDeployment();
  const revContract = new Contract(await rev.getAddress(), reverter.abi, wallet);
  await expect(revContract.revertWithReason()).rejects.toMatchObject({ code: 'CALL_EXCEPTION', reason: 'nope' });

  const send = (method: string, params: unknown[]) =>
    (provider as unknown as { send(m: string, p: unknown[]): Promise<any> }).send(method, params);
  const mined = await provider.getBlock(receipt!.blockHash);
  expect(mined?.number).toBe(receipt!.blockNumber);
  expect(mined?.transactions).toContain(receipt!.hash);
  await expectNodeViews(send, {
    hash: receipt!.hash,
    blockHash: receipt!.blockHash,
    gasUsed: receipt!.gasUsed,
    token: await erc20.getAddress(),
  });

  const block = await provider.getBlock('latest');
  const proof = await (provider as unknown as { send(m: string, p: unknown[]): Promise<any> }).send('eth_getProof', [
    await erc20.getAddress(),
    ['0x0'],
    'latest',
  ]);
  expect(
    verifyProof(block!.stateRoot!, hexToBytes((await erc20.getAddress()) as `0x${string}`), proof.accountProof),
  ).toBeDefined();
}

export async function viemFlow(
  publicClient: PublicClient<Transport, ViemChain>,
  walletClient: WalletClient<Transport, ViemChain, Account>,
): Promise<void> {
  expect(await publicClient.getChainId()).toBe(31337);
  const account = walletClient.account;
  const deployHash = await walletClient.deployContract({
    abi: token.abi,
    bytecode: token.bytecode,
    args: ['Test', 'TST', 1_000_000n],
  });
  const deployReceipt = await publicClient.waitForTransactionReceipt({ hash: deployHash });
  const address = deployReceipt.contractAddress!;
  expect(
    await publicClient.readContract({
      address,
      abi: token.abi,
      functionName: 'balanceOf',
      args: [account.address],
      account,
    }),
  ).toBe(1_000_000n);

  const hash = await walletClient.writeContract({
    address,
    abi: token.abi,
    functionName: 'transfer',
    args: [BOB, 250n],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  const transferAbi = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)']);
  const decoded = decodeEventLog({ abi: transferAbi, data: receipt.logs[0].data, topics: receipt.logs[0].topics });
  expect(decoded.args).toEqual({ from: account.address, to: BOB, value: 250n });

  const mined = await publicClient.getBlock({ blockHash: receipt.blockHash });
  expect(mined.number).toBe(receipt.blockNumber);
  expect(mined.transactions).toContain(hash);
  await expectNodeViews((method, params) => publicClient.request({ method, params } as never), {
    hash,
    blockHash: receipt.blockHash,
    gasUsed: receipt.gasUsed,
    token: address,
  });
  const [simulated] = await publicClient.simulateBlocks({
    blocks: [{ calls: [{ account, to: address, abi: token.abi, functionName: 'transfer', args: [BOB, 1n] }] }],
  });
  expect(simulated.calls[0]).toMatchObject({ status: 'success', result: true });

  const logs = await publicClient.getContractEvents({
    address,
    abi: transferAbi,
    eventName: 'Transfer',
    fromBlock: 0n,
    args: { to: BOB },
  });
  expect(logs).toHaveLength(1);

  const revHash = await walletClient.deployContract({ abi: reverter.abi, bytecode: reverter.bytecode });
  const rev = (await publicClient.waitForTransactionReceipt({ hash: revHash })).contractAddress!;
  await expect(
    publicClient.simulateContract({ address: rev, abi: reverter.abi, functionName: 'revertWithReason', account }),
  ).rejects.toThrow(/reverted with the following reason:\s+nope/);

  const block = await publicClient.getBlock();
  const proof = await publicClient.getProof({ address, storageKeys: [`0x${'00'.repeat(32)}`] });
  expect(verifyProof(block.stateRoot, hexToBytes(address), proof.accountProof)).toBeDefined();
}

/** The flow as a web3.js 4 user writes it: a local wallet, Contract objects, getPastEvents, getProof. */
export async function web3Flow(web3: Web3): Promise<void> {
  const account = web3.eth.accounts.privateKeyToAccount(ALICE_KEY);
  web3.eth.accounts.wallet.add(account);
  web3.eth.defaultAccount = account.address;
  expect(await web3.eth.getChainId()).toBe(31337n);

  const deployed = await new web3.eth.Contract(token.abi)
    .deploy({ data: token.bytecode, arguments: ['Test', 'TST', 1_000_000] })
    .send({ from: account.address });
  const erc20 = new web3.eth.Contract(token.abi, deployed.options.address);
  // The service's paths require `from` on eth_call: every call names it.
  expect(await erc20.methods.balanceOf(account.address).call({ from: account.address })).toBe(1_000_000n);

  const receipt = await erc20.methods.transfer(BOB, 250).send({ from: account.address });
  expect(receipt.status).toBe(1n);
  expect(
    (receipt.events as Record<string, { returnValues: Record<string, unknown> }>).Transfer.returnValues.value,
  ).toBe(250n);
  const events = await erc20.getPastEvents('Transfer' as never, { filter: { to: BOB }, fromBlock: 0 });
  expect(events).toHaveLength(1);

  const mined = await web3.eth.getBlock(receipt.blockHash as string);
  expect(mined.number).toBe(receipt.blockNumber);
  expect(mined.transactions).toContain(receipt.transactionHash);
  await expectNodeViews((method, params) => web3.requestManager.send({ method, params }), {
    hash: receipt.transactionHash as string,
    blockHash: receipt.blockHash as string,
    gasUsed: receipt.gasUsed as bigint,
    token: deployed.options.address as string,
  });

  const rev = await new web3.eth.Contract(reverter.abi)
    .deploy({ data: reverter.bytecode })
    .send({ from: account.address });
  await expect(
    new web3.eth.Contract(reverter.abi, rev.options.address).methods.revertWithReason().call({ from: account.address }),
  ).rejects.toMatchObject({ cause: { message: 'execution reverted: nope' } });

  const block = await web3.eth.getBlock('latest');
  const proof = await web3.eth.getProof(deployed.options.address as string, [`0x${'00'.repeat(32)}`], 'latest');
  expect(
    verifyProof(
      block.stateRoot as string,
      hexToBytes(deployed.options.address as `0x${string}`),
      proof.accountProof as string[],
    ),
  ).toBeDefined();
}

/** viem's test client in anvil mode: balances set, blocks mined at a chosen time, a snapshot reverted to. */
export async function viemTestClientFlow(
  testClient: TestClient<'anvil', Transport, ViemChain>,
  publicClient: PublicClient<Transport, ViemChain>,
): Promise<void> {
  const carol = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
  await testClient.setBalance({ address: carol, value: 12_345n });
  expect(await publicClient.getBalance({ address: carol })).toBe(12_345n);
  const id = await testClient.snapshot();
  // viem caches the block number for its polling interval; a devnet's moves faster.
  const before = await publicClient.getBlockNumber({ cacheTime: 0 });
  const time = (await publicClient.getBlock()).timestamp + 1_000n;
  await testClient.setNextBlockTimestamp({ timestamp: time });
  await testClient.mine({ blocks: 3 });
  expect(await publicClient.getBlockNumber({ cacheTime: 0 })).toBe(before + 3n);
  expect((await publicClient.getBlock({ blockNumber: before + 1n })).timestamp).toBe(time);
  await testClient.revert({ id });
  expect(await publicClient.getBlockNumber({ cacheTime: 0 })).toBe(before);
  await testClient.impersonateAccount({ address: carol });
  await testClient.setBalance({ address: carol, value: 10n ** 18n });
  const hash = await testClient.request({
    method: 'eth_sendTransaction',
    params: [{ from: carol, to: BOB, value: '0x1' }],
  } as never);
  expect((await publicClient.waitForTransactionReceipt({ hash: hash as `0x${string}` })).from).toBe(
    carol.toLowerCase(),
  );
  await testClient.stopImpersonatingAccount({ address: carol });
}
