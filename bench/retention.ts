/**
 * `npm run bench:retention [-- --history 5000000 --days 90 --runs 30 --steps 4 --hours 10]`
 * (`--deliveries` is the former name of `--history`): loads a delivery history of `history`
 * deliveries over `days` days into the weekly partitions (bench/load-history.ts), then reports
 *
 * - the latency of an emit to one endpoint, of a claim of its delivery (what the worker's job does
 *   first), of the first page of `GET /api/v1/deliveries` (the core's listing, 25 a page), of a
 *   filtered page (one endpoint's dead deliveries), of an endpoint's page (one endpoint's
 *   deliveries in every state) and of a tenant's page (what a member of a tenant with 200
 *   deliveries lists), on the empty database, with 1,000 deliveries (a small service: a full
 *   page, counted exactly), at full size, and after the prunes;
 * - the hourly prune (`app/prune`'s code, shared/webhooks/retention.ts) with retention set so
 *   that a few weeks are past it (done deliveries kept `retention` days, default `days - 24`; dead
 *   ones `deadRetention` days, default `days - 10`), on a clock moved by hand: a dry run; the
 *   first prune and the hourly ones after it until the backlog of weeks past the cut-offs is gone
 *   (each prune works within its time budget and leaves the rest to the next), their removals
 *   checked against the dry run's; then `steps` times, the prunes of the hours before the next
 *   time a week passes a cut-off (from LEAD_MS ahead: they prepare its rewrite), the prune of that
 *   hour and those after it until nothing is left to do (what the hourly prune does once a week);
 *   then `hours` prunes an
 *   hour apart (what it does the other hours). Each prune's time, with the time spent on
 *   partitions, rows and events, the medians and the slowest of each kind and of all; the
 *   partitions, sizes and dead tuples of the tables before and after;
 * - the events step as it was before it was made proportional (every event past retention
 *   checked against every partition, in batches of 5,000), run on the same tables after the
 *   prunes inside a transaction rolled back: the figure the new one replaces.
 *
 * Latencies: medians of `runs` runs after 3 warm-ups each. Each phase notes the load average.
 */
import { loadavg } from 'node:os';
import { emit } from '../shared/webhooks/events/emit.ts';
import { listDeliveries } from '../shared/webhooks/deliveries/index.ts';
import { claimDelivery, recordAttempt } from '../shared/webhooks/deliveries/store.ts';
import { LEAD_MS, prune, type PruneResult } from '../shared/webhooks/retention.ts';
import { benchDatabase, median, note, numberArgs, tenantViewer, wallClock } from './common.ts';
import { historyPartitions, loadHistory } from './load-history.ts';
import { registerEndpoint } from '../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../shared/access/actor.ts';
import { endpointRecords } from '../shared/webhooks/endpoints/records.ts';
import { endpointStoreOf } from '../shared/webhooks/endpoints/store.ts';

const args = numberArgs({
  history: 0,
  deliveries: 0,
  days: 90,
  runs: 30,
  steps: 4,
  hours: 10,
  retention: 0,
  deadRetention: 0,
});
const HISTORY = args.history || args.deliveries || 5_000_000;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const RETENTION_DAYS = args.retention || args.days - 24;
const DEAD_RETENTION_DAYS = args.deadRetention || args.days - 10;
/** The small database's deliveries: more than a page, fewer than `api.exactTotal`. */
const SMALL = 1_000;
/** A tenant of the small history: 200 deliveries, among millions of others' at full size. */
const SMALL_TENANT = 'smal-1';

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
// the whole run under the retention measured (the emits and listings do not read it)
const db = await benchDatabase({
  webhooks: { retention: `${RETENTION_DAYS}d`, deadRetention: `${DEAD_RETENTION_DAYS}d` },
});
const deps = { config: db.config, sql: db.sql, log: db.log };
/** The worker's endpoint records, as a worker keeps them between claims. */
const records = endpointRecords(endpointStoreOf(deps));
const timed = async (action: () => Promise<number | unknown>): Promise<number> => {
  const times: number[] = [];
  for (let run = -3; run < args.runs; run++) {
    const started = wallClock();
    const answer = await action();
    // an action that times itself (its setup aside) answers its milliseconds
    if (run >= 0) times.push(typeof answer === 'number' ? answer : wallClock() - started);
  }
  return median(times);
};

interface Latencies {
  emit: number;
  claim: number;
  firstPage: number;
  filteredPage: number;
  endpointPage: number;
  tenantPage: number;
}

const text = (f: Latencies) =>
  `emit ${f.emit.toFixed(2)} ms, claim ${f.claim.toFixed(2)} ms, first page ${f.firstPage.toFixed(2)} ms, filtered page ${f.filteredPage.toFixed(2)} ms, ` +
  `endpoint page ${f.endpointPage.toFixed(2)} ms, tenant page ${f.tenantPage.toFixed(2)} ms`;

/** Emits one event to the `bench-emit` endpoint, claims its delivery (timed) and records it done, freeing its slot. */
async function claimOne(): Promise<number> {
  const [delivery] = await emit(deps, 'bench.retention', { n: 1 }, { owner: 'bench-emit' });
  const started = wallClock();
  const claim = await claimDelivery(db.sql, db.config, delivery.id, true, records);
  const ms = wallClock() - started;
  if (claim === null || !('url' in claim))
    throw new Error(`the claim of ${delivery.id} answered ${JSON.stringify(claim)}`);
  await recordAttempt(db.sql, {
    deliveryId: delivery.id,
    priorAttempts: claim.attempts,
    startedAt: new Date(),
    durationMs: 1,
    httpStatus: 200,
    outcome: 'done',
    error: null,
    excerpt: null,
    endpointId: claim.endpointId,
    release: claim.slot,
  });
  return ms;
}

async function latencies(label: string, filterEndpoint: string): Promise<Latencies> {
  const list = (query: Record<string, unknown>) => listDeliveries(deps, OPERATOR, { page: 1, perPage: 25, ...query });
  const figures = {
    emit: await timed(() => emit(deps, 'bench.retention', { n: 1 }, { owner: 'bench-emit' })),
    claim: await timed(claimOne),
    firstPage: await timed(() => list({})),
    filteredPage: await timed(() => list({ endpoint: filterEndpoint, statuses: ['dead'] })),
    endpointPage: await timed(() => list({ endpoint: filterEndpoint })),
    // a member of a small tenant (a fifth of the 1,000-delivery history) lists its own deliveries
    tenantPage: await timed(() => listDeliveries(deps, tenantViewer(SMALL_TENANT), { page: 1, perPage: 25 })),
  };
  note(`${label}: ${text(figures)} (load average ${load()})`);
  return figures;
}

/** Partitions, sizes and dead tuples of deliveries, attempts and events (and the events counted), as `conn` sees them (its own statistics flushed first). */
async function tables(conn: typeof db.sql) {
  await conn`select pg_stat_force_next_flush()`;
  const [row] = await conn<
    {
      partitions: number;
      deliveries: number;
      attempts: number;
      events: number;
      deadDeliveries: number;
      deadAttempts: number;
      deadEvents: number;
      eventRows: number;
    }[]
  >`
    with parts as (
      select i.inhparent, i.inhrelid from pg_inherits i
       where i.inhparent in ('app_webhook_deliveries'::regclass, 'app_webhook_attempts'::regclass)
    ), dead as (
      select s.relid, s.n_dead_tup from pg_stat_user_tables s
    )
    select (select count(*) from parts where inhparent = 'app_webhook_deliveries'::regclass)::int as partitions,
           (select sum(pg_total_relation_size(inhrelid)) from parts where inhparent = 'app_webhook_deliveries'::regclass)::float8 as deliveries,
           (select sum(pg_total_relation_size(inhrelid)) from parts where inhparent = 'app_webhook_attempts'::regclass)::float8 as attempts,
           pg_total_relation_size('app_events')::float8 as events,
           (select coalesce(sum(n_dead_tup), 0) from dead join parts p on p.inhrelid = dead.relid where p.inhparent = 'app_webhook_deliveries'::regclass)::float8 as "deadDeliveries",
           (select coalesce(sum(n_dead_tup), 0) from dead join parts p on p.inhrelid = dead.relid where p.inhparent = 'app_webhook_attempts'::regclass)::float8 as "deadAttempts",
           (select n_dead_tup from dead where relid = 'app_events'::regclass)::float8 as "deadEvents",
           (select count(*) from app_events)::float8 as "eventRows"`;
  return row;
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
const tablesText = (t: Awaited<ReturnType<typeof tables>>) =>
  `${t.partitions} partitions; deliveries ${mb(t.deliveries)}, attempts ${mb(t.attempts)}, events ${mb(t.events)} (${t.eventRows} rows); ` +
  `dead tuples: deliveries ${t.deadDeliveries}, attempts ${t.deadAttempts}, events ${t.deadEvents}`;
const pruneText = (r: PruneResult, ms: number) =>
  `${(ms / 1000).toFixed(3)} s: ${r.done} done + ${r.dead} dead deliveries, ${r.attempts} attempts, ${r.events} events ` +
  `(partitions ${r.timings.partitions.toFixed(0)} ms, rows ${r.timings.rows.toFixed(0)} ms, events ${r.timings.events.toFixed(0)} ms; ` +
  `${r.steps} steps, the longest ${r.timings.longestStep.toFixed(0)} ms${r.remaining ? ', more left' : ''})`;

/** The events step as the prune ran it before it was made proportional, verbatim, in a transaction rolled back: answers its milliseconds and the events it found. */
async function formerEventStep(cutoff: Date): Promise<[number, number]> {
  const rollback = new Error('rolled back');
  let found = 0;
  const started = wallClock();
  await db.sql
    .begin(async (tx) => {
      for (;;) {
        const [row] = await tx<{ events: number }[]>`
          with doomed as (
            select e.id from app_events e
             where e.created_at < ${cutoff}
               and not exists (select 1 from app_webhook_deliveries d where d.event_id = e.id)
             order by e.created_at limit 5000
             for update skip locked
          ), gone as (
            delete from app_events e using doomed where e.id = doomed.id returning 1
          )
          select count(*)::int as events from gone`;
        found += row.events;
        if (row.events < 5000) break;
      }
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  return [wallClock() - started, found];
}

/** The next time after `now` a range partition passes the done or the dead cut-off (its upper bound plus the retention). */
async function nextCrossing(now: number): Promise<number> {
  const uppers = await db.sql<{ upper: Date }[]>`
    select app_id_time_of(substring(pg_get_expr(c.relpartbound, c.oid) from 'TO [(]''([^'']+)''[)]')) as upper
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'app_webhook_deliveries'::regclass and pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'`;
  const times = uppers
    .flatMap((row) => [row.upper.getTime() + RETENTION_DAYS * DAY, row.upper.getTime() + DEAD_RETENTION_DAYS * DAY])
    .filter((time) => time > now);
  return Math.min(...times);
}

try {
  const anchor = Date.now();
  // the weeks of the histories as weekly partitions, before anything is written into them
  const weeks = await historyPartitions(db.sql, new Date(anchor - args.days * DAY));
  if (weeks === null) throw new Error('the legacy partition holds rows: the history would land in it');
  await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/emit', events: ['*'], owner: 'bench-emit' });
  const emptyEndpoint = (
    await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/empty', events: ['*'], owner: 'bench-empty' })
  ).id;
  const empty = await latencies('empty database', emptyEndpoint);
  // a page's worth and more, under api.exactTotal: the listing as a small service has it
  const small = await latencies(
    `${SMALL} deliveries`,
    (await loadHistory(db, { deliveries: SMALL, prefix: 'smal', days: args.days, now: anchor }))[3],
  );

  let started = wallClock();
  note(`loading ${HISTORY} deliveries over ${args.days} days (load average ${load()})`);
  const endpoints = await loadHistory(db, { deliveries: HISTORY, days: args.days, now: anchor });
  const loadedS = (wallClock() - started) / 1000;
  // as a table that grew over time would be: vacuumed (else the first reads set the hint bits of
  // millions of fresh rows, and autovacuum's first pass over them runs during the measurement)
  await db.sql`vacuum (analyze) app_events, app_webhook_deliveries, app_webhook_attempts`;
  const vacuumedS = (wallClock() - started) / 1000 - loadedS;
  note(
    `loaded ${HISTORY} deliveries in ${loadedS.toFixed(1)} s, vacuumed in ${vacuumedS.toFixed(1)} s (load average ${load()})`,
  );
  const full = await latencies(`${HISTORY} deliveries`, endpoints[3]);

  // the prunes, on one connection (its statistics are flushed before the tables are looked at)
  const conn = await db.sql.reserve();
  const pruneDeps = { config: db.config, sql: conn as unknown as typeof db.sql, log: db.log };
  if (db.config.webhooks.retention !== RETENTION_DAYS * DAY)
    throw new Error(`retention is ${db.config.webhooks.retention} ms`);
  const lines: string[] = [];
  const report = (line: string) => {
    note(`${line} (load average ${load()})`);
    lines.push(line);
  };
  try {
    const before = await tables(conn as unknown as typeof db.sql);
    report(`before the prunes: ${tablesText(before)}`);
    let now = Date.now();
    started = wallClock();
    const dry = await prune(pruneDeps, { dryRun: true, now });
    const dryMs = wallClock() - started;
    report(`dry run ${(dryMs / 1000).toFixed(3)} s (retention ${RETENTION_DAYS} days, dead ${DEAD_RETENTION_DAYS})`);
    /** Every prune's milliseconds, and those of each kind. */
    const allMs: number[] = [];
    const kinds: Record<'catchUp' | 'before' | 'crossing' | 'after' | 'hourly', number[]> = {
      catchUp: [],
      before: [],
      crossing: [],
      after: [],
      hourly: [],
    };
    const hourEventsMs: number[] = [];
    let longestStep = 0;
    /** One prune at `at`, timed; its line goes to stdout for the first, the weekly and the hourly ones, to stderr only for the others. */
    const timedPrune = async (kind: keyof typeof kinds, label: string, at: number) => {
      started = wallClock();
      const result = await prune(pruneDeps, { now: at });
      const ms = wallClock() - started;
      allMs.push(ms);
      kinds[kind].push(ms);
      longestStep = Math.max(longestStep, result.timings.longestStep);
      const line = `${label}: ${pruneText(result, ms)}`;
      if (kind === 'crossing' || kind === 'hourly' || label === 'first prune') report(line);
      else note(`${line} (load average ${load()})`);
      return result;
    };

    // the backlog: three weeks past the done cut-off, one past the dead one
    const caughtUp = { done: 0, dead: 0, events: 0, attempts: 0 };
    for (let run = 1; ; run++) {
      const result = await timedPrune('catchUp', run === 1 ? 'first prune' : `catching up (${run})`, now);
      for (const key of ['done', 'dead', 'events', 'attempts'] as const) caughtUp[key] += result[key];
      if (!result.remaining) break;
      now += HOUR;
    }
    if (dry.done !== caughtUp.done || dry.dead !== caughtUp.dead || dry.events !== caughtUp.events) {
      throw new Error(
        `the dry run (${dry.done}/${dry.dead}/${dry.events}) and the prunes (${caughtUp.done}/${caughtUp.dead}/${caughtUp.events}) disagree`,
      );
    }
    report(
      `caught up in ${kinds.catchUp.length} prunes: ${caughtUp.done} done + ${caughtUp.dead} dead deliveries, ${caughtUp.attempts} attempts, ${caughtUp.events} events, as the dry run counted`,
    );
    report(`after catching up: ${tablesText(await tables(conn as unknown as typeof db.sql))}`);

    for (let step = 1; step <= args.steps; step++) {
      const crossing = await nextCrossing(now);
      for (let at = Math.max(now + HOUR, crossing - LEAD_MS - HOUR); at < crossing; at += HOUR)
        await timedPrune('before', `before it (${step}), ${((crossing - at) / HOUR).toFixed(0)} h ahead`, at);
      now = crossing;
      let result = await timedPrune('crossing', `a week past a cut-off (${step})`, now);
      while (result.remaining) {
        now += HOUR;
        result = await timedPrune('after', `after it (${step}), ${((now - crossing) / HOUR).toFixed(0)} h on`, now);
      }
    }
    if (args.steps > 0)
      report(`after the weekly prunes: ${tablesText(await tables(conn as unknown as typeof db.sql))}`);

    for (let hour = 1; hour <= args.hours; hour++) {
      now += HOUR;
      const result = await timedPrune('hourly', `an hour later (${hour})`, now);
      hourEventsMs.push(result.timings.events);
    }
    const formerMs: number[] = [];
    for (let run = 0; run < Math.min(args.hours, 5); run++) {
      const [ms, found] = await formerEventStep(new Date(now - RETENTION_DAYS * DAY));
      formerMs.push(ms);
      report(`former events step (rolled back): ${(ms / 1000).toFixed(3)} s, ${found} events found`);
    }
    report(`after the hourly prunes: ${tablesText(await tables(conn as unknown as typeof db.sql))}`);
    const figures = (values: number[]) =>
      `median ${(median(values) / 1000).toFixed(3)} s, slowest ${(Math.max(...values) / 1000).toFixed(3)} s of ${values.length}`;
    report(`first prune and catching up: ${figures(kinds.catchUp)}`);
    if (args.steps > 0) {
      report(`prunes of the ${LEAD_MS / HOUR} hours before a week passes a cut-off: ${figures(kinds.before)}`);
      report(`prune of the hour a week passes a cut-off: ${figures(kinds.crossing)}`);
      if (kinds.after.length > 0) report(`prunes after it, until done: ${figures(kinds.after)}`);
    }
    if (args.hours > 0) {
      report(
        `hourly prune: ${figures(kinds.hourly)}, of which events ${median(hourEventsMs).toFixed(0)} ms; ` +
          `former events step: median ${(median(formerMs) / 1000).toFixed(3)} s of ${formerMs.length}`,
      );
    }
    report(`every prune: ${figures(allMs)}; the longest step ${longestStep.toFixed(0)} ms`);
  } finally {
    conn.release();
  }
  const after = await latencies('after the prunes', endpoints[3]);

  const row = (name: string, f: Latencies) => `${name}: ${text(f)}`;
  process.stdout.write(
    [
      `bench:retention (${HISTORY} deliveries over ${args.days} days, loaded in ${loadedS.toFixed(1)} s + vacuum ${vacuumedS.toFixed(1)} s; medians of ${args.runs}; ${db.server}; load average ${load()})`,
      row('empty database', empty),
      row(`at ${SMALL}`, small),
      row(`at ${HISTORY}`, full),
      row('after the prunes', after),
      ...lines,
    ].join('\n') + '\n',
  );
} finally {
  await db.close();
}
