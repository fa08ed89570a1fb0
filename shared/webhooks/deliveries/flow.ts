/**
 * Fairness and FIFO between endpoints (issue 16, items 1 and 3; schema: migrations/014). Each
 * endpoint has a gate row counting its deliveries that hold a slot (`running`) and those parked
 * for one (`waiting`). The worker takes a slot in the statement that claims a delivery and gives
 * it back in the statement that records the attempt (worker/delivery/store.ts); a delivery that
 * finds no slot free is parked (pending, no job, no worker slot taken).
 *
 * This module wakes parked deliveries: under the gate row's lock, with statements that see
 * every change committed before it, it counts the slots held, hands the free ones to the oldest
 * parked deliveries (in `seq` order) and queues their jobs. Whoever leaves a gate with a free
 * slot and someone waiting calls it; so does the recovery sweep, for anything a crash left.
 */
import type { Config } from '../../config/index.ts';
import type { Queryable } from '../../db/connect.ts';
import type { Sql } from '../../db/connect.ts';
import { deliveryJobSpec } from './job.ts';

/** The slots of one endpoint: `webhooks.endpointConcurrency`, or one when it is FIFO. */
export const slotsOf = (config: Pick<Config, 'webhooks'>, fifo: boolean): number => (fifo ? 1 : config.webhooks.endpointConcurrency);

/** A gate as a statement left it: whether a parked delivery waits while a slot is free. */
export const needsWake = (config: Pick<Config, 'webhooks'>, gate: { running: number; waiting: number; fifo: boolean }): boolean =>
  gate.waiting > 0 && gate.running < slotsOf(config, gate.fifo);

/**
 * Inside the caller's transaction: locks the gates of `endpointIds` (in endpoint order, as every
 * statement that changes them does), adds `addWaiting` deliveries the caller has just parked,
 * recounts the slots held (and with `recount` the parked deliveries too), and wakes the oldest parked deliveries into the free slots (their
 * jobs queued to run now). Answers how many were woken.
 */
export async function admit(
  tx: Queryable,
  config: Pick<Config, 'webhooks'>,
  endpointIds: readonly string[],
  addWaiting: ReadonlyMap<string, number> = new Map(),
  options: { recount?: boolean } = {},
): Promise<number> {
  const ids = [...new Set(endpointIds)].sort();
  if (ids.length === 0) return 0;
  await tx`select endpoint_id from app_endpoint_gate where endpoint_id = any(${ids}::text[]) order by endpoint_id for update`;
  // A new statement: it sees every change committed by whoever held these locks before us.
  const rows = await tx<{ woken: number }[]>`
    with input as (
      select g.endpoint_id,
             ${options.recount
               ? tx`(select count(*) from app_webhook_deliveries d
                      where d.endpoint_id = g.endpoint_id and d.parked_at is not null and d.status = 'pending')::int`
               : tx`g.waiting + coalesce(a.added, 0)`} as waiting,
             (select count(*) from app_webhook_deliveries d
               where d.endpoint_id = g.endpoint_id and d.slot and d.status in ('pending', 'running'))::int as running,
             case when w.ordering = 'fifo' then 1 else ${config.webhooks.endpointConcurrency}::int end as slots
        from app_endpoint_gate g
        join app_webhooks w on w.id = g.endpoint_id
        left join unnest(${[...addWaiting.keys()]}::text[], ${[...addWaiting.values()]}::int[]) as a (endpoint_id, added)
          on a.endpoint_id = g.endpoint_id
       where g.endpoint_id = any(${ids}::text[])
    ), picked as (
      select p.id from input i
       cross join lateral (
         select d.id from app_webhook_deliveries d
          where d.endpoint_id = i.endpoint_id and d.parked_at is not null and d.status = 'pending'
          order by d.seq, d.id
          limit greatest(i.slots - i.running, 0)
          for update skip locked
       ) p
       where i.waiting > 0 and i.running < i.slots
    ), woken as (
      update app_webhook_deliveries d
         set parked_at = null, parked_job = null, slot = true, next_attempt_at = now(), updated_at = now()
        from picked p
       where d.id = p.id
      returning d.id, d.endpoint_id,
                (coalesce(d.parked_job, jsonb_build_object('deliveryId', d.id, 'endpointId', d.endpoint_id, 'event', d.event_type)) - 'paced')::json as payload
    ), jobs as (
      select count(*) as added from graphile_worker.add_jobs(array(
        select ${deliveryJobSpec(tx, { id: tx`woken.id`, payload: tx`woken.payload` })} from woken
      ))
      where exists (select 1 from woken)
    ), counted as (
      select i.endpoint_id, i.running, i.waiting, (select count(*) from woken k where k.endpoint_id = i.endpoint_id)::int as woken
        from input i
    ), gate as (
      update app_endpoint_gate g
         set running = c.running + c.woken, waiting = greatest(c.waiting - c.woken, 0)
        from counted c
       where g.endpoint_id = c.endpoint_id
      returning c.woken
    )
    select coalesce(sum(gate.woken), 0)::int as woken from gate where (select count(*) from jobs) >= 0`;
  return rows[0]?.woken ?? 0;
}

/** `admit` in a transaction of its own: what a worker calls after leaving a gate with a free slot and someone waiting. */
export async function wakeEndpoints(sql: Sql, config: Pick<Config, 'webhooks'>, endpointIds: readonly string[]): Promise<number> {
  if (endpointIds.length === 0) return 0;
  return sql.begin((tx) => admit(tx, config, endpointIds)) as Promise<number>;
}

/**
 * For the recovery sweep: the endpoints whose gate has someone waiting while a slot looks free,
 * or whose waiting count disagrees with the parked deliveries (a crash between a statement and
 * the wake it owed, or a counter gone wrong). `admit` recounts and wakes them.
 */
export async function gatesToWake(sql: Queryable, config: Pick<Config, 'webhooks'>): Promise<string[]> {
  const rows = await sql<{ endpoint_id: string }[]>`
    select g.endpoint_id from app_endpoint_gate g join app_webhooks w on w.id = g.endpoint_id
     where (g.waiting > 0 and g.running < case when w.ordering = 'fifo' then 1 else ${config.webhooks.endpointConcurrency}::int end)
        or g.waiting <> (select count(*) from app_webhook_deliveries d
                          where d.endpoint_id = g.endpoint_id and d.parked_at is not null and d.status = 'pending')
        or g.running <> (select count(*) from app_webhook_deliveries d
                          where d.endpoint_id = g.endpoint_id and d.slot and d.status in ('pending', 'running'))`;
  return rows.map((row) => row.endpoint_id);
}
