/**
 * `npm run bench:listings` (figures in BENCHMARKS.md, "Listings asked again and again"): what
 * one listing costs when it is asked over and over, as the console and a client polling for what
 * is new ask it, on a table of `--history` deliveries (bench/load-history.ts, over `--days` days
 * in the weekly partitions, `api.exactTotal` at its default, so the listings take the path of a
 * big table).
 *
 * The listings are the core's (`listDeliveries`, `listEvents`), called in this process on one
 * pool: the first page of every delivery, a tenant's first page (the largest tenant, as its
 * member sees it), a small tenant's (200 deliveries among the millions), one endpoint's, a small
 * endpoint's (100 deliveries), the dead deliveries', the second page of every delivery and of
 * the largest tenant's, the tenth page of every delivery, and the first page of events, of the
 * largest tenant's events, and the second page of events. Each is called `--calls` times after
 * 10 warm-ups, `--runs` times; the figure is the median time a call. With `--profile 1`
 * PostgreSQL's own time a call (pg_stat_statements over one more run: executing, planning) is
 * printed beside it.
 *
 * Options: --history 1000000 --days 90 --runs 5 --calls 200 --profile 0
 */
import { OPERATOR } from '../shared/access/actor.ts';
import { listDeliveries } from '../shared/webhooks/deliveries/list.ts';
import { listEvents } from '../shared/webhooks/events/list.ts';
import { benchDatabase, median, note, numberArgs, tenantViewer } from './common.ts';
import { loadHistory } from './load-history.ts';
import { openStatementProfile, PROFILE_SETTINGS } from './statement-profile.ts';

const args = numberArgs({ history: 1_000_000, days: 90, runs: 5, calls: 200, profile: 0 });

const db = await benchDatabase({}, args.profile ? { settings: PROFILE_SETTINGS } : {});
const profile = args.profile ? await openStatementProfile(db.adminUrl) : undefined;
try {
  note(`loading ${args.history} deliveries over ${args.days} days`);
  await loadHistory(db, { deliveries: args.history, endpoints: 10, days: args.days });
  // five small tenants of 200 deliveries each beside the big ones, as bench:retention has them
  await loadHistory(db, { deliveries: 1_000, endpoints: 10, days: args.days, prefix: 'smal' });
  await db.sql`vacuum analyze`;
  const [tenant] = await db.sql<{ owner: string }[]>`
    select owner from app_webhook_deliveries where owner is not null group by owner order by count(*) desc limit 1`;
  const [endpoint] = await db.sql<{ endpoint_id: string }[]>`
    select endpoint_id from app_webhook_deliveries group by endpoint_id order by count(*) desc limit 1`;
  const [small] = await db.sql<{ endpoint_id: string }[]>`
    select endpoint_id from app_webhook_deliveries where owner = 'smal-1' limit 1`;
  const deps = { sql: db.sql, config: db.config };
  const listings: [string, () => Promise<unknown>][] = [
    ['first page', () => listDeliveries(deps, OPERATOR, { page: 1, perPage: 25 })],
    ['tenant page', () => listDeliveries(deps, tenantViewer(tenant.owner), { page: 1, perPage: 25 })],
    ['small tenant page', () => listDeliveries(deps, tenantViewer('smal-1'), { page: 1, perPage: 25 })],
    ['endpoint page', () => listDeliveries(deps, OPERATOR, { page: 1, perPage: 25, endpoint: endpoint.endpoint_id })],
    [
      'small endpoint page',
      () => listDeliveries(deps, OPERATOR, { page: 1, perPage: 25, endpoint: small.endpoint_id }),
    ],
    ['dead page', () => listDeliveries(deps, OPERATOR, { page: 1, perPage: 25, statuses: ['dead'] })],
    ['second page', () => listDeliveries(deps, OPERATOR, { page: 2, perPage: 25 })],
    ['tenant second page', () => listDeliveries(deps, tenantViewer(tenant.owner), { page: 2, perPage: 25 })],
    ['tenth page', () => listDeliveries(deps, OPERATOR, { page: 10, perPage: 25 })],
    ['events page', () => listEvents(deps, OPERATOR, { page: 1, perPage: 25 })],
    ['tenant events page', () => listEvents(deps, tenantViewer(tenant.owner), { page: 1, perPage: 25 })],
    ['events second page', () => listEvents(deps, OPERATOR, { page: 2, perPage: 25 })],
  ];
  const lines: string[] = [];
  for (const [name, list] of listings) {
    for (let i = 0; i < 10; i++) await list();
    const perCall: number[] = [];
    for (let run = 0; run < args.runs; run++) {
      const started = performance.now();
      for (let i = 0; i < args.calls; i++) await list();
      perCall.push((performance.now() - started) / args.calls);
    }
    let server = '';
    if (profile) {
      await profile.reset();
      for (let i = 0; i < args.calls; i++) await list();
      const statements = await profile.top(args.calls, 20);
      const sum = (of: (s: { execMs: number; planMs: number }) => number) =>
        statements.reduce((all, s) => all + of(s), 0);
      server = `; PostgreSQL ${sum((s) => s.execMs + s.planMs).toFixed(2)} ms a call (executing ${sum((s) => s.execMs).toFixed(2)}, planning ${sum((s) => s.planMs).toFixed(2)})`;
    }
    const line = `${name}: ${median(perCall).toFixed(2)} ms a call (runs ${perCall.map((t) => t.toFixed(2)).join(', ')})${server}`;
    note(line);
    lines.push(line);
  }
  console.log(
    `bench:listings (${args.history} deliveries over ${args.days} days; medians of ${args.runs} runs of ${args.calls} calls; ${db.server})\n${lines.join('\n')}`,
  );
} finally {
  await profile?.close();
  await db.close();
}
