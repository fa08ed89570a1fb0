/**
 * Listing endpoints: one filter (owner, state, events received) for REST, GraphQL, the CLI and
 * the programmatic interface, paged or whole, with or without delivery counts. Never secrets;
 * header values only to a reader who may reveal them and asks (show.ts `headerValuesShown`).
 */
import { endpointStoreOf, toShownEndpoint, type ShownEndpoint } from './store.ts';
import { headerValuesShown, type HeaderReveal } from './show.ts';
import type { StoredEndpointQuery } from '../endpoint-stores/types.ts';
import { assertOwnerFilter } from './fields.ts';
import { assertEventNameFilter, type PageWindow } from '../list-filters.ts';
import { ownerFilter, type TenantScope } from '../../access/tenant-scope.ts';
import { readScope, type Actor } from '../../access/actor.ts';
import type { DeliveryCounts } from '../deliveries/record.ts';
import type { WebhookDeps } from '../deps.ts';
import { pageOffset } from '../../db/page-depth.ts';

export interface EndpointQuery extends PageWindow {
  /** Only this owner's endpoints (null: those without owner); a member's scope fixes it. */
  owner?: string | null;
  /** true: enabled only; false: disabled only; absent: both. */
  enabled?: boolean;
  /** Only endpoints that receive at least one of these event names (by their patterns). */
  events?: readonly string[];
}

/** An endpoint with its delivery counts by state and the time of its latest delivery. */
export type EndpointStatus = ShownEndpoint & { deliveries: DeliveryCounts; lastDeliveryAt: Date | null };

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

/** The store's query of a listing; throws 422 `APP_WEBHOOK_LIST_INVALID` or 404 `APP_TENANT_NOT_FOUND`. */
function storeQuery(scope: TenantScope, query: EndpointQuery): StoredEndpointQuery {
  const owner = ownerFilter(scope, query.owner === undefined ? undefined : assertOwnerFilter(query.owner));
  const names = query.events ?? [];
  for (const name of names) assertEventNameFilter('events', name);
  return {
    ...(owner === undefined ? {} : { owner }),
    ...(query.enabled === undefined ? {} : { enabled: query.enabled }),
    ...(names.length === 0 ? {} : { patterns: [...new Set(names.flatMap(patternsMatching))] }),
  };
}

/**
 * Endpoints in the actor's scope in creation order with the total, filtered; one page when
 * `perPage` is given, else all. Throws 403 `APP_FORBIDDEN` first to a grant that may not read
 * webhooks; a page past the paging bound is 422 `APP_PAGE_TOO_DEEP` (page-depth.ts).
 */
export async function listEndpoints(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  actor: Actor,
  query: EndpointQuery & HeaderReveal = {},
): Promise<{ records: ShownEndpoint[]; total: number }> {
  const stored = storeQuery(readScope(actor, 'webhooks.read'), query);
  const reveal = headerValuesShown(actor, query);
  if (query.perPage !== undefined)
    pageOffset(query.page ?? 1, query.perPage, deps.config.api.maxPageOffset, ['owner', 'enabled', 'events']);
  const page = await endpointStoreOf(deps).list({
    ...stored,
    ...(query.perPage === undefined ? {} : { page: query.page ?? 1, perPage: query.perPage }),
  });
  return { records: page.records.map((record) => toShownEndpoint(record, deps.config, reveal)), total: page.total };
}

/**
 * Endpoints filtered as `listEndpoints` (all of them, 403 as it, header values null), each with
 * its delivery counts by state and latest delivery time.
 */
export async function endpointStatuses(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  actor: Actor,
  query: Omit<EndpointQuery, keyof PageWindow> = {},
): Promise<EndpointStatus[]> {
  const { sql, config } = deps;
  const { records } = await endpointStoreOf(deps).list(storeQuery(readScope(actor, 'webhooks.read'), query));
  const ids = records.map((record) => record.id);
  const counts = await sql<
    {
      endpoint_id: string;
      pending: number;
      running: number;
      done: number;
      dead: number;
      last_delivery_at: Date | null;
    }[]
  >`
    select endpoint_id,
      count(*) filter (where status = 'pending')::int as pending,
      count(*) filter (where status = 'running')::int as running,
      count(*) filter (where status = 'done')::int as done,
      count(*) filter (where status = 'dead')::int as dead,
      max(created_at) as last_delivery_at
    from app_webhook_deliveries where endpoint_id = any(${ids}::text[]) group by endpoint_id`;
  const byEndpoint = new Map(counts.map((row) => [row.endpoint_id, row]));
  return records.map((record) => {
    const row = byEndpoint.get(record.id);
    const [pending, running, done, dead] = [row?.pending ?? 0, row?.running ?? 0, row?.done ?? 0, row?.dead ?? 0];
    return {
      ...toShownEndpoint(record, config, false),
      deliveries: { pending, running, done, dead, total: pending + running + done + dead },
      lastDeliveryAt: row?.last_delivery_at ?? null,
    };
  });
}
