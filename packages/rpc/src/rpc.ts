/**
 * JSON-RPC 2.0 dispatch: one method table, one place that turns failures into error objects.
 * Transports hand it parsed bodies (single requests or batches); in-process callers use `request`.
 */
import type { Chain, ForkState } from '@l2devnet/core';

import { creditsOf } from './credits';
import type { ErrorLogger } from './errors';
import { INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError, toRpcError } from './errors';
import type { Method, RpcContext } from './method';
import { parseParams } from './method';
import { JSON_BYTES, JsonText } from './format';
import { blockMethods } from './methods/blocks';
import { chainMethods } from './methods/chain';
import { debugMethods } from './methods/debug';
import { devnetMethods } from './methods/devnet';
import { executionMethods } from './methods/execution';
import { filterMethods } from './methods/filters';
import { l2Methods } from './methods/l2';
import { logMethods } from './methods/logs';
import { messagingWithoutL1 } from './methods/messaging';
import { miningMethods } from './methods/mining';
import { otterscanMethods } from './methods/otterscan';
import { parityTraceMethods } from './methods/parity';
import { signingMethods } from './methods/sign';
import { stateMethods } from './methods/state';
import { transactionMethods } from './methods/transactions';
import { txpoolMethods } from './methods/txpool';
import { ForkProxy } from './forkProxy';
import { RemoteNode } from './remote';
import { ChainFeed } from './subscriptions';
import type { Session } from './subscriptions';
import type { Profile } from './params';

export type JsonRpcId = string | number | null;

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: unknown;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data?: string };
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

export interface RpcOptions {
  clientVersion?: string;
  /** Spec rule: eth_call needs `from`, for requests that do not say otherwise (see RequestOptions). Default true. */
  requireCallFrom?: boolean;
  logError?: ErrorLogger;
  /** Extra methods (devnet control, subscriptions) merged into the table. */
  extraMethods?: Record<string, Method>;
  /** Told each request's method before it runs (the command prints them, as Anvil does). */
  onRequest?: (method: string) => void;
  /**
   * `l1`: the plain Ethereum chain beside the L2 (--l1), without Linea's methods (line counts,
   * exclusions, linea_estimateGas, bundles, forced transactions), as an L1 node has none. Default `l2`.
   */
  layer?: 'l1' | 'l2';
}

/** What a transport says about the requests it passes on. */
export interface RequestOptions {
  /** The connection, when it can receive notifications (WebSocket, provider). */
  session?: Session;
  /** The rules the requests follow: `geth` on the devnet paths and in process; `service` (the default) on `/v3/<KEY>`. */
  profile?: Profile;
  /** The transport sends text (serializeResponse): a result may stay JSON text (JsonText) rather than objects. */
  jsonText?: boolean;
}

/** Lets a transport refuse a call before it runs (API key credits); returns the error to answer with. */
export type Authorize = (method: string, credits: number) => RpcError | undefined;

export const CLIENT_VERSION = `l2devnet/v0.1.0/${process.platform}-${process.arch}/node${process.versions.node}`;

export class Rpc {
  readonly methods: Record<string, Method>;
  readonly feed: ChainFeed;
  private readonly ctx: RpcContext;
  /** The context of a request on geth's rules without a session: made once, as `ctx` is. */
  private readonly gethCtx: RpcContext;
  /** A session's context, made at its first request (a connection keeps its path's rules). */
  private readonly sessionCtx = new WeakMap<Session, RpcContext>();
  private readonly logError: ErrorLogger;
  private readonly onRequest: ((method: string) => void) | undefined;
  /** A forked chain's requests about the remote's blocks go to the remote (made again after a refork). */
  private forkProxy: ForkProxy | undefined;

  constructor(
    readonly chain: Chain,
    opts: RpcOptions = {},
  ) {
    this.feed = new ChainFeed(chain);
    this.ctx = {
      chain,
      clientVersion: opts.clientVersion ?? CLIENT_VERSION,
      feed: this.feed,
      requireCallFrom: opts.requireCallFrom ?? true,
      profile: 'service',
      layer: opts.layer ?? 'l2',
    };
    this.gethCtx = this.contextOf(undefined, 'geth');
    this.logError = opts.logError ?? ((e) => console.error('internal error:', e));
    this.onRequest = opts.onRequest;
    this.forkProxy = this.proxyOf(chain.fork);
    this.methods = {
      ...chainMethods,
      ...stateMethods,
      ...blockMethods,
      ...transactionMethods,
      ...executionMethods,
      ...logMethods,
      ...(opts.layer === 'l1' ? {} : l2Methods),
      ...messagingWithoutL1,
      ...filterMethods,
      ...miningMethods,
      ...signingMethods,
      ...devnetMethods,
      ...txpoolMethods,
      ...debugMethods,
      ...parityTraceMethods,
      ...otterscanMethods,
      ...opts.extraMethods,
    };
  }

  /** Runs one method with positional params; throws RpcError. A session receives its notifications. */
  async request(method: string, params?: unknown, opts: RequestOptions = {}): Promise<unknown> {
    const entry = Object.hasOwn(this.methods, method) ? this.methods[method] : undefined;
    if (entry === undefined)
      throw new RpcError(METHOD_NOT_FOUND, `the method ${method} does not exist/is not available`);
    this.onRequest?.(method);
    try {
      const profile = opts.profile ?? 'service';
      const ctx =
        opts.session !== undefined
          ? this.sessionContext(opts.session, profile)
          : profile === 'service'
            ? this.ctx
            : this.gethCtx;
      /** The handler's answer; JSON text only to a transport that sends text. */
      const run = async (p: unknown, text: boolean) => {
        const result = await entry.handler(ctx, parseParams(entry.params, p, profile));
        return result instanceof JsonText && !text ? result.value() : result;
      };
      const fork = this.chain.fork;
      if (fork === undefined) return await run(params, opts.jsonText === true);
      if (this.forkProxy?.fork !== fork) this.forkProxy = this.proxyOf(fork);
      // The proxy joins remote and local answers: values, not text.
      const local = (p: unknown = params) => run(p, false);
      return await (this.forkProxy === undefined ? local() : this.forkProxy.request(method, params, local));
    } catch (e) {
      throw toRpcError(e, this.logError);
    }
  }

  /** A request's context: geth never requires eth_call's `from`; the service document does, unless --call-from-optional. */
  private contextOf(session: Session | undefined, profile: Profile): RpcContext {
    return {
      ...this.ctx,
      session,
      profile,
      requireCallFrom: profile === 'service' && this.ctx.requireCallFrom,
    };
  }

  private sessionContext(session: Session, profile: Profile): RpcContext {
    let ctx = this.sessionCtx.get(session);
    if (ctx?.profile !== profile) {
      ctx = this.contextOf(session, profile);
      this.sessionCtx.set(session, ctx);
    }
    return ctx;
  }

  private proxyOf(fork: ForkState | undefined): ForkProxy | undefined {
    return fork !== undefined && fork.source instanceof RemoteNode ? new ForkProxy(this.chain, fork) : undefined;
  }

  /** Answers a parsed body: a request object or a batch. `undefined` when nothing is to be sent back. */
  async handle(
    body: unknown,
    authorize?: Authorize,
    opts?: RequestOptions,
  ): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    if (Array.isArray(body)) {
      if (body.length === 0) return failure(null, new RpcError(INVALID_REQUEST, 'invalid request: empty batch'));
      // In order, one after another, as geth does: a later element sees what an earlier one did.
      const sent: JsonRpcResponse[] = [];
      for (const item of body) {
        const answer = await this.handleOne(item, authorize, opts);
        if (answer !== undefined) sent.push(answer);
      }
      return sent.length === 0 ? undefined : sent;
    }
    return this.handleOne(body, authorize, opts);
  }

  /** Answers a raw text body (parse errors included). */
  async handleText(
    text: string,
    authorize?: Authorize,
    opts?: RequestOptions,
  ): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return failure(null, new RpcError(PARSE_ERROR, 'parse error: the body is not valid JSON'));
    }
    return this.handle(body, authorize, opts);
  }

  /** Drops what a closed connection subscribed to. */
  closeSession(session: Session): void {
    this.feed.closeSession(session);
  }

  close(): void {
    this.feed.close();
  }

  private async handleOne(
    item: unknown,
    authorize?: Authorize,
    opts?: RequestOptions,
  ): Promise<JsonRpcResponse | undefined> {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      return failure(null, new RpcError(INVALID_REQUEST, 'invalid request: expected a JSON-RPC request object'));
    }
    const req = item as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
    const hasId = 'id' in req;
    const id = req.id;
    if (hasId && id !== null && typeof id !== 'string' && typeof id !== 'number') {
      return failure(null, new RpcError(INVALID_REQUEST, 'invalid request: id must be a string, a number or null'));
    }
    const rid = (hasId ? id : null) as JsonRpcId;
    // The devnet paths take a request without "jsonrpc", for hand-written requests (Anvil refuses one:
    // -32600 Invalid request); the service's paths follow JSON-RPC 2.0.
    const loose = opts?.profile === 'geth' && req.jsonrpc === undefined;
    if (req.jsonrpc !== '2.0' && !loose)
      return failure(rid, new RpcError(INVALID_REQUEST, 'invalid request: jsonrpc must be "2.0"'));
    if (typeof req.method !== 'string')
      return failure(rid, new RpcError(INVALID_REQUEST, 'invalid request: method must be a string'));
    // Unknown methods are answered -32601 and cost nothing.
    const known = Object.hasOwn(this.methods, req.method);
    const refused = known ? authorize?.(req.method, creditsOf(req.method)) : undefined;
    let response: JsonRpcResponse;
    if (refused !== undefined) {
      response = failure(rid, refused);
    } else {
      try {
        response = { jsonrpc: '2.0', id: rid, result: await this.request(req.method, req.params, opts) };
      } catch (e) {
        response = failure(rid, e as RpcError);
      }
    }
    // A notification (no id) is answered with nothing.
    return hasId ? response : undefined;
  }
}

/**
 * An answer (or a batch of them) as JSON: text, or UTF-8 bytes when a result is JsonText, whose
 * pieces are copied in as they are.
 */
export function serializeResponse(response: JsonRpcResponse | JsonRpcResponse[]): string | Buffer {
  const list = Array.isArray(response) ? response : [response];
  const text = (r: JsonRpcResponse) => ('result' in r && r.result instanceof JsonText ? r.result : undefined);
  if (!list.some(text)) return JSON.stringify(response);
  const pieces: Uint8Array[] = Array.isArray(response) ? [JSON_BYTES.open] : [];
  for (const [i, r] of list.entries()) {
    if (i > 0) pieces.push(JSON_BYTES.comma);
    const result = text(r);
    if (result === undefined) pieces.push(Buffer.from(JSON.stringify(r)));
    else
      pieces.push(
        Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":`),
        ...result.pieces(),
        JSON_BYTES.end,
      );
  }
  if (Array.isArray(response)) pieces.push(JSON_BYTES.close);
  return Buffer.concat(pieces);
}

function failure(id: JsonRpcId, error: RpcError): JsonRpcFailure {
  return { jsonrpc: '2.0', id, error: error.toJSON() };
}

export function createRpc(chain: Chain, opts?: RpcOptions): Rpc {
  return new Rpc(chain, opts);
}
