/**
 * The `app/webhook` job, one attempt of one delivery, in one place: its task name, its payload and
 * the one SQL builder of its `graphile_worker.job_spec`, used by emit (events/enqueue.ts),
 * retry (retry.ts), recover (recover.ts) and the worker's own retry scheduling
 * (shared/webhooks/deliveries/store.ts).
 */
import type postgres from 'postgres';
import type { Queryable } from '../endpoints/store.ts';

/** graphile-worker task identifier of a delivery. */
export const DELIVERY_TASK = 'app/webhook';

/**
 * One `app/webhook` job as a `graphile_worker.job_spec` (identifier, payload, queue_name,
 * run_at, max_attempts, job_key, priority, flags), for `graphile_worker.add_jobs(array(...))`
 * (`first`: run before the backlog, see `FIRST_PRIORITY`; `priority`: the priority of a job it
 * replaces):
 * no graphile queue (a named queue runs one job at a time), one attempt (the task schedules the
 * next itself), keyed by the delivery id so one delivery never has two live jobs. `id`,
 * `payload` and `runAt` are SQL fragments of the same `sql`/transaction.
 */
export const deliveryJobSpec = (
  sql: Queryable,
  spec: {
    id: postgres.PendingQuery<postgres.Row[]>;
    payload: postgres.PendingQuery<postgres.Row[]>;
    runAt?: postgres.PendingQuery<postgres.Row[]>;
    first?: boolean;
    priority?: postgres.PendingQuery<postgres.Row[]>;
  },
) =>
  sql`row(${DELIVERY_TASK}::text, ${spec.payload}, null, ${spec.runAt ?? sql`null`}, 1, ${spec.id}, ${spec.first ? sql`${FIRST_PRIORITY}::int` : (spec.priority ?? sql`null`)}, null)::graphile_worker.job_spec`;

/**
 * graphile-worker priority of the jobs that run before the queue's backlog, which is taken in
 * priority order first (lower first; the others have 0): a delivery woken into a free slot of its
 * endpoint (shared/webhooks/deliveries/flow.ts), since the slot it holds is idle until it runs;
 * and a delivery waiting for the start reserved for it under its endpoint's `rateLimit`
 * (shared/webhooks/deliveries/store.ts `paceDelivery`), since a start it misses is lost.
 */
export const FIRST_PRIORITY = -1;

/** The job payload of one delivery (what the `app/webhook` task receives). */
export interface DeliveryJobPayload {
  deliveryId: string;
  endpointId: string;
  event: string;
  /** The exact signed envelope text; absent in jobs the worker writes (retries): read from the delivery row. */
  body?: string;
  /** Attempts made before this series began (default 0; `jobs:retry` starts a new series). */
  priorAttempts?: number;
  /**
   * The run waited for its start under the endpoint's `rateLimit`: the time reserved for it (ms
   * since the epoch, the database's clock; its job is due a little before, and the run holds until
   * then). It goes without reserving again unless it runs later than half a spacing after that
   * time (then it reserves anew: a late start next to on-time ones would break the limit). `true`
   * (jobs written before the time was kept): it goes.
   */
  paced?: boolean | number;
  /**
   * The W3C `traceparent` of the span that emitted the delivery (shared/telemetry/traceparent.ts):
   * each attempt is a span of that trace. Also kept in the delivery row's `traceparent` column,
   * which the jobs rebuilt from the row (requeue, FIFO admission) carry on; absent when the
   * emitting process did not trace.
   */
  traceparent?: string;
}

/**
 * The payload of a delivery queued again (retry, recover): a new series of attempts after the
 * ones made, the body read from the delivery row. `alias` names the updated delivery rows.
 */
export const requeuePayload = (sql: Queryable, alias: string) =>
  sql`json_strip_nulls(json_build_object('deliveryId', ${sql(alias)}.id, 'endpointId', ${sql(alias)}.endpoint_id, 'event', ${sql(alias)}.event_type, 'priorAttempts', ${sql(alias)}.attempts, 'traceparent', ${sql(alias)}.traceparent))`;

/**
 * The assignments of an update of `app_webhook_deliveries` that queues deliveries again by hand
 * (retry, resend, replay): when, by whom and after how many attempts (migrations/040), read by
 * record.ts `inCurrentSeries`. In an update's `set`, where `attempts` is the row's before it.
 */
export const queuedAgain = (sql: Queryable, actor: { id: string }) =>
  sql`queued_again_at = now(), queued_again_by = ${actor.id}::text, attempts_before = attempts`;
