import { request } from 'node:http';
import { connect } from 'node:net';

import { startTestNode } from './testNode';
import type { TestNode } from './testNode';

const rpc = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });
const CHAIN_ID = JSON.stringify(rpc('eth_chainId'));
/** How long a raw-socket exchange may take before the test calls it a hang. */
const EXCHANGE_TIMEOUT_MS = 3_000;

/** A part of what a test writes: bytes, or a step to await before writing on. */
type Part = string | (() => Promise<unknown>);

/** Writes `parts` in order on one TCP connection and collects what comes back until `done(text)` or the timeout. */
function exchange(port: number, parts: Part | Part[], done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const queue = Array.isArray(parts) ? [...parts] : [parts];
    // Each part is written once the previous one is flushed, so a server that closes early is seen.
    const writeNext = async (e?: Error | null): Promise<void> => {
      const part = queue.shift();
      if (e != null || part === undefined || socket.destroyed) return;
      if (typeof part === 'string') socket.write(part, (err) => void writeNext(err));
      else {
        await part();
        await writeNext();
      }
    };
    const socket = connect(port, '127.0.0.1', () => void writeNext());
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${EXCHANGE_TIMEOUT_MS} ms; got ${JSON.stringify(text)}`));
    }, EXCHANGE_TIMEOUT_MS);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    // A partial or malformed answer is not complete; the assertions say what is wrong with it.
    const complete = () => {
      try {
        return done(text);
      } catch {
        return false;
      }
    };
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (complete()) finish();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (complete()) resolve(text);
      else reject(new Error(`connection closed without a complete answer; got ${JSON.stringify(text)}`));
    });
    socket.on('error', () => undefined); // surfaces as 'close'
  });
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits `text` into HTTP/1.1 responses framed by Content-Length; `heads` is how many answer a HEAD (no body). */
function parseResponses(text: string, heads = 0): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
    if (match === null) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const length = out.length < heads ? 0 : Number(headers['content-length'] ?? 0);
    if (rest.length < end + 4 + length) break;
    out.push({ status: Number(match[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

const postRequest = (target: string, body: string) =>
  `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

describe('a body over the limit, streamed by a Node client', () => {
  const LIMIT = 1_000;
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ maxBodyBytes: LIMIT });
  });
  afterAll(() => node.close());

  /** Streams `chunks` chunks of 1,000 bytes and resolves with the answer, or rejects with the socket error. */
  function stream(chunks: number, declareLength: boolean): Promise<{ status: number; body: string }> {
    const chunk = 'a'.repeat(1_000);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'Content-Type': 'application/json' };
      if (declareLength) headers['Content-Length'] = chunk.length * chunks;
      const req = request(`${node.url}/`, { method: 'POST', headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      });
      req.on('error', reject);
      let sent = 0;
      const writeNext = () => {
        if (sent === chunks) {
          req.end();
          return;
        }
        sent++;
        // One chunk per write callback, so the body is still arriving when the limit is passed.
        req.write(chunk, (e) => (e ? undefined : setImmediate(writeNext)));
      };
      writeNext();
    });
  }

  test.each([
    ['with a Content-Length that declares it', true],
    ['in chunked encoding, with no Content-Length', false],
  ])('is answered 413 with an error envelope %s, and the node keeps serving', async (_name, declareLength) => {
    const res = await stream(3, declareLength);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `request body too large: the limit is ${LIMIT} bytes` },
    });
    expect((await node.post(rpc('eth_chainId'))).json.result).toBe('0x7a69');
  });

  test('is read to its end, so the client finishes writing, and the connection then serves the next request', async () => {
    const over = 'a'.repeat(3 * LIMIT);
    const chunked = `${(3 * LIMIT).toString(16)}\r\n${over}\r\n0\r\n\r\n`;
    for (const raw of [
      postRequest('/', over),
      `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`,
    ]) {
      const split = raw.indexOf('\r\n\r\n') + 4 + LIMIT + 1;
      const text = await exchange(
        node.server.port,
        // Past the limit first; then, once a request on another connection is answered (the node
        // has read what was sent), the rest of the body and a request after it.
        [raw.slice(0, split), () => node.post(rpc('eth_chainId')), raw.slice(split), postRequest('/', CHAIN_ID)],
        (t) => parseResponses(t).length >= 2,
      );
      const [refused, next] = parseResponses(text);
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.body).error).toEqual({
        code: -32600,
        message: `request body too large: the limit is ${LIMIT} bytes`,
      });
      expect(JSON.parse(next.body)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
    }
  });

  /**
   * Writes a request with a 6 MB body (more than the connection's buffers hold) and reads only once
   * it is all written, as a client that sends before it listens: a node that closes while part of the
   * body is unread resets the connection, and the answer waiting in the client's buffer is lost.
   */
  function writeThenRead(head: string, body: string): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(node.server.port, '127.0.0.1');
      socket.pause();
      let text = '';
      socket.on('data', (d) => (text += d.toString('latin1')));
      socket.on('error', () => undefined); // a reset surfaces as 'close' with nothing read
      socket.on('close', () => resolve(text));
      socket.write(head);
      socket.write(body, () => socket.resume());
    });
  }

  test.each([
    ['declared, too large', true, 'application/json', 413],
    ['chunked, too large', false, 'application/json', 413],
    ['declared, not JSON', true, 'text/plain', 415],
    ['chunked, not JSON', false, 'text/plain', 415],
  ])(
    'a client asking Connection: close reads the refusal of a body %s: it is read to its end first, not reset',
    async (_name, declareLength, contentType, status) => {
      const size = 6_000_000;
      const framing = declareLength ? `Content-Length: ${size}` : 'Transfer-Encoding: chunked';
      const head = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\n${framing}\r\nConnection: close\r\n\r\n`;
      const payload = 'a'.repeat(size);
      const body = declareLength ? payload : `${size.toString(16)}\r\n${payload}\r\n0\r\n\r\n`;
      const [answer] = parseResponses(await writeThenRead(head, body));
      expect(answer?.status).toBe(status);
      expect(JSON.parse(answer.body).error.code).toBe(-32600);
    },
  );

  test('a refused body is read to its end, so the connection carries the next request', async () => {
    const body = 'x'.repeat(3 * LIMIT);
    const text = await exchange(
      node.server.port,
      [
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        postRequest('/', CHAIN_ID),
      ],
      (t) => parseResponses(t).length >= 2,
    );
    const [refused, next] = parseResponses(text);
    expect(refused.status).toBe(415);
    expect(refused.headers.connection).toBeUndefined();
    expect(JSON.parse(next.body)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
  });

  test('declared past the limit: a client that sends less, or waits to send, is answered once it stops sending for a second, and the connection closed', async () => {
    const head = (extra: string) =>
      `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${2 * LIMIT}\r\n${extra}\r\n`;
    // A short body, and nothing more.
    const short = parseResponses(
      await exchange(node.server.port, [head('') + '{"jsonrpc"'], (t) => parseResponses(t).length >= 1),
    );
    expect(short[0].status).toBe(413);
    expect(short[0].headers.connection).toBe('close');
    // Expect: 100-continue, and no body sent: the 100 Continue uWS writes, then the refusal.
    const final = (t: string) => parseResponses(t).filter((r) => r.status >= 200);
    const waiting = final(
      await exchange(node.server.port, [head('Expect: 100-continue\r\n')], (t) => final(t).length >= 1),
    );
    expect(waiting[0].status).toBe(413);
    expect((await node.post(rpc('eth_chainId'))).json.result).toBe('0x7a69');
  });

  test('is answered 413 at once and the connection closed when it is declared past what is read to its end (64 MiB here)', async () => {
    const text = await exchange(
      node.server.port,
      [
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${100 * 2 ** 20}\r\n\r\n`,
      ],
      (t) => parseResponses(t).length >= 1,
    );
    const [refused] = parseResponses(text);
    expect(refused.status).toBe(413);
    expect(refused.headers.connection).toBe('close');
  });
});

describe('HTTP/1.1 framing on a raw connection', () => {
  let node: TestNode;
  let port: number;
  beforeAll(async () => {
    node = await startTestNode();
    port = node.server.port;
  });
  afterAll(() => node.close());

  test('a HEAD answer has headers only, so the next request on the connection is answered intact', async () => {
    const text = await exchange(
      port,
      `HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${postRequest('/', CHAIN_ID)}`,
      (t) => parseResponses(t, 1).length >= 2,
    );
    const [head, post] = parseResponses(text, 1);
    expect(head.status).toBe(405);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0); // the GET answer's length
    expect(post.status).toBe(200);
    expect(JSON.parse(post.body)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
  });

  test('HEAD /health answers 200 with the headers of GET /health and no body', async () => {
    const text = await exchange(
      port,
      `HEAD /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${postRequest('/', CHAIN_ID)}`,
      (t) => parseResponses(t, 1).length >= 2,
    );
    const [head, post] = parseResponses(text, 1);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json');
    expect(post.status).toBe(200);
  });
});

test('a keep-alive connection opened before the node closed gets 503 and is closed, not an answer from a closed chain', async () => {
  const node = await startTestNode();
  const text = await new Promise<string>((resolve, reject) => {
    let got = '';
    const socket = connect(node.server.port, '127.0.0.1', () => socket.write(postRequest('/', CHAIN_ID)));
    socket.on('data', (d) => {
      got += d.toString('latin1');
      // The first answer is in: close the node, then use the same connection again.
      if (parseResponses(got).length === 1 && !got.includes('503'))
        void node.close().then(() => socket.write(postRequest('/', JSON.stringify(rpc('evm_mine')))));
    });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
    setTimeout(() => reject(new Error(`no close; got ${JSON.stringify(got)}`)), EXCHANGE_TIMEOUT_MS);
  });
  const [first, after] = parseResponses(text);
  expect(JSON.parse(first.body).result).toBe('0x7a69');
  expect(after.status).toBe(503);
  expect(after.headers.connection).toBe('close');
  expect(JSON.parse(after.body).error).toEqual({ code: -32603, message: 'the node is shutting down' });
});

describe('the Host a request names (DNS rebinding)', () => {
  const withHost = (host: string, body = CHAIN_ID) =>
    `POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const ask = async (port: number, raw: string) =>
    parseResponses(await exchange(port, raw, (t) => parseResponses(t).length >= 1))[0];

  test('on loopback, a request naming another host is refused 403, as geth refuses it; loopback names and addresses are answered', async () => {
    const node = await startTestNode();
    try {
      const port = node.server.port;
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost', `[::1]:${port}`, 'app.localhost'])
        expect((await ask(port, withHost(host))).status).toBe(200);
      const refused = await ask(port, withHost('evil.example:8545'));
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).error).toEqual({
        code: -32600,
        message:
          'invalid host specified: evil.example:8545; this node answers loopback names and addresses (start it with --allow-host evil.example to answer this one)',
      });
      // The page and a WebSocket upgrade likewise; the node keeps serving.
      const page = await ask(port, `GET / HTTP/1.1\r\nHost: evil.example\r\nAccept: text/html\r\n\r\n`);
      expect(page.status).toBe(403);
      const upgrade = await ask(
        port,
        `GET / HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      expect(upgrade.status).toBe(403);
      expect((await node.post(rpc('eth_chainId'))).json.result).toBe('0x7a69');
    } finally {
      await node.close();
    }
  });

  test('--allow-host adds names; listening on 0.0.0.0 any host is answered', async () => {
    const allowed = await startTestNode({ allowHosts: ['devbox.lan'] });
    try {
      expect((await ask(allowed.server.port, withHost('devbox.lan:8545'))).status).toBe(200);
      expect((await ask(allowed.server.port, withHost('other.lan'))).status).toBe(403);
    } finally {
      await allowed.close();
    }
    const open = await startTestNode({ host: '0.0.0.0' });
    try {
      expect((await ask(open.server.port, withHost('devbox.lan'))).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
