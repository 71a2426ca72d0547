/**
 * Records of transactions excluded for line-count overflow, served by
 * l2_getTransactionExclusionStatusV1. A record lives for seven days of node time after the
 * rejection (spec: Limits); expired records read as absent and are purged.
 *
 *   'x' ‖ tx hash → record (JSON)        'X' ‖ rejected-at ms ‖ tx hash → '' (purge order)
 *
 * Stages: SEQUENCER (dropped while building a block), RPC (refused at eth_sendRawTransaction /
 * eth_sendTransaction). P2P is part of the type for fidelity with the real store, but this node has
 * no peers, so nothing is ever recorded with it.
 */
import { bytesToBigInt, bytesToHex, concatBytes, hexToBytes } from '@ethereumjs/util';

import { u64 } from '../store/chainStore';
import type { KvOp, KvStore } from '../store/kvStore';
import type { LineOverflow } from './lineLimits';

/** Spec: "Rejected-transaction data is retained for seven days." */
export const EXCLUSION_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export type RejectionStage = 'SEQUENCER' | 'RPC' | 'P2P';

export interface ExclusionFilter {
  stage?: RejectionStage;
  fromBlock?: bigint;
  toBlock?: bigint;
}

export interface ExclusionRecord {
  txHash: Uint8Array;
  from: Uint8Array;
  nonce: bigint;
  stage: RejectionStage;
  reasonMessage: string;
  /** The block being built, stage SEQUENCER only. */
  blockNumber: bigint | undefined;
  /** The block that was being built or pending when it was rejected, at any stage: for range queries. */
  pendingBlock?: bigint;
  /** Node time of the rejection, ms since the epoch. */
  timestamp: number;
  rawTx: Uint8Array;
  overflows: LineOverflow[];
}

const P_RECORD = 0x78; // 'x'
const P_BY_TIME = 0x58; // 'X'

type StoredRecord = Omit<ExclusionRecord, 'txHash' | 'from' | 'nonce' | 'blockNumber' | 'pendingBlock' | 'rawTx'> & {
  txHash: string;
  from: string;
  nonce: string;
  blockNumber?: string;
  pendingBlock?: string;
  rawTx: string;
};

function encode(r: ExclusionRecord): Uint8Array {
  const stored: StoredRecord = {
    txHash: bytesToHex(r.txHash),
    from: bytesToHex(r.from),
    nonce: r.nonce.toString(),
    stage: r.stage,
    reasonMessage: r.reasonMessage,
    blockNumber: r.blockNumber?.toString(),
    pendingBlock: r.pendingBlock?.toString(),
    timestamp: r.timestamp,
    rawTx: bytesToHex(r.rawTx),
    overflows: r.overflows,
  };
  return new TextEncoder().encode(JSON.stringify(stored));
}

function decode(bytes: Uint8Array): ExclusionRecord {
  const s = JSON.parse(new TextDecoder().decode(bytes)) as StoredRecord;
  return {
    txHash: hexToBytes(s.txHash as `0x${string}`),
    from: hexToBytes(s.from as `0x${string}`),
    nonce: BigInt(s.nonce),
    stage: s.stage,
    reasonMessage: s.reasonMessage,
    blockNumber: s.blockNumber === undefined ? undefined : BigInt(s.blockNumber),
    pendingBlock: s.pendingBlock === undefined ? undefined : BigInt(s.pendingBlock),
    timestamp: s.timestamp,
    rawTx: hexToBytes(s.rawTx as `0x${string}`),
    overflows: s.overflows,
  };
}

export class ExclusionStore {
  constructor(
    private readonly kv: KvStore,
    private readonly now: () => number,
  ) {}

  /** Rows that store `record`; written with the block (SEQUENCER) or on their own (RPC). */
  ops(record: ExclusionRecord): KvOp[] {
    return [
      { type: 'put', key: concatBytes(Uint8Array.of(P_RECORD), record.txHash), value: encode(record) },
      {
        type: 'put',
        key: concatBytes(Uint8Array.of(P_BY_TIME), u64(BigInt(record.timestamp)), record.txHash),
        value: new Uint8Array(0),
      },
    ];
  }

  async put(record: ExclusionRecord): Promise<void> {
    await this.kv.batch(this.ops(record));
  }

  /** The record, or undefined when the transaction was never excluded or its record expired. */
  async get(txHash: Uint8Array): Promise<ExclusionRecord | undefined> {
    const bytes = await this.kv.get(concatBytes(Uint8Array.of(P_RECORD), txHash));
    if (bytes === undefined) return undefined;
    const record = decode(bytes);
    if (this.now() - record.timestamp > EXCLUSION_RETENTION_MS) {
      await this.purgeExpired();
      return undefined;
    }
    return record;
  }

  /**
   * The records kept, oldest first, that match `filter`: a stage, and a block range on the block
   * each was rejected from (being built at stage SEQUENCER, pending at stage RPC).
   */
  async list(filter: ExclusionFilter = {}): Promise<ExclusionRecord[]> {
    await this.purgeExpired();
    const out: ExclusionRecord[] = [];
    for await (const [key] of this.kv.range(Uint8Array.of(P_BY_TIME), Uint8Array.of(P_BY_TIME + 1))) {
      const bytes = await this.kv.get(concatBytes(Uint8Array.of(P_RECORD), key.subarray(9)));
      if (bytes === undefined) continue;
      const record = decode(bytes);
      // A transaction excluded twice has one record, under its latest time.
      if (BigInt(record.timestamp) !== bytesToBigInt(key.subarray(1, 9))) continue;
      if (filter.stage !== undefined && record.stage !== filter.stage) continue;
      const block = record.pendingBlock ?? record.blockNumber;
      if (filter.fromBlock !== undefined && (block === undefined || block < filter.fromBlock)) continue;
      if (filter.toBlock !== undefined && (block === undefined || block > filter.toBlock)) continue;
      out.push(record);
    }
    return out;
  }

  /** Deletes every record older than the retention period; returns how many. */
  async purgeExpired(): Promise<number> {
    const cutoff = this.now() - EXCLUSION_RETENTION_MS;
    if (cutoff < 0) return 0;
    const ops: KvOp[] = [];
    const from = Uint8Array.of(P_BY_TIME);
    const to = concatBytes(Uint8Array.of(P_BY_TIME), u64(BigInt(cutoff)));
    let purged = 0;
    for await (const [key] of this.kv.range(from, to)) {
      ops.push({ type: 'del', key });
      const recordKey = concatBytes(Uint8Array.of(P_RECORD), key.subarray(9));
      const bytes = await this.kv.get(recordKey);
      // A transaction excluded again later has a newer record under the same key: keep it.
      if (bytes !== undefined && decode(bytes).timestamp <= cutoff) {
        ops.push({ type: 'del', key: recordKey });
        purged++;
      }
    }
    if (ops.length > 0) await this.kv.batch(ops);
    return purged;
  }
}
