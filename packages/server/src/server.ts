/**
 * The network transport: HTTP POST and WebSocket on one port (uWebSockets.js), over the in-process
 * RPC. It decides only HTTP outcomes — bad key (401), out of credits (429), body too large (413),
 * wrong content type (415), unknown path (404) — and every other answer is a JSON-RPC response
 * built by the rpc package. No exception reaches a socket, and a client that goes away mid-request
 * is noticed (onAborted / close) before anything is written to it. A browser's GET on `/` (or
 * `/ui`) gets the page (fixtures/ui/index.html), which speaks JSON-RPC back to the same paths.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

import { FIXTURES_DIR } from '@l2devnet/core';
import type { Authorize, JsonRpcResponse, Rpc, Session } from '@l2devnet/rpc';
import { INVALID_REQUEST, LIMIT_EXCEEDED, quantity, RpcError, serializeResponse } from '@l2devnet/rpc';
import uWS from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, WebSocket } from 'uWebSockets.js';

import type { CreditLedger } from './creditLedger';
import { listenFailure } from './listen';

/** uSockets' option for a port no other socket may share (ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT). */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;
/** The page the node serves to browsers: one self-contained file, no remote assets. */
const PAGE = readFileSync(join(FIXTURES_DIR, 'ui', 'index.html'));

/** uWS's listen with options, which this build's typings leave out for a host. */
interface ExclusiveListen {
  listen(host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void): void;
}

/** Default request body limit: 5 MiB. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/**
 * A refused request's body (too large, a wrong content type, an unknown path or key) is read and
 * dropped before the refusal is sent: answered while the client is still writing, the connection is
 * closed under it (uWS closes after the answer when the client asked for Connection: close), and the
 * client reads EPIPE or ECONNRESET instead of the answer. Bounded: past this many times the body limit
 * (and at least DISCARD_MIN_BYTES), or when the client sends nothing for DISCARD_IDLE_MS, the refusal
 * is sent at once and the connection closed, so a client cannot hold the node with an endless body.
 */
const OVER_LIMIT_READ_FACTOR = 4;
const DISCARD_MIN_BYTES = 64 * 1024 * 1024;
const DISCARD_IDLE_MS = 1_000;
/** Default number of requests in one batch. */
export const MAX_BATCH = 1_000;
/** Default WebSocket message limit, as the body limit. */
export const MAX_WS_MESSAGE_BYTES = MAX_BODY_BYTES;
/** Bytes queued for a slow WebSocket reader before it is disconnected. */
export const MAX_WS_BACKPRESSURE_BYTES = 16 * 1024 * 1024;
/** Seconds a WebSocket may stay silent (pings are sent automatically). uWS wants a multiple of 4. */
export const WS_IDLE_TIMEOUT_S = 120;
/** JSON-RPC code for a missing or unknown API key (the code hosted node APIs use). */
export const UNAUTHORIZED = -32001;

export interface ServerOptions {
  /** The L1 beside the L2 (--l1): served under /l1 (/l1, /l1/ws, /l1/v3/<key>, /l1/ws/v3/<key>). */
  l1?: Rpc;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Keyed mode when non-empty: only these keys are accepted. Open mode otherwise. */
  apiKeys?: string[];
  ledger: CreditLedger;
  maxBodyBytes?: number;
  maxBatch?: number;
  maxWsMessageBytes?: number;
  maxWsBackpressureBytes?: number;
  log?: (line: string) => void;
  /** The origin browsers may call from (default `*`); null sends no CORS headers. */
  allowOrigin?: string | null;
  /** Host names answered besides loopback names and IP addresses ('*': any); see hostCheck. */
  allowHosts?: string[];
}

export interface RunningServer {
  host: string;
  port: number;
  url: string;
  wsUrl: string;
  /** Open WebSocket connections. */
  webSockets(): number;
  close(): Promise<void>;
}

/** Enough of a key to recognise it in a log line, never the whole key. */
export function maskKey(key: string): string {
  return key.length <= 4 ? '****' : `${key.slice(0, 4)}…`;
}

/**
 * The CORS headers: on every answer, so a browser dapp can read it (and the credit headers), from
 * any origin or the one given (Anvil's --allow-origin); none at all with `null` (--no-cors). The
 * answer to a preflight (OPTIONS) request carries more.
 */
function corsHeaders(origin: string | null): { answer: [string, string][]; preflight: [string, string][] } {
  if (origin === null) return { answer: [], preflight: [] };
  const answer: [string, string][] = [
    ['Access-Control-Allow-Origin', origin],
    ['Access-Control-Expose-Headers', 'X-Credits-Used, X-Credits-Remaining'],
  ];
  const preflight: [string, string][] = [
    ...answer,
    ['Access-Control-Allow-Methods', 'POST, GET, OPTIONS'],
    ['Access-Control-Allow-Headers', 'Content-Type'],
    ['Access-Control-Max-Age', '86400'],
  ];
  return { answer, preflight };
}

/**
 * Which Host headers the node answers, as geth's --http.vhosts (default localhost): listening on a
 * loopback address, an IP address, `localhost` or a name under `.localhost`, and the names
 * `allowHosts` adds (`*` for any); listening elsewhere, any name unless `allowHosts` lists them. A
 * web page a developer visits can re-point its own name at 127.0.0.1 (DNS rebinding) and then send
 * the node requests from its origin, as the dev accounts; those requests carry its name as Host.
 * A request without a Host header (HTTP/1.0, by hand) is answered: a browser always sends one.
 */
export function hostCheck(listening: string, allowHosts: string[] = []): (host: string) => boolean {
  const loopback = listening === 'localhost' || listening === '::1' || listening.startsWith('127.');
  if (allowHosts.includes('*') || (!loopback && allowHosts.length === 0)) return () => true;
  const names = new Set(['localhost', ...allowHosts.map((h) => h.toLowerCase())]);
  return (header) => {
    if (header === '') return true;
    const name = hostName(header).toLowerCase();
    return isIP(name) !== 0 || names.has(name) || name.endsWith('.localhost');
  };
}

/** The name of a Host header: its port and an IPv6 address's brackets taken off. */
function hostName(header: string): string {
  if (header.startsWith('[')) return header.slice(1, header.indexOf(']'));
  const colon = header.indexOf(':');
  return colon < 0 ? header : header.slice(0, colon);
}

type Route = { key: string; l1: boolean };

/**
 * `/` (HTTP and WebSocket, as Anvil and geth serve) and `/ws` (WebSocket) in open mode, or `/v3/<key>`
 * and `/ws/v3/<key>`; the same under `/l1` for the L1 when there is one.
 */
function route(url: string, ws: boolean, l1: boolean): Route | undefined {
  if (l1 && (url === '/l1' || url.startsWith('/l1/'))) {
    const found = keyOf(url.length === 3 ? '/' : url.slice(3), ws);
    return found === undefined ? undefined : { key: found.key, l1: true };
  }
  const found = keyOf(url, ws);
  return found === undefined ? undefined : { key: found.key, l1: false };
}

function keyOf(url: string, ws: boolean): { key: string } | undefined {
  const path = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
  if (path === '/' || (ws && path === '/ws')) return { key: '' };
  const match = /^\/v3\/([^/]+)$/.exec(ws ? path.slice(3) : path);
  if (ws && !path.startsWith('/ws/')) return undefined;
  if (match === null) return undefined;
  try {
    return { key: decodeURIComponent(match[1]) };
  } catch {
    return undefined; // not a valid percent-encoding: no such endpoint
  }
}

interface SocketData {
  key: string;
  /** The chain it talks to: the L2's RPC, or the L1's. */
  rpc: Rpc;
  /** Opened on /ws rather than /ws/v3/<key>. */
  plain: boolean;
  closed: boolean;
  /** Where this socket's subscriptions send their notifications. */
  session: Session;
}

interface Outcome {
  status: string;
  /** Text, or UTF-8 bytes (an answer with a JsonText result). */
  body: string | Buffer;
  headers: [string, string][];
}

function envelope(error: RpcError): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: error.toJSON() });
}

export async function startServer(rpc: Rpc, opts: ServerOptions): Promise<RunningServer> {
  const cors = corsHeaders(opts.allowOrigin === undefined ? '*' : opts.allowOrigin);
  const host = opts.host ?? '127.0.0.1';
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const discardLimit = Math.max(maxBody * OVER_LIMIT_READ_FACTOR, DISCARD_MIN_BYTES);
  const maxBatch = opts.maxBatch ?? MAX_BATCH;
  const keys = new Set(opts.apiKeys ?? []);
  const hostAllowed = hostCheck(host, opts.allowHosts);
  /** 403 for a Host the node does not answer (geth's words first). */
  const hostRefusal = (req: HttpRequest): Outcome | undefined => {
    const name = req.getHeader('host');
    if (hostAllowed(name)) return undefined;
    const error = new RpcError(
      INVALID_REQUEST,
      `invalid host specified: ${name}; this node answers loopback names and addresses (start it with --allow-host ${hostName(name)} to answer this one)`,
    );
    return { status: '403 Forbidden', body: envelope(error), headers: [] };
  };
  const keyed = keys.size > 0;
  const log = opts.log ?? (() => undefined);
  const ledger = opts.ledger;
  const sockets = new Set<WebSocket<SocketData>>();

  /** The key a request is charged to, or the 401 error. */
  function authenticate(key: string): string | RpcError {
    if (!keyed) return key === '' ? 'anonymous' : key;
    if (key === '')
      return new RpcError(UNAUTHORIZED, 'unauthorized: this node requires an API key in the path (/v3/<API_KEY>)');
    if (!keys.has(key)) {
      log(`refused unknown API key ${maskKey(key)}`);
      return new RpcError(UNAUTHORIZED, 'unauthorized: unknown API key');
    }
    return key;
  }

  /**
   * Runs a body for `key`, charging each call; notes whether any call was refused for credits. The
   * spec's eth_call `from` rule holds on the hosted-API paths; `plain` (`/`, `/ws`) relaxes it.
   */
  async function execute(
    rpc: Rpc,
    text: string,
    key: string,
    plain: boolean,
    session?: Session,
  ): Promise<{ response: JsonRpcResponse | JsonRpcResponse[] | undefined; outOfCredits: boolean }> {
    let charged = 0;
    let refused = 0;
    const authorize: Authorize = (_method, credits) => {
      const charge = ledger.charge(key, credits);
      if (charge.ok) {
        charged++;
        return undefined;
      }
      refused++;
      return new RpcError(
        LIMIT_EXCEEDED,
        `daily credit limit exhausted: the call costs ${credits} credits and ${charge.remaining} of ${ledger.dailyCredits} are left today; the balance resets at 00:00 UTC`,
      );
    };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { response: await rpc.handleText(text, undefined, { session }), outOfCredits: false };
    }
    if (Array.isArray(body) && body.length > maxBatch) {
      const error = new RpcError(
        INVALID_REQUEST,
        `invalid request: a batch of ${body.length} requests is over the limit of ${maxBatch}`,
      );
      return { response: { jsonrpc: '2.0', id: null, error: error.toJSON() }, outOfCredits: false };
    }
    const response = await rpc.handle(body, authorize, {
      session,
      profile: plain ? 'geth' : 'service',
      jsonText: true,
    });
    // 429 when the key could pay for none of the calls; a batch partly paid for is answered 200,
    // with -32005 in the elements that did not run.
    return { response, outOfCredits: refused > 0 && charged === 0 };
  }

  function creditHeaders(key: string): [string, string][] {
    const b = ledger.balance(key);
    return [
      ['X-Credits-Used', String(b.used)],
      ['X-Credits-Remaining', b.remaining === undefined ? 'unlimited' : String(b.remaining)],
    ];
  }

  /** The page: one static file, read once. */
  function page(res: HttpResponse): void {
    res.cork(() => {
      res.writeStatus('200 OK');
      res.writeHeader('Content-Type', 'text/html; charset=utf-8');
      res.writeHeader('Cache-Control', 'no-cache');
      res.end(PAGE);
    });
  }

  /** Writes an answer; `withBody` false for HEAD, whose answer still reports the body's length. */
  function answer(res: HttpResponse, out: Outcome, withBody: boolean): void {
    res.cork(() => {
      res.writeStatus(out.status);
      for (const [k, v] of cors.answer) res.writeHeader(k, v);
      for (const [k, v] of out.headers) res.writeHeader(k, v);
      if (out.body.length > 0) res.writeHeader('Content-Type', 'application/json');
      if (withBody) {
        res.end(out.body);
        return;
      }
      // Written by hand: this uWS build's endWithoutBody(length) leaves the response unfinished
      // (and then aborts the process); endWithoutBody() writes no length of its own.
      res.writeHeader('Content-Length', String(Buffer.byteLength(out.body)));
      res.endWithoutBody();
    });
  }

  function send(res: HttpResponse, state: { aborted: boolean }, out: Outcome): void {
    if (!state.aborted) answer(res, out, true);
  }

  /** Why a POST is refused before its body matters: no endpoint, no key, not JSON, declared too large. */
  function refusalOf(req: HttpRequest, target: Route | undefined, who: string | RpcError): Outcome | undefined {
    const host = hostRefusal(req);
    if (host !== undefined) return host;
    if (target === undefined)
      return {
        status: '404 Not Found',
        body: envelope(new RpcError(INVALID_REQUEST, `no JSON-RPC endpoint at ${req.getUrl()}; use /v3/<API_KEY>`)),
        headers: [],
      };
    if (who instanceof RpcError) return { status: '401 Unauthorized', body: envelope(who), headers: [] };
    const contentType = req.getHeader('content-type');
    if (!contentType.toLowerCase().startsWith('application/json')) {
      const error = new RpcError(
        INVALID_REQUEST,
        `invalid content type ${JSON.stringify(contentType)}: only application/json is supported`,
      );
      return { status: '415 Unsupported Media Type', body: envelope(error), headers: [] };
    }
    if (Number(req.getHeader('content-length')) > maxBody) return tooLarge();
    return undefined;
  }

  function tooLarge(): Outcome {
    const error = new RpcError(INVALID_REQUEST, `request body too large: the limit is ${maxBody} bytes`);
    return { status: '413 Payload Too Large', body: envelope(error), headers: [] };
  }

  /**
   * Reads and drops the rest of a refused request's body, then sends `outcome` on a connection that
   * can carry the next request; at the bounds (DISCARD_*), sends it at once and closes the connection.
   */
  function discardThenSend(res: HttpResponse, state: { aborted: boolean }, outcome: Outcome, read = 0): void {
    let timer: NodeJS.Timeout | undefined;
    const finish = (close: boolean) => {
      clearTimeout(timer);
      if (close) sendAndClose(res, state, outcome);
      else send(res, state, outcome);
      state.aborted = true;
    };
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(true), DISCARD_IDLE_MS);
    };
    res.onData((chunk, isLast) => {
      if (state.aborted) return;
      read += chunk.byteLength;
      if (isLast) finish(false);
      else if (read > discardLimit) finish(true);
      else idle();
    });
    idle();
  }

  /** Sends `outcome` and closes the connection: the request's body is not read to its end. */
  function sendAndClose(res: HttpResponse, state: { aborted: boolean }, out: Outcome): void {
    if (state.aborted) return;
    res.cork(() => {
      res.writeStatus(out.status);
      for (const [k, v] of cors.answer) res.writeHeader(k, v);
      for (const [k, v] of out.headers) res.writeHeader(k, v);
      res.writeHeader('Content-Type', 'application/json');
      res.writeHeader('Connection', 'close');
      res.end(out.body, true);
    });
  }

  function onPost(res: HttpResponse, req: HttpRequest): void {
    const state = { aborted: false };
    res.onAborted(() => {
      state.aborted = true;
    });
    const target = route(req.getUrl(), false, opts.l1 !== undefined);
    const who = target === undefined || !hostAllowed(req.getHeader('host')) ? '' : authenticate(target.key);
    const refusal = refusalOf(req, target, who);
    if (refusal !== undefined) {
      // Declared past what is read to its end: refused at the headers, and the connection closed.
      if (Number(req.getHeader('content-length')) > discardLimit) sendAndClose(res, state, refusal);
      else discardThenSend(res, state, refusal);
      return;
    }
    const endpoint = target as Route;
    const caller = who as string;
    let chunks: Buffer[] = [];
    let size = 0;
    res.onData((chunk, isLast) => {
      if (state.aborted) return;
      size += chunk.byteLength;
      if (size > maxBody) {
        // Past the limit while streaming: what was kept is dropped, the rest is read past, then refused.
        chunks = [];
        if (isLast) send(res, state, tooLarge());
        else discardThenSend(res, state, tooLarge(), size);
        return;
      }
      // The chunk's memory is reused by uWS after this callback: decode or copy it now.
      if (isLast && chunks.length === 0) {
        run(Buffer.from(chunk).toString('utf8'));
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) run(Buffer.concat(chunks).toString('utf8'));
    });
    const run = (text: string) => {
      execute(endpoint.l1 ? (opts.l1 as Rpc) : rpc, text, caller, endpoint.key === '').then(
        ({ response, outOfCredits }) => {
          send(res, state, {
            status: outOfCredits ? '429 Too Many Requests' : '200 OK',
            body: response === undefined ? '' : serializeResponse(response),
            headers: creditHeaders(caller),
          });
        },
        (e: unknown) => {
          log(`internal error: ${(e as Error).stack ?? String(e)}`);
          send(res, state, {
            status: '500 Internal Server Error',
            body: envelope(new RpcError(-32603, 'internal error')),
            headers: [],
          });
        },
      );
    };
  }

  function health(): Outcome {
    const { chain } = rpc;
    const body = { status: 'ok', blockNumber: quantity(chain.headNumber), chainId: quantity(chain.chainId) };
    return { status: '200 OK', body: JSON.stringify(body), headers: [] };
  }

  /** What any method but POST, OPTIONS and GET /health gets: 405 on an endpoint, 404 elsewhere. */
  function notServed(req: HttpRequest): Outcome {
    const url = req.getUrl();
    const error = new RpcError(
      INVALID_REQUEST,
      `${req.getMethod().toUpperCase()} ${url} is not served: send JSON-RPC with POST`,
    );
    const endpoint =
      url === '/' || url.startsWith('/v3/') || (opts.l1 !== undefined && (url === '/l1' || url.startsWith('/l1/v3/')));
    return { status: endpoint ? '405 Method Not Allowed' : '404 Not Found', body: envelope(error), headers: [] };
  }

  /**
   * Once closed, the node answers nothing more: a keep-alive connection opened before (uWS closes
   * the listening socket only) gets 503 and is closed, instead of a request on a closed chain.
   */
  let closed = false;
  /** A handler behind the closed check and, unless it checks it itself (a POST reads its body first), the Host check. */
  const served =
    (handler: (res: HttpResponse, req: HttpRequest) => void, checkHost = true) =>
    (res: HttpResponse, req: HttpRequest): void => {
      const refused = closed || !checkHost ? undefined : hostRefusal(req);
      if (refused !== undefined) return answer(res, refused, req.getMethod() !== 'head');
      if (!closed) return handler(res, req);
      res.cork(() => {
        res.writeStatus('503 Service Unavailable');
        for (const [k, v] of cors.answer) res.writeHeader(k, v);
        res.writeHeader('Content-Type', 'application/json');
        res.writeHeader('Connection', 'close');
        res.end(envelope(new RpcError(-32603, 'the node is shutting down')), true);
      });
    };

  const app: TemplatedApp = uWS.App();
  app
    .options(
      '/*',
      served((res) => {
        res.cork(() => {
          res.writeStatus('204 No Content');
          for (const [k, v] of cors.preflight) res.writeHeader(k, v);
          res.end();
        });
      }),
    )
    .get(
      '/health',
      served((res) => answer(res, health(), true)),
    )
    // The page (fixtures/ui): at /ui, and at / for a browser (a GET asking for HTML); JSON-RPC
    // clients' GET on / is still refused as before.
    .get(
      '/ui',
      served((res) => page(res)),
    )
    .get(
      '/*',
      served((res, req) => {
        if (req.getUrl() === '/' && req.getHeader('accept').includes('text/html')) page(res);
        else answer(res, notServed(req), true);
      }),
    )
    // A HEAD answer is the GET answer's headers alone: a body would be read as the start of the
    // next answer on a keep-alive connection (RFC 9110 §9.3.2).
    .head(
      '/*',
      served((res, req) => answer(res, req.getUrl() === '/health' ? health() : notServed(req), false)),
    )
    .post('/*', served(onPost, false))
    .any(
      '/*',
      served((res, req) => answer(res, notServed(req), true)),
    )
    .ws<SocketData>('/*', {
      compression: uWS.DISABLED,
      maxPayloadLength: opts.maxWsMessageBytes ?? MAX_WS_MESSAGE_BYTES,
      maxBackpressure: opts.maxWsBackpressureBytes ?? MAX_WS_BACKPRESSURE_BYTES,
      closeOnBackpressureLimit: 1,
      idleTimeout: WS_IDLE_TIMEOUT_S,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => {
        if (closed) return served(() => undefined)(res, req);
        const refused = hostRefusal(req);
        if (refused !== undefined) return answer(res, refused, true);
        const target = route(req.getUrl(), true, opts.l1 !== undefined);
        const secKey = req.getHeader('sec-websocket-key');
        const protocol = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        const fail = (status: string, error: RpcError) =>
          res.cork(() => {
            res.writeStatus(status);
            res.writeHeader('Content-Type', 'application/json');
            res.end(envelope(error));
          });
        if (target === undefined) {
          fail(
            '404 Not Found',
            new RpcError(
              INVALID_REQUEST,
              `no WebSocket endpoint at ${req.getUrl()}; use /, /ws or /ws/v3/<API_KEY>${opts.l1 === undefined ? '' : ' (the L1: /l1, /l1/ws or /l1/ws/v3/<API_KEY>)'}`,
            ),
          );
          return;
        }
        const who = authenticate(target.key);
        if (who instanceof RpcError) {
          fail('401 Unauthorized', who);
          return;
        }
        const data: SocketData = {
          key: who,
          rpc: target.l1 ? (opts.l1 as Rpc) : rpc,
          plain: target.key === '',
          closed: false,
          session: { send: () => undefined },
        };
        res.upgrade<SocketData>(data, secKey, protocol, extensions, context);
      },
      open: (ws) => {
        sockets.add(ws);
        const data = ws.getUserData();
        // A notification for a reader past its backpressure limit closes the socket (uWS), never
        // queues without bound.
        data.session = {
          send: (message) => {
            if (!data.closed) ws.send(JSON.stringify(message), false);
          },
        };
      },
      message: (ws, message) => {
        const text = Buffer.from(message).toString('utf8');
        const data = ws.getUserData();
        execute(data.rpc, text, data.key, data.plain, data.session).then(
          ({ response }) => {
            if (!data.closed && response !== undefined) ws.send(serializeResponse(response), false);
          },
          (e: unknown) => log(`internal error: ${(e as Error).stack ?? String(e)}`),
        );
      },
      close: (ws) => {
        const data = ws.getUserData();
        data.closed = true;
        data.rpc.closeSession(data.session);
        sockets.delete(ws);
      },
    });

  // An exclusive port: Linux lets two sockets share one (SO_REUSEPORT) unless asked not to.
  const port = opts.port ?? 8545;
  const listenSocket = await new Promise<us_listen_socket | false>((resolve) => {
    (app as unknown as ExclusiveListen).listen(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, resolve);
  });
  if (listenSocket === false) throw await listenFailure(host, port);
  const boundPort = uWS.us_socket_local_port(listenSocket);
  return {
    host,
    port: boundPort,
    url: `http://${host}:${boundPort}`,
    wsUrl: `ws://${host}:${boundPort}`,
    webSockets: () => sockets.size,
    async close() {
      closed = true;
      uWS.us_listen_socket_close(listenSocket);
      for (const ws of [...sockets]) ws.end(1001, 'server shutting down');
      await ledger.close();
    },
  };
}
