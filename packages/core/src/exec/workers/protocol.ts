/**
 * The messages between the main thread and the call workers (callPool.ts, callWorker.ts). Values
 * cross by structured clone: bigints and byte arrays as they are, errors as their class's name,
 * message and fields, made again on the main thread as instances of the same class.
 */
import * as chainErrors from '../../errors';
import type { CallRequest, SimulatorOptions, StateOverride } from '../scratchVm';
import type { LimitsSpec } from '../../lines/lineLimits';
import { SimulateError } from '../simulate';
import type { SimBlockInput, SimOptions, SimulatedBlockData } from '../simulate';
import type { Simulator } from '../simulator';
import type { TraceOptions } from '../tracers/tracer';

/** What a worker needs to run a chain's calls: the chain's configuration, as openChain makes it. */
export interface SessionInit {
  chainId: string;
  hardfork: string | null;
  genesis: unknown;
  simulator: SimulatorOptions;
}

/**
 * The block a use runs in: its header's RLP (a call's context), or the whole block's (a block's
 * transactions traced again), with an id that is the same for the same block.
 */
export interface BlockRef {
  id: number;
  full: boolean;
  rlp: Uint8Array;
}

/** The simulator's read-only uses a worker runs, with their arguments after the block and state root. */
export interface CallOps {
  call: [req: CallRequest, gasCap: bigint, countLines: boolean, overrides: StateOverride[]];
  /** With `lines` (linea_estimateGas), judged against the limits in force when it was sent, if any. */
  estimateGas: [
    req: CallRequest,
    gasCap: bigint,
    opts: { judged?: boolean; limits?: LimitsSpec; price?: bigint; chargeAt?: bigint; overrides?: StateOverride[] },
  ];
  createAccessList: [req: CallRequest, gasCap: bigint];
  countCall: [req: CallRequest, gasCap: bigint, price: bigint | undefined];
  traceCall: [req: CallRequest, gasCap: bigint, overrides: StateOverride[], options: TraceOptions];
  traceBlock: [senders: Uint8Array[], options: TraceOptions, only?: number];
  /** eth_simulateV1 on the state after the block; its blocks come back as SimulatedBlockData. */
  simulate: [input: SimBlockInput<StateOverride>[], opts: SimOptions];
}
export type CallOp = keyof CallOps;

/** What each use answers: the Simulator method's result, an eth_simulateV1 block as data. */
export type CallResultOf<K extends CallOp> = K extends 'simulate'
  ? SimulatedBlockData[]
  : Awaited<ReturnType<Simulator[Exclude<K, 'simulate'>]>>;

export type ToWorker =
  | { t: 'open'; session: number; init: SessionInit }
  | { t: 'close'; session: number }
  | { t: 'run'; id: number; session: number; op: CallOp; block: BlockRef; root: Uint8Array; args: unknown[] }
  | { t: 'reply'; id: number; value: Uint8Array | undefined };

export type FromWorker =
  | { t: 'ready' }
  | { t: 'done'; id: number; value: unknown }
  | { t: 'failed'; id: number; error: ErrorShape }
  /** A trie node or code by its key in the state database. */
  | { t: 'get'; id: number; session: number; key: string }
  /** Block `n`'s hash, for BLOCKHASH. */
  | { t: 'hash'; id: number; session: number; n: bigint };

export interface ErrorShape {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

export function errorShape(e: unknown): ErrorShape {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e), fields: {} };
  return { name: e.constructor.name, message: e.message, fields: { ...e } };
}

/** The chain's error classes by name: errors.ts's, and eth_simulateV1's own. */
const ERROR_CLASSES: Record<string, unknown> = { ...chainErrors, SimulateError };

/** The error `shape` describes: an instance of the chain error class of its name, else an Error. */
export function errorFrom(shape: ErrorShape): Error {
  const cls = ERROR_CLASSES[shape.name];
  const proto =
    typeof cls === 'function' && (cls as { prototype: unknown }).prototype instanceof Error
      ? ((cls as { prototype: object }).prototype as Error)
      : Error.prototype;
  const error = Object.create(proto) as Error;
  Object.defineProperty(error, 'message', { value: shape.message, writable: true, configurable: true });
  Object.assign(error, shape.fields);
  Error.captureStackTrace(error, errorFrom);
  return error;
}

/**
 * Bytes that cross alone: a view into a larger buffer (a slice of memory, of a stored row) would
 * take the whole buffer with it.
 */
export function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
