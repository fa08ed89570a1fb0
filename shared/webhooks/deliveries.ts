/**
 * Deliveries seen through a tenant scope (issue 6), for the REST API and GraphQL: a filtered,
 * paged listing, show and retry (the operator queries of delivery-queue.ts with the scope
 * applied), and the bulk replay of an endpoint's dead deliveries over a time range (Svix calls
 * it "recover"). A delivery is in a member's scope when its event is the member's owner's and
 * its endpoint still belongs to that owner; anything else is a 404 like a delivery that does
 * not exist.
 */
import { isIdText } from './ids.ts';
import { conflict } from '../errors/app-error.ts';
import {
  DELIVERY_STATUSES, deliveryNotFound, retryDelivery, showDelivery, summary,
  type DeliveryDetails, type DeliveryRow, type DeliverySummary,
} from './delivery-queue.ts';
import { deliveryJobSpec } from './delivery-job.ts';
import type { DeliveryStatus } from './enqueue.ts';
import { endpointTable } from './endpoint-store.ts';
import { assertOwner } from './endpoint-fields.ts';
import { endpointInScope, listInvalid } from './endpoints.ts';
import { validateEventName } from './patterns.ts';
import { assertInScope, ownerFilter, type TenantScope } from './tenant-scope.ts';
import { parseTime, timeRangeInvalid, type TimeRange } from './time-range.ts';
import type { WebhookDeps } from './deps.ts';

export type { DeliveryDetails, DeliverySummary, DeliveryStatus };
export { DELIVERY_STATUSES };

export interface DeliveryPageQuery extends TimeRange {
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

/** Most deliveries one bulk replay queues again; the answer says when more remain. */
export const MAX_RECOVER = 1000;

type SummaryRow = DeliveryRow & { endpoint_enabled: boolean };

/** A listed delivery: the summary of delivery-queue.ts, and whether its endpoint is enabled (a retry needs it). */
export type ListedDelivery = DeliverySummary & { endpointEnabled: boolean };

const toSummary = (row: SummaryRow): ListedDelivery => ({ ...summary(row), endpointEnabled: row.endpoint_enabled });

const COLUMNS = 'd.id, d.status, d.queue, d.endpoint_id, d.event_id, d.event_type, d.owner, d.attempts, d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.updated_at, d.completed_at';

function checkStatuses(statuses: readonly string[] | undefined): DeliveryStatus[] | undefined {
  if (statuses === undefined) return undefined;
  const unknown = statuses.filter((status) => !(DELIVERY_STATUSES as readonly string[]).includes(status));
  if (unknown.length > 0 || statuses.length === 0) {
    throw listInvalid('status', `unknown delivery state ${unknown.join(', ') || '(none)'}: use ${DELIVERY_STATUSES.join(', ')}`, unknown);
  }
  return statuses as DeliveryStatus[];
}

/**
 * One page of deliveries, newest first, with the total, filtered by state, endpoint, event,
 * event type, owner, queue and creation time (`since` inclusive, `until` exclusive): the one
 * delivery listing of REST, GraphQL and the CLI (`jobs:list`, `jobs:dead`). Throws 422
 * `APP_WEBHOOK_LIST_INVALID` for an unknown state or event type.
 */
export async function listDeliveryPage(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  scope: TenantScope,
  query: DeliveryPageQuery,
): Promise<{ records: ListedDelivery[]; total: number }> {
  const { sql, config } = deps;
  const owner = ownerFilter(scope, query.owner === undefined ? undefined : assertOwner(query.owner));
  const statuses = checkStatuses(query.statuses);
  for (const field of ['endpoint', 'event'] as const) {
    if (query[field] !== undefined && !isIdText(query[field])) throw listInvalid(field, 'is not an id (1 to 100 printable ASCII characters)', query[field]);
  }
  if (query.type !== undefined) {
    const reason = validateEventName(query.type);
    if (reason !== null) throw listInvalid('type', `event name ${reason}`, query.type);
  }
  // A member sees the deliveries of its own events to endpoints that are still its own.
  const where = sql`
    ${owner === undefined ? sql`true` : owner === null ? sql`d.owner is null` : sql`d.owner = ${owner}`}
    and ${scope.kind === 'all' ? sql`true` : sql`w.owner = ${scope.owner}`}
    and ${statuses === undefined ? sql`true` : sql`d.status = any(${statuses}::text[])`}
    and ${query.endpoint === undefined ? sql`true` : sql`d.endpoint_id = ${query.endpoint}`}
    and ${query.event === undefined ? sql`true` : sql`d.event_id = ${query.event}`}
    and ${query.type === undefined ? sql`true` : sql`d.event_type = ${query.type}`}
    and ${query.queue === undefined ? sql`true` : sql`d.queue = ${query.queue}`}
    and ${query.since === undefined ? sql`true` : sql`d.created_at >= ${query.since}`}
    and ${query.until === undefined ? sql`true` : sql`d.created_at < ${query.until}`}`;
  const [rows, [{ total }]] = await Promise.all([
    sql<SummaryRow[]>`
      select ${sql.unsafe(COLUMNS)}, w.disabled_at is null as endpoint_enabled
        from app_webhook_deliveries d join ${endpointTable(sql, config)} w on w.id = d.endpoint_id
       where ${where}
       order by d.created_at desc, d.id desc limit ${query.perPage} offset ${(query.page - 1) * query.perPage}`,
    sql<{ total: number }[]>`
      select count(*)::int as total
        from app_webhook_deliveries d join ${endpointTable(sql, config)} w on w.id = d.endpoint_id
       where ${where}`,
  ]);
  return { records: rows.map(toSummary), total };
}

/** The owner of delivery `id` and of its endpoint; 404 `APP_WEBHOOK_DELIVERY_NOT_FOUND` when there is none. */
async function deliveryOwners(deps: Pick<WebhookDeps, 'sql' | 'config'>, id: unknown): Promise<{ owner: string | null; endpointOwner: string | null }> {
  const { sql, config } = deps;
  if (!isIdText(id)) throw deliveryNotFound(id);
  const rows = await sql<{ owner: string | null; endpoint_owner: string | null }[]>`
    select d.owner, w.owner as endpoint_owner
      from app_webhook_deliveries d join ${endpointTable(sql, config)} w on w.id = d.endpoint_id
     where d.id = ${id}`;
  if (rows.length === 0) throw deliveryNotFound(id);
  return { owner: rows[0].owner, endpointOwner: rows[0].endpoint_owner };
}

/** Throws 404 unless delivery `id` and its endpoint are both in `scope`. */
async function assertDeliveryInScope(deps: Pick<WebhookDeps, 'sql' | 'config'>, scope: TenantScope, id: unknown): Promise<void> {
  const { owner, endpointOwner } = await deliveryOwners(deps, id);
  assertInScope(scope, owner, () => deliveryNotFound(id));
  assertInScope(scope, endpointOwner, () => deliveryNotFound(id));
}

/** `jobs show <id>` in scope: the delivery, its endpoint and every attempt. Throws 404 `APP_WEBHOOK_DELIVERY_NOT_FOUND`. */
export async function showDeliveryInScope(deps: Pick<WebhookDeps, 'sql' | 'config'>, scope: TenantScope, id: string): Promise<DeliveryDetails> {
  await assertDeliveryInScope(deps, scope, id);
  return showDelivery(deps, id);
}

/**
 * `jobs:retry <id>` in scope: a dead delivery is sent again with the same `webhook-id`. Throws
 * 404 `APP_WEBHOOK_DELIVERY_NOT_FOUND`, 409 `APP_WEBHOOK_DELIVERY_NOT_DEAD`, 409
 * `APP_WEBHOOK_ENDPOINT_DISABLED` (see delivery-queue.ts `retryDelivery`).
 */
export async function retryDeliveryInScope(deps: Pick<WebhookDeps, 'sql' | 'config' | 'log'>, scope: TenantScope, id: string): Promise<DeliverySummary> {
  await assertDeliveryInScope(deps, scope, id);
  return retryDelivery(deps, id);
}

/** What a bulk replay did. */
export interface RecoverResult {
  endpointId: string;
  /** Deliveries queued again (at most MAX_RECOVER), oldest first. */
  deliveryIds: string[];
  recovered: number;
  /** More dead deliveries match: replay again to queue them. */
  more: boolean;
}

/**
 * Bulk replay ("recover"): every dead delivery of endpoint `endpointId` created in
 * [`since`, `until`) (until: now) is queued again like `jobs:retry` does for one (same delivery
 * id, so the same `webhook-id` and body; a new series of attempts), oldest first, at most
 * MAX_RECOVER per call. Only deliveries of the endpoint's current owner are replayed, so an
 * endpoint given to another tenant never receives the previous tenant's events. Throws 404
 * `APP_WEBHOOK_NOT_FOUND` (endpoint not in scope), 409 `APP_WEBHOOK_ENDPOINT_DISABLED`, 422
 * `APP_WEBHOOK_TIME_RANGE_INVALID` (`since` is required).
 */
export async function recoverDeliveries(
  deps: Pick<WebhookDeps, 'sql' | 'config' | 'log'>,
  scope: TenantScope,
  endpointId: string,
  range: { since?: unknown; until?: unknown },
): Promise<RecoverResult> {
  const { sql } = deps;
  const endpoint = await endpointInScope(deps, scope, endpointId);
  const since = parseTime('since', range.since);
  const until = parseTime('until', range.until);
  if (since === undefined) throw timeRangeInvalid('since', 'is required: replay dead deliveries created since when?');
  if (until !== undefined && until.getTime() <= since.getTime()) throw timeRangeInvalid('until', 'must be after since', range.until);
  if (endpoint.disabled_at !== null) {
    throw conflict(`webhook endpoint ${endpointId} is disabled (${endpoint.disabled_reason ?? 'no reason given'}); enable it first`, {
      code: 'APP_WEBHOOK_ENDPOINT_DISABLED',
      data: { id: endpointId },
    });
  }
  const matching = sql`
    d.endpoint_id = ${endpointId} and d.status = 'dead' and d.owner is not distinct from ${endpoint.owner}
    and d.created_at >= ${since} and ${until === undefined ? sql`true` : sql`d.created_at < ${until}`}`;
  // The payload of delivery-queue.ts `retryDelivery`, for many deliveries in one statement.
  const rows = await sql<{ id: string }[]>`
    with picked as (
      select d.id from app_webhook_deliveries d where ${matching}
       order by d.created_at, d.id limit ${MAX_RECOVER}
       for update skip locked
    ), queued as (
      update app_webhook_deliveries w
         set status = 'pending', next_attempt_at = now(), completed_at = null, updated_at = now()
        from picked where w.id = picked.id and w.status = 'dead'
      returning w.id, w.endpoint_id, w.event_type, w.attempts, w.created_at
    ), jobs as (
      select count(*) as added from graphile_worker.add_jobs(array(
        select ${deliveryJobSpec(sql, {
          id: sql`q.id`,
          payload: sql`json_build_object('deliveryId', q.id, 'endpointId', q.endpoint_id, 'event', q.event_type, 'priorAttempts', q.attempts)`,
        })}
        from queued q
      ))
    )
    select q.id from queued q, jobs order by q.created_at, q.id`;
  const [{ more }] = await sql<{ more: boolean }[]>`select exists (select 1 from app_webhook_deliveries d where ${matching}) as more`;
  const ids = rows.map((row) => row.id);
  deps.log.info({ endpoint: endpointId, recovered: ids.length, more }, 'dead deliveries queued again');
  return { endpointId, deliveryIds: ids, recovered: ids.length, more };
}
