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
