/**
 * What operators do with the delivery queue (spec: "Command-line operations" `jobs:list`,
 * `jobs:dead`, `jobs show <id>`, `jobs:retry <id>`; "Queue states visible to operators"). The
 * state of a delivery is its `app_webhook_deliveries.status`: pending (queued, or waiting for a
 * retry at `nextAttemptAt`), running, done, dead. Ids are delivery ids (`msg_…`, the
 * `webhook-id`).
 */
import { isIdText } from './ids.ts';
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import { conflict, notFound } from '../errors/app-error.ts';
import type { Logger } from '../log/logger.ts';
import { endpointTable } from './endpoint-store.ts';
import { deliveryJobSpec } from './delivery-job.ts';
import type { DeliveryStatus } from './enqueue.ts';

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'running', 'done', 'dead'];

/** Most deliveries one listing answers. */
export const MAX_LIST_LIMIT = 1000;

/** A delivery as `jobs:list` and `jobs:dead` present it. */
export interface DeliverySummary {
  id: string;
  status: DeliveryStatus;
  queue: string;
  endpointId: string;
  eventId: string;
  event: string;
  owner: string | null;
  attempts: number;
  /** When the next attempt is due (pending), else null. */
  nextAttemptAt: Date | null;
  /** The receiver's status at the last attempt, when it answered. */
  lastStatus: number | null;
  /** Why the last attempt failed, or why the delivery is dead. */
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** One recorded attempt (spec: "Every attempt is recorded ... for the operator"). */
export interface AttemptDetails {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  /** The receiver's status, or null when it did not answer. */
  status: number | null;
  outcome: 'done' | 'retry' | 'dead';
  error: string | null;
  /** The first 64 kB of the answer. */
  excerpt: string | null;
}

/** `jobs show <id>`: the delivery, its endpoint, its event and every attempt. */
export interface DeliveryDetails extends DeliverySummary {
  endpoint: { id: string; url: string; enabled: boolean; disabledAt: Date | null; disabledReason: string | null } | null;
  attemptsMade: AttemptDetails[];
}

/** A row of app_webhook_deliveries with the columns a summary shows. */
export interface DeliveryRow {
  id: string;
  status: DeliveryStatus;
  queue: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  owner: string | null;
  attempts: number;
  next_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** The operator's view of a delivery row. */
export const summary = (row: DeliveryRow): DeliverySummary => ({
  id: row.id,
  status: row.status,
  queue: row.queue,
  endpointId: row.endpoint_id,
  eventId: row.event_id,
  event: row.event_type,
  owner: row.owner,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastStatus: row.last_status,
  lastError: row.last_error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  completedAt: row.completed_at,
});

const COLUMNS = 'id, status, queue, endpoint_id, event_id, event_type, owner, attempts, next_attempt_at, last_status, last_error, created_at, updated_at, completed_at';

/** AppError 404 `APP_WEBHOOK_DELIVERY_NOT_FOUND`. */
export const deliveryNotFound = (id: unknown) =>
  notFound(`webhook delivery ${typeof id === 'string' ? id : JSON.stringify(id)} does not exist`, {
    code: 'APP_WEBHOOK_DELIVERY_NOT_FOUND',
    data: { id },
  });

/** Deliveries per state (all four keys present), optionally of one queue. */
export async function countDeliveries(deps: { sql: Sql }, options: { queue?: string } = {}): Promise<Record<DeliveryStatus, number>> {
  const { sql } = deps;
  const rows = await sql<{ status: DeliveryStatus; count: number }[]>`
    select status, count(*)::int as count from app_webhook_deliveries
     where ${options.queue === undefined ? sql`true` : sql`queue = ${options.queue}`}
     group by status`;
  const counts = { pending: 0, running: 0, done: 0, dead: 0 };
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

/** `jobs show <id>`: the delivery with its endpoint and every attempt. Throws 404 `APP_WEBHOOK_DELIVERY_NOT_FOUND`. */
export async function showDelivery(deps: { sql: Sql; config: Pick<Config, 'webhooks'> }, id: string): Promise<DeliveryDetails> {
  const { sql, config } = deps;
  if (!isIdText(id)) throw deliveryNotFound(id);
  const rows = await sql<DeliveryRow[]>`select ${sql.unsafe(COLUMNS)} from app_webhook_deliveries where id = ${id}`;
  if (rows.length === 0) throw deliveryNotFound(id);
  const [endpoints, attempts] = await Promise.all([
    sql<{ id: string; url: string; disabled_at: Date | null; disabled_reason: string | null }[]>`
      select id, url, disabled_at, disabled_reason from ${endpointTable(sql, config)} where id = ${rows[0].endpoint_id}`,
    sql<{ attempt: number; started_at: Date; duration_ms: number; status: number | null; outcome: AttemptDetails['outcome']; error: string | null; excerpt: string | null }[]>`
      select attempt, started_at, duration_ms, status, outcome, error, excerpt
        from app_webhook_attempts where delivery_id = ${id} order by attempt`,
  ]);
  const endpoint = endpoints[0];
  return {
    ...summary(rows[0]),
    endpoint: endpoint === undefined
      ? null
      : { id: endpoint.id, url: endpoint.url, enabled: endpoint.disabled_at === null, disabledAt: endpoint.disabled_at, disabledReason: endpoint.disabled_reason },
    attemptsMade: attempts.map((row) => ({
      attempt: row.attempt,
      startedAt: row.started_at,
      durationMs: row.duration_ms,
      status: row.status,
      outcome: row.outcome,
      error: row.error,
      excerpt: row.excerpt,
    })),
  };
}

/**
 * `jobs:retry <id>` (spec: "dead letter queue -> jobs:retry -> sent again"): a dead delivery
 * becomes pending with a new job (same delivery id, so the same `webhook-id` and body) and a new
 * series of `webhooks.maxAttempts` attempts under the same backoff; its earlier attempts stay
 * on record. Throws 404 `APP_WEBHOOK_DELIVERY_NOT_FOUND`, 409 `APP_WEBHOOK_DELIVERY_NOT_DEAD`
 * (only dead deliveries are retried; the others are still on their way or delivered), 409
 * `APP_WEBHOOK_ENDPOINT_DISABLED` (the worker would not send it: enable the endpoint first).
 */
export async function retryDelivery(deps: { sql: Sql; config: Pick<Config, 'webhooks'>; log: Logger }, id: string): Promise<DeliverySummary> {
  const { sql } = deps;
  const current = await showDelivery(deps, id);
  if (current.status !== 'dead') {
    throw conflict(`webhook delivery ${id} is ${current.status}, not dead: only dead deliveries are retried`, {
      code: 'APP_WEBHOOK_DELIVERY_NOT_DEAD',
      data: { id, status: current.status },
    });
  }
  if (current.endpoint !== null && !current.endpoint.enabled) {
    throw conflict(`webhook endpoint ${current.endpointId} of delivery ${id} is disabled (${current.endpoint.disabledReason ?? 'no reason given'}); enable it first (app webhooks:enable ${current.endpointId})`, {
      code: 'APP_WEBHOOK_ENDPOINT_DISABLED',
      data: { id: current.endpointId, delivery: id },
    });
  }
  const rows = await sql<DeliveryRow[]>`
    with d as (
      update app_webhook_deliveries
         set status = 'pending', next_attempt_at = now(), completed_at = null, updated_at = now()
       where id = ${id} and status = 'dead'
      returning *
    ), j as (
      select count(*) as added from graphile_worker.add_jobs(array(
        select ${deliveryJobSpec(sql, {
          id: sql`d.id`,
          payload: sql`json_build_object('deliveryId', d.id, 'endpointId', d.endpoint_id, 'event', d.event_type, 'priorAttempts', d.attempts)`,
        })}
        from d
      ))
    )
    select ${sql.unsafe(COLUMNS.split(', ').map((column) => `d.${column}`).join(', '))} from d, j`;
  if (rows.length === 0) {
    // Retried (or removed) by someone else between the read and the write.
    throw conflict(`webhook delivery ${id} changed meanwhile; look at it again (app jobs show ${id})`, {
      code: 'APP_WEBHOOK_DELIVERY_NOT_DEAD',
      data: { id },
    });
  }
  deps.log.info({ delivery: id, priorAttempts: current.attempts }, 'dead delivery queued again');
  return summary(rows[0]);
}
