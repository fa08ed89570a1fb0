/**
 * `npm run bench:retention [-- --deliveries 5000000 --runs 30]`: loads a
 * delivery history of `deliveries` rows over 120 days (bench/load-history.ts), then reports
 *
 * - the time of `app prune` with the default retention (done 30 days, dead 90 days), dry run
 *   and real, and the rows it removed per second;
 * - the latency of an emit to one endpoint, of the first page of `GET /api/v1/deliveries` (the
 *   core's listing, 25 a page), of a filtered page (one endpoint's dead deliveries) and of an
 *   endpoint's page (one endpoint's deliveries in every state) and of a tenant's page (what a
 *   member of a tenant with 200 deliveries lists), on the
 *   empty database, with 1,000 deliveries (a small service: a full page, counted exactly), at full
 *   size, and after the prune.
 *
 * Medians of `runs` runs after 3 warm-ups each.
 */
import { emit } from '../shared/webhooks/events/emit.ts';
import { listDeliveries } from '../shared/webhooks/deliveries/index.ts';
import { prune } from '../shared/webhooks/retention.ts';
import { ALL_TENANTS, tenantScope } from '../shared/access/tenant-scope.ts';
import { benchDatabase, median, note, numberArgs, wallClock } from './common.ts';
import { loadHistory } from './load-history.ts';
import { registerEndpoint } from '../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../shared/access/actor.ts';

const args = numberArgs({ deliveries: 5_000_000, runs: 30 });
/** The small database's deliveries: more than a page, fewer than `api.exactTotal`. */
const SMALL = 1_000;
/** A tenant of the small history: 200 deliveries, among millions of others' at full size. */
const SMALL_TENANT = 'smal-1';

const db = await benchDatabase();
const deps = { config: db.config, sql: db.sql, log: db.log };
const timed = async (_what: string, action: () => Promise<unknown>): Promise<number> => {
  const times: number[] = [];
  for (let run = -3; run < args.runs; run++) {
    const started = wallClock();
    await action();
    if (run >= 0) times.push(wallClock() - started);
  }
  return median(times);
};

const text = (f: { emit: number; firstPage: number; filteredPage: number; endpointPage: number; tenantPage: number }) =>
  `emit ${f.emit.toFixed(2)} ms, first page ${f.firstPage.toFixed(2)} ms, filtered page ${f.filteredPage.toFixed(2)} ms, ` +
  `endpoint page ${f.endpointPage.toFixed(2)} ms, tenant page ${f.tenantPage.toFixed(2)} ms`;

async function latencies(label: string, filterEndpoint: string) {
  const list = (query: Record<string, unknown>) =>
    listDeliveries(deps, ALL_TENANTS, { page: 1, perPage: 25, ...query });
  const figures = {
    emit: await timed('emit', () => emit(deps, 'bench.retention', { n: 1 }, { owner: 'bench-emit' })),
    firstPage: await timed('first page', () => list({})),
    filteredPage: await timed('filtered page', () => list({ endpoint: filterEndpoint, statuses: ['dead'] })),
    endpointPage: await timed('endpoint page', () => list({ endpoint: filterEndpoint })),
    // a member of a small tenant (a fifth of the 1,000-delivery history) lists its own deliveries
    tenantPage: await timed('tenant page', () =>
      listDeliveries(deps, tenantScope(SMALL_TENANT), { page: 1, perPage: 25 }),
    ),
  };
  note(`${label}: ${text(figures)}`);
  return figures;
}

try {
  await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/emit', events: ['*'], owner: 'bench-emit' });
  const emptyEndpoint = (
    await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/empty', events: ['*'], owner: 'bench-empty' })
  ).id;
  const empty = await latencies('empty database', emptyEndpoint);
  // a page's worth and more, under api.exactTotal: the listing as a small service has it
  const small = await latencies(
    `${SMALL} deliveries`,
    (await loadHistory(db, { deliveries: SMALL, prefix: 'smal' }))[3],
  );

  let started = wallClock();
  const endpoints = await loadHistory(db, { deliveries: args.deliveries });
  // as a table that grew over time would be: vacuumed (else the first reads set the hint bits of
  // millions of fresh rows, and autovacuum's first pass over them runs during the measurement)
  await db.sql`vacuum (analyze) app_events, app_webhook_deliveries, app_webhook_attempts`;
  note(`loaded ${args.deliveries} deliveries and vacuumed them in ${((wallClock() - started) / 1000).toFixed(1)} s`);
  const full = await latencies(`${args.deliveries} deliveries`, endpoints[3]);

  const now = Date.now(); // one set of cut-offs for the dry run and the prune
  started = wallClock();
  const dry = await prune(deps, { dryRun: true, now });
  const dryMs = wallClock() - started;
  started = wallClock();
  const pruned = await prune(deps, { now });
  const pruneMs = wallClock() - started;
  const removed = pruned.done + pruned.dead + pruned.events + pruned.attempts;
  note(
    `prune: dry run ${(dryMs / 1000).toFixed(1)} s; removed ${pruned.done} done, ${pruned.dead} dead, ${pruned.events} events, ${pruned.attempts} attempts in ${(pruneMs / 1000).toFixed(1)} s (${Math.round(removed / (pruneMs / 1000))} rows/s)`,
  );
  if (dry.done !== pruned.done || dry.dead !== pruned.dead) throw new Error('the dry run and the prune disagree');
  const after = await latencies('after the prune', endpoints[3]);

  const row = (name: string, f: typeof empty) => `${name}: ${text(f)}`;
  process.stdout.write(
    [
      `bench:retention (${args.deliveries} deliveries over 120 days; medians of ${args.runs}; ${db.server})`,
      row('empty database', empty),
      row(`at ${SMALL}`, small),
      row(`at ${args.deliveries}`, full),
      row('after the prune', after),
      `prune: dry run ${(dryMs / 1000).toFixed(1)} s; real ${(pruneMs / 1000).toFixed(1)} s for ${pruned.done} done + ${pruned.dead} dead deliveries, ${pruned.attempts} attempts, ${pruned.events} events (${Math.round(removed / (pruneMs / 1000))} rows/s)`,
    ].join('\n') + '\n',
  );
} finally {
  await db.close();
}
