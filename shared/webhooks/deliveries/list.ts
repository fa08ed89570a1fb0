/** Listing deliveries: the one filtered, paged listing of REST, GraphQL and the CLI (`jobs:list`, `jobs:dead`). */
import { isIdText } from '../ids.ts';
import { assertOwnerFilter } from '../endpoints/fields.ts';
import { assertEventNameFilter, listInvalid } from '../list-filters.ts';
import { ownerFilter } from '../../access/tenant-scope.ts';
import { readScope, type Actor } from '../../access/actor.ts';
import type { TimeRange } from '../time-range.ts';
import type { WebhookDeps } from '../deps.ts';
import type { Queryable } from '../../db/connect.ts';
import { countBound, pageWithTotal, windowNumber, type Fragment } from '../../db/bounded-total.ts';
import { withGenericPlan } from '../../db/generic-plan.ts';
import { pageOffset } from '../../db/page-depth.ts';
import { toEndpointOwnedBy, toEndpointsOf } from './tenant-reach.ts';
import {
  DELIVERY_STATUSES,
  SUMMARY_COLUMNS,
  summary,
  type DeliveryReader,
  type DeliveryRow,
  type DeliveryStatus,
  type DeliverySummary,
} from './record.ts';

export interface DeliveryQuery extends TimeRange {
  /** States to list (default: all four). */
  statuses?: readonly string[];
  /** Only deliveries to this endpoint (`ep_…`). */
  endpoint?: string;
  /** Only deliveries of this event (`evt_…`). */
  event?: string;
  /** Only deliveries of events of this exact type. */
  type?: string;
  /** Only this owner's deliveries (null: those without owner); a member's scope fixes it. */
  owner?: string | null;
  /** Only deliveries of this logical queue (`webhooks.queue` when emitted). */
  queue?: string;
  page: number;
  perPage: number;
}

/** A listed delivery, and whether its endpoint is enabled (a retry needs it). */
export type ListedDelivery = DeliverySummary & { endpointEnabled: boolean };

type ListedRow = DeliveryRow & { endpoint_enabled: boolean };

function toListed(row: ListedRow, reader: DeliveryReader): ListedDelivery {
  const listed = summary(row, reader) as ListedDelivery;
  listed.endpointEnabled = row.endpoint_enabled;
  return listed;
}

function checkStatuses(statuses: readonly string[] | undefined): readonly DeliveryStatus[] | undefined {
  if (statuses === undefined) return undefined;
  const unknown = statuses.filter((status) => !(DELIVERY_STATUSES as readonly string[]).includes(status));
  if (unknown.length > 0 || statuses.length === 0) {
    throw listInvalid(
      'status',
      `unknown delivery state ${unknown.join(', ') || '(none)'}: use ${DELIVERY_STATUSES.join(', ')}`,
      unknown,
    );
  }
  return statuses as DeliveryStatus[];
}

/**
 * One page of deliveries, newest first, with the total, filtered by state, endpoint, event,
 * event type, owner, queue and creation time (`since` inclusive, `until` exclusive). A member
 * sees the deliveries of its own events to endpoints that are still its own. Throws 403
 * `APP_FORBIDDEN` first to a grant that may not read webhooks, 422
 * `APP_WEBHOOK_LIST_INVALID` for an unknown state, a malformed id or event type, 422
 * `APP_PAGE_TOO_DEEP` for a page past the paging bound (page-depth.ts).
 *
 * Built to stay fast at millions of rows: past `api.exactTotal` rows in the table, the page is
 * the newest of each state asked, each read in order through the (status, created_at) index,
 * merged (no sort of the whole table); the
 * total is counted only when PostgreSQL expects at most `api.exactTotal` matches (or read off a
 * last page), else it is PostgreSQL's estimate (`totalEstimated`).
 */
export async function listDeliveries(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  actor: Actor,
  query: DeliveryQuery,
): Promise<{ records: ListedDelivery[]; total: number; totalEstimated: boolean }> {
  const { sql, config } = deps;
  const scope = readScope(actor, 'webhooks.read');
  const owner = ownerFilter(scope, query.owner === undefined ? undefined : assertOwnerFilter(query.owner));
  const statuses = [...new Set(checkStatuses(query.statuses) ?? DELIVERY_STATUSES)];
  for (const field of ['endpoint', 'event'] as const) {
    if (query[field] !== undefined && !isIdText(query[field]))
      throw listInvalid(field, 'is not an id (1 to 100 printable ASCII characters)', query[field]);
  }
  if (query.type !== undefined) assertEventNameFilter('type', query.type);
  // only the conditions asked for: a condition that holds for every row (every state asked, say)
  // still costs PostgreSQL its test on each row counted, and its planning
  const member = scope.kind !== 'all';
  const filters = [
    owner === undefined ? undefined : owner === null ? sql`d.owner is null` : sql`d.owner = ${owner}`,
    query.endpoint === undefined ? undefined : sql`d.endpoint_id = ${query.endpoint}`,
    query.event === undefined ? undefined : sql`d.event_id = ${query.event}`,
    query.type === undefined ? undefined : sql`d.event_type = ${query.type}`,
    query.queue === undefined ? undefined : sql`d.queue = ${query.queue}`,
    query.since === undefined ? undefined : sql`d.created_at >= ${query.since}`,
    query.until === undefined ? undefined : sql`d.created_at < ${query.until}`,
  ].filter((condition) => condition !== undefined);
  // a member keeps its own: deliveries of the endpoints its tenant owns (the gate's owner,
  // migrations/025), said two ways with one meaning (an endpoint has one gate). A big table's
  // page asks each row it finds: its rows are then found through the owner's own index whatever
  // the tenant's size. Where every matching row is read anyway (a small table's sorted page, a
  // count, an estimate) the tenant's endpoints are joined: asked of each row, the question is
  // planned again in every partition, at every call (a small table's page: 9.7 against 3.9 ms at
  // 1,000 deliveries)
  const joined = member ? [toEndpointsOf(sql, scope.owner)] : [];
  const asked = member ? [toEndpointOwnedBy(sql, scope.owner)] : [];
  const inStates = statuses.length === DELIVERY_STATUSES.length ? undefined : sql`d.status = any(${statuses}::text[])`;
  const whereOf = (all: Fragment[]) =>
    all.length === 0 ? sql`` : sql`where ${all.reduce((both, next) => sql`${both} and ${next}`)}`;
  // the endpoint's state is read for the page's rows alone: a subquery of the select list,
  // evaluated for those rows (joined in each state's branch of a big table's page, it cost its
  // first page about half as much again in planning and reading)
  const endpointEnabled = sql`coalesce((select e.disabled_at is null from app_endpoint_gate e where e.endpoint_id = d.endpoint_id), false) as endpoint_enabled`;
  const counted = sql`from app_webhook_deliveries d ${whereOf([...joined, ...filters, ...(inStates ? [inStates] : [])])}`;
  const offset = pageOffset(query.page, query.perPage, config.api.maxPageOffset, [
    'since/until',
    'status',
    'endpoint',
    'event',
    'type',
    'owner',
  ]);
  const bound = await countBound(sql, 'app_webhook_deliveries', config.api.exactTotal);
  const order = sql`order by d.created_at desc, d.id desc`;
  // one plan serves every value of these filters: the states, an endpoint (read in order through
  // the index led by it), an event (a few rows), an owner or a tenant (read through the owner's
  // index: PostgreSQL is told that owners are many, migrations/031; told only what it measured, a
  // plan made for no tenant in particular read a partition's rows in order through the state's
  // index and dropped the others', 20 against 2 ms for a small tenant at 2 million deliveries).
  // Not a type, a queue or a time range, for that reason: a plan made for an average one may read
  // a rare one's rows through millions of others'. Such a listing's first page keeps its plan by
  // itself (its window written into its text); a later page with no endpoint or event, read
  // through one index whatever the offset, asks for its generic plan (bounded-total.ts,
  // generic-plan.ts), and so does an owner's or a tenant's first page: PostgreSQL, estimating a
  // plan made for one tenant of many against one made for a big tenant it knows, finds the latter
  // cheaper and plans it at every call (6 ms of planning for 1 of reading)
  const onePlan =
    query.type === undefined && query.queue === undefined && query.since === undefined && query.until === undefined;
  const keepPlan = onePlan && query.page === 1;
  const genericPlan =
    onePlan && (query.page > 1 || owner !== undefined) && query.endpoint === undefined && query.event === undefined;
  const windowed = (n: number) => windowNumber(sql, n, keepPlan);
  const window = sql`limit ${windowed(query.perPage)} offset ${windowed(offset)}`;
  const readPage = (total?: Fragment): Promise<ListedRow[]> => {
    if (bound === 0) {
      // a small table (or api.exactTotal 0) is sorted as it is, but on its ids and creation times
      // alone, then the page's rows are read by id: sorting every matching row with all its
      // columns took PostgreSQL half as long again (2,000 deliveries: 0.70 against 1.0 ms)
      return sql<ListedRow[]>`
        select ${sql.unsafe(SUMMARY_COLUMNS)}, ${endpointEnabled}${total ? sql`, ${total}` : sql``}
          from app_webhook_deliveries d
         where d.id = any(array(select d.id ${counted} ${order} ${window}))
         ${order}`;
    }
    // a big one gives the newest of each state asked, merged
    const upTo = query.page * query.perPage;
    const newestOf = (status: DeliveryStatus) => sql`(
      select ${sql.unsafe(SUMMARY_COLUMNS)} from app_webhook_deliveries d ${whereOf([sql`d.status = ${status}`, ...asked, ...filters])} ${order} limit ${windowed(upTo)})`;
    const merged = statuses
      .slice(1)
      .reduce((union, status) => sql`${union} union all ${newestOf(status)}`, newestOf(statuses[0]));
    const page = (on: Queryable) =>
      on<ListedRow[]>`select d.*, ${endpointEnabled} from (${merged}) as d ${order} ${window}`;
    return genericPlan ? withGenericPlan(sql, page) : page(sql);
  };
  // the listing's matching rows, named for the estimates a process remembers (bounded-total.ts)
  const estimateKey = JSON.stringify([
    'deliveries',
    member ? scope.owner : null,
    owner === undefined ? 'any owner' : [owner], // an owner filter may be null (no owner)
    [...statuses].sort(),
    query.endpoint,
    query.event,
    query.type,
    query.queue,
    query.since,
    query.until,
  ]);
  const { rows, total } = await pageWithTotal(sql, counted, bound, { offset, perPage: query.perPage }, readPage, {
    estimateKey,
    genericPlan,
  });
  return { records: rows.map((row) => toListed(row, actor)), total: total.total, totalEstimated: total.estimated };
}
