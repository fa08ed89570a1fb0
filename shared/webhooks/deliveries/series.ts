/**
 * Deliveries over time, for the console's charts and the GraphQL fields behind them: per bucket
 * of a window (the last 24 hours per hour, or the last hour per minute), the attempts that
 * started in it by outcome, and the p50 and p95 of their durations. Counted from the attempts
 * table, whose rows say what each attempt decided:
 *
 * - `done`: attempts the receiver accepted (2xx), i.e. deliveries delivered in that bucket;
 * - `failed`: failed attempts that will be tried again (outcome `retry`);
 * - `dead`: failed attempts after which the delivery was given up (outcome `dead`), i.e.
 *   deliveries that died in that bucket. A delivery made dead without being sent (its endpoint
 *   disabled) has no attempt and is not counted here (the dead counts of health.ts are).
 *
 * Latency is every attempt's duration, whatever its outcome. One statement per series, scoped
 * like every read, after `webhooks.read` is allowed: a member sees its own owner's endpoints'
 * attempts only.
 */
import type { Fragment } from '../../db/bounded-total.ts';
import type { Sql } from '../../db/connect.ts';
import { readScope, type Actor } from '../../access/actor.ts';
import { ownerFilter } from '../../access/tenant-scope.ts';
import { transaction } from '../../db/transaction.ts';

/** The windows a chart offers: how wide a bucket is and how many there are. */
export const SERIES_WINDOWS = Object.freeze({
  /** The last 24 hours, per hour (the current hour last). */
  day: Object.freeze({ stepMs: 3_600_000, buckets: 24 }),
  /** The last hour, per minute (the current minute last). */
  hour: Object.freeze({ stepMs: 60_000, buckets: 60 }),
});

export type SeriesWindow = keyof typeof SERIES_WINDOWS;

/** What a bucket (or the whole window) holds. */
export interface SeriesFigures {
  done: number;
  failed: number;
  dead: number;
  /** done + failed + dead. */
  attempts: number;
  /** Percentiles of the attempts' durations in ms (continuous, to 0.1 ms); null when nothing was attempted. */
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface SeriesBucket extends SeriesFigures {
  /** When the bucket starts; it ends where the next one starts. */
  start: Date;
}

export interface DeliverySeries {
  window: SeriesWindow;
  stepMs: number;
  /** The window: from the first bucket's start, up to (not including) `until`. */
  from: Date;
  until: Date;
  /** Every bucket of the window in time order, those without attempts at zero. */
  buckets: SeriesBucket[];
  /** The whole window (its percentiles are those of all its attempts, not of the buckets'). */
  totals: SeriesFigures;
}

/** The buckets of `window` at `now`: aligned on whole steps since the epoch, the one holding `now` last. */
export function seriesGrid(
  window: SeriesWindow,
  now: Date,
): { from: Date; until: Date; stepMs: number; count: number } {
  const { stepMs, buckets } = SERIES_WINDOWS[window];
  const until = (Math.floor(now.getTime() / stepMs) + 1) * stepMs;
  return { from: new Date(until - buckets * stepMs), until: new Date(until), stepMs, count: buckets };
}

/** A row of the series statement: one bucket's figures, or the window's (`start` null). */
export interface SeriesRow {
  start: Date | null;
  done: number;
  failed: number;
  dead: number;
  p50: number | null;
  p95: number | null;
}

const figures = (row: SeriesRow | undefined): SeriesFigures => ({
  done: row?.done ?? 0,
  failed: row?.failed ?? 0,
  dead: row?.dead ?? 0,
  attempts: (row?.done ?? 0) + (row?.failed ?? 0) + (row?.dead ?? 0),
  p50Ms: row?.p50 ?? null,
  p95Ms: row?.p95 ?? null,
});

/**
 * The series of `window` at `now` from the statement's rows: one bucket per step of the grid, in
 * time order, a bucket no row names at zero (percentiles null); rows outside the grid are ignored.
 */
export function fillSeries(window: SeriesWindow, now: Date, rows: readonly SeriesRow[]): DeliverySeries {
  const grid = seriesGrid(window, now);
  const byStart = new Map(rows.filter((row) => row.start !== null).map((row) => [row.start?.getTime(), row]));
  const buckets = Array.from({ length: grid.count }, (_, index) => {
    const start = new Date(grid.from.getTime() + index * grid.stepMs);
    return { start, ...figures(byStart.get(start.getTime())) };
  });
  return {
    window,
    stepMs: grid.stepMs,
    from: grid.from,
    until: grid.until,
    buckets,
    totals: figures(rows.find((row) => row.start === null)),
  };
}

export interface SeriesQuery {
  window: SeriesWindow;
  /** One endpoint's attempts (in scope; one out of scope counts nothing). */
  endpoint?: string;
  /**
   * The endpoints of one owner; null: those without owner. A caller bound to one tenant has its
   * own, and naming another is 404 `APP_TENANT_NOT_FOUND` (tenant-scope.ts `ownerFilter`).
   */
  owner?: string | null;
  /** The time the window ends at (its bucket last); default now. */
  now?: Date;
}

/**
 * The delivery series of `query.window` in the actor's scope (403 `APP_FORBIDDEN` first to a
 * grant that may not read webhooks). One statement over the attempts started in
 * the window, read through the attempts' `started_at` index (migration 030). An attempt never
 * starts before its delivery was made, and a delivery's id carries that time, so the partitions of
 * deliveries made after the window are never read. When the endpoints are narrowed (a tenant, an
 * owner, an endpoint) each attempt's delivery is needed, in two parts: the deliveries made within
 * the window (almost every attempt's: first attempts and their retries), joined in the
 * partitions of the window only; and the few attempts of deliveries made before it (a retry
 * across the window's start, a dead delivery replayed), each of whose delivery is looked up by
 * its key, so that the tenant's older deliveries are never read.
 */
export async function deliverySeries(deps: { sql: Sql }, actor: Actor, query: SeriesQuery): Promise<DeliverySeries> {
  const { sql } = deps;
  const scope = readScope(actor, 'webhooks.read');
  const now = query.now ?? new Date();
  const { from, until, stepMs } = seriesGrid(query.window, now);
  const owner = ownerFilter(scope, query.owner);
  const lo = sql`'msg_' || app_id_time(${from}::timestamptz)`;
  const hi = sql`'msg_' || app_id_time(${until}::timestamptz)`;
  const inWindow = sql`a.started_at >= ${from}::timestamptz and a.started_at < ${until}::timestamptz`;
  const attempts =
    owner === undefined && query.endpoint === undefined
      ? sql`select a.started_at, a.outcome, a.duration_ms from app_webhook_attempts a
             where ${inWindow} and a.delivery_id < ${hi}`
      : narrowed(sql, { lo, hi, inWindow, owner, endpoint: query.endpoint });
  // planned for these very bounds every time: a generic plan (the driver's statements are
  // prepared, and PostgreSQL may switch to one after five runs) knows neither the partitions to
  // leave out nor how few attempts the window holds, and reads every partition whole (a read:
  // `read only`, so it claims no request's commit)
  const rows = await transaction(
    sql,
    async (tx) => {
      await tx`set local plan_cache_mode = force_custom_plan`;
      return tx<SeriesRow[]>`
    select case when grouping(x.start) = 0 then x.start end as start,
           count(*) filter (where x.outcome = 'done')::int as done,
           count(*) filter (where x.outcome = 'retry')::int as failed,
           count(*) filter (where x.outcome = 'dead')::int as dead,
           round(percentile_cont(0.5) within group (order by x.duration_ms)::numeric, 1)::float8 as p50,
           round(percentile_cont(0.95) within group (order by x.duration_ms)::numeric, 1)::float8 as p95
      from (select date_bin(${stepMs} * interval '1 millisecond', w.started_at, ${from}::timestamptz) as start,
                   w.outcome, w.duration_ms
              from (${attempts}) w) x
     group by rollup (x.start)`;
    },
    'read only',
  );
  return fillSeries(query.window, now, rows);
}

/** The attempts of the window whose delivery's endpoint is `endpoint`, or one of `owner`'s (null: without owner), or both. */
function narrowed(
  sql: Sql,
  parts: { lo: Fragment; hi: Fragment; inWindow: Fragment; owner?: string | null; endpoint?: string },
): Fragment {
  const { lo, hi, inWindow, owner, endpoint } = parts;
  // an owner's attempts are those of its own events: an endpoint moved from another tenant keeps
  // that tenant's history out of the new one's charts
  const ownersOwn = owner === undefined ? sql`true` : owner === null ? sql`d.owner is null` : sql`d.owner = ${owner}`;
  const endpoints =
    owner === undefined
      ? sql`select ${endpoint ?? null}::text`
      : sql`select g.endpoint_id from app_endpoint_gate g
             where ${owner === null ? sql`g.owner is null` : sql`g.owner = ${owner}`}
               ${endpoint === undefined ? sql`` : sql`and g.endpoint_id = ${endpoint}`}`;
  return sql`
    select a.started_at, a.outcome, a.duration_ms
      from app_webhook_deliveries d join app_webhook_attempts a on a.delivery_id = d.id
     where d.id >= ${lo} and d.id < ${hi} and a.delivery_id >= ${lo} and a.delivery_id < ${hi}
       and ${inWindow} and d.endpoint_id in (${endpoints}) and ${ownersOwn}
    union all
    select a.started_at, a.outcome, a.duration_ms
      from app_webhook_attempts a
     where ${inWindow} and a.delivery_id < ${lo}
       and (select d.endpoint_id from app_webhook_deliveries d where d.id = a.delivery_id and ${ownersOwn}) in (${endpoints})`;
}
