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
 * its retention has passed. A rewrite is cut into short steps (migrations/026: the copy a slice at
 * a time, each key and index, the vacuum and analyze, the count, the swap), and every prune starts
 * steps for `budgetMs` (default PRUNE_BUDGET_MS) before leaving the rest to the next: so no prune
 * takes long whatever the size of a week. The steps start two days ahead of the cut-off (LEAD_MS), and in the hour it
 * passes only the swap is left. The legacy partition (the table as it was before partitioning)
 * and the default one (ids outside every range) are pruned row by row, as before partitioning: in
 * batches of `batch` rows (default 5,000), each its own short transaction that skips rows another
 * transaction holds (`for update skip locked`). Every prune also makes the partitions of the next
 * two weeks. The worker runs it every hour (graphile-worker cron, task `app/prune`, once across
 * all workers); `app prune` runs it by hand.
 *
 * Events are checked only where deliveries went, so the work is that of what the prune removed,
 * not of every old event still kept by a delivery. An event and its deliveries are written at one
 * time (shared/webhooks/events/enqueue.ts) and their ids carry it, so the events of a partition's
 * deliveries have ids in the same range (`evt_` instead of `msg_`): when a partition is dropped or
 * rewritten, the events of its range past `webhooks.retention` with no delivery left go, a slice
 * of the range at a time (app_event_sweeps, within the same budget), and when deliveries go row by
 * row, their events are checked. Deliveries can also go otherwise (an endpoint removed takes its
 * deliveries): so every prune adds one more range of those wholly past `webhooks.retention` in
 * turn (by the hour), and such an event goes within as many hours as there are such ranges.
 *
 * One prune runs at a time per database (prune-lock.ts): one that finds another running removes
 * nothing and says so (`skipped`).
 */
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import { type StillHeld, whileNoOtherPrune } from './prune-lock.ts';

/** The graphile-worker task that prunes, and when it runs (every hour, on the hour). */
export const PRUNE_TASK = 'app/prune';
export const PRUNE_SCHEDULE = '0 * * * *';

/**
 * How long a prune starts new steps for, in milliseconds: past it, what is left (a rewrite's
 * steps, slices of events, batches of rows) waits for the next prune. A prune takes its budget
 * and one step at most, and a long step (a whole table over 8 MB read or built) only starts in the
 * first half of it: at 10 million deliveries a step takes up to a few hundred milliseconds (an
 * index of a week's kept rows built, a slice copied), so a prune stays under a second
 * (BENCHMARKS.md, "Retention by partition": 0.38 s the slowest).
 */
export const PRUNE_BUDGET_MS = 300;

/**
 * How long before a partition passes a cut-off its rewrite is prepared (every step but the swap):
 * at 10 million deliveries a week's steps take about 3 seconds, about ten of the 48 prunes before
 * the cut-off (BENCHMARKS.md), so a busier machine, or a worker stopped for a day, still finds
 * the rewrite ready when the cut-off passes.
 */
export const LEAD_MS = 48 * 3_600_000;

/** Blocks (8 kB) of a partition one copy step reads (its deliveries kept copied with their attempts). */
const COPY_BLOCKS = 2_048;

/** Event ids one step of a sweep checks. */
const SWEEP_EVENTS = 10_000;

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
  /**
   * Milliseconds spent dropping and rewriting partitions, deleting rows one by one (legacy and
   * default partitions), and removing events; and the longest step (what a prune may take past
   * its budget).
   */
  timings: { partitions: number; rows: number; events: number; longestStep: number };
  /** Steps that did work (of rewrites, event sweeps, row batches). */
  steps: number;
  /** Whether the budget ran out with work left, which the next prunes take up. */
  remaining: boolean;
  /** Whether another prune was running, so this one removed nothing and left the work to it. */
  skipped: boolean;
}

interface PruneDeps {
  config: Pick<Config, 'webhooks' | 'databaseUrl' | 'db'>;
  sql: Sql;
  log: Logger;
}

const before = (now: number, ms: number | null) => (ms === null ? null : new Date(now - ms));

/** Partitions made ahead of time by every prune (migrations/023: a week wide). */
const AHEAD_MS = 14 * 86_400_000;

/**
 * The `application_name` pg_dump gives its sessions. While one reads the database it holds a
 * share lock on every table until it ends (minutes, for a large database): a partition step's
 * exclusive lock would wait behind it, and every emit and claim behind that wait, half a second at
 * each of its asks (app_lock_patiently, migrations/023) until it gave up some 80 s later.
 */
export const DUMP_APPLICATION = 'pg_dump';

/** Whether a pg_dump (any of its sessions) is reading this database now. */
async function dumpReading(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ reading: boolean }[]>`
    select exists (
      select 1 from pg_stat_activity
       where datname = current_database() and application_name = ${DUMP_APPLICATION} and pid <> pg_backend_pid()
    ) as reading`;
  return row.reading;
}

/** A range partition of deliveries with its attempts partition and the time its range ends at. */
interface Partition {
  deliveries: string;
  attempts: string;
  /** The first id of its range; null for the legacy partition (from MINVALUE). */
  lower: string | null;
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
           substring(d.bound from 'FROM [(]''([^'']+)''[)]') as lower,
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
 * `gaps` are the ranges below `top` that no range partition holds: those of weeks dropped whole
 * (and, once it is dropped, the legacy partition's). An id falls in one when written by a clock
 * behind the worker's (a web process writing into a week the prune has just dropped); its row lies
 * in the default partition, where the rules apply row by row. So a delivery lies in a partition
 * wholly past a cut-off exactly when its id is below that bound and in no gap; ids from `top` up,
 * and those in a gap, are in the default partition.
 */
interface Bounds {
  below: { done: string | null; dead: string | null };
  legacy: string | null;
  top: string | null;
  gaps: { lo: string | null; hi: string }[];
}

function boundsOf(partitions: Partition[], cutoffs: PruneResult['cutoffs']): Bounds {
  const highestPast = (cutoff: Date | null) =>
    cutoff === null ? null : (partitions.filter((p) => p.upperTime <= cutoff).at(-1)?.upper ?? null);
  return {
    below: { done: highestPast(cutoffs.done), dead: highestPast(cutoffs.dead) },
    legacy: partitions.find((p) => p.legacy)?.upper ?? null,
    top: partitions.at(-1)?.upper ?? null,
    gaps: partitions.flatMap((p, i) => {
      const under = i === 0 ? null : partitions[i - 1].upper;
      return p.lower === under || p.lower === null ? [] : [{ lo: under, hi: p.lower }];
    }),
  };
}

/**
 * Event ids from `lo` (null: the lowest) to below `hi` (null: the highest); with `after`, only
 * those above it (where a sweep of the range stopped).
 */
interface EventRange {
  lo: string | null;
  hi: string | null;
  after?: string | null;
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
  sql`(${
    range.after
      ? sql`${sql(column)} > ${range.after}`
      : range.lo === null
        ? sql`true`
        : sql`${sql(column)} >= ${range.lo}`
  } and ${range.hi === null ? sql`true` : sql`${sql(column)} < ${range.hi}`})`;

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
 * time, the default one those of the gaps too), those created before the cut-off.
 */
function prunable(sql: Sql, status: 'done' | 'dead', cutoff: Date | null, bounds: Bounds) {
  if (cutoff === null) return sql`false`;
  const below = bounds.below[status];
  const inGap = bounds.gaps.reduce(
    (any, gap) => sql`${any} or (${gap.lo === null ? sql`true` : sql`d.id >= ${gap.lo}`} and d.id < ${gap.hi})`,
    sql`false`,
  );
  return sql`(d.status = ${status} and (
    ${below === null ? sql`false` : sql`(d.id < ${below} and not (${inGap}))`}
    or (d.created_at < ${cutoff} and (${bounds.legacy === null ? sql`false` : sql`d.id < ${bounds.legacy}`} or ${bounds.top === null ? sql`true` : sql`d.id >= ${bounds.top}`} or ${inGap}))))`;
}

type Status = 'pending' | 'running' | 'done' | 'dead';

/** In this order everywhere, so a plan compares with the one recorded for a rewrite under way. */
const STATUSES: readonly Status[] = ['pending', 'running', 'done', 'dead'];

/**
 * What to do with a range partition: keep the deliveries of `keep` and remove the rest, now
 * (`swap`: its range is past a cut-off and it holds rows that go) or, before the cut-off, prepare
 * it (its range passes a cut-off within LEAD_MS).
 */
interface Plan {
  partition: Partition;
  events: EventRange;
  keep: Status[];
  swap: boolean;
}

/** The statuses partition `partition` keeps at `time`: pending and running always, done and dead while its range is within their retention. */
function keptAt(config: PruneDeps['config'], partition: Partition, time: number): Status[] {
  const retention = { done: config.webhooks.retention, dead: config.webhooks.deadRetention };
  return STATUSES.filter((status) => {
    if (status === 'pending' || status === 'running') return true;
    const ms = retention[status];
    return ms === null || partition.upperTime.getTime() > time - ms;
  });
}

/** The plan for each range partition with work now or within LEAD_MS, lowest first. */
async function plansOf(
  sql: Sql,
  config: PruneDeps['config'],
  ranges: ReturnType<typeof eventRanges>,
  now: number,
): Promise<Plan[]> {
  const goneAt = (partition: Partition, time: number) =>
    STATUSES.filter((status) => !keptAt(config, partition, time).includes(status)) as ('done' | 'dead')[];
  const candidates = ranges.filter(
    (range): range is typeof range & { partition: Partition } =>
      range.partition !== null && goneAt(range.partition, now + LEAD_MS).length > 0,
  );
  if (candidates.length === 0) return [];
  // most hours a partition past a cut-off has nothing more to lose: a look into its status index
  // says so (for every partition in one statement)
  const held = new Map(
    (
      await sql<{ deliveries: string; done: boolean; dead: boolean }[]>`${candidates
        .map(
          ({ partition }) =>
            sql`select ${partition.deliveries}::text as deliveries,
                       exists (select 1 from ${sql(partition.deliveries)} where status = 'done') as done,
                       exists (select 1 from ${sql(partition.deliveries)} where status = 'dead') as dead`,
        )
        .reduce((all, one) => sql`${all} union all ${one}`)}`
    ).map((row) => [row.deliveries, row]),
  );
  const plans: Plan[] = [];
  for (const range of candidates) {
    const holding = held.get(range.partition.deliveries);
    for (const [time, swap] of [
      [now, true],
      [now + LEAD_MS, false],
    ] as const) {
      if (holding && goneAt(range.partition, time).some((status) => holding[status])) {
        plans.push({
          partition: range.partition,
          events: { lo: range.lo, hi: range.hi },
          keep: keptAt(config, range.partition, time),
          swap,
        });
        break;
      }
    }
  }
  return plans;
}

/**
 * One step of a partition's rewrite (migrations/026); answers the step and what a swap or drop
 * removed. `long`: whether a long step (a whole table over 8 MB read or built) may start. The step
 * that vacuums a new table is the caller's (VACUUM cannot run in a function): run here, then
 * recorded.
 */
async function rewriteStep(
  sql: Sql,
  partition: { deliveries: string; attempts: string },
  keep: Status[] | null,
  swap: boolean,
  events: EventRange,
  blocks: number,
  long: boolean,
): Promise<{ step: string; done: number; dead: number; attempts: number }> {
  const [row] = await sql<{ step: string; done: number; dead: number; attempts: number; target: string | null }[]>`
    select step, done, dead, attempts, target
      from app_delivery_partition_rewrite(${partition.deliveries}, ${partition.attempts}, ${keep}::text[], ${swap},
                                          ${blocks}, ${events.lo}, ${events.hi}, ${long})`;
  // the new tables' estimates of an owner, before their rows are analyzed (migrations/031)
  if (row.step === 'started') await sql`select app_owner_estimates()`;
  if (row.step === 'vacuum' && row.target !== null) {
    await sql`vacuum ${sql(row.target)}`;
    // the first new table, then the second (two prunes at once may both have vacuumed one)
    await sql`
      update app_delivery_rewrites
         set vacuumed = greatest(vacuumed, case when ${row.target} = attempts || '_keep' then 2 else 1 end)
       where deliveries = ${partition.deliveries}`;
  }
  return row;
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

/** A range of events left to check (app_event_sweeps, migrations/026). */
interface Sweep extends EventRange {
  id: string;
}

/**
 * One step of a sweep: the next `size` events of its range, those created before `cutoff` with no
 * delivery left deleted. The deliveries of those events are read once through the event index (of
 * every partition: a delivery of an event elsewhere than its time's partition still counts), then
 * the events through their primary key: the work is that of the slice. Moves the sweep on past the
 * slice, or ends it when the slice was the last; answers the events deleted and where the next
 * step starts (null: the sweep ended).
 */
async function sweepStep(sql: Sql, cutoff: Date, sweep: Sweep, size: number): Promise<[number, string | null]> {
  const [row] = await sql<{ events: number; after: string | null }[]>`
    with slice as materialized (
      select e.id from app_events e where ${inRange(sql, 'e.id', sweep)} order by e.id limit ${size}
    ), bounds as materialized (
      select min(id) as lo, max(id) as hi, count(*) as n from slice
    ), kept as materialized (
      select distinct d.event_id from app_webhook_deliveries d
       where d.event_id >= (select lo from bounds) and d.event_id <= (select hi from bounds)
    ), gone as (
      delete from app_events e
       where e.id >= (select lo from bounds) and e.id <= (select hi from bounds) and e.created_at < ${cutoff}
         and not exists (select 1 from kept where kept.event_id = e.id)
      returning 1
    ), moved as (
      update app_event_sweeps s set after = b.hi from bounds b where s.id = ${sweep.id} and b.n = ${size} returning 1
    ), ended as (
      delete from app_event_sweeps s using bounds b where s.id = ${sweep.id} and b.n < ${size} returning 1
    )
    select (select count(*) from gone)::int as events,
           case when exists (select 1 from ended) then null else (select hi from bounds) end as after`;
  return [row.events, row.after];
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

/** The sweeps of events queued, oldest first. */
const sweepsQueued = (sql: Sql) => sql<Sweep[]>`select id::text as id, lo, hi, after from app_event_sweeps order by id`;

/** What a prune would remove, without removing it (over as many prunes as its budget needs). */
async function countPrunable(
  sql: Sql,
  config: PruneDeps['config'],
  cutoffs: PruneResult['cutoffs'],
  partitions: Partition[],
  bounds: Bounds,
  now: number,
): Promise<Pick<PruneResult, 'done' | 'dead' | 'events' | 'attempts'>> {
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
    // the events a prune checks (the ranges of the partitions it would drop or rewrite, those
    // queued, the range of this hour, the events of deliveries it would delete row by row) whose
    // every delivery is prunable now
    const ranges: EventRange[] = (await plansOf(sql, config, eventRanges(partitions), now))
      .filter((plan) => plan.swap)
      .map((plan) => plan.events);
    ranges.push(...(await sweepsQueued(sql)));
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

/** The database server's time now, in milliseconds since the epoch. */
async function databaseClock(sql: PruneDeps['sql']): Promise<number> {
  const [{ ms }] = await sql<{ ms: number }[]>`select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms`;
  return ms;
}

/** The cut-offs of a prune at `now`: records created before them go (null: kept forever). */
const cutoffsAt = (config: PruneDeps['config'], now: number): PruneResult['cutoffs'] => ({
  done: before(now, config.webhooks.retention),
  dead: before(now, config.webhooks.deadRetention),
  events: before(now, config.webhooks.retention),
});

/** What a prune removes, its steps and timings all naught: where the counts of a prune start. */
const nothingPruned = (cutoffs: PruneResult['cutoffs'], dryRun: boolean): PruneResult => ({
  done: 0,
  dead: 0,
  events: 0,
  attempts: 0,
  dryRun,
  cutoffs,
  timings: { partitions: 0, rows: 0, events: 0, longestStep: 0 },
  steps: 0,
  remaining: false,
  skipped: false,
});

type PruneOptions = {
  dryRun?: boolean;
  now?: number;
  batch?: number;
  budgetMs?: number;
  copyBlocks?: number;
  sweepEvents?: number;
};

/**
 * Prunes what retention allows (see the file comment), or with `dryRun` counts it. `now` (tests)
 * defaults to the database's clock (the one that wrote every row's `created_at`); `batch` bounds each transaction of the row-by-row part; `budgetMs`
 * (default PRUNE_BUDGET_MS) is how long the prune starts new steps for (it always takes one, so
 * every prune moves on); `copyBlocks` and `sweepEvents` size a copy step and an events step.
 *
 * In order: the partitions whose cut-off has passed (swapped or dropped, or their rewrite moved
 * on), the rows one by one, the old tables of a swap dropped, the rewrites of partitions whose
 * cut-off comes within LEAD_MS, then the events: the long steps of a rewrite come early in a prune,
 * and events, in short steps, take what the budget leaves. What it leaves goes to the next prune
 * (`remaining`). While a pg_dump reads the database the partitions are left alone, their work and
 * the weeks ahead put off to a later prune (DUMP_APPLICATION); rows and events are pruned as ever.
 * With another prune running (prune-lock.ts), it removes nothing and answers `skipped`.
 */
export async function prune(deps: PruneDeps, options: PruneOptions = {}): Promise<PruneResult> {
  // a dry run changes nothing: it needs no lock, and counts what a prune would find now
  if (options.dryRun) return pruneNow(deps, options);
  const result = await whileNoOtherPrune(deps, (stillHeld) => pruneNow(deps, options, stillHeld));
  if (result !== undefined) return result;
  deps.log.info('another prune is running: this one removed nothing and leaves the work to it');
  const now = options.now ?? (await databaseClock(deps.sql));
  return { ...nothingPruned(cutoffsAt(deps.config, now), false), skipped: true };
}

/**
 * {@link prune} once it is the only one running (or counting, with `dryRun`); with `stillHeld`,
 * it stops before a step once the prune lock is no longer its own (`remaining`).
 */
async function pruneNow(deps: PruneDeps, options: PruneOptions, stillHeld?: StillHeld): Promise<PruneResult> {
  const { sql, config, log } = deps;
  const began = performance.now();
  // the database's clock, which wrote every row's created_at: a worker whose clock runs ahead
  // would otherwise prune early by as much (whole weeks of dead deliveries still kept, past a week)
  const now = options.now ?? (await databaseClock(sql));
  const batch = options.batch ?? 5_000;
  const budget = options.budgetMs ?? PRUNE_BUDGET_MS;
  const cutoffs = cutoffsAt(config, now);
  // a dump reading the database: the partitions' work (every step that locks a table) waits for a
  // later prune; the weeks are made two weeks ahead and rewrites prepared two days ahead, so an
  // hour put off costs nothing
  const dumping = !options.dryRun && (await dumpReading(sql));
  if (dumping) log.info('a pg_dump is reading the database: the partitions wait for the next prune');
  if (!options.dryRun && !dumping) {
    await sql`select app_delivery_partitions_ensure(${new Date(now + AHEAD_MS)})`;
    // the weeks just made are told that owners are many, as every partition is (migrations/031)
    await sql`select app_owner_estimates()`;
  }
  const partitions = await rangePartitions(sql);
  const bounds = boundsOf(partitions, cutoffs);
  if (options.dryRun)
    return { ...nothingPruned(cutoffs, true), ...(await countPrunable(sql, config, cutoffs, partitions, bounds, now)) };
  const result: PruneResult = { ...nothingPruned(cutoffs, false), remaining: dumping };
  let lockLost = false;
  /**
   * Whether another step may start: while the prune lock is still its own (prune-lock.ts), and
   * then until one has done work, always; then within the budget.
   */
  const mayStep = async () => {
    if (!lockLost && stillHeld && !(await stillHeld())) {
      lockLost = true;
      log.warn(
        'the prune lock was lost (its connection went): this prune stopped before its next step, and leaves the rest to the next prunes',
      );
    }
    if (!lockLost && (result.steps === 0 || performance.now() - began < budget)) return true;
    result.remaining = true;
    return false;
  };
  /**
   * Whether a long step (a key, an index, a vacuum, a count or a drop of a large table: up to
   * half a second at 10 million deliveries on a busy machine) may start: as the first step, or
   * within the first half of the budget, so that one never comes on top of a budget spent.
   */
  const mayLong = () => result.steps === 0 || performance.now() - began < budget / 2;
  /** Milliseconds since `from`, counted as a step's. */
  const stepTime = (from: number) => {
    const ms = performance.now() - from;
    result.timings.longestStep = Math.max(result.timings.longestStep, ms);
    return ms;
  };

  const ranges = eventRanges(partitions);
  let started = performance.now();
  const plans = dumping ? [] : await plansOf(sql, config, ranges, now);
  result.timings.partitions += performance.now() - started;
  const rewrite = async (plan: Plan) => {
    while (await mayStep()) {
      const started = performance.now();
      const step = await rewriteStep(
        sql,
        plan.partition,
        plan.keep,
        plan.swap,
        plan.events,
        options.copyBlocks ?? COPY_BLOCKS,
        mayLong(),
      );
      result.timings.partitions += stepTime(started);
      if (step.step === 'later') result.remaining = true;
      if (step.step === 'waiting' || step.step === 'ready' || step.step === 'gone' || step.step === 'later') return;
      result.steps += 1;
      result.done += step.done;
      result.dead += step.dead;
      result.attempts += step.attempts;
      // the old tables are dropped later (below), after what is due
      if (step.step === 'swapped' || step.step === 'dropped') return;
    }
  };

  for (const plan of plans) if (plan.swap) await rewrite(plan);

  for (const status of ['done', 'dead'] as const) {
    const cutoff = cutoffs[status];
    if (cutoff === null) continue;
    while (await mayStep()) {
      started = performance.now();
      const [deliveries, attempts, events] = await deleteDeliveryBatch(sql, status, cutoff, bounds, batch);
      result.timings.rows += stepTime(started);
      if (deliveries > 0) result.steps += 1;
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

  // the old tables of a swap or drop dropped, and a rewrite under way of a partition with nothing
  // to do now (retention made longer) abandoned
  started = performance.now();
  const underWay = dumping
    ? []
    : await sql<{ deliveries: string; attempts: string }[]>`
    select deliveries, attempts from app_delivery_rewrites order by deliveries`;
  cleanups: for (const rewrite of underWay) {
    if (plans.some((plan) => plan.partition.deliveries === rewrite.deliveries)) continue;
    for (;;) {
      if (!(await mayStep())) break cleanups;
      const from = performance.now();
      const step = await rewriteStep(sql, rewrite, null, false, { lo: null, hi: null }, 0, mayLong());
      stepTime(from);
      if (step.step === 'later') result.remaining = true;
      if (step.step !== 'cleaned' && step.step !== 'restarted') break;
      result.steps += 1;
    }
  }
  result.timings.partitions += performance.now() - started;

  for (const plan of plans) if (!plan.swap) await rewrite(plan);

  if (cutoffs.events !== null) {
    started = performance.now();
    const turn = rotatingRange(ranges, cutoffs.events, now);
    if (turn) await sql`insert into app_event_sweeps (lo, hi) values (${turn.lo}, ${turn.hi}) on conflict do nothing`;
    sweeps: for (const sweep of await sweepsQueued(sql)) {
      for (;;) {
        if (!(await mayStep())) break sweeps;
        const from = performance.now();
        const [events, after] = await sweepStep(sql, cutoffs.events, sweep, options.sweepEvents ?? SWEEP_EVENTS);
        stepTime(from);
        if (events > 0 || after !== null) result.steps += 1;
        result.events += events;
        if (after === null) break;
        sweep.after = after;
      }
    }
    result.timings.events += performance.now() - started;
  }

  if (result.done + result.dead + result.events > 0) {
    log.info(
      {
        done: result.done,
        dead: result.dead,
        events: result.events,
        attempts: result.attempts,
        remaining: result.remaining,
      },
      'pruned deliveries and events past their retention',
    );
  }
  return result;
}
