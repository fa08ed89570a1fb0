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
 *   ones `deadRetention` days, default `days - 10`): a dry run and the first prune; then `steps`
 *   prunes a week apart (each when one more week passes each cut-off: what the hourly prune does
 *   once a week) and `hours` prunes an hour apart (what it does the other hours), with their
 *   medians; per prune the time spent on partitions, rows and events, and the partitions, sizes
 *   and dead tuples of the tables before and after;
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
import { prune, type PruneResult } from '../shared/webhooks/retention.ts';
import { ALL_TENANTS, tenantScope } from '../shared/access/tenant-scope.ts';
import { benchDatabase, median, note, numberArgs, wallClock } from './common.ts';
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
  const list = (query: Record<string, unknown>) =>
    listDeliveries(deps, ALL_TENANTS, { page: 1, perPage: 25, ...query });
  const figures = {
    emit: await timed(() => emit(deps, 'bench.retention', { n: 1 }, { owner: 'bench-emit' })),
    claim: await timed(claimOne),
    firstPage: await timed(() => list({})),
    filteredPage: await timed(() => list({ endpoint: filterEndpoint, statuses: ['dead'] })),
    endpointPage: await timed(() => list({ endpoint: filterEndpoint })),
    // a member of a small tenant (a fifth of the 1,000-delivery history) lists its own deliveries
    tenantPage: await timed(() => listDeliveries(deps, tenantScope(SMALL_TENANT), { page: 1, perPage: 25 })),
  };
  note(`${label}: ${text(figures)} (load average ${load()})`);
  return figures;
}

/** Partitions, sizes and dead tuples of deliveries, attempts and events, as `conn` sees them (its own statistics flushed first). */
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
           (select n_live_tup from pg_stat_user_tables where relid = 'app_events'::regclass)::float8 as "eventRows"`;
  return row;
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
const tablesText = (t: Awaited<ReturnType<typeof tables>>) =>
  `${t.partitions} partitions; deliveries ${mb(t.deliveries)}, attempts ${mb(t.attempts)}, events ${mb(t.events)} (${t.eventRows} rows); ` +
  `dead tuples: deliveries ${t.deadDeliveries}, attempts ${t.deadAttempts}, events ${t.deadEvents}`;
const pruneText = (r: PruneResult, ms: number) =>
  `${(ms / 1000).toFixed(3)} s: ${r.done} done + ${r.dead} dead deliveries, ${r.attempts} attempts, ${r.events} events ` +
  `(partitions ${r.timings.partitions.toFixed(0)} ms, rows ${r.timings.rows.toFixed(0)} ms, events ${r.timings.events.toFixed(0)} ms)`;

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
    started = wallClock();
    const first = await prune(pruneDeps, { now });
    const firstMs = wallClock() - started;
    if (dry.done !== first.done || dry.dead !== first.dead || dry.events !== first.events) {
      throw new Error(
        `the dry run (${dry.done}/${dry.dead}/${dry.events}) and the prune (${first.done}/${first.dead}/${first.events}) disagree`,
      );
    }
    report(
      `dry run ${(dryMs / 1000).toFixed(3)} s; first prune (retention ${RETENTION_DAYS} days, dead ${DEAD_RETENTION_DAYS}) ${pruneText(first, firstMs)}`,
    );
    report(`after the first prune: ${tablesText(await tables(conn as unknown as typeof db.sql))}`);

    const stepMs: number[] = [];
    for (let step = 1; step <= args.steps; step++) {
      now += 7 * DAY;
      started = wallClock();
      const result = await prune(pruneDeps, { now });
      stepMs.push(wallClock() - started);
      report(`a week later (${step}): ${pruneText(result, stepMs.at(-1)!)}`);
    }
    if (args.steps > 0)
      report(`after the weekly prunes: ${tablesText(await tables(conn as unknown as typeof db.sql))}`);

    const hourMs: number[] = [];
    const hourEventsMs: number[] = [];
    for (let hour = 1; hour <= args.hours; hour++) {
      now += HOUR;
      started = wallClock();
      const result = await prune(pruneDeps, { now });
      hourMs.push(wallClock() - started);
      hourEventsMs.push(result.timings.events);
      report(`an hour later (${hour}): ${pruneText(result, hourMs.at(-1)!)}`);
    }
    const formerMs: number[] = [];
    for (let run = 0; run < Math.min(args.hours, 5); run++) {
      const [ms, found] = await formerEventStep(new Date(now - RETENTION_DAYS * DAY));
      formerMs.push(ms);
      report(`former events step (rolled back): ${(ms / 1000).toFixed(3)} s, ${found} events found`);
    }
    report(`after the hourly prunes: ${tablesText(await tables(conn as unknown as typeof db.sql))}`);
    if (args.steps > 0) report(`weekly prune: median ${(median(stepMs) / 1000).toFixed(3)} s of ${stepMs.length}`);
    if (args.hours > 0) {
      report(
        `hourly prune: median ${(median(hourMs) / 1000).toFixed(3)} s of ${hourMs.length}, of which events ${median(hourEventsMs).toFixed(0)} ms; ` +
          `former events step: median ${(median(formerMs) / 1000).toFixed(3)} s of ${formerMs.length}`,
      );
    }
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
