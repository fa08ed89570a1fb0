/**
 * Writing deliveries: in ONE transaction the event row, one delivery row per endpoint and one
 * graphile-worker job `app/webhook` per delivery, so an event is either fully enqueued or not at
 * all. Rows and jobs are written in bulk (unnest, and one `graphile_worker.add_jobs` call),
 * whatever the number of endpoints.
 *
 * Job shape, relied on by the worker (worker/tasks): task `app/webhook`, payload
 * `{deliveryId, endpointId, event, body, traceparent?}` (body = the exact signed envelope text;
 * traceparent = the emit span's, when the process traces, also kept on the row), `max_attempts` 1
 * and `job_key` = the delivery id: the worker schedules retries itself with the configured backoff
 * (`webhooks.backoff`). No graphile `queue_name` (a named graphile queue runs one job at a time);
 * the logical queue `webhooks.queue` is recorded in `app_webhook_deliveries.queue`.
 */
import { type AppError, unavailable, unprocessable } from '../../errors/app-error.ts';
import type { Queryable, Sql } from '../../db/connect.ts';
import { inTransaction } from '../../db/transaction.ts';
import { unprepared } from '../../db/unprepared.ts';
import { envelopeBody, type PayloadText } from './envelope.ts';
import { newDeliveryIds, newEventId } from '../ids.ts';
import type { WebhookDeps } from '../deps.ts';
import { deliveryJobSpec } from '../deliveries/job.ts';
import { admit } from '../deliveries/flow.ts';
import { activeTraceparent } from '../../telemetry/traceparent.ts';

/** One delivery written by emit or send (what they answer). */
export interface Delivery {
  /** `msg_…`, the `webhook-id` and the envelope's `id`. */
  id: string;
  eventId: string;
  endpointId: string;
  owner: string | null;
  /** The event name (`type` in the envelope). */
  event: string;
  /** The logical queue (`webhooks.queue`). */
  queue: string;
  /** `pending` when just written; a repeated `eventId` answers the original deliveries as they stand. */
  status: DeliveryStatus;
  /** Time of the event (the envelope's `timestamp`). */
  createdAt: Date;
}

/** Delivery states as operators see them. */
export type DeliveryStatus = 'pending' | 'running' | 'done' | 'dead';

/** The deliveries of event `eventId`, as an emit answers them (a repeated `eventId`). */
export async function deliveriesOfEvent(sql: Sql, eventId: string): Promise<Delivery[]> {
  const rows = await sql<
    {
      id: string;
      event_id: string;
      endpoint_id: string;
      owner: string | null;
      event_type: string;
      queue: string;
      status: DeliveryStatus;
      created_at: Date;
    }[]
  >`
    select id, event_id, endpoint_id, owner, event_type, queue, status, created_at from app_webhook_deliveries where event_id = ${eventId} order by id`;
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    owner: row.owner,
    event: row.event_type,
    queue: row.queue,
    status: row.status,
    createdAt: row.created_at,
  }));
}

/** PostgreSQL errors meaning a schema, function, type or table does not exist. */
const MISSING_OBJECT = new Set(['3F000', '42883', '42704', '42P01']);

/** Names what of graphile-worker's schema is missing; empty when all is there. */
async function missingQueueObjects(sql: Sql): Promise<string[]> {
  const [row] = await sql<{ schema: boolean; spec: boolean; add_jobs: boolean }[]>`
    select
      exists (select 1 from pg_namespace where nspname = 'graphile_worker') as schema,
      exists (select 1 from pg_type t join pg_namespace n on n.oid = t.typnamespace
              where n.nspname = 'graphile_worker' and t.typname = 'job_spec') as spec,
      exists (select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'graphile_worker' and p.proname = 'add_jobs') as add_jobs`;
  const missing: string[] = [];
  if (!row.schema) missing.push('schema graphile_worker');
  if (!row.spec) missing.push('type graphile_worker.job_spec');
  if (!row.add_jobs) missing.push('function graphile_worker.add_jobs');
  return missing;
}

/** Thrown inside the emit's transaction (rolling it back) when the sender's `eventId` names an event already written. */
export class DuplicateEvent extends Error {
  readonly eventId: string;
  constructor(eventId: string) {
    super(`event ${eventId} has this eventId already`);
    this.eventId = eventId;
  }
}

/**
 * Writes an event carrying the sender's id, unless an event of the same owner has it within
 * `windowMs`: answers the id of the event that holds it (this one when written). Concurrent
 * emits with one id wait on the unique index and all but one find the winner's event. An id
 * older than the window is released (its event keeps its rows, loses the id) and taken anew.
 */
async function insertSourcedEvent(
  tx: Queryable,
  event: {
    id: string;
    type: string;
    owner: string | null;
    text: string;
    at: Date;
    sourceId: string;
    filteredOut: number;
  },
  windowMs: number,
): Promise<string> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const [inserted] = await tx<{ id: string }[]>`
      insert into app_events (id, type, owner, payload, created_at, source_id, filtered_out)
      values (${event.id}, ${event.type}, ${event.owner}, ${event.text}::text::jsonb, ${event.at}, ${event.sourceId}, ${event.filteredOut})
      on conflict ((coalesce(owner, '')), source_id) where source_id is not null do nothing
      returning id`;
    if (inserted) return inserted.id;
    const [holder] = await tx<{ id: string; created_at: Date }[]>`
      select id, created_at from app_events where coalesce(owner, '') = ${event.owner ?? ''} and source_id = ${event.sourceId}`;
    if (!holder) continue; // pruned meanwhile: try again
    if (event.at.getTime() - holder.created_at.getTime() < windowMs) return holder.id;
    await tx`update app_events set source_id = null where id = ${holder.id}`;
  }
  throw new Error(`could not write event ${event.id} with eventId ${event.sourceId}`);
}

/** AppError 503 `APP_WEBHOOK_QUEUE_MISSING` naming what is missing and how to install it. */
function queueMissing(missing: string[], cause: unknown): AppError {
  return unavailable(
    `cannot enqueue webhook deliveries: the job queue is not installed in this database (missing ${missing.join(', ')}); ` +
      'run `app migrate` (or `app webhooks:install`) to install it',
    { code: 'APP_WEBHOOK_QUEUE_MISSING', data: { missing }, expose: true, cause },
  );
}

/** What an enqueue wrote: the event (null when nothing was written) and its deliveries. */
export interface Enqueued {
  eventId: string | null;
  deliveries: Delivery[];
}

/**
 * Writes event `type` with `data` for `endpointIds` (all of `owner`; checked again inside the
 * transaction, so an endpoint removed, disabled or moved to another owner since the caller
 * looked gets nothing) and answers the event and the deliveries written. Nothing is written when
 * no endpoint remains, unless filters left some out (`filteredOut`, kept with the event): then
 * the event is written without deliveries, so its page tells what the filters decided. Throws
 * 503 `APP_WEBHOOK_QUEUE_MISSING` without the queue schema, 422 `APP_WEBHOOK_PAYLOAD_INVALID`
 * when PostgreSQL refuses the payload.
 */
export async function enqueueDeliveries(
  deps: Pick<WebhookDeps, 'config' | 'sql'>,
  input: {
    type: string;
    data: PayloadText;
    owner: string | null;
    endpointIds: readonly string[];
    at?: Date;
    sourceId?: string | null;
    /** Endpoints subscribed to the type that their filters left out. */
    filteredOut?: number;
  },
): Promise<Enqueued> {
  const filteredOut = input.filteredOut ?? 0;
  if (input.endpointIds.length === 0 && filteredOut === 0) return { eventId: null, deliveries: [] };
  const { config, sql } = deps;
  const at = input.at ?? new Date();
  const queue = config.webhooks.queue;
  const eventId = newEventId(at.getTime());
  const ids = newDeliveryIds(input.endpointIds.length, at.getTime());
  const bodies = ids.map((id) => envelopeBody({ data: input.data, id, timestamp: at, type: input.type }));
  const endpointIds = [...input.endpointIds];
  // the span active now (the emit's) is the parent of every attempt: kept on each row and in its job
  const traceparent = activeTraceparent();
  const nothing = Symbol('nothing to write');

  try {
    // on a pool: a transaction of its own; inside a caller's transaction (model events): a savepoint of it
    return await inTransaction(sql, async (tx) => {
      if (input.sourceId) {
        const written = await insertSourcedEvent(
          tx,
          {
            id: eventId,
            type: input.type,
            owner: input.owner,
            text: input.data.text,
            at,
            sourceId: input.sourceId,
            filteredOut,
          },
          config.webhooks.dedupeWindow,
        );
        if (written !== eventId) throw new DuplicateEvent(written);
      } else {
        await tx`
          insert into app_events (id, type, owner, payload, created_at, filtered_out)
          values (${eventId}, ${input.type}, ${input.owner}, ${input.data.text}::text::jsonb, ${at}, ${filteredOut})`;
      }
      // One statement: the delivery rows, and their jobs built from what the insert returned. A
      // FIFO endpoint's delivery is parked in emit order instead (no job): `admit` below queues
      // it when it heads its endpoint's line (shared/webhooks/deliveries/flow.ts).
      const rows = await unprepared(tx<{ id: string; endpoint_id: string; fifo: boolean }[]>`
        with inserted as (
          insert into app_webhook_deliveries (id, event_id, endpoint_id, owner, event_type, queue, body, next_attempt_at, created_at, updated_at, parked_at, seq, traceparent)
          select d.id, ${eventId}, d.endpoint_id, ${input.owner}, ${input.type}, ${queue}, d.body,
                 case when g.ordering = 'fifo' then null else ${at}::timestamptz end, ${at}, ${at},
                 case when g.ordering = 'fifo' then ${at}::timestamptz end,
                 case when g.ordering = 'fifo' then nextval('app_delivery_seq') end, ${traceparent}::text
          from unnest(${ids}::text[], ${endpointIds}::text[], ${bodies}::text[]) as d (id, endpoint_id, body)
          join app_endpoint_gate g on g.endpoint_id = d.endpoint_id
          where g.owner is not distinct from ${input.owner} and g.disabled_at is null
          for key share of g -- an endpoint being removed waits for this emit, then takes its deliveries
          returning id, endpoint_id, event_type, body, parked_at is not null as fifo
        ), jobs as (
          select count(*) as added from graphile_worker.add_jobs(array(
            select ${deliveryJobSpec(tx, {
              id: tx`i.id`,
              payload:
                traceparent === null
                  ? tx`json_build_object('deliveryId', i.id, 'endpointId', i.endpoint_id, 'event', i.event_type, 'body', i.body)`
                  : tx`json_build_object('deliveryId', i.id, 'endpointId', i.endpoint_id, 'event', i.event_type, 'body', i.body, 'traceparent', ${traceparent}::text)`,
            })}
            from inserted i where not i.fifo
          ))
        )
        select inserted.id, inserted.endpoint_id, inserted.fifo from inserted, jobs where jobs.added >= 0`);
      const lines = rows.filter((row) => row.fifo).map((row) => row.endpoint_id);
      if (lines.length > 0) await admit(tx, config, lines);
      if (rows.length === 0 && filteredOut === 0) throw nothing;
      return {
        eventId,
        deliveries: rows.map(
          (row): Delivery => ({
            id: row.id,
            eventId,
            endpointId: row.endpoint_id,
            owner: input.owner,
            event: input.type,
            queue,
            status: 'pending',
            createdAt: at,
          }),
        ),
      };
    });
  } catch (error) {
    if (error === nothing) return { eventId: null, deliveries: [] };
    const pg = error as { code?: string; message?: string };
    if (typeof pg.code === 'string' && MISSING_OBJECT.has(pg.code) && /graphile_worker/.test(pg.message ?? '')) {
      const missing = await missingQueueObjects(sql).catch(() => ['graphile_worker (could not tell what exactly)']);
      if (missing.length > 0) throw queueMissing(missing, error);
    }
    if (pg.code === '22P05' || pg.code === '22P02') {
      throw unprocessable(`invalid webhook payload: ${pg.message}`, {
        code: 'APP_WEBHOOK_PAYLOAD_INVALID',
        data: { field: 'data', reason: pg.message },
        cause: error,
      });
    }
    throw error;
  }
}
