/** Listing deliveries: the one filtered, paged listing of REST, GraphQL and the CLI (`jobs:list`, `jobs:dead`). */
import { isIdText } from '../ids.ts';
import { endpointTable } from '../endpoints/store.ts';
import { assertOwner } from '../endpoints/fields.ts';
import { assertEventNameFilter, listInvalid } from '../list-filters.ts';
import { ownerFilter, type TenantScope } from '../tenant-scope.ts';
import type { TimeRange } from '../time-range.ts';
import type { WebhookDeps } from '../deps.ts';
import { countBound, pageWithTotal } from '../../db/bounded-total.ts';
import { DELIVERY_STATUSES, SUMMARY_COLUMNS, summary, type DeliveryRow, type DeliveryStatus, type DeliverySummary } from './record.ts';

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

const toListed = (row: ListedRow): ListedDelivery => ({ ...summary(row), endpointEnabled: row.endpoint_enabled });

function checkStatuses(statuses: readonly string[] | undefined): readonly DeliveryStatus[] | undefined {
  if (statuses === undefined) return undefined;
  const unknown = statuses.filter((status) => !(DELIVERY_STATUSES as readonly string[]).includes(status));
  if (unknown.length > 0 || statuses.length === 0) {
    throw listInvalid('status', `unknown delivery state ${unknown.join(', ') || '(none)'}: use ${DELIVERY_STATUSES.join(', ')}`, unknown);
  }
  return statuses as DeliveryStatus[];
}

/**
 * One page of deliveries, newest first, with the total, filtered by state, endpoint, event,
 * event type, owner, queue and creation time (`since` inclusive, `until` exclusive). A member
 * sees the deliveries of its own events to endpoints that are still its own. Throws 422
 * `APP_WEBHOOK_LIST_INVALID` for an unknown state, a malformed id or event type.
 *
 * Built to stay fast at millions of rows: past `api.exactTotal` rows in the table, the page is
 * the newest of each state asked, each read in order through the (status, created_at) index,
 * merged (no sort of the whole table); the
 * total is counted only when PostgreSQL expects at most `api.exactTotal` matches (or read off a
 * last page), else it is PostgreSQL's estimate (`totalEstimated`).
 */
export async function listDeliveries(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  scope: TenantScope,
  query: DeliveryQuery,
): Promise<{ records: ListedDelivery[]; total: number; totalEstimated: boolean }> {
  const { sql, config } = deps;
  const owner = ownerFilter(scope, query.owner === undefined ? undefined : assertOwner(query.owner));
  const statuses = [...new Set(checkStatuses(query.statuses) ?? DELIVERY_STATUSES)];
  for (const field of ['endpoint', 'event'] as const) {
    if (query[field] !== undefined && !isIdText(query[field])) throw listInvalid(field, 'is not an id (1 to 100 printable ASCII characters)', query[field]);
  }
  if (query.type !== undefined) assertEventNameFilter('type', query.type);
  const where = sql`
    ${owner === undefined ? sql`true` : owner === null ? sql`d.owner is null` : sql`d.owner = ${owner}`}
    and ${scope.kind === 'all' ? sql`true` : sql`w.owner = ${scope.owner}`}
    and ${query.endpoint === undefined ? sql`true` : sql`d.endpoint_id = ${query.endpoint}`}
    and ${query.event === undefined ? sql`true` : sql`d.event_id = ${query.event}`}
    and ${query.type === undefined ? sql`true` : sql`d.event_type = ${query.type}`}
    and ${query.queue === undefined ? sql`true` : sql`d.queue = ${query.queue}`}
    and ${query.since === undefined ? sql`true` : sql`d.created_at >= ${query.since}`}
    and ${query.until === undefined ? sql`true` : sql`d.created_at < ${query.until}`}`;
  const endpoints = endpointTable(sql, config);
  // a member's listing joins the endpoint to keep its own, and reads the endpoint's state there;
  // an admin's needs no join to filter (every delivery has its endpoint: a cascading foreign key),
  // so the endpoint's state is read for the page's rows alone (joined in each state's branch, it
  // cost a big table's first page about half as much again in planning and reading)
  const member = scope.kind !== 'all';
  const scoped = member ? sql`app_webhook_deliveries d join ${endpoints} w on w.id = d.endpoint_id` : sql`app_webhook_deliveries d`;
  const counted = sql`from ${scoped} where ${where} and d.status = any(${statuses}::text[])`;
  const offset = (query.page - 1) * query.perPage;
  const bound = await countBound(sql, 'app_webhook_deliveries', config.api.exactTotal);
  const listed = sql`${sql.unsafe(SUMMARY_COLUMNS)}${member ? sql`, w.disabled_at is null as endpoint_enabled` : sql``} from ${scoped}`;
  // a small table (or api.exactTotal 0) is sorted as it is; a big one gives the newest of each state asked, merged
  const upTo = query.page * query.perPage;
  const newestOf = (status: DeliveryStatus) => sql`(
    select ${listed} where d.status = ${status} and ${where} order by d.created_at desc, d.id desc limit ${upTo})`;
  const source = bound === 0
    ? sql`select ${listed} where ${where} and d.status = any(${statuses}::text[])`
    : statuses.slice(1).reduce((union, status) => sql`${union} union all ${newestOf(status)}`, newestOf(statuses[0]));
  const page = sql`select * from (${source}) as d order by d.created_at desc, d.id desc limit ${query.perPage} offset ${offset}`;
  const { rows, total } = await pageWithTotal(sql, counted, bound, { offset, perPage: query.perPage }, () => member
    ? sql<ListedRow[]>`${page}`
    : sql<ListedRow[]>`
      select d.*, w.disabled_at is null as endpoint_enabled from (${page}) as d join ${endpoints} w on w.id = d.endpoint_id
       order by d.created_at desc, d.id desc`);
  return { records: rows.map(toListed), total: total.total, totalEstimated: total.estimated };
}
