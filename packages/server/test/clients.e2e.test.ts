/**
 * The compatibility suite: viem (public, wallet and anvil-mode test clients, simulateBlocks), ethers
 * v6, web3.js 4 and Foundry's cast each drive the same flow (rpc/test/flows.ts: deploy, transfer,
 * logs, receipts, the block by hash, a proof, a trace, a simulation) against the running server,
 * over HTTP and WebSocket, on the devnet paths (`/`, `/ws`: geth's conventions) and on the service's
 * (`/v3/<KEY>`, `/ws/v3/<KEY>`).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { hexToBytes } from '@ethereumjs/util';
import { JsonRpcProvider, WebSocketProvider } from 'ethers';
import { createPublicClient, createTestClient, createWalletClient, http, webSocket } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { Web3, WebSocketProvider as Web3WebSocketProvider } from 'web3';

import {
  ALICE,
  ALICE_KEY,
  BOB,
  ethersFlow,
  expectNodeViews,
  reverter,
  token,
  viemFlow,
  viemTestClientFlow,
  web3Flow,
} from '../../rpc/test/flows';
import { verifyProof } from '../../rpc/test/proofVerifier';
import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

const CAST = join(__dirname, '..', '..', '..', 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast');
const exec = promisify(execFile);

/** The four ways in: each profile's path, over HTTP and WebSocket. */
const ENDPOINTS = [
  { name: 'HTTP /', ws: false, path: '/' },
  { name: 'WebSocket /ws', ws: true, path: '/ws' },
  { name: 'HTTP /v3/<KEY>', ws: false, path: '/v3/test-key' },
  { name: 'WebSocket /ws/v3/<KEY>', ws: true, path: '/ws/v3/test-key' },
] as const;
type Endpoint = (typeof ENDPOINTS)[number];

let node: TestNode;
beforeEach(async () => {
  node = await startTestNode();
});
afterEach(() => node.close());

const urlOf = (e: Endpoint) => `${e.ws ? node.wsUrl : node.url}${e.path}`;

describe.each(ENDPOINTS)('$name', (endpoint) => {
  // ethers caches identical requests for 250 ms by default; a devnet mines faster than that.
  test('ethers v6', async () => {
    const provider = endpoint.ws
      ? new WebSocketProvider(urlOf(endpoint), undefined, { cacheTimeout: -1 })
      : new JsonRpcProvider(urlOf(endpoint), undefined, { cacheTimeout: -1, staticNetwork: true });
    try {
      await ethersFlow(provider);
    } finally {
      await provider.destroy();
    }
  });

  test('viem: public, wallet and anvil-mode test clients', async () => {
    const transport = endpoint.ws ? webSocket(urlOf(endpoint)) : http(urlOf(endpoint));
    const publicClient = createPublicClient({ chain: foundry, transport });
    try {
      await viemFlow(
        publicClient,
        createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(ALICE_KEY) }),
      );
      await viemTestClientFlow(createTestClient({ chain: foundry, mode: 'anvil', transport }), publicClient);
    } finally {
      if (endpoint.ws) (await publicClient.transport.getRpcClient()).close();
    }
  });

  test('web3.js 4', async () => {
    const provider = endpoint.ws ? new Web3WebSocketProvider(urlOf(endpoint)) : urlOf(endpoint);
    const web3 = new Web3(provider);
    try {
      await web3Flow(web3);
    } finally {
      if (endpoint.ws) (web3.currentProvider as Web3WebSocketProvider).disconnect();
    }
  });

  test("Foundry's cast", async () => {
    const rpcUrl = urlOf(endpoint);
    // The RPC URL right after the subcommand: the subcommands' trailing arguments take what follows.
    const cast = async (command: string, ...args: string[]) =>
      (await exec(CAST, [command, '--rpc-url', rpcUrl, ...args], { timeout: 60_000 })).stdout.trim();
    // No fee flag: on a fresh chain cast takes its tip from eth_feeHistory's rewards of blocks without
    // transactions, which must pay Linea's profitability rule (alloy falls back to 1 wei on zeros).
    const send = async (...args: string[]) =>
      JSON.parse(await cast('send', '--private-key', ALICE_KEY, '--json', ...args));

    expect(await cast('chain-id')).toBe('31337');
    const deployed = await send(
      '--create',
      token.bytecode,
      'constructor(string,string,uint256)',
      'Test',
      'TST',
      '1000000',
    );
    const address: string = deployed.contractAddress;
    expect(await cast('call', address, 'balanceOf(address)(uint256)', ALICE, '--from', ALICE)).toBe('1000000 [1e6]');

    const receipt = await send(address, 'transfer(address,uint256)', BOB, '250');
    expect(receipt.status).toBe('0x1');
    expect(receipt.logs).toHaveLength(1);
    const logs = JSON.parse(
      await cast(
        'logs',
        '--json',
        '--from-block',
        '0',
        '--address',
        address,
        'Transfer(address indexed from,address indexed to,uint256 value)',
      ),
    );
    // The mint to the deployer, then the transfer.
    expect(logs).toHaveLength(2);
    expect(logs[1].transactionHash).toBe(receipt.transactionHash);

    const mined = JSON.parse(await cast('block', receipt.blockHash, '--json'));
    expect(mined.number).toBe(receipt.blockNumber);
    await expectNodeViews(
      async (method, params) => JSON.parse(await cast('rpc', method, '--raw', JSON.stringify(params))),
      {
        hash: receipt.transactionHash,
        blockHash: receipt.blockHash,
        gasUsed: BigInt(receipt.gasUsed),
        token: address,
      },
    );

    const rev = (await send('--create', reverter.bytecode)).contractAddress;
    await expect(cast('call', rev, 'revertWithReason()', '--from', ALICE)).rejects.toMatchObject({
      stderr: expect.stringContaining('execution reverted: nope'),
    });

    const proof = JSON.parse(await cast('proof', address, '0', '--block', 'latest'));
    const latest = JSON.parse(await cast('block', 'latest', '--json'));
    expect(verifyProof(latest.stateRoot, hexToBytes(address as `0x${string}`), proof.accountProof)).toBeDefined();
  });
});
