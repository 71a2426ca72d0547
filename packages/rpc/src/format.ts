/**
 * Encoding to the wire: quantities as minimal 0x hex, hashes and addresses as lowercase 0x hex, and
 * `null` where the spec says (pending block and transaction fields, creation `to`, ...).
 */
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';
import type {
  LineaAccountProof,
  LineaKeyProof,
  LineaLeafProof,
  AccountProof,
  BuildResult,
  CallFrame,
  ExclusionRecord,
  FlatTrace,
  LineFrame,
  LocatedLog,
  Log,
  PrestateAccount,
  Receipt,
  StructLog,
  TraceResult,
} from '@l2devnet/core';
import { blockSize, effectiveGasPrice } from '@l2devnet/core';

export type Hex = `0x${string}`;

export function quantity(n: bigint | number): Hex {
  return `0x${n.toString(16)}`;
}

export function hex(b: Uint8Array): Hex {
  return bytesToHex(b);
}

export interface RpcLog {
  removed: boolean;
  logIndex: Hex | null;
  transactionIndex: Hex | null;
  transactionHash: Hex | null;
  blockHash: Hex | null;
  blockNumber: Hex | null;
  /** execution-apis: the timestamp of the log's block. */
  blockTimestamp: Hex | null;
  address: Hex;
  data: Hex;
  topics: Hex[];
}

/** Logs of mined blocks never change: each is formatted once, and written as JSON once. */
const formattedLogs = new WeakMap<LocatedLog, RpcLog>();
const logTexts = new WeakMap<LocatedLog, Buffer>();

/**
 * A result that can be written as JSON in UTF-8 pieces (`pieces()`, to be joined), for a transport
 * that sends bytes: copied into the answer as they are (`serializeResponse`), where JSON.stringify
 * would walk every object of a large answer again and the transport then encode the text. Anything
 * else gets the value (`value()`, which JSON.stringify also calls).
 */
export class JsonText {
  constructor(
    readonly pieces: () => Uint8Array[],
    readonly value: () => unknown,
  ) {}

  toJSON(): unknown {
    return this.value();
  }
}

/** The JSON punctuation JsonText's pieces and the answers around them are joined with. */
export const JSON_BYTES = {
  open: Buffer.from('['),
  close: Buffer.from(']'),
  comma: Buffer.from(','),
  end: Buffer.from('}'),
};

/** Logs as one JSON array, each log written once and kept (an eth_getLogs answer). */
export function logsJson(logs: readonly LocatedLog[]): JsonText {
  const pieces = () => {
    const out: Uint8Array[] = [JSON_BYTES.open];
    for (let i = 0; i < logs.length; i++) {
      let text = logTexts.get(logs[i]);
      if (text === undefined) {
        text = Buffer.from(JSON.stringify(formatLog(logs[i])));
        logTexts.set(logs[i], text);
      }
      if (i > 0) out.push(JSON_BYTES.comma);
      out.push(text);
    }
    out.push(JSON_BYTES.close);
    return out;
  };
  return new JsonText(pieces, () => logs.map(formatLog));
}

/** A log the node keeps (a mined block's): formatted once, and the same object after. */
export function formatLog(log: LocatedLog): RpcLog {
  let out = formattedLogs.get(log);
  if (out === undefined) {
    out = encodeLog(log);
    formattedLogs.set(log, out);
  }
  return out;
}

/**
 * A log made for one answer (a simulated call's): formatted without being kept, as a key of
 * formatLog's WeakMap that is never asked for again costs the garbage collector more than its format.
 */
export function encodeLog(log: LocatedLog): RpcLog {
  return logJson(log, {
    blockNumber: quantity(log.blockNumber),
    transactionHash: hex(log.transactionHash),
    transactionIndex: quantity(log.transactionIndex),
    blockHash: hex(log.blockHash),
    blockTimestamp: quantity(log.blockTimestamp),
    logIndex: quantity(log.logIndex),
    removed: log.removed,
  });
}

/** Where a log sits, written already (a receipt's logs share all of it but their index). */
type LogPlace = Omit<RpcLog, 'address' | 'data' | 'topics'>;

/** A log's JSON, its fields in their order: the one place it is laid out. */
function logJson(log: Log, at: LogPlace): RpcLog {
  return {
    address: hex(log.address),
    topics: log.topics.map(hex),
    data: hex(log.data),
    blockNumber: at.blockNumber,
    transactionHash: at.transactionHash,
    transactionIndex: at.transactionIndex,
    blockHash: at.blockHash,
    blockTimestamp: at.blockTimestamp,
    logIndex: at.logIndex,
    removed: at.removed,
  };
}

export interface RpcTransaction {
  blockHash: Hex | null;
  blockNumber: Hex | null;
  /** execution-apis: the timestamp of the transaction's block; null while pending. */
  blockTimestamp: Hex | null;
  from: Hex;
  gas: Hex;
  gasPrice: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
  hash: Hex;
  input: Hex;
  nonce: Hex;
  to: Hex | null;
  transactionIndex: Hex | null;
  value: Hex;
  type: Hex;
  accessList?: { address: Hex; storageKeys: Hex[] }[];
  chainId?: Hex;
  v: Hex;
  r: Hex;
  s: Hex;
  yParity?: Hex;
  authorizationList?: unknown[];
  maxFeePerBlobGas?: Hex;
  blobVersionedHashes?: Hex[];
}

/** A transaction; `at` is its block and index, absent while pending. */
export function formatTransaction(
  tx: TypedTransaction,
  sender: Uint8Array,
  at?: { block: Block; index: number },
): RpcTransaction {
  const baseFee = at?.block.header.baseFeePerGas;
  const dynamic = 'maxFeePerGas' in tx;
  const out: RpcTransaction = {
    blockHash: at === undefined ? null : hex(at.block.hash()),
    blockNumber: at === undefined ? null : quantity(at.block.header.number),
    blockTimestamp: at === undefined ? null : quantity(at.block.header.timestamp),
    from: hex(sender),
    gas: quantity(tx.gasLimit),
    // geth: the price actually paid once mined; the fee cap while pending.
    gasPrice: quantity(dynamic && baseFee === undefined ? tx.maxFeePerGas : effectiveGasPrice(tx, baseFee ?? 0n)),
    hash: hex(tx.hash()),
    input: hex(tx.data),
    nonce: quantity(tx.nonce),
    to: tx.to === undefined ? null : hex(tx.to.bytes),
    transactionIndex: at === undefined ? null : quantity(at.index),
    value: quantity(tx.value),
    type: quantity(tx.type),
    v: quantity(tx.v ?? 0n),
    r: quantity(tx.r ?? 0n),
    s: quantity(tx.s ?? 0n),
  };
  if (dynamic) {
    out.maxFeePerGas = quantity(tx.maxFeePerGas);
    out.maxPriorityFeePerGas = quantity(tx.maxPriorityFeePerGas);
  }
  if (tx.type !== 0) {
    const typed = tx as unknown as {
      chainId: bigint;
      accessList: [Uint8Array, Uint8Array[]][];
      authorizationList?: Uint8Array[][];
    };
    out.accessList = typed.accessList.map(([address, keys]) => ({ address: hex(address), storageKeys: keys.map(hex) }));
    out.chainId = quantity(typed.chainId);
    out.yParity = quantity(tx.v ?? 0n);
    const blob = tx as unknown as { maxFeePerBlobGas?: bigint; blobVersionedHashes?: Hex[] };
    if (blob.blobVersionedHashes !== undefined) {
      out.maxFeePerBlobGas = quantity(blob.maxFeePerBlobGas ?? 0n);
      out.blobVersionedHashes = blob.blobVersionedHashes.map((h) => h.toLowerCase() as Hex);
    }
    if (typed.authorizationList !== undefined) {
      out.authorizationList = typed.authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
        chainId: quantity(BigInt(hex(chainId.length === 0 ? new Uint8Array([0]) : chainId))),
        address: hex(address),
        nonce: quantity(BigInt(hex(nonce.length === 0 ? new Uint8Array([0]) : nonce))),
        yParity: quantity(BigInt(hex(yParity.length === 0 ? new Uint8Array([0]) : yParity))),
        r: hex(r),
        s: hex(s),
      }));
    }
  } else if (tx.v !== undefined && tx.v >= 35n) {
    out.chainId = quantity((tx.v - 35n) / 2n);
  }
  return out;
}

export interface RpcReceipt {
  blockHash: Hex;
  blockNumber: Hex;
  contractAddress: Hex | null;
  cumulativeGasUsed: Hex;
  effectiveGasPrice: Hex;
  from: Hex;
  gasUsed: Hex;
  logs: RpcLog[];
  logsBloom: Hex;
  /** Byzantium on; before it, `root`. */
  status?: Hex;
  root?: Hex;
  /** Blob transactions only. */
  blobGasUsed?: Hex;
  blobGasPrice?: Hex;
  to: Hex | null;
  transactionHash: Hex;
  transactionIndex: Hex;
  type: Hex;
}

/** Receipt `index` of `block`; `receipts` are the block's, to number its logs within the block. */
export function formatReceipt(block: Block, receipts: Receipt[], index: number): RpcReceipt {
  let logIndex = 0;
  for (let i = 0; i < index; i++) logIndex += receipts[i].logs.length;
  return receiptJson(blockFields(block), receipts[index], index, logIndex);
}

/** Every receipt of `block` (eth_getBlockReceipts), its block's fields written once for them all. */
export function formatReceipts(block: Block, receipts: Receipt[]): RpcReceipt[] {
  const fields = blockFields(block);
  let logIndex = 0;
  return receipts.map((r, index) => {
    const out = receiptJson(fields, r, index, logIndex);
    logIndex += r.logs.length;
    return out;
  });
}

/** What every receipt and log of a block repeats. */
interface BlockFields {
  blockHash: Hex;
  blockNumber: Hex;
  blockTimestamp: Hex;
  /** From Cancun: the block's blob gas price. */
  blobGasPrice: Hex | undefined;
}

function blockFields(block: Block): BlockFields {
  const h = block.header;
  return {
    blockHash: hex(block.hash()),
    blockNumber: quantity(h.number),
    blockTimestamp: quantity(h.timestamp),
    blobGasPrice: h.excessBlobGas === undefined ? undefined : quantity(h.getBlobGasPrice()),
  };
}

/** The receipt at `index`, whose first log is the block's `logIndex`th. */
function receiptJson(b: BlockFields, r: Receipt, index: number, logIndex: number): RpcReceipt {
  const transactionHash = hex(r.txHash);
  const transactionIndex = quantity(index);
  return {
    blockHash: b.blockHash,
    blockNumber: b.blockNumber,
    contractAddress: r.contractAddress === undefined ? null : hex(r.contractAddress),
    cumulativeGasUsed: quantity(r.cumulativeGasUsed),
    effectiveGasPrice: quantity(r.effectiveGasPrice),
    from: hex(r.from),
    gasUsed: quantity(r.gasUsed),
    // Written here, not through formatLog, whose cache is for logs kept.
    logs: r.logs.map((log, i) =>
      logJson(log, {
        blockNumber: b.blockNumber,
        transactionHash,
        transactionIndex,
        blockHash: b.blockHash,
        blockTimestamp: b.blockTimestamp,
        logIndex: quantity(logIndex + i),
        removed: false,
      }),
    ),
    logsBloom: hex(r.logsBloom),
    ...(r.root === undefined ? { status: quantity(r.status) } : { root: hex(r.root) }),
    // A blob transaction's blob gas; from Cancun every receipt carries its block's blob gas price, as
    // Anvil's do (geth's only a blob transaction's).
    ...(r.blobGasUsed === undefined
      ? b.blobGasPrice === undefined
        ? {}
        : { blobGasPrice: b.blobGasPrice }
      : { blobGasUsed: quantity(r.blobGasUsed), blobGasPrice: quantity(r.blobGasPrice ?? 0n) }),
    to: r.to === undefined ? null : hex(r.to),
    transactionHash,
    transactionIndex,
    type: quantity(r.type),
  };
}

export type RpcBlock = Record<string, Hex | Hex[] | RpcTransaction[] | null>;

/**
 * A block, with the total difficulty up to it where it is given (the service document lists it;
 * geth no longer answers it). `receipts` supply each transaction's sender for full transaction
 * objects. The pending
 * block has `hash`, `number`, `nonce` and `logsBloom` null (spec: States).
 */
export function formatBlock(
  block: Block,
  receipts: Receipt[],
  fullTransactions: boolean,
  totalDifficulty: bigint | undefined,
  pending = false,
): RpcBlock {
  const h = block.header;
  const out: RpcBlock = {
    number: pending ? null : quantity(h.number),
    hash: pending ? null : hex(block.hash()),
    parentHash: hex(h.parentHash),
    nonce: pending ? null : hex(h.nonce),
    sha3Uncles: hex(h.uncleHash),
    logsBloom: pending ? null : hex(h.logsBloom),
    transactionsRoot: hex(h.transactionsTrie),
    stateRoot: hex(h.stateRoot),
    receiptsRoot: hex(h.receiptTrie),
    miner: hex(h.coinbase.bytes),
    difficulty: quantity(h.difficulty),
    ...(totalDifficulty !== undefined && { totalDifficulty: quantity(totalDifficulty) }),
    extraData: hex(h.extraData),
    size: quantity(blockSize(block)),
    gasLimit: quantity(h.gasLimit),
    gasUsed: quantity(h.gasUsed),
    timestamp: quantity(h.timestamp),
    mixHash: hex(h.mixHash),
  };
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = quantity(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) {
    out.withdrawalsRoot = hex(h.withdrawalsRoot);
    (out as Record<string, unknown>).withdrawals = (block.withdrawals ?? []).map((w) => ({
      index: quantity(w.index),
      validatorIndex: quantity(w.validatorIndex),
      address: hex(w.address.bytes),
      amount: quantity(w.amount),
    }));
  }
  if (h.blobGasUsed !== undefined) out.blobGasUsed = quantity(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = quantity(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = hex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) out.requestsHash = hex(h.requestsHash);
  out.transactions = fullTransactions
    ? block.transactions.map((tx, index) =>
        formatTransaction(
          tx,
          receipts[index]?.from ?? tx.getSenderAddress().bytes,
          pending ? undefined : { block, index },
        ),
      )
    : block.transactions.map((tx) => hex(tx.hash()));
  out.uncles = block.uncleHeaders.map((u) => hex(u.hash()));
  return out;
}

/**
 * testing_buildBlockV1's answer, as geth's engine.ExecutionPayloadEnvelope: the block as an execution
 * payload (withdrawals from Shanghai, blob gas from Cancun), what its fee recipient earns in tips,
 * the blobs of the blob transactions given in their network form, and the requests (Prague on).
 */
export function formatExecutionPayload(build: BuildResult, given: TypedTransaction[] | null): Record<string, unknown> {
  const { block, receipts } = build;
  const h = block.header;
  const baseFee = h.baseFeePerGas ?? 0n;
  const payload: Record<string, unknown> = {
    parentHash: hex(h.parentHash),
    feeRecipient: hex(h.coinbase.bytes),
    stateRoot: hex(h.stateRoot),
    receiptsRoot: hex(h.receiptTrie),
    logsBloom: hex(h.logsBloom),
    prevRandao: hex(h.mixHash),
    blockNumber: quantity(h.number),
    gasLimit: quantity(h.gasLimit),
    gasUsed: quantity(h.gasUsed),
    timestamp: quantity(h.timestamp),
    extraData: hex(h.extraData),
    baseFeePerGas: quantity(baseFee),
    blockHash: hex(block.hash()),
    transactions: block.transactions.map((tx) => hex(tx.serialize())),
  };
  if (h.withdrawalsRoot !== undefined)
    payload.withdrawals = (block.withdrawals ?? []).map((w) => ({
      index: quantity(w.index),
      validatorIndex: quantity(w.validatorIndex),
      address: hex(w.address.bytes),
      amount: quantity(w.amount),
    }));
  if (h.blobGasUsed !== undefined) payload.blobGasUsed = quantity(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) payload.excessBlobGas = quantity(h.excessBlobGas);
  let value = 0n;
  for (const r of receipts) value += (r.effectiveGasPrice - baseFee) * r.gasUsed;
  const bundle = { commitments: [] as Hex[], proofs: [] as Hex[], blobs: [] as Hex[] };
  for (const tx of given ?? []) {
    const sidecar = tx as { blobs?: Uint8Array[]; kzgCommitments?: Uint8Array[]; kzgProofs?: Uint8Array[] };
    bundle.commitments.push(...(sidecar.kzgCommitments ?? []).map(hex));
    bundle.proofs.push(...(sidecar.kzgProofs ?? []).map(hex));
    bundle.blobs.push(...(sidecar.blobs ?? []).map(hex));
  }
  return {
    executionPayload: payload,
    blockValue: quantity(value),
    blobsBundle: bundle,
    ...(build.requests !== undefined && {
      executionRequests: build.requests.filter((r) => r.data.length > 0).map((r) => hex(r.bytes)),
    }),
    shouldOverrideBuilder: false,
  };
}

export function formatProof(p: AccountProof, keys: string[]): Record<string, unknown> {
  return {
    address: hex(p.address),
    accountProof: p.accountProof.map(hex),
    balance: quantity(p.balance),
    codeHash: hex(p.codeHash),
    nonce: quantity(p.nonce),
    storageHash: hex(p.storageHash),
    storageProof: p.storageProof.map((s, i) => ({ key: keys[i], value: quantity(s.value), proof: s.proof.map(hex) })),
  };
}

/** linea_getProof's answer, as Shomei writes it (its JsonTraceParser: bytes as hex, indexes as numbers). */
export function formatLineaProof(p: LineaAccountProof): Record<string, unknown> {
  const leaf = (l: LineaLeafProof) => ({ value: hex(l.value), proofRelatedNodes: l.proofRelatedNodes.map(hex) });
  const key = (k: LineaKeyProof) =>
    'leafIndex' in k
      ? { key: hex(k.key), leafIndex: k.leafIndex, proof: leaf(k.proof) }
      : {
          key: hex(k.key),
          leftLeafIndex: k.leftLeafIndex,
          leftProof: leaf(k.leftProof),
          rightLeafIndex: k.rightLeafIndex,
          rightProof: leaf(k.rightProof),
        };
  return { accountProof: key(p.accountProof), storageProofs: p.storageProofs.map(key) };
}

/** Spec: Transaction exclusion object; `blockNumber` only where the record has one (stage SEQUENCER). */
export function formatExclusion(r: ExclusionRecord): Record<string, string> {
  const out: Record<string, string> = {
    txHash: hex(r.txHash),
    from: hex(r.from),
    nonce: quantity(r.nonce),
    txRejectionStage: r.stage,
    reasonMessage: r.reasonMessage,
  };
  if (r.blockNumber !== undefined) out.blockNumber = quantity(r.blockNumber);
  out.timestamp = new Date(r.timestamp).toISOString();
  return out;
}

// ---------------------------------------------------------------- traces, as geth's tracers answer

/** A 32-byte word: storage slots and values, memory words. */
function word(n: bigint): Hex {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

/** A tracer's result in geth's JSON: debug_traceTransaction, debug_traceCall, debug_traceBlock*. */
export function formatTrace(r: TraceResult): unknown {
  switch (r.tracer) {
    case 'structLogger':
      return {
        failed: r.failed,
        gas: Number(r.gas),
        returnValue: hex(r.returnValue),
        structLogs: r.structLogs.map(formatStructLog),
      };
    case 'callTracer':
      return formatCallFrame(r.frame);
    case 'flatCallTracer':
      return r.traces.map(formatFlatTrace);
    case '4byteTracer':
      return Object.fromEntries(r.calls.map((c) => [`${hex(c.selector)}-${c.size}`, c.count]));
    case 'prestateTracer':
      return 'accounts' in r
        ? formatAccounts(r.accounts)
        : { post: formatAccounts(r.diff.post), pre: formatAccounts(r.diff.pre) };
    case 'lineCountTracer':
      return {
        tracer: r.profile,
        lineCounts: r.lineCounts,
        frames: r.frames === null ? null : formatLineFrame(r.frames),
      };
    case 'noopTracer':
      return {};
    case 'muxTracer':
      return Object.fromEntries(r.results.map(([name, result]) => [name, formatTrace(result)]));
  }
}

function formatStructLog(log: StructLog): Record<string, unknown> {
  const out: Record<string, unknown> = {
    pc: log.pc,
    op: log.op,
    gas: Number(log.gas),
    gasCost: Number(log.gasCost),
    depth: log.depth,
  };
  if (log.stack !== undefined) out.stack = log.stack.map(quantity);
  // geth leaves out an empty memory and a zero refund (omitempty).
  if (log.memory !== undefined && log.memory.length > 0) {
    const words: string[] = [];
    for (let i = 0; i < log.memory.length; i += 32)
      words.push(
        `0x${Buffer.from(log.memory.subarray(i, i + 32))
          .toString('hex')
          .padStart(64, '0')}`,
      );
    out.memory = words;
  }
  if (log.returnData !== undefined) out.returnData = hex(log.returnData);
  if (log.storage !== undefined) out.storage = Object.fromEntries(log.storage.map(([k, v]) => [word(k), word(v)]));
  if (log.refund > 0n) out.refund = Number(log.refund);
  if (log.error !== undefined) out.error = log.error;
  return out;
}

/** A callTracer frame as geth's JSON gives it. */
export interface RpcCallFrame {
  type: string;
  from: Hex;
  gas: Hex;
  gasUsed: Hex;
  to?: Hex;
  input: Hex;
  output?: Hex;
  error?: string;
  revertReason?: string;
  calls?: RpcCallFrame[];
  logs?: { address: Hex; topics: Hex[]; data: Hex; position: Hex; index: Hex }[];
  value?: Hex;
}

/** A callTracer frame, with geth's fields in geth's order. */
export function formatCallFrame(f: CallFrame): RpcCallFrame {
  return {
    type: f.type,
    from: hex(f.from),
    gas: quantity(f.gas),
    gasUsed: quantity(f.gasUsed),
    ...(f.to !== undefined && { to: hex(f.to) }),
    input: hex(f.input),
    ...(f.output !== undefined && { output: hex(f.output) }),
    ...(f.error !== undefined && { error: f.error }),
    ...(f.revertReason !== undefined && { revertReason: f.revertReason }),
    ...(f.calls !== undefined && { calls: f.calls.map(formatCallFrame) }),
    ...(f.logs !== undefined && {
      logs: f.logs.map((log) => ({
        address: hex(log.address),
        topics: log.topics.map(hex),
        data: hex(log.data),
        position: quantity(log.position),
        index: quantity(log.index),
      })),
    }),
    ...(f.value !== undefined && { value: quantity(f.value) }),
  };
}

function formatFlatTrace(t: FlatTrace): Record<string, unknown> {
  const f = t.frame;
  const context = {
    blockHash: t.blockHash === undefined ? null : hex(t.blockHash),
    blockNumber: Number(t.blockNumber),
    transactionHash: t.transactionHash === undefined ? null : hex(t.transactionHash),
    transactionPosition: t.transactionPosition,
  };
  const value = quantity(f.value ?? 0n);
  const to = f.to === undefined ? undefined : hex(f.to);
  if (t.type === 'suicide')
    return {
      action: { address: hex(f.from), balance: value, refundAddress: to },
      ...context,
      subtraces: t.subtraces,
      traceAddress: t.traceAddress,
      type: 'suicide',
    };
  const create = t.type === 'create';
  const output = f.output === undefined ? '0x' : hex(f.output);
  const gas = quantity(f.gas);
  const gasUsed = quantity(f.gasUsed);
  const out: Record<string, unknown> = {
    action: create
      ? { creationMethod: f.type.toLowerCase(), from: hex(f.from), gas, init: hex(f.input), value }
      : { callType: f.type.toLowerCase(), from: hex(f.from), gas, input: hex(f.input), to, value },
    blockHash: context.blockHash,
    blockNumber: context.blockNumber,
    // A frame that failed other than by reverting has no result.
    ...((f.error === undefined || f.error === 'execution reverted') && {
      result: create ? { ...(to !== undefined && { address: to }), code: output, gasUsed } : { gasUsed, output },
    }),
    subtraces: t.subtraces,
    traceAddress: t.traceAddress,
    transactionHash: context.transactionHash,
    transactionPosition: context.transactionPosition,
    type: t.type,
  };
  if (t.error !== undefined) out.error = t.error;
  return out;
}

/** prestateTracer accounts by address: the fields each has. */
function formatAccounts(accounts: PrestateAccount[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const a of accounts) {
    const fields: Record<string, unknown> = {};
    if (a.balance !== undefined) fields.balance = quantity(a.balance);
    if (a.nonce !== undefined) fields.nonce = Number(a.nonce);
    if (a.code !== undefined) fields.code = hex(a.code);
    if (a.storage !== undefined) fields.storage = Object.fromEntries(a.storage.map(([k, v]) => [word(k), word(v)]));
    out[hex(a.address)] = fields;
  }
  return out;
}

function formatLineFrame(f: LineFrame): Record<string, unknown> {
  return {
    type: f.type,
    from: hex(f.from),
    ...(f.to !== undefined && { to: hex(f.to) }),
    lineCounts: f.lineCounts,
    ...(f.calls !== undefined && { calls: f.calls.map(formatLineFrame) }),
  };
}
