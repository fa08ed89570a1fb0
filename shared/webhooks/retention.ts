/**
 * Retention (README "Retention"): done deliveries (with their attempts) are kept for
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
 *
 * Events are checked only where deliveries went, so the work is that of what the prune removed,
 * not of every old event still kept by a delivery. An event and its deliveries are written at one
 * time (shared/webhooks/events/enqueue.ts) and their ids carry it, so the events of a partition's
 * deliveries have ids in the same range (`evt_` instead of `msg_`): when a partition is dropped or
 * rewritten, the events of its range past `webhooks.retention` with no delivery left go in one
 * statement, and when deliveries go row by row, their events are checked. Deliveries can also go
 * otherwise (an endpoint removed takes its deliveries): so every prune checks one more range of
 * those wholly past `webhooks.retention` in turn (by the hour), and such an event goes within as
 * many hours as there are such ranges.
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
  /** Milliseconds spent dropping and rewriting partitions, deleting rows one by one (legacy and default partitions), and removing events. */
  timings: { partitions: number; rows: number; events: number };
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

/** Event ids from `lo` (null: the lowest) to below `hi` (null: the highest). */
interface EventRange {
  lo: string | null;
  hi: string | null;
}

/** The event ids of the deliveries below a partition bound: the same time characters after `evt_`. */
const eventBound = (bound: string | null) => (bound === null ? null : `evt_${bound.slice('msg_'.length)}`);

/**
 * The event ids that go with each range partition: from the bound below it (the lowest from the
 * lowest id, so ranges of partitions dropped before are covered too) to its upper bound; and,
 * last, those above the highest (the default partition's, `upperTime` null).
 */
function eventRanges(
  partitions: Partition[],
): (EventRange & { partition: Partition | null; upperTime: Date | null })[] {
  const ranges = partitions.map((partition, i) => ({
    lo: i === 0 ? null : eventBound(partitions[i - 1].upper),
    hi: eventBound(partition.upper),
    partition,
    upperTime: partition.upperTime,
  }));
  return [...ranges, { lo: eventBound(partitions.at(-1)?.upper ?? null), hi: null, partition: null, upperTime: null }];
}

const inRange = (sql: Sql, column: string, range: EventRange) =>
  sql`(${range.lo === null ? sql`true` : sql`${sql(column)} >= ${range.lo}`} and ${range.hi === null ? sql`true` : sql`${sql(column)} < ${range.hi}`})`;

/**
 * The range of events a prune at `now` checks in turn, whatever it removed: one of those wholly
 * past `cutoff` and the one above the partitions, a different one each hour.
 */
function rotatingRange(ranges: ReturnType<typeof eventRanges>, cutoff: Date, now: number): EventRange | undefined {
  const old = ranges.filter((range) => range.upperTime === null || range.upperTime <= cutoff);
  return old[Math.floor(now / 3_600_000) % old.length];
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
): Promise<[number, number, string[]]> {
  const rowRule = { ...bounds, below: { done: null, dead: null } };
  const [row] = await sql<{ deliveries: number; attempts: number; events: string[] }[]>`
    with doomed as (
      select d.id from app_webhook_deliveries d
       where ${prunable(sql, status, cutoff, rowRule)}
       order by d.created_at limit ${batch}
       for update skip locked
    ), counted as (
      select count(*)::int as attempts from app_webhook_attempts a join doomed on a.delivery_id = doomed.id
    ), gone as (
      delete from app_webhook_deliveries d using doomed where d.id = doomed.id returning d.event_id
    )
    select (select count(*)::int from gone) as deliveries, (select attempts from counted) as attempts,
           array(select distinct event_id from gone) as events`;
  return [row.deliveries, row.attempts, row.events];
}

/**
 * Deletes the events of `range` created before `cutoff` that have no delivery left, in one
 * statement: the deliveries of those events are read once through the event index (of every
 * partition: a delivery of an event elsewhere than its time's partition still counts), then the
 * range of events is read through its primary key. The work is that of the range.
 */
async function deleteEventRange(sql: Sql, cutoff: Date, range: EventRange): Promise<number> {
  const [row] = await sql<{ events: number }[]>`
    with kept as materialized (
      select distinct d.event_id from app_webhook_deliveries d where ${inRange(sql, 'd.event_id', range)}
    ), gone as (
      delete from app_events e
       where ${inRange(sql, 'e.id', range)} and e.created_at < ${cutoff}
         and not exists (select 1 from kept where kept.event_id = e.id)
      returning 1
    )
    select count(*)::int as events from gone`;
  return row.events;
}

/** Deletes those of events `ids` created before `cutoff` that have no delivery left (the events of deliveries deleted row by row). */
async function deleteEventsOf(sql: Sql, cutoff: Date, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const [row] = await sql<{ events: number }[]>`
    with gone as (
      delete from app_events e
       where e.id = any(${ids}::text[]) and e.created_at < ${cutoff}
         and not exists (select 1 from app_webhook_deliveries d where d.event_id = e.id)
      returning 1
    )
    select count(*)::int as events from gone`;
  return row.events;
}

/** Whether partition `partition` holds deliveries of `status` (through its `(status, created_at)` index): whether a prune past that status's cut-off has work there. */
async function holds(sql: Sql, partition: Partition, status: 'done' | 'dead'): Promise<boolean> {
  const [row] = await sql<
    { found: boolean }[]
  >`select exists (select 1 from ${sql(partition.deliveries)} where status = ${status}) as found`;
  return row.found;
}

/** What a prune would remove, without removing it. */
async function countPrunable(
  sql: Sql,
  cutoffs: PruneResult['cutoffs'],
  partitions: Partition[],
  bounds: Bounds,
  now: number,
): Promise<Omit<PruneResult, 'dryRun' | 'cutoffs' | 'timings'>> {
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
    // the events a prune checks (the ranges of the partitions it would drop or rewrite, the range
    // of this hour, the events of deliveries it would delete row by row) whose every delivery is
    // prunable now
    const ranges: EventRange[] = [];
    for (const range of eventRanges(partitions)) {
      const p = range.partition;
      if (p === null) continue;
      const doneGone = cutoffs.done !== null && p.upperTime <= cutoffs.done && (await holds(sql, p, 'done'));
      const deadGone = cutoffs.dead !== null && p.upperTime <= cutoffs.dead && (await holds(sql, p, 'dead'));
      if (doneGone || deadGone) ranges.push(range);
    }
    const turn = rotatingRange(eventRanges(partitions), cutoffs.events, now);
    if (turn) ranges.push(turn);
    const rowRule = { ...bounds, below: { done: null, dead: null } };
    [{ events }] = await sql<{ events: number }[]>`
      select count(*)::int as events from app_events e
       where e.created_at < ${cutoffs.events}
         and (${ranges.reduce((any, range) => sql`${any} or ${inRange(sql, 'e.id', range)}`, sql`false`)}
              or e.id in (select d.event_id from app_webhook_deliveries d
                           where ${prunable(sql, 'done', cutoffs.done, rowRule)} or ${prunable(sql, 'dead', cutoffs.dead, rowRule)}))
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
  if (options.dryRun) {
    return {
      ...(await countPrunable(sql, cutoffs, partitions, bounds, now)),
      dryRun: true,
      cutoffs,
      timings: { partitions: 0, rows: 0, events: 0 },
    };
  }
  const result: PruneResult = {
    done: 0,
    dead: 0,
    events: 0,
    attempts: 0,
    dryRun: false,
    cutoffs,
    timings: { partitions: 0, rows: 0, events: 0 },
  };
  const ranges = eventRanges(partitions);
  const swept = new Set<EventRange>();
  const sweep = async (range: EventRange) => {
    if (cutoffs.events === null || swept.has(range)) return;
    swept.add(range);
    const started = performance.now();
    result.events += await deleteEventRange(sql, cutoffs.events, range);
    result.timings.events += performance.now() - started;
  };
  for (const range of ranges) {
    const partition = range.partition;
    if (partition === null) continue;
    const doneGone = cutoffs.done !== null && partition.upperTime <= cutoffs.done;
    const deadGone = cutoffs.dead !== null && partition.upperTime <= cutoffs.dead;
    if (!doneGone && !deadGone) continue;
    const started = performance.now();
    // most hours a partition past a cut-off has nothing more to lose: a look into its status
    // index says so, where the function would count its rows
    const due =
      (doneGone && (await holds(sql, partition, 'done'))) || (deadGone && (await holds(sql, partition, 'dead')));
    const [done, dead, attempts] = due ? await prunePartition(sql, partition, doneGone, deadGone) : [0, 0, 0];
    result.timings.partitions += performance.now() - started;
    result.done += done;
    result.dead += dead;
    result.attempts += attempts;
    if (done + dead > 0) await sweep(range);
  }
  for (const status of ['done', 'dead'] as const) {
    const cutoff = cutoffs[status];
    if (cutoff === null) continue;
    for (;;) {
      let started = performance.now();
      const [deliveries, attempts, events] = await deleteDeliveryBatch(sql, status, cutoff, bounds, batch);
      result.timings.rows += performance.now() - started;
      result[status] += deliveries;
      result.attempts += attempts;
      if (cutoffs.events !== null) {
        started = performance.now();
        result.events += await deleteEventsOf(sql, cutoffs.events, events);
        result.timings.events += performance.now() - started;
      }
      if (deliveries < batch) break;
    }
  }
  if (cutoffs.events !== null) {
    const turn = rotatingRange(ranges, cutoffs.events, now);
    if (turn) await sweep(turn);
  }
  if (result.done + result.dead + result.events > 0) {
    log.info(
      { done: result.done, dead: result.dead, events: result.events, attempts: result.attempts },
      'pruned deliveries and events past their retention',
    );
  }
  return result;
}
