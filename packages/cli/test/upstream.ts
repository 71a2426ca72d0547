/**
 * A real upstream node for the fork tests: Anvil (Foundry's, not this project's code) on 127.0.0.1,
 * and a proxy in front of it that counts what a forked node asks and can stop answering or answer
 * garbage.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';

const ANVIL = join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');

export interface Upstream {
  url: string;
  child: ChildProcess;
  call(method: string, params?: unknown[]): Promise<any>;
  stop(): Promise<void>;
}

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** JSON-RPC over HTTP; an error object is thrown. */
export async function jsonRpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Anvil on a free port, answering once it is up. */
export async function startAnvil(args: string[] = []): Promise<Upstream> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(ANVIL, ['--host', '127.0.0.1', '--port', String(port), '--silent', ...args], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; ; i++) {
    try {
      await jsonRpc(url, 'eth_chainId');
      break;
    } catch (e) {
      if (i > 100) throw new Error(`anvil did not start: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    child,
    call: (method, params) => jsonRpc(url, method, params),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface CountingProxy {
  url: string;
  /** HTTP requests passed on, and the methods of the calls in them. */
  requests: number;
  calls: string[];
  /** Each request's calls, by method. */
  batches: string[][];
  /**
   * `pass` forwards; `hang` never answers; `garbage` answers with text that is not JSON-RPC;
   * `noProofs` forwards, but answers eth_getProof as a node without it does.
   */
  mode: 'pass' | 'hang' | 'garbage' | 'noProofs';
  reset(): void;
  close(): Promise<void>;
}

/** A proxy to `target` that counts requests and calls. */
export async function countingProxy(target: string): Promise<CountingProxy> {
  const hung: ServerResponse[] = [];
  const proxy: CountingProxy = {
    url: '',
    requests: 0,
    calls: [],
    batches: [],
    mode: 'pass',
    reset() {
      proxy.requests = 0;
      proxy.calls = [];
      proxy.batches = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hung) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (proxy.mode === 'hang') return void hung.push(res);
      if (proxy.mode === 'garbage') return void res.writeHead(200).end('hello');
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = [];
      }
      const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((c) =>
        String((c as { method?: unknown }).method),
      );
      proxy.requests++;
      proxy.calls.push(...methods);
      proxy.batches.push(methods);
      const refused = new Set(
        proxy.mode !== 'noProofs'
          ? []
          : (Array.isArray(parsed) ? parsed : [parsed])
              .filter((c) => (c as { method?: unknown }).method === 'eth_getProof')
              .map((c) => (c as { id: unknown }).id),
      );
      const noProof = (a: { id: unknown }) =>
        refused.has(a.id)
          ? {
              jsonrpc: '2.0',
              id: a.id,
              error: { code: -32601, message: 'the method eth_getProof does not exist/is not available' },
            }
          : a;
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (r) => {
          const text = await r.text();
          const answer =
            refused.size === 0
              ? text
              : JSON.stringify(
                  Array.isArray(JSON.parse(text)) ? JSON.parse(text).map(noProof) : noProof(JSON.parse(text)),
                );
          res.writeHead(r.status, { 'content-type': 'application/json' }).end(answer);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
