/**
 * One contract flow, written as a user of each client library would: deploy the ERC20 fixture,
 * transfer, read the receipt and the Transfer logs, call a reverting function, fetch a proof and
 * verify it. The same flow runs over the in-process provider and over HTTP and WebSocket.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { hexToBytes } from '@ethereumjs/util';
import { Contract, ContractFactory, Wallet } from 'ethers';
import type { AbstractProvider } from 'ethers';
import type { Account, Chain as ViemChain, PublicClient, Transport, WalletClient } from 'viem';
import { decodeEventLog, parseAbi } from 'viem';

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
export const BOB = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

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
