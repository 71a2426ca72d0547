/**
 * Decoding from the wire. Every method's params are parsed here, at the boundary, into typed values
 * before any work; a bad value fails with an invalid-params error naming the param, its position
 * and what was wrong.
 */
import { hexToBytes } from '@ethereumjs/util';
import type { BlockRef, CallRequest, ExclusionFilter, ForcedExclusion, LogFilter, StateOverride } from '@l2devnet/core';
import { MODULES, parseDuration } from '@l2devnet/core';
import type { BlockOverrides, SimBlockInput, SimBlockOverrides, TraceOptions } from '@l2devnet/core';

import { INVALID_PARAMS, invalidParams, RpcError } from './errors';

/**
 * Which rules a request follows: `service` on the hosted-API paths (`/v3/<KEY>`, `/ws/v3/<KEY>`), the
 * service document's, strict; `geth` on the devnet paths (`/`, `/ws`) and in process, geth's, as the
 * clients that talk to a devnet expect (a block hash wherever a block is taken, `safe` everywhere,
 * omitted block params read as `latest`).
 */
export type Profile = 'service' | 'geth';

/** A param's position (1-based) and name, for messages; and the rules its request follows. */
export interface ParamSlot {
  position: number;
  name: string;
  /** Undefined: the service document's. */
  profile?: Profile;
}

export type Parser<T> = (value: unknown, slot: ParamSlot) => T;

/** Longest description of a bad value in a message. */
const DESCRIBE_CHARS = 80;

/**
 * A bad value as JSON, cut at DESCRIBE_CHARS. Written out piece by piece and never deeper than the
 * cut needs, so a value nested a million levels deep costs no more than a flat one.
 */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  let out = '';
  const write = (v: unknown): void => {
    if (out.length > DESCRIBE_CHARS) return;
    if (Array.isArray(v)) {
      out += '[';
      v.forEach((item, i) => {
        if (out.length > DESCRIBE_CHARS) return;
        if (i > 0) out += ',';
        write(item);
      });
      out += ']';
    } else if (typeof v === 'object' && v !== null) {
      out += '{';
      Object.entries(v).forEach(([k, item], i) => {
        if (out.length > DESCRIBE_CHARS) return;
        out += `${i > 0 ? ',' : ''}${JSON.stringify(k)}:`;
        write(item);
      });
      out += '}';
    } else {
      out += JSON.stringify(v) ?? 'null';
    }
  };
  write(value);
  return out.length > DESCRIBE_CHARS ? `${out.slice(0, DESCRIBE_CHARS - 3)}...` : out;
}

export function fail(slot: ParamSlot, expected: string, value: unknown): never {
  throw invalidParams(`param ${slot.position} (${slot.name}) must be ${expected}; got ${describe(value)}`);
}

const HEX = /^0x[0-9a-fA-F]*$/;

/** Hex quantity, e.g. "0x1a". Leading zeros are accepted; "0x" alone is not a number. */
export const quantity: Parser<bigint> = (value, slot) => {
  if (typeof value !== 'string' || !HEX.test(value) || value.length < 3 || value.length > 66) {
    return fail(slot, 'a hex quantity', value);
  }
  return BigInt(value);
};

/** A quantity that fits a JS number (indexes, counts). */
export const smallQuantity: Parser<number> = (value, slot) => {
  const n = quantity(value, slot);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) return fail(slot, 'a hex quantity below 2^53', value);
  return Number(n);
};

/** Hex data of any length, e.g. "0x" or "0xdeadbeef". */
export const data: Parser<Uint8Array> = (value, slot) => {
  if (typeof value !== 'string' || !HEX.test(value) || value.length % 2 !== 0) {
    return fail(slot, 'hex data (0x followed by an even number of hex digits)', value);
  }
  return hexToBytes(value as `0x${string}`);
};

function fixed(bytes: number, what: string): Parser<Uint8Array> {
  return (value, slot) => {
    if (typeof value !== 'string' || !HEX.test(value) || value.length !== 2 + 2 * bytes) {
      return fail(slot, what, value);
    }
    return hexToBytes(value as `0x${string}`);
  };
}

export const address = fixed(20, 'a 20-byte hex address');
export const hash = fixed(32, 'a 32-byte hex hash');

export const bool: Parser<boolean> = (value, slot) =>
  typeof value === 'boolean' ? value : fail(slot, 'a boolean', value);

/** A storage key: a hex quantity of at most 32 bytes, as a 32-byte word. */
export const storageKey: Parser<Uint8Array> = (value, slot) => {
  if (slot.profile === 'geth' && typeof value === 'string') {
    // geth's words for a key it cannot read (internal/ethapi/api.go, decodeHash).
    const digits = /^0[xX]/.test(value) ? value.slice(2) : value;
    if (digits.length > 64)
      throw new RpcError(INVALID_PARAMS, `storage key too long (want at most 32 bytes): ${JSON.stringify(value)}`);
    if (!/^[0-9a-fA-F]*$/.test(digits))
      throw new RpcError(INVALID_PARAMS, `invalid hex in storage key: ${JSON.stringify(value)}`);
  }
  const n = quantity(value, slot);
  const out = new Uint8Array(32);
  const hex = n.toString(16).padStart(64, '0');
  out.set(hexToBytes(`0x${hex}`));
  return out;
};

/**
 * eth_getProof's storage key, as geth reads it: hex of at most 32 bytes (odd lengths taken), and the
 * key to echo: the 32 bytes when 32 were given, else the key as a quantity (`0x00` → `0x0`).
 */
export const proofKey: Parser<{ key: Uint8Array; echo: string }> = (value, slot) => {
  if (typeof value !== 'string') return fail(slot, 'a hex storage key', value);
  let digits = /^0[xX]/.test(value) ? value.slice(2) : value;
  if (digits.length % 2 === 1) digits = `0${digits}`;
  if (digits.length > 64) return fail(slot, 'a storage key of at most 32 bytes', value);
  if (!/^[0-9a-fA-F]*$/.test(digits)) return fail(slot, 'a hex storage key', value);
  const key = hexToBytes(`0x${digits.toLowerCase().padStart(64, '0')}`);
  const echo = digits.length === 64 ? `0x${digits.toLowerCase()}` : `0x${BigInt(`0x${digits || '0'}`).toString(16)}`;
  return { key, echo };
};

const TAGS = ['latest', 'earliest', 'pending', 'finalized', 'safe'] as const;

export interface BlockRefOptions {
  /** `safe` is refused unless the method accepts it (spec: only eth_call and eth_getBlockReceipts); geth takes it everywhere. */
  allowSafe?: boolean;
  /** eth_getBlockReceipts also takes plain decimal numbers. */
  allowDecimal?: boolean;
  /** EIP-1898 `{ blockNumber }` / `{ blockHash }` objects, accepted by state methods. */
  allowObject?: boolean;
  /** A bare 32-byte block hash, as geth's BlockNumberOrHash takes it (debug_getRaw*). */
  allowHash?: boolean;
  /** geth takes a BlockNumberOrHash here: on its profile, a bare hash and an EIP-1898 object too. */
  orHash?: boolean;
}

/** A block number or tag (and per options and profile, a decimal number, a hash or an EIP-1898 object). */
export function blockRef(options: BlockRefOptions = {}): Parser<BlockRef> {
  const geth: BlockRefOptions = {
    ...options,
    allowSafe: true,
    allowHash: options.allowHash || options.orHash,
    allowObject: options.allowObject || options.orHash,
  };
  const expected = (opts: BlockRefOptions) =>
    `a hex block number${opts.allowHash ? ', a 32-byte block hash' : ''} or one of ${TAGS.filter((t) => t !== 'safe' || opts.allowSafe).join(', ')}`;
  return (value, slot) => {
    const opts = slot.profile === 'geth' ? geth : options;
    if (typeof value === 'string') {
      if (value === 'safe' && !opts.allowSafe) {
        throw invalidParams(
          `param ${slot.position} (${slot.name}): the "safe" tag is not supported by this method; use "finalized"`,
        );
      }
      if ((TAGS as readonly string[]).includes(value)) return { kind: value as (typeof TAGS)[number] };
      if (HEX.test(value) && value.length > 2 && value.length <= 18) return { kind: 'number', number: BigInt(value) };
      if (opts.allowHash && HEX.test(value) && value.length === 66)
        return { kind: 'hash', hash: hexToBytes(value as `0x${string}`) };
      if (opts.allowDecimal && /^[0-9]{1,16}$/.test(value)) return { kind: 'number', number: BigInt(value) };
    }
    if (opts.allowDecimal && typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
      return { kind: 'number', number: BigInt(value) };
    }
    if (opts.allowObject && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const o = value as Record<string, unknown>;
      if (o.blockHash !== undefined)
        return { kind: 'hash', hash: hash(o.blockHash, { ...slot, name: `${slot.name}.blockHash` }) };
      if (o.blockNumber !== undefined)
        return blockRef(opts)(o.blockNumber, { ...slot, name: `${slot.name}.blockNumber` });
    }
    return fail(slot, expected(opts), value);
  };
}

export function object(value: unknown, slot: ParamSlot): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(slot, 'an object', value);
  return value as Record<string, unknown>;
}

/** An object with only the keys `known` (one it does not take is refused, not ignored). */
export function strictObject(value: unknown, slot: ParamSlot, known: readonly string[]): Record<string, unknown> {
  const o = object(value, slot);
  for (const key of Object.keys(o))
    if (!known.includes(key))
      fail({ ...slot, name: `${slot.name}.${key}` }, `absent: the fields taken are ${known.join(', ')}`, key);
  return o;
}

export function member<T>(o: Record<string, unknown>, key: string, parse: Parser<T>, slot: ParamSlot): T | undefined {
  const v = o[key];
  return v === undefined || v === null ? undefined : parse(v, { ...slot, name: `${slot.name}.${key}` });
}

/** eth_sendTransaction's request: a call's fields (nonce and type among them) and a chain id. */
export interface TransactionRequest extends CallRequest {
  chainId?: bigint;
}

/** EIP-2930: `[{ address, storageKeys }]`. */
const accessList: Parser<[Uint8Array, Uint8Array[]][]> = (value, slot) => {
  if (!Array.isArray(value)) return fail(slot, 'an array of { address, storageKeys }', value);
  return value.map((entry, i) => {
    const at = { ...slot, name: `${slot.name}[${i}]` };
    const o = object(entry, at);
    const account = member(o, 'address', address, at);
    if (account === undefined) return fail({ ...at, name: `${at.name}.address` }, 'a 20-byte hex address', o.address);
    return [account, member(o, 'storageKeys', arrayOf(hash, 10_000), at) ?? []] as [Uint8Array, Uint8Array[]];
  });
};

/** The call object of eth_call / eth_estimateGas / eth_sendTransaction. */
export function callObject(opts: { requireFrom?: boolean } = {}): Parser<TransactionRequest> {
  return (value, slot) => {
    const o = object(value, slot);
    const from = member(o, 'from', address, slot);
    if (opts.requireFrom && from === undefined) {
      throw invalidParams(`param ${slot.position} (${slot.name}.from) is required`);
    }
    const input = member(o, 'input', data, slot);
    const dataField = member(o, 'data', data, slot);
    if (input !== undefined && dataField !== undefined && Buffer.compare(input, dataField) !== 0) {
      throw invalidParams(`param ${slot.position} (${slot.name}): "data" and "input" differ; send one of them`);
    }
    const req: TransactionRequest = {
      from,
      to: member(o, 'to', address, slot),
      gas: member(o, 'gas', quantity, slot),
      gasPrice: member(o, 'gasPrice', quantity, slot),
      maxFeePerGas: member(o, 'maxFeePerGas', quantity, slot),
      maxPriorityFeePerGas: member(o, 'maxPriorityFeePerGas', quantity, slot),
      value: member(o, 'value', quantity, slot),
      data: input ?? dataField,
      nonce: member(o, 'nonce', quantity, slot),
      chainId: member(o, 'chainId', quantity, slot),
      accessList: member(o, 'accessList', accessList, slot),
    };
    const type = member(o, 'type', quantity, slot);
    if (type !== undefined) req.type = Number(type);
    if (req.gasPrice !== undefined && (req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined)) {
      throw invalidParams(
        `param ${slot.position} (${slot.name}): both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified`,
      );
    }
    return req;
  };
}

/**
 * linea_estimateGas's second param: Linea's node takes state overrides there (LineaEstimateGas's
 * getStateOverrideMap), viem's Linea action a block when it has no overrides; an object keyed by
 * addresses is overrides, anything else a block.
 */
export function blockOrStateOverrides(block: Parser<BlockRef>): Parser<BlockRef | StateOverride[]> {
  return (value, slot) => {
    const byAddress =
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.keys(value).length > 0 &&
      Object.keys(value).every((k) => /^0x[0-9a-fA-F]{40}$/.test(k));
    return byAddress ? stateOverrides(value, slot) : block(value, slot);
  };
}

/** geth's state override set: { address: { balance, nonce, code, state, stateDiff } }. */
export const stateOverrides: Parser<StateOverride[]> = (value, slot) => {
  const o = object(value, slot);
  return Object.entries(o).map(([key, v]) => {
    const at = { position: slot.position, name: `${slot.name}[${key}]` };
    const a = address(key, at);
    const fields = strictObject(v, at, ['balance', 'nonce', 'code', 'state', 'stateDiff', 'movePrecompileToAddress']);
    const slots = (name: 'state' | 'stateDiff'): [Uint8Array, Uint8Array][] | undefined => {
      const m = fields[name];
      if (m === undefined || m === null) return undefined;
      return Object.entries(object(m, { ...at, name: `${at.name}.${name}` })).map(([k, val]) => [
        hash(k, { ...at, name: `${at.name}.${name} key` }),
        hash(val, { ...at, name: `${at.name}.${name}[${k}]` }),
      ]);
    };
    return {
      address: a,
      balance: member(fields, 'balance', quantity, at),
      nonce: member(fields, 'nonce', quantity, at),
      code: member(fields, 'code', data, at),
      state: slots('state'),
      stateDiff: slots('stateDiff'),
      movePrecompileTo: member(fields, 'movePrecompileToAddress', address, at),
    };
  });
};

/** Spec, Limits: at most 5,000 parameters (addresses plus topic entries) in one eth_getLogs request. */
export const MAX_LOG_FILTER_PARAMS = 5_000;

export interface RawLogFilter {
  fromBlock?: BlockRef;
  toBlock?: BlockRef;
  blockHash?: Uint8Array;
  addresses?: Uint8Array[];
  topics?: LogFilter['topics'];
}

/** The eth_getLogs / eth_newFilter filter object. */
export const logFilter: Parser<RawLogFilter> = (value, slot) => {
  const o = object(value, slot);
  const ref = blockRef();
  const filter: RawLogFilter = {
    fromBlock: member(o, 'fromBlock', ref, slot),
    toBlock: member(o, 'toBlock', ref, slot),
    blockHash: member(o, 'blockHash', hash, slot),
  };
  if (filter.blockHash !== undefined && (filter.fromBlock !== undefined || filter.toBlock !== undefined)) {
    // geth's words on its profile (eth/filters/api.go, FilterCriteria.UnmarshalJSON).
    if (slot.profile === 'geth')
      throw new RpcError(
        INVALID_PARAMS,
        `invalid argument ${slot.position - 1}: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other`,
      );
    throw invalidParams(
      `param ${slot.position} (${slot.name}): blockHash cannot be combined with fromBlock or toBlock`,
    );
  }
  let count = 0;
  const addr = o.address;
  if (addr !== undefined && addr !== null) {
    const list = Array.isArray(addr) ? addr : [addr];
    filter.addresses = list.map((a, i) => address(a, { position: slot.position, name: `${slot.name}.address[${i}]` }));
    count += list.length;
  }
  const topics = o.topics;
  if (topics !== undefined && topics !== null) {
    if (!Array.isArray(topics)) return fail({ ...slot, name: `${slot.name}.topics` }, 'an array', topics);
    if (topics.length > 4)
      return fail({ ...slot, name: `${slot.name}.topics` }, 'an array of at most 4 positions', topics);
    filter.topics = topics.map((t, i) => {
      const at = { position: slot.position, name: `${slot.name}.topics[${i}]` };
      if (t === null) return null;
      const list = Array.isArray(t) ? t : [t];
      count += list.length;
      return list.map((x, j) => hash(x, { ...at, name: Array.isArray(t) ? `${at.name}[${j}]` : at.name }));
    });
  }
  if (count > MAX_LOG_FILTER_PARAMS) {
    throw invalidParams(
      `param ${slot.position} (${slot.name}) has ${count} addresses and topics; at most ${MAX_LOG_FILTER_PARAMS} are allowed`,
    );
  }
  return filter;
};

export function arrayOf<T>(item: Parser<T>, maxItems = 1_000): Parser<T[]> {
  return (value, slot) => {
    if (!Array.isArray(value)) return fail(slot, 'an array', value);
    if (value.length > maxItems) return fail(slot, `an array of at most ${maxItems} items`, `${value.length} items`);
    return value.map((v, i) => item(v, { position: slot.position, name: `${slot.name}[${i}]` }));
  };
}

/** A non-negative integer given as a JSON number or a hex quantity. */
export const count: Parser<number> = (value, slot) => {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string') return smallQuantity(value, slot);
  return fail(slot, 'a non-negative integer or hex quantity', value);
};

/** An array of numbers between 0 and 100, ascending (eth_feeHistory reward percentiles). */
export const percentiles: Parser<number[]> = (value, slot) => {
  if (!Array.isArray(value) || value.length > 100) return fail(slot, 'an array of at most 100 percentiles', value);
  let last = -1;
  for (const p of value) {
    if (typeof p !== 'number' || p < 0 || p > 100 || p < last) {
      return fail(slot, 'ascending numbers between 0 and 100', value);
    }
    last = p;
  }
  return value as number[];
};

const STAGES = ['RPC', 'SEQUENCER'] as const;

/** A rejection stage a test can force: "RPC" or "SEQUENCER". */
const stage: Parser<ForcedExclusion['stage']> = (value, slot) =>
  STAGES.includes(value as ForcedExclusion['stage'])
    ? (value as ForcedExclusion['stage'])
    : fail(slot, `one of ${STAGES.join(', ')}`, value);

/** A prover module the counter knows, e.g. "ADD". */
const lineModule: Parser<string> = (value, slot) =>
  typeof value === 'string' && MODULES.includes(value) ? value : fail(slot, 'a module of the limits file', value);

/** A line count or limit: a JSON integer of at least 0, or a hex quantity below 2^53. */
const lineCount: Parser<number> = (value, slot) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    ? value
    : typeof value === 'string'
      ? smallQuantity(value, slot)
      : fail(slot, 'a line count: an integer of at least 0 or a hex quantity', value);

/**
 * l2_forceExclusion's rule: `{ hash?, from?, to?, selector?, stage?, module, count? }`; the match
 * fields that are given must all hold; stage defaults to SEQUENCER.
 */
export const exclusionRule: Parser<ForcedExclusion> = (value, slot) => {
  const o = object(value, slot);
  return {
    hash: member(o, 'hash', hash, slot),
    from: member(o, 'from', address, slot),
    to: member(o, 'to', address, slot),
    selector: member(o, 'selector', fixed(4, 'a 4-byte hex selector'), slot),
    stage: member(o, 'stage', stage, slot) ?? 'SEQUENCER',
    module: lineModule(o.module, { position: slot.position, name: `${slot.name}.module` }),
    count: member(o, 'count', lineCount, slot),
  };
};

/** l2_setFinality's `{ safe, finalized }` (block numbers as quantities), or null. */
export const finality: Parser<{ safe: bigint; finalized: bigint } | null> = (value, slot) => {
  if (value === null) return null;
  const o = strictObject(value, slot, ['safe', 'finalized']);
  const safe = member(o, 'safe', quantity, slot);
  const finalized = member(o, 'finalized', quantity, slot);
  if (safe === undefined || finalized === undefined)
    fail(slot, 'an object with safe and finalized block numbers', value);
  return { safe, finalized };
};

/** A filter of exclusion records: `{ fromBlock?, toBlock?, stage? }` (block numbers as quantities). */
export const exclusionFilter: Parser<ExclusionFilter> = (value, slot) => {
  const o = object(value, slot);
  return {
    fromBlock: member(o, 'fromBlock', quantity, slot),
    toBlock: member(o, 'toBlock', quantity, slot),
    stage: member(o, 'stage', stage, slot),
  };
};

/**
 * linea_getBlockTracesCountersV2's request: `{ blockNumber, expectedTracesEngineVersion? }`, the
 * block number a JSON number, a decimal string or a hex quantity (Linea's clients send numbers).
 */
export const tracesCountersRequest: Parser<{ blockNumber: bigint; expectedTracesEngineVersion?: string }> = (
  value,
  slot,
) => {
  const o = object(value, slot);
  const n = o.blockNumber;
  const at = { position: slot.position, name: `${slot.name}.blockNumber` };
  let blockNumber: bigint;
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) blockNumber = BigInt(n);
  else if (typeof n === 'string' && /^[0-9]{1,20}$/.test(n)) blockNumber = BigInt(n);
  else if (typeof n === 'string' && n.startsWith('0x')) blockNumber = quantity(n, at);
  else return fail(at, 'a block number', n);
  const version = o.expectedTracesEngineVersion;
  if (version !== undefined && typeof version !== 'string')
    return fail({ ...slot, name: `${slot.name}.expectedTracesEngineVersion` }, 'a string', version);
  return { blockNumber, expectedTracesEngineVersion: version };
};

/** eth_simulateV1's block overrides. */
const simBlockOverrides: Parser<SimBlockOverrides> = (value, slot) => {
  const o = strictObject(value, slot, ['number', 'time', 'gasLimit', 'feeRecipient', 'prevRandao', 'baseFeePerGas']);
  return {
    number: member(o, 'number', quantity, slot),
    time: member(o, 'time', quantity, slot),
    gasLimit: member(o, 'gasLimit', quantity, slot),
    feeRecipient: member(o, 'feeRecipient', address, slot),
    prevRandao: member(o, 'prevRandao', hash, slot),
    baseFeePerGas: member(o, 'baseFeePerGas', quantity, slot),
  };
};

/** eth_simulateV1's payload: `{ blockStateCalls, validation?, traceTransfers?, returnFullTransactions? }`. */
export const simulatePayload: Parser<{
  blocks: SimBlockInput<StateOverride>[];
  validation: boolean;
  traceTransfers: boolean;
  returnFullTransactions: boolean;
}> = (value, slot) => {
  const o = object(value, slot);
  const calls = arrayOf(callObject(), 1_000);
  const blockStateCall: Parser<SimBlockInput<StateOverride>> = (v, at) => {
    const b = object(v, at);
    return {
      blockOverrides: member(b, 'blockOverrides', simBlockOverrides, at),
      stateOverrides: member(b, 'stateOverrides', stateOverrides, at),
      calls: member(b, 'calls', calls, at),
    };
  };
  const blocks = o.blockStateCalls;
  if (blocks === undefined || blocks === null)
    return fail({ ...slot, name: `${slot.name}.blockStateCalls` }, 'an array of block state calls', blocks);
  return {
    // Past 256 blocks the simulation itself refuses (-38026); the parser only bounds the work.
    blocks: arrayOf(blockStateCall, 10_000)(blocks, { ...slot, name: `${slot.name}.blockStateCalls` }),
    validation: member(o, 'validation', bool, slot) ?? false,
    traceTransfers: member(o, 'traceTransfers', bool, slot) ?? false,
    returnFullTransactions: member(o, 'returnFullTransactions', bool, slot) ?? false,
  };
};

/**
 * linea_sendBundle's object (BundleParameter): `txs`, `blockNumber` (hex or number), `minTimestamp`,
 * `maxTimestamp` (seconds), `revertingTxHashes`, `replacementUUID`, `builders` (ignored). Anything
 * else malformed is refused in the endpoint's words.
 */
export const bundleParams: Parser<{
  txs: Uint8Array[];
  blockNumber: bigint;
  minTimestamp?: number;
  maxTimestamp?: number;
  revertingTxHashes?: Uint8Array[];
  replacementUUID?: string;
}> = (value, slot) => {
  const malformed = () => new RpcError(INVALID_PARAMS, 'Malformed linea_sendBundle json param');
  try {
    const o = object(value, slot);
    const seconds = (v: unknown) => {
      if (v === undefined || v === null) return undefined;
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
      throw malformed();
    };
    const number = o.blockNumber;
    const blockNumber =
      typeof number === 'number' && Number.isSafeInteger(number) && number >= 0
        ? BigInt(number)
        : quantity(number, { ...slot, name: `${slot.name}.blockNumber` });
    const uuid = o.replacementUUID;
    if (uuid !== undefined && uuid !== null && typeof uuid !== 'string') throw malformed();
    return {
      txs: member(o, 'txs', arrayOf(data, 1_000), slot) ?? [],
      blockNumber,
      minTimestamp: seconds(o.minTimestamp),
      maxTimestamp: seconds(o.maxTimestamp),
      revertingTxHashes: member(o, 'revertingTxHashes', arrayOf(hash, 1_000), slot),
      replacementUUID: uuid ?? undefined,
    };
  } catch {
    throw malformed();
  }
};

/** The engine API's PayloadAttributesV3 (testing_buildBlockV1): timestamp, prevRandao, fee recipient, withdrawals, beacon root. */
export const payloadAttributes: Parser<{
  timestamp: bigint;
  prevRandao: Uint8Array;
  feeRecipient: Uint8Array;
  withdrawals?: { index: bigint; validatorIndex: bigint; address: Uint8Array; amount: bigint }[];
  parentBeaconBlockRoot?: Uint8Array;
}> = (value, slot) => {
  const o = strictObject(value, slot, [
    'timestamp',
    'prevRandao',
    'suggestedFeeRecipient',
    'withdrawals',
    'parentBeaconBlockRoot',
  ]);
  const need = <T>(key: string, parse: Parser<T>, what: string): T =>
    member(o, key, parse, slot) ?? fail({ ...slot, name: `${slot.name}.${key}` }, what, o[key]);
  const withdrawal: Parser<{ index: bigint; validatorIndex: bigint; address: Uint8Array; amount: bigint }> = (
    v,
    at,
  ) => {
    const w = strictObject(v, at, ['index', 'validatorIndex', 'address', 'amount']);
    const field = <T>(key: string, parse: Parser<T>, what: string): T =>
      member(w, key, parse, at) ?? fail({ ...at, name: `${at.name}.${key}` }, what, w[key]);
    return {
      index: field('index', quantity, 'a hex quantity'),
      validatorIndex: field('validatorIndex', quantity, 'a hex quantity'),
      address: field('address', address, 'a 20-byte hex address'),
      amount: field('amount', quantity, 'a hex quantity (gwei)'),
    };
  };
  return {
    timestamp: need('timestamp', timestamp, 'a hex quantity'),
    prevRandao: need('prevRandao', hash, 'a 32-byte hex hash'),
    feeRecipient: need('suggestedFeeRecipient', address, 'a 20-byte hex address'),
    withdrawals: member(o, 'withdrawals', arrayOf(withdrawal, 10_000), slot),
    parentBeaconBlockRoot: member(o, 'parentBeaconBlockRoot', hash, slot),
  };
};

/** testing_buildBlockV1's transactions: raw signed transactions, or null for the pool's. */
export const rawTransactionsOrNull: Parser<Uint8Array[] | null> = (value, slot) =>
  value === null ? null : arrayOf(data, 10_000)(value, slot);

/** geth's block overrides (number, time, gasLimit, coinbase, random, baseFee). */
const blockOverrides: Parser<BlockOverrides> = (value, slot) => {
  const o = strictObject(value, slot, ['number', 'time', 'gasLimit', 'coinbase', 'random', 'baseFee']);
  return {
    number: member(o, 'number', quantity, slot),
    time: member(o, 'time', quantity, slot),
    gasLimit: member(o, 'gasLimit', quantity, slot),
    coinbase: member(o, 'coinbase', address, slot),
    random: member(o, 'random', hash, slot),
    baseFee: member(o, 'baseFee', quantity, slot),
  };
};

/**
 * geth's trace options: `tracer`, `tracerConfig`, the struct logger's own flags and `limit`,
 * `timeout` (a duration: "5s", "500ms"; default the node's --rpc-evm-timeout), and for
 * debug_traceCall `stateOverrides` and `blockOverrides`.
 */
export const traceOptions: Parser<TraceOptions & { stateOverrides?: StateOverride[] }> = (value, slot) => {
  const o = object(value, slot);
  const at = (key: string) => ({ position: slot.position, name: `${slot.name}.${key}` });
  const flag = (key: string) => {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'boolean' ? v : fail(at(key), 'a boolean', v);
  };
  const tracer = o.tracer;
  if (tracer !== undefined && tracer !== null && typeof tracer !== 'string')
    return fail(at('tracer'), 'a string', tracer);
  const config = o.tracerConfig;
  const limit = o.limit;
  if (
    limit !== undefined &&
    limit !== null &&
    !(typeof limit === 'number' && Number.isSafeInteger(limit) && limit >= 0)
  )
    return fail(at('limit'), 'an integer of at least 0', limit);
  const timeoutText = o.timeout;
  let timeout: number | undefined;
  if (timeoutText !== undefined && timeoutText !== null) {
    timeout = typeof timeoutText === 'string' ? parseDuration(timeoutText, false) : undefined;
    if (timeout === undefined || timeout === 0)
      return fail(at('timeout'), 'a duration like "5s" or "500ms"', timeoutText);
  }
  return {
    tracer: (tracer ?? undefined) as string | undefined,
    tracerConfig: config === undefined || config === null ? undefined : object(config, at('tracerConfig')),
    disableStack: flag('disableStack'),
    disableStorage: flag('disableStorage'),
    enableMemory: flag('enableMemory'),
    enableReturnData: flag('enableReturnData'),
    limit: (limit ?? undefined) as number | undefined,
    timeout,
    blockOverrides: o.blockOverrides === undefined ? undefined : blockOverrides(o.blockOverrides, at('blockOverrides')),
    stateOverrides: o.stateOverrides === undefined ? undefined : stateOverrides(o.stateOverrides, at('stateOverrides')),
  };
};

/** l2_setLineLimits' changes: `{ MODULE: limit }`. */
export const lineLimitChanges: Parser<Record<string, number>> = (value, slot) => {
  const o = object(value, slot);
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(o)) {
    lineModule(key, { position: slot.position, name: `${slot.name} key` });
    out[key] = lineCount(v, { position: slot.position, name: `${slot.name}.${key}` });
  }
  return out;
};

/** eth_getStorageValues' requests: `{ address: [32-byte slot, ...] }`. */
export const storageRequests: Parser<[Uint8Array, Uint8Array[]][]> = (value, slot) =>
  Object.entries(object(value, slot)).map(([key, keys]) => {
    const at = { position: slot.position, name: `${slot.name}[${key}]` };
    return [address(key, { ...at, name: `${slot.name} key` }), arrayOf(hash, 10_000)(keys, at)];
  });

// ---------------------------------------------------------------- devnet control (Anvil's and Hardhat's methods)

/** A number of seconds or blocks given as a JSON number or a hex quantity. */
export const amount = (value: unknown, slot: ParamSlot): bigint => {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string') return quantity(value, slot);
  return fail(slot, 'a non-negative integer or hex quantity', value);
};

/** `amount`, below `limit`: the message names the bound and why it is there. */
function amountBelow(limit: bigint, bound: string): (value: unknown, slot: ParamSlot) => bigint {
  return (value, slot) => {
    const n = amount(value, slot);
    return n < limit ? n : fail(slot, `below ${bound}`, value);
  };
}

/** A block timestamp: the header field is a uint64. */
export const timestamp = amountBelow(1n << 64n, '2^64 (a block timestamp is a uint64)');
/** EIP-2681: an account nonce stays below 2^64-1. */
export const nonce = amountBelow((1n << 64n) - 1n, '2^64-1 (EIP-2681)');
/** EIP-1985: a block gas limit is at most 2^63-1. */
export const gasLimit = amountBelow(1n << 63n, '2^63 (EIP-1985: at most 2^63-1)');

/** A 32-byte word given as any hex quantity (storage values). */
export const word = (value: unknown, slot: ParamSlot): Uint8Array => {
  const n = quantity(value, slot);
  return Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
};
