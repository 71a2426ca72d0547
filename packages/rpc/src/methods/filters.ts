/** Subscriptions (WebSocket and the in-process provider) and polled filters (any transport). */
import { invalidParams, METHOD_NOT_FOUND, RpcError } from '../errors';
import type { Method, RpcContext } from '../method';
import { method, optional, required } from '../method';
import type { ParamSlot, RawLogFilter } from '../params';
import { fail, logFilter } from '../params';
import type { SubscriptionKind } from '../subscriptions';
import { queryLogs } from './logs';

const KINDS: SubscriptionKind[] = ['newHeads', 'logs', 'newPendingTransactions', 'exclusions'];

const kind = (value: unknown, slot: ParamSlot): SubscriptionKind =>
  KINDS.includes(value as SubscriptionKind)
    ? (value as SubscriptionKind)
    : fail(slot, `one of ${KINDS.join(', ')}`, value);

const filterId = (value: unknown, slot: ParamSlot): string =>
  typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value)
    ? value.toLowerCase()
    : fail(slot, 'a filter id', value);

function missing(id: string): RpcError {
  return new RpcError(-32000, `filter not found: ${id}`);
}

export const filterMethods: Record<string, Method> = {
  /** eth_subscribe(kind, filter?): notifications arrive as `eth_subscription` messages. */
  /**
   * eth_subscribe(kind, filter?): `logs` takes a log filter; `newPendingTransactions` takes `true`
   * for whole transactions rather than hashes (geth's fullTx, as Anvil).
   */
  'eth_subscribe': method(
    [required('kind', kind), optional('filter', (v, slot) => (typeof v === 'boolean' ? v : logFilter(v, slot)))],
    (ctx: RpcContext, k, filter) => {
      if (ctx.session === undefined) {
        throw new RpcError(METHOD_NOT_FOUND, 'notifications not supported: eth_subscribe needs a WebSocket connection');
      }
      if (typeof filter === 'boolean') {
        if (k !== 'newPendingTransactions')
          throw invalidParams('param 2 (fullTransactions) is only for "newPendingTransactions" subscriptions');
        return ctx.feed.subscribe(ctx.session, k, undefined, filter);
      }
      if (filter !== undefined && k !== 'logs')
        throw invalidParams(`param 2 (filter) is only for "logs" subscriptions`);
      return ctx.feed.subscribe(
        ctx.session,
        k,
        filter === undefined ? undefined : { addresses: filter.addresses, topics: filter.topics },
      );
    },
  ),
  'eth_unsubscribe': method([required('subscriptionId', filterId)], (ctx, id) =>
    ctx.session === undefined ? false : ctx.feed.unsubscribe(ctx.session, id),
  ),
  'eth_newFilter': method([required('filter', logFilter)], (ctx, filter) =>
    ctx.feed.newFilter('logs', filter, { addresses: filter.addresses, topics: filter.topics }),
  ),
  'eth_newBlockFilter': method([], (ctx) => ctx.feed.newFilter('blocks')),
  'eth_newPendingTransactionFilter': method([], (ctx) => ctx.feed.newFilter('pendingTransactions')),
  /** eth_getFilterChanges: what happened since the last poll. */
  'eth_getFilterChanges': method([required('filterId', filterId)], (ctx, id) => {
    const changes = ctx.feed.takeChanges(id);
    if (changes === undefined) throw missing(id);
    return changes;
  }),
  /** eth_getFilterLogs: every log the filter matches, as eth_getLogs would return them. */
  'eth_getFilterLogs': method([required('filterId', filterId)], (ctx, id) => {
    const filter = ctx.feed.getFilter(id);
    if (filter === undefined || filter.kind !== 'logs') throw missing(id);
    return queryLogs(ctx, filter.query as RawLogFilter);
  }),
  'eth_uninstallFilter': method([required('filterId', filterId)], (ctx, id) => ctx.feed.uninstall(id)),
};
