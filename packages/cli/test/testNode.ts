import WebSocket from 'ws';

import type { NodeOptions, RunningNode } from '../src/node';
import { startNode } from '../src/node';

export interface TestNode extends RunningNode {
  url: string;
  wsUrl: string;
  /** POSTs `body` (an object, or a raw string) to `path`; returns status, headers and parsed JSON. */
  post(
    body: unknown,
    path?: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; json: any }>;
  /** Opens a WebSocket to `path` and resolves when it is open. */
  ws(path?: string): Promise<WsClient>;
}

/** An in-memory node on an ephemeral port. */
export async function startTestNode(opts: Partial<NodeOptions> = {}): Promise<TestNode> {
  const node = await startNode({ port: 0, ...opts, chain: { ...opts.chain } });
  const url = node.server.url;
  return {
    ...node,
    url,
    wsUrl: node.server.wsUrl,
    async post(body, path = '/', headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, json: text === '' ? undefined : JSON.parse(text) };
    },
    ws: (path = '/ws') => WsClient.open(`${node.server.wsUrl}${path}`),
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
