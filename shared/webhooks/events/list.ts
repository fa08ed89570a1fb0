/** Listing retained events: one page, newest first, for REST, GraphQL and the CLI (`events:list`). */
import { assertOwnerFilter } from '../endpoints/fields.ts';
import { assertEventNameFilter } from '../list-filters.ts';
import { ownerFilter } from '../../access/tenant-scope.ts';
import { readScope, type Actor } from '../../access/actor.ts';
import type { TimeRange } from '../time-range.ts';
import type { WebhookDeps } from '../deps.ts';
import type { Config } from '../../config/index.ts';
import { countBound, pageWithTotal, windowNumber, type Fragment } from '../../db/bounded-total.ts';
import { withGenericPlan } from '../../db/generic-plan.ts';
import { pageOffset } from '../../db/page-depth.ts';
import type { Queryable } from '../../db/connect.ts';
import { EVENT_COLUMNS, eventsWithCountsFrom, toEvent, type EventRecord, type EventRow } from './record.ts';

export interface EventQuery extends TimeRange {
  /** Only this owner's events (null: those without owner); a member's scope fixes it. */
  owner?: string | null;
  /** Only events of this exact type. */
  type?: string;
  page: number;
  perPage: number;
}

/**
 * One page of events, newest first, with the total (counted when PostgreSQL expects at most
 * `api.exactTotal` matches or the page is the last, its estimate otherwise: `totalEstimated`);
 * filtered by owner, exact type and time (`since` inclusive, `until` exclusive), in the actor's
 * scope. Throws 403 `APP_FORBIDDEN` first to a grant that may not read webhooks; a page past the
 * paging bound is 422 `APP_PAGE_TOO_DEEP` (page-depth.ts).
 */
export async function listEvents(
  deps: Pick<WebhookDeps, 'sql'> & { config: Pick<Config, 'api'> },
  actor: Actor,
  query: EventQuery,
): Promise<{ records: EventRecord[]; total: number; totalEstimated: boolean }> {
  const { sql } = deps;
  const scope = readScope(actor, 'webhooks.read');
  const owner = ownerFilter(scope, query.owner === undefined ? undefined : assertOwnerFilter(query.owner));
  if (query.type !== undefined) assertEventNameFilter('type', query.type);
  const where = sql`
    ${owner === undefined ? sql`true` : owner === null ? sql`e.owner is null` : sql`e.owner = ${owner}`}
    and ${query.type === undefined ? sql`true` : sql`e.type = ${query.type}`}
    and ${query.since === undefined ? sql`true` : sql`e.created_at >= ${query.since}`}
    and ${query.until === undefined ? sql`true` : sql`e.created_at < ${query.until}`}`;
  const offset = pageOffset(query.page, query.perPage, deps.config.api.maxPageOffset, ['since/until', 'type', 'owner']);
  // a plan made for no type or time range in particular may serve a rare one badly: read the
  // events in order through the creation time's index and drop the others', where a narrower
  // index would read the few (as for deliveries: deliveries/list.ts). An owner's is read through
  // its own index whatever the owner (PostgreSQL is told that owners are many, migrations/031).
  // Without those filters the first page keeps its plan by itself (its window written into its
  // text), and a later one, which PostgreSQL would plan at every call for its offset, asks for its
  // generic plan (bounded-total.ts, generic-plan.ts), as an owner's first page does (PostgreSQL
  // may find a plan made for a big owner it knows cheaper, and plan it at every call)
  const onePlan = query.type === undefined && query.since === undefined && query.until === undefined;
  const keepPlan = onePlan && query.page === 1;
  const genericPlan = onePlan && (query.page > 1 || owner !== undefined);
  // the page is cut before its events' delivery counts are taken: counted beside the offset, they
  // were taken for every event the offset skips too (five times a delivery listing's cost a page)
  const read = (on: Queryable, total?: Fragment) => on<EventRow[]>`
    select ${sql.unsafe(EVENT_COLUMNS)}${total ? sql`, ${total}` : sql``}
      ${eventsWithCountsFrom(
        sql,
        scope,
        sql`(select e.* from app_events e where ${where}
              order by e.created_at desc, e.id desc
              limit ${windowNumber(sql, query.perPage, keepPlan)} offset ${windowNumber(sql, offset, keepPlan)})`,
      )}
     order by e.created_at desc, e.id desc`;
  const from = sql`from app_events e where ${where}`;
  const bound = await countBound(sql, 'app_events', deps.config.api.exactTotal);
  // a small table's listing is planned in no time and counted in the same statement
  const page = (total?: Fragment) =>
    genericPlan && bound > 0 ? withGenericPlan(sql, (on) => read(on, total)) : read(sql, total);
  const estimateKey = JSON.stringify([
    'events',
    owner === undefined ? 'any owner' : [owner],
    query.type,
    query.since,
    query.until,
  ]);
  const { rows, total } = await pageWithTotal(sql, from, bound, { offset, perPage: query.perPage }, page, {
    estimateKey,
    genericPlan,
  });
  return { records: rows.map(toEvent), total: total.total, totalEstimated: total.estimated };
}
