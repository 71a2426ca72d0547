/**
 * What the chain pushes: `eth_subscribe` subscriptions (over a session: a WebSocket, or the
 * in-process provider's events) and polled filters (`eth_newFilter` and friends, any transport).
 *
 * The feed listens to the chain's events and queues the fan-out with setImmediate, so mining never
 * waits for a subscriber; a slow WebSocket reader is the transport's business (it is disconnected
 * past its backpressure limit). After a reorganisation, log subscribers and log filters first get
 * the dropped blocks' logs with `removed: true`, then the new blocks' logs as they are mined.
 */
import { randomBytes } from 'node:crypto';

import type { Block } from '@ethereumjs/block';
import type { Chain, LocatedLog, LogFilter, Receipt } from '@l2devnet/core';
import { matchesLog } from '@l2devnet/core';

import { formatBlock, formatExclusion, formatLog, formatTransaction, hex } from './format';

/** A connection that can receive notifications. */
export interface Session {
  send(message: unknown): void;
}

export type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions' | 'exclusions';

interface Subscription {
  session: Session;
  kind: SubscriptionKind;
  filter?: Pick<LogFilter, 'addresses' | 'topics'>;
  /** newPendingTransactions with `true`: whole transactions, not hashes (geth's fullTx). */
  full?: boolean;
}

export type FilterKind = 'logs' | 'blocks' | 'pendingTransactions';

interface Filter {
  kind: FilterKind;
  /** For log filters: the query as given (block refs resolved at poll time). */
  query?: unknown;
  match?: Pick<LogFilter, 'addresses' | 'topics'>;
  changes: unknown[];
  lastPoll: number;
}

interface Targets {
  subscriptions: [string, Subscription][];
  filters: Filter[];
}

/** geth: filters not polled for 5 minutes are dropped. */
export const FILTER_TIMEOUT_MS = 5 * 60 * 1000;
/** Changes kept per filter between polls; older ones are dropped first. */
const MAX_FILTER_CHANGES = 10_000;

function newId(): string {
  return `0x${randomBytes(16).toString('hex')}`;
}

function blockLogs(block: Block, receipts: Receipt[]): LocatedLog[] {
  const out: LocatedLog[] = [];
  let logIndex = 0;
  const blockHash = block.hash();
  receipts.forEach((r, transactionIndex) => {
    for (const log of r.logs) {
      out.push({
        ...log,
        blockNumber: block.header.number,
        blockHash,
        blockTimestamp: block.header.timestamp,
        transactionHash: r.txHash,
        transactionIndex,
        logIndex: logIndex++,
        removed: false,
      });
    }
  });
  return out;
}

export class ChainFeed {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly filters = new Map<string, Filter>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(chain: Chain) {
    // Who hears an event is fixed when it happens; the work is done after the chain moves on.
    chain.on('block', (block, receipts) => {
      const targets = this.targets();
      setImmediate(() => this.onBlock(targets, block, receipts));
    });
    chain.on('pendingTransaction', (hash) => {
      const targets = this.targets();
      // For a subscriber that asked for whole transactions, taken now: by the time subscribers hear
      // of it, automine may have mined it.
      const ptx = targets.subscriptions.some(([, s]) => s.full === true)
        ? chain.reads.poolTransaction(hash)
        : undefined;
      const full = ptx === undefined ? undefined : formatTransaction(ptx.tx, ptx.sender);
      setImmediate(() => this.onPending(targets, hash, full));
    });
    chain.on('excluded', (record) => {
      const targets = this.targets();
      setImmediate(() => {
        for (const [id, sub] of targets.subscriptions)
          if (sub.kind === 'exclusions') this.notify(id, sub, formatExclusion(record));
      });
    });
    chain.on('reorg', (_head, removed) => {
      const targets = this.targets();
      setImmediate(() => this.onRemoved(targets, removed));
    });
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  subscribe(
    session: Session,
    kind: SubscriptionKind,
    filter?: Pick<LogFilter, 'addresses' | 'topics'>,
    full?: boolean,
  ): string {
    const id = newId();
    this.subscriptions.set(id, { session, kind, filter, full });
    return id;
  }

  unsubscribe(session: Session, id: string): boolean {
    const sub = this.subscriptions.get(id);
    if (sub === undefined || sub.session !== session) return false;
    return this.subscriptions.delete(id);
  }

  /** Drops every subscription of a closed session. */
  closeSession(session: Session): void {
    for (const [id, sub] of this.subscriptions) if (sub.session === session) this.subscriptions.delete(id);
  }

  newFilter(kind: FilterKind, query?: unknown, match?: Pick<LogFilter, 'addresses' | 'topics'>): string {
    this.sweep();
    const id = newId();
    this.filters.set(id, { kind, query, match, changes: [], lastPoll: Date.now() });
    return id;
  }

  getFilter(id: string): Filter | undefined {
    this.sweep();
    const filter = this.filters.get(id);
    if (filter !== undefined) filter.lastPoll = Date.now();
    return filter;
  }

  /** Changes since the last poll, and forgets them. */
  takeChanges(id: string): unknown[] | undefined {
    const filter = this.getFilter(id);
    if (filter === undefined) return undefined;
    const changes = filter.changes;
    filter.changes = [];
    return changes;
  }

  uninstall(id: string): boolean {
    return this.filters.delete(id);
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const cutoff = Date.now() - FILTER_TIMEOUT_MS;
    for (const [id, f] of this.filters) if (f.lastPoll < cutoff) this.filters.delete(id);
  }

  private push(filter: Filter, change: unknown): void {
    filter.changes.push(change);
    if (filter.changes.length > MAX_FILTER_CHANGES) filter.changes.shift();
  }

  private notify(id: string, sub: Subscription, result: unknown): void {
    if (!this.subscriptions.has(id)) return; // unsubscribed since the event
    sub.session.send({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result } });
  }

  private targets(): Targets {
    return { subscriptions: [...this.subscriptions], filters: [...this.filters.values()] };
  }

  private onBlock({ subscriptions, filters }: Targets, block: Block, receipts: Receipt[]): void {
    let header: Record<string, unknown> | undefined;
    let located: LocatedLog[] | undefined;
    const logsOf = () => (located ??= blockLogs(block, receipts));
    for (const [id, sub] of subscriptions) {
      if (sub.kind === 'newHeads') {
        if (header === undefined) {
          // A header, as geth's: no transactions, uncles or total difficulty.
          const {
            transactions: _t,
            uncles: _u,
            totalDifficulty: _d,
            ...rest
          } = formatBlock(block, receipts, false, 0n);
          header = rest;
        }
        this.notify(id, sub, header);
      } else if (sub.kind === 'logs') {
        for (const log of logsOf()) if (matchesLog(log, sub.filter ?? {})) this.notify(id, sub, formatLog(log));
      }
    }
    for (const f of filters) {
      if (f.kind === 'blocks') this.push(f, hex(block.hash()));
      else if (f.kind === 'logs') {
        for (const log of logsOf()) if (matchesLog(log, f.match ?? {})) this.push(f, formatLog(log));
      }
    }
  }

  private onPending({ subscriptions, filters }: Targets, hash: Uint8Array, full: unknown): void {
    const h = hex(hash);
    for (const [id, sub] of subscriptions)
      if (sub.kind === 'newPendingTransactions') this.notify(id, sub, sub.full === true ? (full ?? h) : h);
    for (const f of filters) if (f.kind === 'pendingTransactions') this.push(f, h);
  }

  private onRemoved({ subscriptions, filters }: Targets, removed: LocatedLog[]): void {
    for (const [id, sub] of subscriptions) {
      if (sub.kind !== 'logs') continue;
      for (const log of removed) if (matchesLog(log, sub.filter ?? {})) this.notify(id, sub, formatLog(log));
    }
    for (const f of filters) {
      if (f.kind !== 'logs') continue;
      for (const log of removed) if (matchesLog(log, f.match ?? {})) this.push(f, formatLog(log));
    }
  }
}
