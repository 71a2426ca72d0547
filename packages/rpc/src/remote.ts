/**
 * A JSON-RPC client of the node a chain is forked from: the chain's typed source of remote state
 * (core's ForkSource) and the way requests about the remote's own blocks are passed on.
 *
 * - Calls made in the same turn of the event loop go in one HTTP batch (at most MAX_BATCH each).
 * - A call that fails in transport (a timeout, a dropped connection, HTTP 429 or 5xx, a body that is
 *   not JSON-RPC) is tried again after 250 ms, 1 s, 4 s, ... up to `retries` times; then it fails
 *   with a ForkError naming the remote and the cause. A refused connection fails at once (nothing
 *   listens there), and an error object from the remote is its answer.
 * - Messages name the remote by its origin only: a path may hold an API key.
 */
import { ForkError } from '@l2devnet/core';
import type { ForkSource, RemoteHeader, RemoteProof } from '@l2devnet/core';
import type { HeaderData } from '@ethereumjs/block';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';

import { quantity } from './format';

const MAX_BATCH = 100;
/** Transport failures worth asking again after a pause. */
const TRANSIENT = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
export const FIRST_RETRY_MS = 250;

export interface RemoteNodeOptions {
  /** Extra HTTP headers on every request (--fork-header "Name: value"). */
  headers?: Record<string, string>;
  /** How long one HTTP request may take (ms); default 45 s, as Anvil's --timeout. */
  timeoutMs?: number;
  /** How many times a failed request is tried again; default 5, as Anvil's --retries. */
  retries?: number;
}

/** One call's answer in a batch: its result, or the remote's error object. */
interface Answer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown } | null;
}

interface Pending {
  method: string;
  params: unknown[];
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** An error object the remote answered with. */
export class RemoteCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export class RemoteNode implements ForkSource {
  readonly name: string;
  private queue: Pending[] = [];
  private readonly timeoutMs: number;
  private readonly retries: number;
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly opts: RemoteNodeOptions = {},
  ) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ForkError(`the fork URL ${JSON.stringify(url)} is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new ForkError(`the fork URL must be http:// or https://, not ${parsed.protocol}//`);
    this.name = `the fork remote ${parsed.origin}`;
    this.timeoutMs = opts.timeoutMs ?? 45_000;
    this.retries = opts.retries ?? 5;
  }

  /** A client of another URL, asked as this one is (headers, timeout, retries). */
  sibling(url: string): RemoteNode {
    return new RemoteNode(url, this.opts);
  }

  /** One JSON-RPC call: its result, or a RemoteCallError with the remote's error, or a ForkError. */
  call(method: string, params: unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) queueMicrotask(() => void this.flush());
      this.queue.push({ method, params, resolve, reject });
    });
  }

  async chainId(): Promise<bigint> {
    return parseQuantity(await this.typed('eth_chainId', []), 'eth_chainId');
  }

  async blockNumber(): Promise<bigint> {
    return parseQuantity(await this.typed('eth_blockNumber', []), 'eth_blockNumber');
  }

  async header(n: bigint): Promise<RemoteHeader | undefined> {
    const block = (await this.typed('eth_getBlockByNumber', [quantity(n), false])) as Record<string, unknown> | null;
    if (block === null) return undefined;
    try {
      return { fields: headerFields(block), hash: hexToBytes(block.hash as `0x${string}`) };
    } catch {
      throw this.garbage('eth_getBlockByNumber');
    }
  }

  async proof(address: Uint8Array, slots: Uint8Array[], block: bigint): Promise<RemoteProof> {
    // State is proven or not used: a remote without proofs (or without the block's state) cannot be forked.
    const params = [bytesToHex(address), slots.map((s) => bytesToHex(s)), quantity(block)];
    const hint = `; a fork needs eth_getProof at block ${block} (an archive node for an old block)`;
    const p = (await this.typed('eth_getProof', params, hint)) as {
      accountProof?: unknown;
      storageProof?: { proof?: unknown }[];
    };
    const nodes = (list: unknown): Uint8Array[] => {
      const out = Array.isArray(list) ? list.map(hexData) : undefined;
      if (out === undefined || out.some((n) => n === undefined)) throw this.garbage('eth_getProof');
      return out as Uint8Array[];
    };
    return {
      accountProof: nodes(p?.accountProof),
      storageProof: slots.map((_, i) => nodes(p?.storageProof?.[i]?.proof)),
    };
  }

  async code(address: Uint8Array, block: bigint): Promise<Uint8Array> {
    const code = hexData(await this.typed('eth_getCode', [bytesToHex(address), quantity(block)]));
    if (code === undefined) throw this.garbage('eth_getCode');
    return code;
  }

  /** A call whose remote error is a ForkError naming the remote (the typed source's calls). */
  private async typed(method: string, params: unknown[], hint = ''): Promise<unknown> {
    try {
      return await this.call(method, params);
    } catch (e) {
      if (e instanceof RemoteCallError)
        throw new ForkError(`${this.name} answered ${method} with an error: ${e.message}${hint}`);
      throw e;
    }
  }

  private garbage(method: string): ForkError {
    return new ForkError(`${this.name} answered ${method} with something that is not its answer`);
  }

  private flush(): void {
    const all = this.queue;
    this.queue = [];
    for (let i = 0; i < all.length; i += MAX_BATCH) void this.send(all.slice(i, i + MAX_BATCH));
  }

  private async send(batch: Pending[]): Promise<void> {
    const ids = batch.map(() => this.nextId++);
    const body = JSON.stringify(
      batch.map((p, i) => ({ jsonrpc: '2.0', id: ids[i], method: p.method, params: p.params })),
    );
    let answers: Map<number, Answer>;
    try {
      answers = await this.post(body, batch.length);
    } catch (e) {
      for (const p of batch) p.reject(e as Error);
      return;
    }
    batch.forEach((p, i) => {
      const answer = answers.get(ids[i]);
      if (answer === undefined) p.reject(new ForkError(`${this.name} left ${p.method} unanswered in a batch`));
      else if (answer.error !== undefined && answer.error !== null)
        p.reject(new RemoteCallError(answer.error.code, String(answer.error.message), answer.error.data));
      else p.resolve(answer.result);
    });
  }

  /** POSTs `body` (a batch of `count` calls) until it is answered, or the retries are used up. */
  private async post(body: string, count: number): Promise<Map<number, Answer>> {
    let cause = '';
    let tries = 0;
    while (tries <= this.retries) {
      if (tries > 0) await new Promise((r) => setTimeout(r, FIRST_RETRY_MS * 4 ** (tries - 1)));
      tries++;
      try {
        const response = await fetch(this.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...this.opts.headers },
          body,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        const text = await response.text();
        if (response.status === 429 || response.status >= 500) {
          cause = `HTTP ${response.status}`;
          continue;
        }
        const parsed = parseBatch(text, count);
        if (parsed === undefined) {
          cause =
            response.status === 200
              ? 'what it sent is not JSON-RPC'
              : `HTTP ${response.status}: ${text.slice(0, 120).replace(/\s+/g, ' ')}`;
          if (response.status !== 200) break; // 4xx: asking again will not help
          continue;
        }
        return parsed;
      } catch (e) {
        const err = e as Error & { cause?: { code?: string; message?: string } };
        if (err.name === 'TimeoutError') {
          cause = `timed out after ${this.timeoutMs} ms`;
          continue;
        }
        const code = err.cause?.code;
        cause = code === 'ECONNREFUSED' ? 'connection refused' : (code ?? err.cause?.message ?? err.message);
        // A dropped connection may come back; nothing listening, or a URL fetch refuses, will not.
        if (code === undefined || !TRANSIENT.has(code)) break;
      }
    }
    throw new ForkError(`${this.name} did not answer: ${cause}${tries > 1 ? ` (tried ${tries} times)` : ''}`);
  }
}

/** A batch answer by id; undefined when the text is not one. */
function parseBatch(text: string, count: number): Map<number, Answer> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  // A remote that answers a one-call batch with a bare object is taken at its word.
  const list = Array.isArray(parsed) ? parsed : count === 1 ? [parsed] : undefined;
  if (list === undefined) return undefined;
  const out = new Map<number, Answer>();
  for (const item of list) {
    if (typeof item !== 'object' || item === null || typeof item.id !== 'number') return undefined;
    if (!('result' in item) && !('error' in item)) return undefined;
    out.set(item.id, item);
  }
  return out;
}

/** Hex data as bytes; undefined when `value` is not hex data. */
function hexData(value: unknown): Uint8Array | undefined {
  return typeof value === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(value)
    ? hexToBytes(value as `0x${string}`)
    : undefined;
}

function parseQuantity(value: unknown, method: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value))
    throw new ForkError(`the fork remote answered ${method} with ${JSON.stringify(value)}, not a number`);
  return BigInt(value);
}

/** A JSON block's header fields, as ethereumjs names them; absent fields stay absent. */
function headerFields(b: Record<string, unknown>): HeaderData {
  const bytes = (v: unknown) => (typeof v === 'string' ? hexToBytes(v as `0x${string}`) : undefined);
  const big = (v: unknown) => (typeof v === 'string' ? BigInt(v) : undefined);
  const fields: HeaderData = {
    parentHash: bytes(b.parentHash),
    uncleHash: bytes(b.sha3Uncles),
    coinbase: bytes(b.miner),
    stateRoot: bytes(b.stateRoot),
    transactionsTrie: bytes(b.transactionsRoot),
    receiptTrie: bytes(b.receiptsRoot),
    logsBloom: bytes(b.logsBloom),
    difficulty: big(b.difficulty),
    number: big(b.number),
    gasLimit: big(b.gasLimit),
    gasUsed: big(b.gasUsed),
    timestamp: big(b.timestamp),
    extraData: bytes(b.extraData),
    mixHash: bytes(b.mixHash),
    nonce: bytes(b.nonce),
    baseFeePerGas: big(b.baseFeePerGas),
    withdrawalsRoot: bytes(b.withdrawalsRoot),
    blobGasUsed: big(b.blobGasUsed),
    excessBlobGas: big(b.excessBlobGas),
    parentBeaconBlockRoot: bytes(b.parentBeaconBlockRoot),
    requestsHash: bytes(b.requestsHash),
  };
  for (const k of Object.keys(fields) as (keyof HeaderData)[]) if (fields[k] === undefined) delete fields[k];
  return fields;
}
