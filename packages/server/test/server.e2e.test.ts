import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import WebSocket from 'ws';

import { startTestNode, WsClient } from './testNode';
import type { TestNode } from './testNode';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const rpc = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

describe('one port, HTTP and WebSocket (open mode)', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(() => node.close());

  test('HTTP on / and /v3/<any key>, WebSocket on /ws and /ws/v3/<any key>, same port', async () => {
    expect((await node.post(rpc('eth_chainId'))).json).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
    expect((await node.post(rpc('eth_chainId'), '/v3/whatever')).json.result).toBe('0x7a69');
    for (const path of ['/ws', '/ws/v3/whatever']) {
      const ws = await node.ws(path);
      expect(await ws.request('eth_chainId')).toMatchObject({ result: '0x7a69' });
      await ws.close();
    }
    expect(new URL(node.url).port).toBe(new URL(node.wsUrl).port);
  });

  test('a batch is answered in order over both transports', async () => {
    const batch = [rpc('eth_chainId', [], 1), rpc('net_version', [], 'b'), rpc('eth_nope', [], 3)];
    const { json } = await node.post(batch);
    expect(json.map((a: { id: unknown }) => a.id)).toEqual([1, 'b', 3]);
    expect(json[2].error.code).toBe(-32601);
    const ws = await node.ws();
    const answers = await new Promise<any>((resolve) => {
      ws.socket.once('message', (d) => resolve(JSON.parse(d.toString())));
      ws.socket.send(JSON.stringify(batch));
    });
    expect(answers.map((a: { id: unknown }) => a.id)).toEqual([1, 'b', 3]);
    await ws.close();
  });

  test('GET /health answers without a key, with CORS headers', async () => {
    const res = await fetch(`${node.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toMatchObject({ status: 'ok', chainId: '0x7a69' });
    const preflight = await fetch(`${node.url}/v3/key`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });

  test.each([
    ['malformed JSON', '{"jsonrpc":', 200, { code: -32700, message: 'parse error: the body is not valid JSON' }],
    ['an empty batch', '[]', 200, { code: -32600, message: 'invalid request: empty batch' }],
    [
      'a non-object request',
      '"hello"',
      200,
      { code: -32600, message: 'invalid request: expected a JSON-RPC request object' },
    ],
    [
      'wrong param types',
      JSON.stringify(rpc('eth_getBalance', [1, 'latest'])),
      200,
      { code: -32602, message: 'invalid params: param 1 (address) must be a 20-byte hex address; got 1' },
    ],
    [
      'a missing param',
      JSON.stringify(rpc('eth_getBalance', [])),
      200,
      { code: -32602, message: 'invalid params: missing required param 1 (address)' },
    ],
    [
      'bad hex',
      JSON.stringify(rpc('eth_getBalance', [ALICE, '0xnothex'])),
      200,
      {
        code: -32602,
        message:
          'invalid params: param 2 (block) must be a hex block number, a 32-byte block hash or one of latest, earliest, pending, finalized, safe; got "0xnothex"',
      },
    ],
    [
      "bad hex, on the service document's path",
      JSON.stringify(rpc('eth_getBalance', [ALICE, '0xnothex'])),
      200,
      {
        code: -32602,
        message:
          'invalid params: param 2 (block) must be a hex block number or one of latest, earliest, pending, finalized; got "0xnothex"',
      },
      '/v3/any-key',
    ],
    [
      'an unknown method',
      JSON.stringify(rpc('eth_unknown')),
      200,
      { code: -32601, message: 'the method eth_unknown does not exist/is not available' },
    ],
  ])('%s gets a clear JSON-RPC error and the node keeps serving', async (_name, body, status, error, path = '/') => {
    const before = (await node.post(rpc('eth_getBalance', [BOB, 'latest']))).json.result;
    const res = await node.post(body, path);
    expect(res.status).toBe(status);
    expect(res.json.error).toEqual(error);
    expect((await node.post(rpc('eth_getBalance', [BOB, 'latest']))).json.result).toBe(before);
  });

  test('a key that is not valid percent-encoding is an unknown path', async () => {
    expect((await node.post(rpc('eth_chainId'), '/v3/%zz')).status).toBe(404);
    expect((await node.post(rpc('eth_chainId'))).json.result).toBe('0x7a69');
  });

  test('a wrong content type is 415, an unknown path 404, a GET on the endpoint 405', async () => {
    const wrongType = await node.post(rpc('eth_chainId'), '/', { 'Content-Type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.json.error.code).toBe(-32600);
    expect((await node.post(rpc('eth_chainId'), '/nope')).status).toBe(404);
    expect((await fetch(node.url)).status).toBe(405);
  });

  test('200 concurrent WebSocket clients each get their own answers, matched by id', async () => {
    const clients = await Promise.all(Array.from({ length: 200 }, () => node.ws()));
    const results = await Promise.all(
      clients.map(async (c, i) => {
        const a = await c.request('eth_getBalance', [ALICE, 'latest']);
        const b = await c.request('web3_sha3', [`0x${i.toString(16).padStart(4, '0')}`]);
        return [a.result, b.result];
      }),
    );
    const hashes = new Set(results.map((r) => r[1]));
    expect(hashes.size).toBe(200);
    expect(new Set(results.map((r) => r[0])).size).toBe(1);
    await Promise.all(clients.map((c) => c.close()));
  });

  test('a client that disconnects mid-request does not disturb the node', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(node.url).port), '127.0.0.1', () => {
        socket.write(
          'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":"2.0",',
        );
        socket.destroy();
        resolve();
      });
    });
    // Disconnect while the node is still working on the answer.
    await new Promise<void>((resolve) => {
      const body = JSON.stringify(rpc('eth_sendTransaction', [{ from: ALICE, to: BOB, value: '0x1' }]));
      const socket = connect(Number(new URL(node.url).port), '127.0.0.1', () => {
        socket.write(
          `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
        socket.destroy();
        resolve();
      });
    });
    const ws = await node.ws();
    ws.socket.send(JSON.stringify(rpc('eth_sendTransaction', [{ from: ALICE, to: BOB, value: '0x1' }], 99)));
    ws.socket.terminate();
    const deadline = Date.now() + 5000;
    while ((await node.post(rpc('eth_blockNumber'))).json.result !== '0x2' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await node.post(rpc('eth_blockNumber'))).json.result).toBe('0x2');
  });
});

describe('limits that protect the node', () => {
  test('a body over the limit is 413 with an error envelope, and the node stays up', async () => {
    const node = await startTestNode({ maxBodyBytes: 1000 });
    try {
      const big = JSON.stringify(rpc('web3_sha3', [`0x${'ab'.repeat(1000)}`]));
      const res = await node.post(big);
      expect(res.status).toBe(413);
      expect(res.json).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'request body too large: the limit is 1000 bytes' },
      });
      expect((await node.post(rpc('eth_chainId'))).json.result).toBe('0x7a69');
    } finally {
      await node.close();
    }
  });

  test('a batch over the limit is refused whole', async () => {
    const node = await startTestNode({ maxBatch: 3 });
    try {
      const res = await node.post([1, 2, 3, 4].map((id) => rpc('eth_chainId', [], id)));
      expect(res.json).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'invalid request: a batch of 4 requests is over the limit of 3' },
      });
      expect((await node.post([1, 2, 3].map((id) => rpc('eth_chainId', [], id)))).json).toHaveLength(3);
    } finally {
      await node.close();
    }
  });
});

describe('WebSocket limits', () => {
  test('a message over the size limit closes that socket; the node keeps serving', async () => {
    const node = await startTestNode({ maxWsMessageBytes: 1024 });
    try {
      const ws = await node.ws();
      const closed = new Promise<number>((resolve) => ws.socket.once('close', (code) => resolve(code)));
      ws.socket.send(JSON.stringify(rpc('web3_sha3', [`0x${'ab'.repeat(1000)}`])));
      expect(await closed).toBe(1006);
      const other = await node.ws();
      expect((await other.request('eth_chainId')).result).toBe('0x7a69');
      await other.close();
    } finally {
      await node.close();
    }
  });

  test('a reader that stops reading is disconnected past the backpressure limit, not buffered without bound', async () => {
    const node = await startTestNode({ maxWsBackpressureBytes: 256 * 1024 });
    try {
      const ws = await node.ws();
      expect(node.server.webSockets()).toBe(1);
      const socket = (ws.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      socket.pause();
      // Ask for far more than the limit and the kernel's socket buffers: 150 answers of ~90 KB
      // (proofs of 1,000 slots of an absent account: cheap to compute, long to write).
      const keys = Array.from({ length: 1000 }, (_, i) => `0x${i.toString(16)}`);
      for (let i = 0; i < 150; i++) ws.socket.send(JSON.stringify(rpc('eth_getProof', [BOB, keys, 'latest'], i)));
      const deadline = Date.now() + 30_000;
      while (node.server.webSockets() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(node.server.webSockets()).toBe(0);
      expect((await node.post(rpc('eth_chainId'))).json.result).toBe('0x7a69');
      const closed = new Promise<void>((resolve) => ws.socket.once('close', () => resolve()));
      socket.resume();
      await closed;
    } finally {
      await node.close();
    }
  });
});

describe('API keys (keyed mode)', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ apiKeys: ['good-key'] });
  });
  afterAll(() => node.close());

  test('HTTP: a valid key is served, a missing or unknown key gets 401 with an error envelope', async () => {
    expect((await node.post(rpc('eth_chainId'), '/v3/good-key')).json.result).toBe('0x7a69');
    const missing = await node.post(rpc('eth_chainId'), '/');
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: 'unauthorized: this node requires an API key in the path (/v3/<API_KEY>)' },
    });
    const unknown = await node.post(rpc('eth_chainId'), '/v3/bad-key');
    expect(unknown.status).toBe(401);
    expect(unknown.json.error).toEqual({ code: -32001, message: 'unauthorized: unknown API key' });
  });

  test('WebSocket: a bad or missing key is refused at the upgrade with 401', async () => {
    const ws = await node.ws('/ws/v3/good-key');
    expect((await ws.request('eth_chainId')).result).toBe('0x7a69');
    await ws.close();
    await expect(node.ws('/ws/v3/bad-key')).rejects.toThrow('upgrade refused: 401');
    await expect(node.ws('/ws')).rejects.toThrow('upgrade refused: 401');
  });
});

describe('credits', () => {
  test("each call is charged its method's credits, a batch per element, reported in headers", async () => {
    const node = await startTestNode();
    try {
      const one = await node.post(rpc('eth_getLogs', [{}]), '/v3/k1');
      expect(one.headers.get('x-credits-used')).toBe('255');
      expect(one.headers.get('x-credits-remaining')).toBe('unlimited');
      const batch = await node.post(
        [
          rpc('eth_call', [{ from: ALICE, to: BOB }, 'latest'], 1),
          rpc('eth_getBlockReceipts', ['latest'], 2),
          rpc('eth_chainId', [], 3),
        ],
        '/v3/k1',
      );
      expect(batch.headers.get('x-credits-used')).toBe(String(255 + 80 + 1000 + 80));
      const other = await node.post(rpc('eth_getProof', [ALICE, [], 'latest']), '/v3/k2');
      expect(other.headers.get('x-credits-used')).toBe('150');
    } finally {
      await node.close();
    }
  });

  test('an exhausted key gets 429 and -32005, the call does not run, and the balance resets at 00:00 UTC', async () => {
    let now = Date.parse('2026-01-01T23:59:00.000Z');
    const node = await startTestNode({ dailyCredits: 200, creditClock: () => now });
    try {
      const send = () => node.post(rpc('eth_sendTransaction', [{ from: ALICE, to: BOB, value: '0x1' }]), '/v3/k');
      expect((await send()).status).toBe(200);
      expect((await send()).headers.get('x-credits-remaining')).toBe('40');
      const refused = await send();
      expect(refused.status).toBe(429);
      expect(refused.json.error).toEqual({
        code: -32005,
        message:
          'daily credit limit exhausted: the call costs 80 credits and 40 of 200 are left today; the balance resets at 00:00 UTC',
      });
      expect(node.chain.headNumber).toBe(2n);
      const ws = await node.ws('/ws/v3/k');
      expect((await ws.request('eth_chainId')).error.code).toBe(-32005);
      expect(ws.socket.readyState).toBe(ws.socket.OPEN);
      now = Date.parse('2026-01-02T00:00:01.000Z');
      expect((await ws.request('eth_chainId')).result).toBe('0x7a69');
      await ws.close();
      expect((await send()).status).toBe(200);
      expect(node.chain.headNumber).toBe(3n);
    } finally {
      await node.close();
    }
  });

  test('unknown methods cost nothing; a batch partly paid for is answered 200', async () => {
    const node = await startTestNode({ dailyCredits: 100 });
    try {
      const unknown = await node.post(rpc('eth_nothing'), '/v3/k');
      expect(unknown.json.error.code).toBe(-32601);
      expect(unknown.headers.get('x-credits-used')).toBe('0');
      const batch = await node.post([rpc('eth_chainId', [], 1), rpc('eth_chainId', [], 2)], '/v3/k');
      expect(batch.status).toBe(200);
      expect(batch.json.map((a: { result?: string; error?: { code: number } }) => a.result ?? a.error?.code)).toEqual([
        '0x7a69',
        -32005,
      ]);
      expect((await node.post([rpc('eth_chainId', [], 1)], '/v3/k')).status).toBe(429);
    } finally {
      await node.close();
    }
  });

  test("a day's spending survives a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'l2devnet-credits-'));
    const clock = () => Date.parse('2026-03-03T12:00:00.000Z');
    try {
      const first = await startTestNode({ chain: { dataDir: dir }, dailyCredits: 1000, creditClock: clock });
      await first.post(rpc('eth_getLogs', [{}]), '/v3/k');
      await first.close();
      const second = await startTestNode({ chain: { dataDir: dir }, dailyCredits: 1000, creditClock: clock });
      try {
        const res = await second.post(rpc('eth_chainId'), '/v3/k');
        expect(res.headers.get('x-credits-used')).toBe(String(255 + 80));
        expect(res.headers.get('x-credits-remaining')).toBe(String(1000 - 255 - 80));
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("eth_getLogs is answered with the bytes JSON.stringify would write, alone, in a batch and over WebSocket (the answer is written from each log's kept JSON)", async () => {
  const node = await startTestNode();
  try {
    const counter = JSON.parse(
      readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'contracts', 'Counter.json'), 'utf8'),
    );
    const address = await node.deploy(counter.bytecode);
    const increment = '0xd09de08a'; // increment()
    for (let i = 0; i < 3; i++)
      await node.post(rpc('eth_sendTransaction', [{ from: ALICE, to: address, data: increment }]));
    const filter = { fromBlock: '0x0', toBlock: 'latest', address };
    const values = await node.rpc.request('eth_getLogs', [filter]);
    expect(values).toHaveLength(3);
    const raw = async (body: unknown) =>
      (
        await fetch(`${node.url}/`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).text();
    expect(await raw(rpc('eth_getLogs', [filter], 'a'))).toBe(
      JSON.stringify({ jsonrpc: '2.0', id: 'a', result: values }),
    );
    const batch = [
      rpc('eth_getLogs', [filter], 1),
      rpc('eth_chainId', [], 2),
      rpc('eth_nothing', [], 3),
      rpc('eth_getLogs', [{ address: ALICE }], null),
    ];
    expect(await raw(batch)).toBe(JSON.stringify(await node.rpc.handle(batch, undefined, { profile: 'geth' })));
    const socket = new WebSocket(`${node.wsUrl}/ws`);
    await new Promise((resolve) => socket.once('open', resolve));
    const message = new Promise<[string, boolean]>((resolve) =>
      socket.once('message', (data, isBinary) => resolve([data.toString(), isBinary])),
    );
    socket.send(JSON.stringify(rpc('eth_getLogs', [filter], 7)));
    // A text frame, as every other answer.
    expect(await message).toEqual([JSON.stringify({ jsonrpc: '2.0', id: 7, result: values }), false]);
    socket.close();
  } finally {
    await node.close();
  }
});

test('the WebSocket client helper reports refused upgrades', async () => {
  await expect(WsClient.open('ws://127.0.0.1:1/ws')).rejects.toThrow();
});
