/**
 * The one helper that starts a node for a test: an in-memory chain, the RPC over it and the server in
 * front of it on an ephemeral port, with a client for each transport.
 */
import { Chain } from '@l2devnet/core';
import type { ChainOptions } from '@l2devnet/core';
import { createRpc } from '@l2devnet/rpc';
import type { Rpc } from '@l2devnet/rpc';
import WebSocket from 'ws';

import { CreditLedger, startServer } from '../src';
import type { RunningServer, ServerOptions } from '../src';

export interface TestNodeOptions extends Partial<Omit<ServerOptions, 'ledger'>> {
  chain?: ChainOptions;
  dailyCredits?: number;
  /** Clock for the credit day (the real UTC date by default). */
  creditClock?: () => number;
  /** Spec rule on /v3/<KEY>: eth_call needs `from` (default true). */
  requireCallFrom?: boolean;
}

export interface TestNode {
  chain: Chain;
  rpc: Rpc;
  server: RunningServer;
  url: string;
  wsUrl: string;
  close(): Promise<void>;
  /** POSTs `body` (an object, or a raw string) to `path`; returns status, headers and parsed JSON. */
  post(
    body: unknown,
    path?: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; json: any }>;
  /** Opens a WebSocket to `path` and resolves when it is open. */
  ws(path?: string): Promise<WsClient>;
  /** Deploys `bytecode` over HTTP from the first dev account; resolves with the contract's address. */
  deploy(bytecode: string): Promise<string>;
}

/** The first dev account of the default mnemonic. */
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/** An in-memory node on an ephemeral port. */
export async function startTestNode(opts: TestNodeOptions = {}): Promise<TestNode> {
  const { chain: chainOpts, dailyCredits, creditClock, requireCallFrom, ...serverOpts } = opts;
  const chain = await Chain.create(chainOpts);
  const rpc = createRpc(chain, { requireCallFrom });
  const ledger = await CreditLedger.open(() => chain.kv, dailyCredits, creditClock);
  const server = await startServer(rpc, { port: 0, ...serverOpts, ledger });
  const url = server.url;
  const post: TestNode['post'] = async (body, path = '/', headers = {}) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text === '' ? undefined : JSON.parse(text) };
  };
  return {
    chain,
    rpc,
    server,
    url,
    wsUrl: server.wsUrl,
    async close() {
      await server.close();
      rpc.close();
      await chain.close();
    },
    post,
    ws: (path = '/ws') => WsClient.open(`${server.wsUrl}${path}`),
    async deploy(bytecode) {
      const sent = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_sendTransaction',
        params: [{ from: ALICE, data: bytecode }],
      });
      const receipt = await post({
        jsonrpc: '2.0',
        id: 2,
        method: 'eth_getTransactionReceipt',
        params: [sent.json.result],
      });
      return receipt.json.result.contractAddress as string;
    },
  };
}

/** A WebSocket client that matches answers to requests by id. */
export class WsClient {
  private pending = new Map<unknown, (msg: any) => void>();
  readonly notifications: any[] = [];
  private nextId = 1;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      const answers = Array.isArray(msg) ? msg : [msg];
      for (const a of answers) {
        const resolve = this.pending.get(a.id);
        if (resolve !== undefined) {
          this.pending.delete(a.id);
          resolve(a);
        } else this.notifications.push(a);
      }
    });
  }

  static open(url: string): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.once('open', () => resolve(new WsClient(socket)));
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }

  request(method: string, params: unknown[] = []): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  sendRaw(text: string, id: unknown): Promise<any> {
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.socket.send(text);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
