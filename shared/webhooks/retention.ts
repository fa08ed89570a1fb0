/**
 * Retention (README "Retention"): done deliveries (with their attempts) are kept for
 * `webhooks.retention` (default 30 days), dead ones for `webhooks.deadRetention` (90 days), both
 * counted from the delivery's creation; an event goes once none of its deliveries is left and it
 * is older than `webhooks.retention`. Pending and running deliveries are never pruned, whatever
 * their age. A null retention keeps those records forever.
 *
 * Pruning deletes in batches of `batch` rows (default 5,000), each its own short transaction
 * that skips rows another transaction holds (`for update skip locked`), so it never holds long
 * locks nor blocks deliveries; attempts go with their delivery (`on delete cascade`). The worker
 * runs it every hour (graphile-worker cron, task `app/prune`, once across all workers);
 * `app prune` runs it by hand.
 */
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';

/** The graphile-worker task that prunes, and when it runs (every hour, on the hour). */
export const PRUNE_TASK = 'app/prune';
export const PRUNE_SCHEDULE = '0 * * * *';

export interface PruneResult {
  /** Done deliveries removed (or, with `dryRun`, that would be). */
  done: number;
  dead: number;
  events: number;
  /** Attempts removed with their deliveries (counted before the removal). */
  attempts: number;
  dryRun: boolean;
  /** The cut-offs applied: records created before them go (null: kept forever). */
  cutoffs: { done: Date | null; dead: Date | null; events: Date | null };
}

interface PruneDeps {
  config: Pick<Config, 'webhooks'>;
  sql: Sql;
  log: Logger;
}

const before = (now: number, ms: number | null) => (ms === null ? null : new Date(now - ms));

/** Deletes one batch of deliveries in `status` created before `cutoff`; answers [deliveries, attempts]. */
async function deleteDeliveryBatch(sql: Sql, status: 'done' | 'dead', cutoff: Date, batch: number): Promise<[number, number]> {
  const [row] = await sql<{ deliveries: number; attempts: number }[]>`
    with doomed as (
      select id from app_webhook_deliveries
       where status = ${status} and created_at < ${cutoff}
       order by created_at limit ${batch}
       for update skip locked
    ), counted as (
      select count(*)::int as attempts from app_webhook_attempts a join doomed on a.delivery_id = doomed.id
    ), gone as (
      delete from app_webhook_deliveries d using doomed where d.id = doomed.id returning 1
    )
    select (select count(*)::int from gone) as deliveries, (select attempts from counted) as attempts`;
  return [row.deliveries, row.attempts];
}

/** Deletes one batch of events created before `cutoff` that have no delivery left. */
async function deleteEventBatch(sql: Sql, cutoff: Date, batch: number): Promise<number> {
  const [row] = await sql<{ events: number }[]>`
    with doomed as (
      select e.id from app_events e
       where e.created_at < ${cutoff}
         and not exists (select 1 from app_webhook_deliveries d where d.event_id = e.id)
       order by e.created_at limit ${batch}
       for update skip locked
    ), gone as (
      delete from app_events e using doomed where e.id = doomed.id returning 1
    )
    select count(*)::int as events from gone`;
  return row.events;
}

/** What a prune would remove, without removing it. */
async function countPrunable(sql: Sql, cutoffs: PruneResult['cutoffs']): Promise<Omit<PruneResult, 'dryRun' | 'cutoffs'>> {
  const count = async (status: 'done' | 'dead', cutoff: Date | null) => {
    if (cutoff === null) return [0, 0];
    const [row] = await sql<{ deliveries: number; attempts: number }[]>`
      select count(*)::int as deliveries,
             coalesce(sum((select count(*) from app_webhook_attempts a where a.delivery_id = d.id)), 0)::int as attempts
        from app_webhook_deliveries d where d.status = ${status} and d.created_at < ${cutoff}`;
    return [row.deliveries, row.attempts];
  };
  const [[done, doneAttempts], [dead, deadAttempts]] = await Promise.all([count('done', cutoffs.done), count('dead', cutoffs.dead)]);
  let events = 0;
  if (cutoffs.events !== null) {
    // events whose every delivery is prunable now, or that have none
    [{ events }] = await sql<{ events: number }[]>`
      select count(*)::int as events from app_events e
       where e.created_at < ${cutoffs.events}
         and not exists (
           select 1 from app_webhook_deliveries d
            where d.event_id = e.id
              and not (
                (d.status = 'done' and ${cutoffs.done}::timestamptz is not null and d.created_at < ${cutoffs.done}::timestamptz)
                or (d.status = 'dead' and ${cutoffs.dead}::timestamptz is not null and d.created_at < ${cutoffs.dead}::timestamptz)))`;
  }
  return { done, dead, events, attempts: doneAttempts + deadAttempts };
}

/**
 * Prunes what retention allows (see the file comment), or with `dryRun` counts it. `now` (tests)
 * defaults to the clock; `batch` bounds each transaction.
 */
export async function prune(deps: PruneDeps, options: { dryRun?: boolean; now?: number; batch?: number } = {}): Promise<PruneResult> {
  const { sql, config, log } = deps;
  const now = options.now ?? Date.now();
  const batch = options.batch ?? 5_000;
  const cutoffs = {
    done: before(now, config.webhooks.retention),
    dead: before(now, config.webhooks.deadRetention),
    events: before(now, config.webhooks.retention),
  };
  if (options.dryRun) return { ...(await countPrunable(sql, cutoffs)), dryRun: true, cutoffs };
  const result: PruneResult = { done: 0, dead: 0, events: 0, attempts: 0, dryRun: false, cutoffs };
  for (const status of ['done', 'dead'] as const) {
    const cutoff = cutoffs[status];
    if (cutoff === null) continue;
    for (;;) {
      const [deliveries, attempts] = await deleteDeliveryBatch(sql, status, cutoff, batch);
      result[status] += deliveries;
      result.attempts += attempts;
      if (deliveries < batch) break;
    }
  }
  if (cutoffs.events !== null) {
    for (;;) {
      const events = await deleteEventBatch(sql, cutoffs.events, batch);
      result.events += events;
      if (events < batch) break;
    }
  }
  if (result.done + result.dead + result.events > 0) {
    log.info({ done: result.done, dead: result.dead, events: result.events, attempts: result.attempts }, 'pruned deliveries and events past their retention');
  }
  return result;
}
