/**
 * Retention (docs/operations.md "Retention"): done deliveries (with their attempts) are kept for
 * `webhooks.retention` (default 30 days), dead ones for `webhooks.deadRetention` (90 days), both
 * counted from the delivery's creation; an event goes once none of its deliveries is left and it
 * is older than `webhooks.retention`. Pending and running deliveries are never pruned, whatever
 * their age. A null retention keeps those records forever.
 *
 * Deliveries and attempts are partitioned by week of creation (migrations/023, docs/retention.md):
 * a partition whose whole range is past a cut-off is dropped, or rewritten with only the rows it
 * must keep (dead ones still within their retention, pending and running ones), so the work is
 * that of the rows kept, not of the rows that go. A delivery therefore goes within a week after
 * its retention has passed. The legacy partition (the table as it was before partitioning) and
 * the default one (ids outside every range) are pruned row by row, as before partitioning: in
 * batches of `batch` rows (default 5,000), each its own short transaction that skips rows another
 * transaction holds (`for update skip locked`). Every prune also makes the partitions of the next
 * two weeks. The worker runs it every hour (graphile-worker cron, task `app/prune`, once across
 * all workers); `app prune` runs it by hand.
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

/** Partitions made ahead of time by every prune (migrations/023: a week wide). */
const AHEAD_MS = 14 * 86_400_000;

/** A range partition of deliveries with its attempts partition and the time its range ends at. */
interface Partition {
  deliveries: string;
  attempts: string;
  /** The first id above its range (`msg_` + ten ULID time characters). */
  upper: string;
  upperTime: Date;
  /** Whether its range starts at MINVALUE: the table as it was before partitioning. */
  legacy: boolean;
}

/** The range partitions of deliveries (the default one aside), lowest first. */
async function rangePartitions(sql: Sql): Promise<Partition[]> {
  return sql<Partition[]>`
    with parts as (
      select c.relname::text as name, p.inhparent, pg_get_expr(c.relpartbound, c.oid) as bound
        from pg_inherits p join pg_class c on c.oid = p.inhrelid
       where p.inhparent in ('app_webhook_deliveries'::regclass, 'app_webhook_attempts'::regclass)
    )
    select d.name as deliveries, a.name as attempts,
           substring(d.bound from 'TO [(]''([^'']+)''[)]') as upper,
           app_id_time_of(substring(d.bound from 'TO [(]''([^'']+)''[)]')) as "upperTime",
           d.bound like '%(MINVALUE)%' as legacy
      from parts d join parts a on a.bound = d.bound and a.inhparent = 'app_webhook_attempts'::regclass
     where d.inhparent = 'app_webhook_deliveries'::regclass and d.bound <> 'DEFAULT'
     order by upper`;
}

/**
 * Where each rule applies, as id bounds: `below.done` (`below.dead`) is the first id above the
 * highest range partition whose whole range was created before the done (dead) cut-off (null:
 * none is); `legacy` the first id above the legacy partition, `top` above the highest range.
 * Partitions are contiguous from the lowest id, so a delivery lies in a partition wholly past a
 * cut-off exactly when its id is below that bound; ids from `top` up are in the default partition.
 */
interface Bounds {
  below: { done: string | null; dead: string | null };
  legacy: string | null;
  top: string | null;
}

function boundsOf(partitions: Partition[], cutoffs: PruneResult['cutoffs']): Bounds {
  const highestPast = (cutoff: Date | null) =>
    cutoff === null ? null : (partitions.filter((p) => p.upperTime <= cutoff).at(-1)?.upper ?? null);
  return {
    below: { done: highestPast(cutoffs.done), dead: highestPast(cutoffs.dead) },
    legacy: partitions.find((p) => p.legacy)?.upper ?? null,
    top: partitions.at(-1)?.upper ?? null,
  };
}

/**
 * The deliveries in `status` a prune removes, as SQL on alias `d`: those in partitions wholly
 * past the status's cut-off, and, in the legacy and default partitions (which hold ids of any
 * time), those created before the cut-off.
 */
function prunable(sql: Sql, status: 'done' | 'dead', cutoff: Date | null, bounds: Bounds) {
  if (cutoff === null) return sql`false`;
  const below = bounds.below[status];
  return sql`(d.status = ${status} and (
    ${below === null ? sql`false` : sql`d.id < ${below}`}
    or (d.created_at < ${cutoff} and (${bounds.legacy === null ? sql`false` : sql`d.id < ${bounds.legacy}`} or ${bounds.top === null ? sql`true` : sql`d.id >= ${bounds.top}`}))))`;
}

/** Drops or rewrites one partition wholly past a cut-off (migrations/023); answers [done, dead, attempts] removed. */
async function prunePartition(
  sql: Sql,
  partition: Partition,
  doneGone: boolean,
  deadGone: boolean,
): Promise<[number, number, number]> {
  const rows = await sql<{ done: number; dead: number; attempts: number }[]>`
    select done, dead, attempts from app_delivery_partition_prune(${partition.deliveries}, ${partition.attempts}, ${doneGone}, ${deadGone})`;
  return rows.length === 0 ? [0, 0, 0] : [rows[0].done, rows[0].dead, rows[0].attempts];
}

/**
 * Deletes one batch of deliveries in `status` past `cutoff` from the legacy and default
 * partitions (the only ones where a row can be past a cut-off its partition is not wholly past);
 * answers [deliveries, attempts]. Attempts go with their delivery (a trigger, migrations/023).
 */
async function deleteDeliveryBatch(
  sql: Sql,
  status: 'done' | 'dead',
  cutoff: Date,
  bounds: Bounds,
  batch: number,
): Promise<[number, number]> {
  const rowRule = { ...bounds, below: { done: null, dead: null } };
  const [row] = await sql<{ deliveries: number; attempts: number }[]>`
    with doomed as (
      select d.id from app_webhook_deliveries d
       where ${prunable(sql, status, cutoff, rowRule)}
       order by d.created_at limit ${batch}
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
async function countPrunable(
  sql: Sql,
  cutoffs: PruneResult['cutoffs'],
  bounds: Bounds,
): Promise<Omit<PruneResult, 'dryRun' | 'cutoffs'>> {
  const count = async (status: 'done' | 'dead') => {
    const [row] = await sql<{ deliveries: number; attempts: number }[]>`
      select count(*)::int as deliveries,
             coalesce(sum((select count(*) from app_webhook_attempts a where a.delivery_id = d.id)), 0)::int as attempts
        from app_webhook_deliveries d where ${prunable(sql, status, cutoffs[status], bounds)}`;
    return [row.deliveries, row.attempts];
  };
  const [[done, doneAttempts], [dead, deadAttempts]] = await Promise.all([count('done'), count('dead')]);
  let events = 0;
  if (cutoffs.events !== null) {
    // events whose every delivery is prunable now, or that have none
    [{ events }] = await sql<{ events: number }[]>`
      select count(*)::int as events from app_events e
       where e.created_at < ${cutoffs.events}
         and not exists (
           select 1 from app_webhook_deliveries d
            where d.event_id = e.id
              and not (${prunable(sql, 'done', cutoffs.done, bounds)} or ${prunable(sql, 'dead', cutoffs.dead, bounds)}))`;
  }
  return { done, dead, events, attempts: doneAttempts + deadAttempts };
}

/**
 * Prunes what retention allows (see the file comment), or with `dryRun` counts it. `now` (tests)
 * defaults to the clock; `batch` bounds each transaction of the row-by-row part.
 */
export async function prune(
  deps: PruneDeps,
  options: { dryRun?: boolean; now?: number; batch?: number } = {},
): Promise<PruneResult> {
  const { sql, config, log } = deps;
  const now = options.now ?? Date.now();
  const batch = options.batch ?? 5_000;
  const cutoffs = {
    done: before(now, config.webhooks.retention),
    dead: before(now, config.webhooks.deadRetention),
    events: before(now, config.webhooks.retention),
  };
  if (!options.dryRun) await sql`select app_delivery_partitions_ensure(${new Date(now + AHEAD_MS)})`;
  const partitions = await rangePartitions(sql);
  const bounds = boundsOf(partitions, cutoffs);
  if (options.dryRun) return { ...(await countPrunable(sql, cutoffs, bounds)), dryRun: true, cutoffs };
  const result: PruneResult = { done: 0, dead: 0, events: 0, attempts: 0, dryRun: false, cutoffs };
  for (const partition of partitions) {
    const doneGone = cutoffs.done !== null && partition.upperTime <= cutoffs.done;
    const deadGone = cutoffs.dead !== null && partition.upperTime <= cutoffs.dead;
    if (!doneGone && !deadGone) continue;
    const [done, dead, attempts] = await prunePartition(sql, partition, doneGone, deadGone);
    result.done += done;
    result.dead += dead;
    result.attempts += attempts;
  }
  for (const status of ['done', 'dead'] as const) {
    const cutoff = cutoffs[status];
    if (cutoff === null) continue;
    for (;;) {
      const [deliveries, attempts] = await deleteDeliveryBatch(sql, status, cutoff, bounds, batch);
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
    log.info(
      { done: result.done, dead: result.dead, events: result.events, attempts: result.attempts },
      'pruned deliveries and events past their retention',
    );
  }
  return result;
}
