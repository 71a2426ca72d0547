/**
 * Transactions waiting for a block. Each sender has a nonce-ordered queue. A transaction is
 * *ready* when every nonce from the sender's account nonce up to its own is present (no gap);
 * the rest are *queued* until the gap is filled. Block building takes ready transactions, the best
 * paying sender's next nonce first. A transaction at an occupied (sender, nonce) slot replaces the
 * old one only if both of its fee caps are at least REPLACEMENT_BUMP_PERCENT higher (geth's rule).
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex } from '@ethereumjs/util';

import { AlreadyKnownError, ReplacementUnderpricedError } from '../errors';

/** geth's default `txpool.pricebump`. */
export const REPLACEMENT_BUMP_PERCENT = 10n;

export interface PoolTx {
  tx: TypedTransaction;
  hash: Uint8Array;
  sender: Uint8Array;
  nonce: bigint;
  /** Node clock (ms) when the pool accepted it. */
  addedAt: number;
}

export function maxFeeOf(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as unknown as { gasPrice: bigint }).gasPrice;
}

export function maxTipOf(tx: TypedTransaction): bigint {
  return 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : (tx as unknown as { gasPrice: bigint }).gasPrice;
}

/** What the sender pays the block producer per gas at `baseFee`. */
export function effectiveTip(tx: TypedTransaction, baseFee: bigint): bigint {
  const cap = maxFeeOf(tx) - baseFee;
  const tip = maxTipOf(tx);
  return tip < cap ? tip : cap;
}

export class TxPool {
  private readonly bySender = new Map<string, Map<bigint, PoolTx>>();
  private readonly byHash = new Map<string, PoolTx>();
  /** How blocks take ready transactions: highest tip first (`fees`), or in arrival order (`fifo`), as Anvil's --order. */
  order: 'fees' | 'fifo' = 'fees';
  /**
   * Senders whose transactions go first and are not priced (Besu's --tx-pool-priority-senders, which
   * Linea's profiles give the accounts of its own services), as lowercase hex.
   */
  readonly prioritySenders = new Set<string>();

  hasPriority(sender: Uint8Array): boolean {
    return this.prioritySenders.size > 0 && this.prioritySenders.has(bytesToHex(sender));
  }

  get size(): number {
    return this.byHash.size;
  }

  get(hash: Uint8Array): PoolTx | undefined {
    return this.byHash.get(bytesToHex(hash));
  }

  all(): PoolTx[] {
    return [...this.byHash.values()];
  }

  /** The senders with transactions in the pool. */
  senders(): Uint8Array[] {
    return [...this.bySender.values()].map((queue) => (queue.values().next().value as PoolTx).sender);
  }

  /** The sender's transactions, by nonce. */
  from(sender: Uint8Array): PoolTx[] {
    return [...(this.bySender.get(bytesToHex(sender))?.values() ?? [])].sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
  }

  /** Adds `ptx`; returns the transaction it replaced, if any. */
  add(ptx: PoolTx): PoolTx | undefined {
    const hashHex = bytesToHex(ptx.hash);
    if (this.byHash.has(hashHex)) throw new AlreadyKnownError();
    const senderHex = bytesToHex(ptx.sender);
    let queue = this.bySender.get(senderHex);
    if (queue === undefined) {
      queue = new Map();
      this.bySender.set(senderHex, queue);
    }
    const old = queue.get(ptx.nonce);
    if (old !== undefined) {
      const bump = (v: bigint) => v + (v * REPLACEMENT_BUMP_PERCENT) / 100n;
      if (maxFeeOf(ptx.tx) < bump(maxFeeOf(old.tx)) || maxTipOf(ptx.tx) < bump(maxTipOf(old.tx))) {
        throw new ReplacementUnderpricedError();
      }
      this.byHash.delete(bytesToHex(old.hash));
    }
    queue.set(ptx.nonce, ptx);
    this.byHash.set(hashHex, ptx);
    return old;
  }

  remove(hash: Uint8Array): PoolTx | undefined {
    const hashHex = bytesToHex(hash);
    const ptx = this.byHash.get(hashHex);
    if (ptx === undefined) return undefined;
    this.byHash.delete(hashHex);
    const senderHex = bytesToHex(ptx.sender);
    const queue = this.bySender.get(senderHex);
    queue?.delete(ptx.nonce);
    if (queue?.size === 0) this.bySender.delete(senderHex);
    return ptx;
  }

  /** The nonce the sender's next transaction should carry: the end of its gap-free run. */
  nextNonce(sender: Uint8Array, stateNonce: bigint): bigint {
    const queue = this.bySender.get(bytesToHex(sender));
    let n = stateNonce;
    while (queue?.has(n)) n++;
    return n;
  }

  /** Splits the pool into ready and queued transactions given each sender's account nonce. */
  async partition(stateNonce: (sender: Uint8Array) => Promise<bigint>): Promise<{ ready: PoolTx[]; queued: PoolTx[] }> {
    const ready: PoolTx[] = [];
    const queued: PoolTx[] = [];
    for (const queue of this.bySender.values()) {
      const first = queue.values().next().value as PoolTx;
      let n = await stateNonce(first.sender);
      const sorted = [...queue.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
      for (const ptx of sorted) {
        if (ptx.nonce === n) {
          ready.push(ptx);
          n++;
        } else queued.push(ptx);
      }
    }
    return { ready, queued };
  }

  /**
   * Ready transactions in the order a block takes them: repeatedly the sender whose next
   * transaction pays the highest tip at `baseFee` (ties: earliest arrival), or arrived first with
   * `fifo`, a priority sender's before any other's; each sender's nonces in order.
   */
  async ordered(baseFee: bigint, stateNonce: (sender: Uint8Array) => Promise<bigint>): Promise<PoolTx[]> {
    const runs: PoolTx[][] = [];
    for (const queue of this.bySender.values()) {
      const first = queue.values().next().value as PoolTx;
      let n = await stateNonce(first.sender);
      const run: PoolTx[] = [];
      while (queue.has(n)) run.push(queue.get(n++) as PoolTx);
      if (run.length > 0) runs.push(run.reverse());
    }
    const out: PoolTx[] = [];
    while (runs.length > 0) {
      let best = 0;
      for (let i = 1; i < runs.length; i++) {
        const a = runs[i][runs[i].length - 1];
        const b = runs[best][runs[best].length - 1];
        // A priority sender's first, whatever it pays (BaseFeePrioritizedTransactions.compareByFee).
        const pa = this.hasPriority(a.sender);
        if (pa !== this.hasPriority(b.sender)) {
          if (pa) best = i;
          continue;
        }
        if (this.order === 'fifo') {
          if (a.addedAt < b.addedAt) best = i;
          continue;
        }
        const ta = effectiveTip(a.tx, baseFee);
        const tb = effectiveTip(b.tx, baseFee);
        if (ta > tb || (ta === tb && a.addedAt < b.addedAt)) best = i;
      }
      out.push(runs[best].pop() as PoolTx);
      if (runs[best].length === 0) runs.splice(best, 1);
    }
    return out;
  }

  /** Drops every transaction of `sender` below `stateNonce` (mined or made stale). */
  dropMined(sender: Uint8Array, stateNonce: bigint): PoolTx[] {
    const queue = this.bySender.get(bytesToHex(sender));
    if (queue === undefined) return [];
    const dropped = [...queue.values()].filter((ptx) => ptx.nonce < stateNonce);
    for (const ptx of dropped) this.remove(ptx.hash);
    return dropped;
  }

  clear(): void {
    this.bySender.clear();
    this.byHash.clear();
  }
}
