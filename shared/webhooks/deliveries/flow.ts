/**
 * Fairness and FIFO between endpoints (docs/reliability.md "Fairness between endpoints", "FIFO endpoints";
 * schema: migrations/014). A
 * delivery holds one of its endpoint's slots (`slot`) from its claim until its attempt is recorded
 * (shared/webhooks/deliveries/store.ts); a delivery that finds its endpoint at its cap is parked (pending, no
 * job, no worker slot taken).
 *
 * This module wakes parked deliveries: under the endpoint's gate lock, with a statement that sees
 * every change committed before it, it counts the slots held, hands the free ones to the oldest
 * parked deliveries (in `seq` order) and queues their jobs, to run before the queue's backlog.
 * Whoever gives back a slot with deliveries parked behind it calls it, so does every emit to a
 * FIFO endpoint (inside its transaction), and so does the recovery sweep for anything missed.
 */
import type { Config } from '../../config/index.ts';
import type { Queryable, Sql } from '../../db/connect.ts';
import { deliveryJobSpec } from './job.ts';
import { transaction } from '../../db/transaction.ts';

/**
 * Inside the caller's transaction: locks the gates of `endpointIds` (in endpoint order, as every
 * claim does), counts the slots held, and wakes the oldest parked deliveries into the free ones.
 * Answers how many were woken.
 */
export async function admit(
  tx: Queryable,
  config: Pick<Config, 'webhooks'>,
  endpointIds: readonly string[],
): Promise<number> {
  const ids = [...new Set(endpointIds)].sort();
  if (ids.length === 0) return 0;
  await tx`select endpoint_id from app_endpoint_gate where endpoint_id = any(${ids}::text[]) order by endpoint_id for no key update`;
  // A new statement: it sees every change committed by whoever held these locks before us.
  const rows = await tx<{ woken: number }[]>`
    with free as (
      select g.endpoint_id,
             greatest(app_endpoint_cap(g.endpoint_id, g.ordering = 'fifo', ${config.webhooks.endpointConcurrency}::int)
                      - app_endpoint_held(g.endpoint_id), 0) as slots
        from app_endpoint_gate g
       where g.endpoint_id = any(${ids}::text[])
    ), picked as (
      select p.* from free f
       cross join lateral (
         select d.id, d.endpoint_id,
                (coalesce(d.parked_job, jsonb_strip_nulls(jsonb_build_object('deliveryId', d.id, 'endpointId', d.endpoint_id, 'event', d.event_type, 'traceparent', d.traceparent))) - 'paced')::json as payload
           from app_webhook_deliveries d
          where d.endpoint_id = f.endpoint_id and d.parked_at is not null
          order by d.seq, d.id
          limit f.slots
            for update skip locked
       ) p
       where f.slots > 0
    ), woken as (
      update app_webhook_deliveries d
         set parked_at = null, parked_job = null, slot = true, next_attempt_at = now(), updated_at = now()
        from picked p
       where d.id = p.id
      returning d.id
    ), jobs as (
      select count(*) as added from graphile_worker.add_jobs(array(
        select ${deliveryJobSpec(tx, { id: tx`p.id`, payload: tx`p.payload`, first: true })} from picked p join woken using (id)
      ))
      where exists (select 1 from woken)
    )
    select count(*)::int as woken from woken where (select count(*) from jobs) >= 0`;
  return rows[0]?.woken ?? 0;
}

/** `admit` in a transaction of its own: what a worker calls after giving back a slot with deliveries parked behind it. */
export async function wakeEndpoints(
  sql: Sql,
  config: Pick<Config, 'webhooks'>,
  endpointIds: readonly string[],
): Promise<number> {
  if (endpointIds.length === 0) return 0;
  return transaction(sql, (tx) => admit(tx, config, endpointIds));
}

/**
 * For the recovery sweep: endpoints with parked deliveries and a slot free (a wake lost to a
 * crash between a release and the wake it owed, or to a claim that parked while the last slot
 * was being given back).
 */
export async function gatesToWake(sql: Queryable, config: Pick<Config, 'webhooks'>): Promise<string[]> {
  const rows = await sql<{ endpoint_id: string }[]>`
    select g.endpoint_id
      from (select distinct d.endpoint_id from app_webhook_deliveries d where d.parked_at is not null) p
      join app_endpoint_gate g on g.endpoint_id = p.endpoint_id
     where app_endpoint_held(g.endpoint_id) < app_endpoint_cap(g.endpoint_id, g.ordering = 'fifo', ${config.webhooks.endpointConcurrency}::int)`;
  return rows.map((row) => row.endpoint_id);
}
