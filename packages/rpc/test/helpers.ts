import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Chain } from '@l2devnet/core';
import type { ChainOptions } from '@l2devnet/core';

import type { JsonRpcResponse, RpcOptions } from '../src';
import { createRpc, Rpc } from '../src';

export interface TestRpc {
  chain: Chain;
  rpc: Rpc;
  /** The result of a call that must succeed. */
  call<T = unknown>(method: string, ...params: unknown[]): Promise<T>;
  /** The error object of a call that must fail. */
  fail(method: string, ...params: unknown[]): Promise<{ code: number; message: string; data?: string }>;
  close(): Promise<void>;
}

let nextId = 1;

export async function createTestRpc(chainOpts: ChainOptions = {}, rpcOpts: RpcOptions = {}): Promise<TestRpc> {
  const chain = await Chain.create(chainOpts);
  const rpc = createRpc(chain, { logError: () => undefined, ...rpcOpts });
  const send = async (method: string, params: unknown[]) =>
    (await rpc.handle({ jsonrpc: '2.0', id: nextId++, method, params })) as JsonRpcResponse;
  return {
    chain,
    rpc,
    async call<T>(method: string, ...params: unknown[]): Promise<T> {
      const r = await send(method, params);
      if ('error' in r) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
      return r.result as T;
    },
    async fail(method: string, ...params: unknown[]) {
      const r = await send(method, params);
      if (!('error' in r)) throw new Error(`${method} succeeded with ${JSON.stringify(r.result)}`);
      return r.error;
    },
    close: () => chain.close(),
  };
}

/** Runs `fn` on a node of its own, closed after it whatever happens. */
export async function withTestRpc(chainOpts: ChainOptions, fn: (node: TestRpc) => Promise<void>): Promise<void> {
  const node = await createTestRpc(chainOpts);
  try {
    await fn(node);
  } finally {
    await node.close();
  }
}

export const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
export const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
export const CAROL = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';

export const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures');

/** A compiled fixture contract (fixtures/contracts/NAME.json). */
export function fixtureContract(name: string): { abi: unknown[]; bytecode: string } {
  return JSON.parse(readFileSync(join(FIXTURES, 'contracts', `${name}.json`), 'utf8')) as {
    abi: unknown[];
    bytecode: string;
  };
}

/** Counter.sol: increment() and count(). */
export const INCREMENT = '0xd09de08a';
export const COUNT = '0x06661abd';
/** Counter's Incremented event. */
export const INCREMENTED_TOPIC = '0x20d8a6f5a693f9d1d627a598e8820f7a55ee74c183aa8f1a30e8d4e8dd9a8d84';
export const ZERO32 = `0x${'00'.repeat(32)}`;

export interface RpcReceiptShape {
  contractAddress: string | null;
  status: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logs: { logIndex: string; topics: string[]; data: string; removed: boolean }[];
}

/** Deploys `bytecode` from ALICE; returns the contract's address. */
export async function deploy(t: TestRpc, bytecode: string): Promise<string> {
  const hash = await t.call<string>('eth_sendTransaction', { from: ALICE, data: bytecode, gas: '0x4c4b40' });
  const receipt = await t.call<RpcReceiptShape>('eth_getTransactionReceipt', hash);
  return receipt.contractAddress as string;
}

/**
 * A node with a short history the read methods are tested on: Counter deployed (block 1), ALICE's
 * increment (block 2, one log) and BOB's 5 wei to CAROL (block 3); `finalized` 2 and `safe` 1 behind.
 */
export async function seededTestRpc(): Promise<{
  t: TestRpc;
  counterAddress: string;
  incrementHash: string;
  deployBlock: string;
}> {
  const t = await createTestRpc({ finalizedDepth: 2n, safeDepth: 1n });
  const counterAddress = await deploy(t, fixtureContract('Counter').bytecode);
  const deployBlock = await t.call<string>('eth_blockNumber');
  const incrementHash = await t.call<string>('eth_sendTransaction', {
    from: ALICE,
    to: counterAddress,
    data: INCREMENT,
  });
  await t.call('eth_sendTransaction', { from: BOB, to: CAROL, value: '0x5' });
  return { t, counterAddress, incrementHash, deployBlock };
}
