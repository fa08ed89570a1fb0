/**
 * Listing endpoints: one filter (owner, state, events received) for REST, GraphQL, the CLI and
 * the programmatic interface, paged or whole, with or without delivery counts. Never secrets.
 */
import { endpointTable, toEndpoint, type Endpoint, type EndpointRow, type Queryable } from './store.ts';
import { assertOwner } from './fields.ts';
import { assertEventNameFilter, type PageWindow } from '../list-filters.ts';
import { ownerFilter, type TenantScope } from '../../access/tenant-scope.ts';
import type { DeliveryCounts } from '../deliveries/record.ts';
import type { WebhookDeps } from '../deps.ts';

export interface EndpointQuery extends PageWindow {
  /** Only this owner's endpoints (null: those without owner); a member's scope fixes it. */
  owner?: string | null;
  /** true: enabled only; false: disabled only; absent: both. */
  enabled?: boolean;
  /** Only endpoints that receive at least one of these event names (by their patterns). */
  events?: readonly string[];
}

/** An endpoint with its delivery counts by state and the time of its latest delivery. */
export type EndpointStatus = Endpoint & { deliveries: DeliveryCounts; lastDeliveryAt: Date | null };

/**
 * The patterns that match event `name`: `*`, the name itself and every family above it
 * (`a.b.c` -> `a.*`, `a.b.*`), so "endpoints receiving `a.b.c`" is an array overlap in SQL
 * with exactly the semantics of `matchesEvent`.
 */
export function patternsMatching(name: string): string[] {
  const segments = name.split('.');
  const families = segments.slice(0, -1).map((_, index) => `${segments.slice(0, index + 1).join('.')}.*`);
  return ['*', name, ...families];
}

/** The WHERE of an endpoint listing (alias `w`); throws 422 `APP_WEBHOOK_LIST_INVALID` or 404 `APP_TENANT_NOT_FOUND`. */
function endpointFilter(sql: Queryable, scope: TenantScope, query: EndpointQuery) {
  const owner = ownerFilter(scope, query.owner === undefined ? undefined : assertOwner(query.owner));
  const names = query.events ?? [];
  for (const name of names) assertEventNameFilter('events', name);
  return sql`
    ${owner === undefined ? sql`true` : owner === null ? sql`w.owner is null` : sql`w.owner = ${owner}`}
    and ${query.enabled === undefined ? sql`true` : query.enabled ? sql`w.disabled_at is null` : sql`w.disabled_at is not null`}
    and ${names.length === 0 ? sql`true` : sql`w.events && ${names.flatMap(patternsMatching)}::text[]`}`;
}

const pageWindow = (sql: Queryable, query: PageWindow) =>
  query.perPage === undefined ? sql`` : sql`limit ${query.perPage} offset ${((query.page ?? 1) - 1) * query.perPage}`;

/** Endpoints in creation order with the total, filtered; one page when `perPage` is given, else all. */
export async function listEndpoints(
  deps: Pick<WebhookDeps, 'config' | 'sql'>,
  scope: TenantScope,
  query: EndpointQuery = {},
): Promise<{ records: Endpoint[]; total: number }> {
  const { sql, config } = deps;
  const where = endpointFilter(sql, scope, query);
  const [rows, counted] = await Promise.all([
    sql<
      EndpointRow[]
    >`select w.* from ${endpointTable(sql, config)} w where ${where} order by w.created_at, w.id ${pageWindow(sql, query)}`,
    query.perPage === undefined
      ? undefined
      : sql<{ total: number }[]>`select count(*)::int as total from ${endpointTable(sql, config)} w where ${where}`,
  ]);
  const total = counted === undefined ? rows.length : counted[0].total;
  return { records: rows.map((row) => toEndpoint(row, config)), total };
}

/** Endpoints filtered as `listEndpoints` (all of them), each with its delivery counts by state and latest delivery time. */
export async function endpointStatuses(
  deps: Pick<WebhookDeps, 'config' | 'sql'>,
  scope: TenantScope,
  query: Omit<EndpointQuery, keyof PageWindow> = {},
): Promise<EndpointStatus[]> {
  const { sql, config } = deps;
  const rows = await sql<
    (EndpointRow & { pending: number; running: number; done: number; dead: number; last_delivery_at: Date | null })[]
  >`
    select w.*,
      coalesce(c.pending, 0)::int as pending, coalesce(c.running, 0)::int as running,
      coalesce(c.done, 0)::int as done, coalesce(c.dead, 0)::int as dead, c.last_delivery_at
    from ${endpointTable(sql, config)} w
    left join (
      select endpoint_id,
        count(*) filter (where status = 'pending') as pending,
        count(*) filter (where status = 'running') as running,
        count(*) filter (where status = 'done') as done,
        count(*) filter (where status = 'dead') as dead,
        max(created_at) as last_delivery_at
      from app_webhook_deliveries group by endpoint_id
    ) c on c.endpoint_id = w.id
    where ${endpointFilter(sql, scope, query)}
    order by w.created_at, w.id`;
  return rows.map((row) => ({
    ...toEndpoint(row, config),
    deliveries: {
      pending: row.pending,
      running: row.running,
      done: row.done,
      dead: row.dead,
      total: row.pending + row.running + row.done + row.dead,
    },
    lastDeliveryAt: row.last_delivery_at,
  }));
}
