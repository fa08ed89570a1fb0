/**
 * The delivery worker's queries on `app_webhook_deliveries`, `app_webhook_attempts` and the
 * job queue (schema: migrations/001_webhooks.sql). Each state change of a delivery is ONE
 * statement (data-modifying CTEs), so it is atomic without a BEGIN/COMMIT round trip, and a
 * retry is scheduled in the same statement that records the failed attempt (spec: "Delivery
 * outcome"; issue 4, item 4).
 *
 * Why a retry cannot leave two live jobs for one delivery: every job of a delivery has
 * `job_key` = the delivery id. The running job is locked, so `graphile_worker.add_job` with the
 * same key clears the running job's key and sets its attempts to its max (it can never run
 * again) and inserts the next job, all inside the statement that records the attempt. A crash
 * before that statement commits leaves the running job (recovered, it performs the attempt
 * again); a crash after it leaves the new job plus a dead, keyless remnant that the recovery
 * sweep deletes (worker/heartbeat.ts).
 */
import type { Config } from '../../shared/config/index.ts';
import type { Sql } from '../../shared/db/connect.ts';
import { endpointTable, notifyEndpointsChanged, type Queryable } from '../../shared/webhooks/endpoint-store.ts';

/** graphile-worker task identifier of a delivery (spec: "Webhook delivery"). */
export const WEBHOOK_TASK = 'app/webhook';

/**
 * The payload of an `app/webhook` job. `emit` writes `{deliveryId, endpointId, event, body}`;
 * jobs the worker writes itself (retries, `jobs:retry`) leave `body` out (the delivery row
 * holds it) and carry `priorAttempts`, the attempts made before the current series (a
 * `jobs:retry` starts a new series of `webhooks.maxAttempts`).
 */
export interface DeliveryJobPayload {
  deliveryId: string;
  endpointId: string;
  event: string;
  /** The exact signed envelope text; absent: read from the delivery row. */
  body?: string;
  /** Attempts made before this series began (default 0). */
  priorAttempts?: number;
}

/** Delivery states as operators see them (spec: "Queue states visible to operators"). */
export type DeliveryStatus = 'pending' | 'running' | 'done' | 'dead';

/** A delivery taken up for an attempt, with what the attempt needs of its endpoint. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  /** Attempts recorded before this one. */
  attempts: number;
  body: string;
  url: string;
  headers: Record<string, string>;
  disabledAt: Date | null;
  disabledReason: string | null;
}

/** PostgreSQL text cannot hold U+0000; a receiver's answer may. */
export const storableText = (text: string | null | undefined): string | null =>
  text === null || text === undefined ? null : text.replaceAll('\u0000', '\uFFFD');

/**
 * Marks delivery `id` running and answers it with its endpoint, or null when there is nothing
 * to do: the delivery is done or dead already (a duplicate job after a crash), or it no longer
 * exists (its endpoint was removed, which deletes its deliveries). `withBody` reads the stored
 * body (for jobs whose payload does not carry it).
 */
export async function claimDelivery(
  sql: Queryable,
  config: Pick<Config, 'webhooks'>,
  id: string,
  withBody: boolean,
): Promise<ClaimedDelivery | null> {
  const rows = await sql<{
    endpoint_id: string; attempts: number; body: string | null; url: string;
    headers: Record<string, string> | null; disabled_at: Date | null; disabled_reason: string | null;
  }[]>`
    update app_webhook_deliveries as d
       set status = 'running', next_attempt_at = null, updated_at = now()
      from ${endpointTable(sql, config)} as e
     where d.id = ${id} and e.id = d.endpoint_id and d.status in ('pending', 'running')
    returning d.endpoint_id, d.attempts, ${withBody ? sql`d.body` : sql`null::text`} as body,
              e.url, e.headers, e.disabled_at, e.disabled_reason`;
  if (rows.length === 0) return null;
  const row = rows[0];
  return {
    id,
    endpointId: row.endpoint_id,
    attempts: row.attempts,
    body: row.body ?? '',
    url: row.url,
    headers: row.headers ?? {},
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
  };
}

/** The status of delivery `id`, or null when it does not exist (for the log of a skipped job). */
export async function deliveryStatus(sql: Queryable, id: string): Promise<DeliveryStatus | null> {
  const rows = await sql<{ status: DeliveryStatus }[]>`select status from app_webhook_deliveries where id = ${id}`;
  return rows.length === 0 ? null : rows[0].status;
}

/** One attempt and what it decided, as `recordAttempt` writes it. */
export interface AttemptRecord {
  deliveryId: string;
  /** `ClaimedDelivery.attempts`: the record applies only if nobody recorded an attempt since. */
  priorAttempts: number;
  startedAt: Date;
  durationMs: number;
  /** The receiver's status, when it answered. */
  httpStatus: number | null;
  outcome: 'done' | 'retry' | 'dead';
  error: string | null;
  excerpt: string | null;
  /** With outcome `retry`: the delay and the payload of the next job. */
  retry?: { delayMs: number; payload: DeliveryJobPayload };
}

/**
 * Records one attempt and its outcome in one statement: the attempt row, the delivery's new
 * state (pending with `next_attempt_at`, done or dead) and, for a retry, the next job under the
 * same `job_key`. Answers false (and writes nothing) when the delivery was meanwhile finished or
 * another attempt was recorded (two workers performing one delivery after a presumed crash).
 */
export async function recordAttempt(sql: Queryable, record: AttemptRecord): Promise<boolean> {
  const status: DeliveryStatus = record.outcome === 'retry' ? 'pending' : record.outcome;
  const retrying = record.outcome === 'retry' && record.retry !== undefined;
  const delayMs = retrying ? Math.max(0, Math.round(record.retry!.delayMs)) : 0;
  const payload = retrying ? JSON.stringify(record.retry!.payload) : null;
  const error = storableText(record.error);
  const rows = await sql<{ recorded: number; scheduled: number }[]>`
    with d as (
      update app_webhook_deliveries set
        status = ${status},
        attempts = attempts + 1,
        last_error = ${error}::text,
        last_status = ${record.httpStatus}::int,
        next_attempt_at = case when ${retrying}::boolean then now() + ${delayMs}::int * interval '1 millisecond' end,
        completed_at = case when ${status}::text in ('done', 'dead') then now() end,
        updated_at = now()
      where id = ${record.deliveryId} and attempts = ${record.priorAttempts}::int and status in ('pending', 'running')
      returning id, attempts, next_attempt_at
    ), a as (
      insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome, error, excerpt)
      select id, attempts, ${record.startedAt}::timestamptz, ${Math.round(record.durationMs)}::int, ${record.httpStatus}::int,
             ${record.outcome}::text, ${error}::text, ${storableText(record.excerpt)}::text
        from d
      on conflict do nothing
    ), j as (
      select graphile_worker.add_job(${WEBHOOK_TASK}::text, ${payload}::text::json,
               run_at => d.next_attempt_at, max_attempts => 1, job_key => d.id)
        from d
       where d.next_attempt_at is not null
    )
    select (select count(*) from d)::int as recorded, (select count(*) from j)::int as scheduled`;
  return rows[0].recorded === 1;
}

/**
 * Makes delivery `id` dead without sending it (endpoint disabled, secret unreadable, no secret):
 * no attempt is recorded, `error` says why. Answers false when it was no longer pending/running.
 */
export async function markUnsent(sql: Queryable, id: string, error: string): Promise<boolean> {
  const rows = await sql`
    update app_webhook_deliveries
       set status = 'dead', last_error = ${storableText(error)}::text, next_attempt_at = null, completed_at = now(), updated_at = now()
     where id = ${id} and status in ('pending', 'running')
    returning id`;
  return rows.length === 1;
}

/**
 * After a 410 (spec: "410 ... endpoint is disabled; nothing further is queued for it"), in one
 * transaction with the attempt that got it: records the attempt (dead), disables the endpoint
 * (`disabled_at`, `disabled_reason`; an earlier disable is kept), makes every other PENDING
 * delivery of the endpoint dead with a reason and removes its job, and announces the endpoint
 * change to every process's endpoint cache. Deliveries running at that moment finish their
 * attempt; their next one finds the endpoint disabled and is not sent. Answers how many pending
 * deliveries were stopped, or null when the attempt was not recorded (see `recordAttempt`).
 */
export async function recordGone(
  sql: Sql,
  config: Pick<Config, 'webhooks'>,
  record: AttemptRecord & { endpointId: string },
): Promise<number | null> {
  return sql.begin(async (tx) => {
    if (!(await recordAttempt(tx, record))) return null;
    const reason = `the receiver answered 410 Gone to delivery ${record.deliveryId}`;
    const endpoints = await tx<{ owner: string | null }[]>`
      update ${endpointTable(tx, config)}
         set disabled_at = coalesce(disabled_at, now()),
             disabled_reason = case when disabled_at is null then ${reason} else disabled_reason end,
             updated_at = now()
       where id = ${record.endpointId}
      returning owner`;
    if (endpoints.length > 0) await notifyEndpointsChanged(tx, [endpoints[0].owner]);
    const stopped = await tx<{ id: string }[]>`
      with d as (
        update app_webhook_deliveries
           set status = 'dead', next_attempt_at = null, completed_at = now(), updated_at = now(),
               last_error = ${`not sent: endpoint ${record.endpointId} was disabled after ${reason}`}::text
         where endpoint_id = ${record.endpointId} and status = 'pending' and id <> ${record.deliveryId}
        returning id
      )
      select d.id, graphile_worker.remove_job(d.id) from d`;
    return stopped.length;
  });
}
