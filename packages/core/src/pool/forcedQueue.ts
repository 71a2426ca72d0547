/**
 * Forced transactions (linea_sendForcedRawTransaction), as Linea's forced-transaction pool keeps them
 * (Consensys/linea-monorepo cb180134, `linea-besu/plugins/linea-sequencer/sequencer/src/main/java/
 * net/consensys/linea/sequencer/forced/`): a queue in forced-transaction-number order, tried at the
 * start of every block; each ends Included, or with the status of its first refusal unless that
 * status is retried (Other, ChainSecurityRuleViolation).
 */
import type { ForcedStatus } from '../exec/blockBuilder';
import type { PoolTx } from './txPool';

export interface ForcedTx {
  number: number;
  ptx: PoolTx;
  deadlineBlockNumber: bigint;
}

/** What linea_getForcedTransactionInclusionStatus answers for a forced transaction that ended. */
export interface ForcedOutcome {
  number: number;
  blockNumber: bigint;
  blockTimestamp: bigint;
  from: Uint8Array;
  status: ForcedStatus;
  txHash: Uint8Array;
}

/** Statuses kept (`--plugin-linea-forced-tx-status-cache-size`'s default). */
const STATUS_CACHE_SIZE = 10_000;

export class ForcedQueue {
  private queue: ForcedTx[] = [];
  private readonly outcomes = new Map<number, ForcedOutcome>();

  /** Appends `txs`, sorted by number, to the queue (LineaForcedTransactionPool.addForcedTransactions). */
  add(txs: ForcedTx[]): void {
    this.queue.push(...[...txs].sort((a, b) => a.number - b.number));
  }

  /** The queue, in the order it is tried. */
  pending(): readonly ForcedTx[] {
    return this.queue;
  }

  /** A block was added: the forced transactions it holds, and the one it refused for good, end. */
  ended(
    block: { number: bigint; timestamp: bigint; hashes: Set<string> },
    rejected: { index: number; status: ForcedStatus } | undefined,
    hex: (b: Uint8Array) => string,
  ): void {
    const rejectedTx =
      rejected !== undefined &&
      rejected.index === 0 &&
      rejected.status !== 'Other' &&
      rejected.status !== 'ChainSecurityRuleViolation'
        ? this.queue[0]
        : undefined;
    const keep: ForcedTx[] = [];
    for (const f of this.queue) {
      const included = block.hashes.has(hex(f.ptx.hash));
      if (!included && f !== rejectedTx) {
        keep.push(f);
        continue;
      }
      this.outcomes.set(f.number, {
        number: f.number,
        blockNumber: block.number,
        blockTimestamp: block.timestamp,
        from: f.ptx.sender,
        status: included ? 'Included' : (rejected?.status ?? 'Other'),
        txHash: f.ptx.hash,
      });
      if (this.outcomes.size > STATUS_CACHE_SIZE) this.outcomes.delete(this.outcomes.keys().next().value!);
    }
    this.queue = keep;
  }

  /** The outcome of forced transaction `number`; undefined while it is queued, or unknown. */
  outcome(number: number): ForcedOutcome | undefined {
    return this.outcomes.get(number);
  }
}
