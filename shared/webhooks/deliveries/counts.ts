/** Deliveries per state, for operators (the summary of `jobs --once` and the header of `jobs:list`, `jobs:dead`). */
import { authorize, type Actor } from '../../access/actor.ts';
import type { WebhookDeps } from '../deps.ts';
import { listDeliveries, type DeliveryQuery } from './list.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from './record.ts';

/** The filters of the delivery listing (list.ts), without its states and its page. */
export type DeliveryFilters = Omit<DeliveryQuery, 'statuses' | 'page' | 'perPage'>;

/**
 * Deliveries per state that the listing with `filters` in the actor's scope selects (403
 * `APP_FORBIDDEN` first to a grant that may not read webhooks), each counted as the
 * listing counts its total (list.ts, shared/db/bounded-total.ts): exactly while PostgreSQL expects
 * at most `api.exactTotal` of them, else its estimate, and `estimated` names those states. So
 * the counts beside a page of a big table cost about what the page does (a row of each state
 * read through its index, an estimate, a count of at most `api.exactTotal + 1` rows) instead of
 * a count of every matching row: a big tenant's deliveries, or the whole table.
 */
export async function countListedDeliveries(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  actor: Actor,
  filters: DeliveryFilters,
): Promise<{ counts: Record<DeliveryStatus, number>; estimated: DeliveryStatus[] }> {
  authorize(actor, 'webhooks.read');
  const totals = await Promise.all(
    DELIVERY_STATUSES.map((status) =>
      listDeliveries(deps, actor, { ...filters, statuses: [status], page: 1, perPage: 1 }),
    ),
  );
  const counts = { pending: 0, running: 0, done: 0, dead: 0 };
  const estimated: DeliveryStatus[] = [];
  DELIVERY_STATUSES.forEach((status, index) => {
    counts[status] = totals[index].total;
    if (totals[index].totalEstimated) estimated.push(status);
  });
  return { counts, estimated };
}
