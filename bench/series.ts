/**
 * `npm run bench:series [-- --history 5000000 --days 90 --runs 15]`: loads a delivery history
 * of `history` deliveries over `days` days into the weekly partitions (bench/load-history.ts), then
 * reports
 *
 * - the time migration 030 takes to build the attempts' `started_at` index on that history (the
 *   index dropped and the migration's text run again);
 * - the latency of the console's series statement (shared/webhooks/deliveries/series.ts), for the
 *   last 24 hours per hour and the last hour per minute: every tenant's (an admin's overview), one
 *   tenant's (a member's overview: a fifth of the history) and one endpoint's (its page), with the
 *   plan of each (partitions read and the index used);
 * - the same statement for every tenant without the index, for comparison.
 *
 * Latencies: medians of `runs` runs after 3 warm-ups each. Each phase notes the load average.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { OPERATOR, type Actor } from '../shared/access/actor.ts';
import { deliverySeries, type SeriesQuery } from '../shared/webhooks/deliveries/series.ts';
import { benchDatabase, median, note, numberArgs, tenantViewer, wallClock } from './common.ts';
import { loadHistory } from './load-history.ts';

const args = numberArgs({ history: 5_000_000, days: 90, runs: 15 });
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const MIGRATION = readFileSync(new URL('../migrations/030_attempts_started_index.sql', import.meta.url), 'utf8');

const db = await benchDatabase();
try {
  const now = Date.now();
  let started = wallClock();
  note(`loading ${args.history} deliveries over ${args.days} days (load average ${load()})`);
  const endpoints = await loadHistory(db, { deliveries: args.history, days: args.days, now });
  await db.sql`vacuum (analyze) app_events, app_webhook_deliveries, app_webhook_attempts`;
  note(`loaded and vacuumed in ${((wallClock() - started) / 1000).toFixed(1)} s (load average ${load()})`);
  const [{ attempts }] = await db.sql<{ attempts: number }[]>`
    select count(*)::int as attempts from app_webhook_attempts where started_at >= ${new Date(now - 86_400_000)}`;

  // the migration's build on the loaded history
  await db.sql`drop index app_webhook_attempts_started`;
  started = wallClock();
  await db.sql.begin((tx) => tx.unsafe(MIGRATION));
  const buildS = (wallClock() - started) / 1000;
  note(`migration 030 on ${args.history} deliveries: ${buildS.toFixed(2)} s (load average ${load()})`);
  await db.sql`analyze app_webhook_attempts`;

  const cases: { label: string; scope: Actor; query: Omit<SeriesQuery, 'window'> }[] = [
    { label: 'every tenant', scope: OPERATOR, query: {} },
    { label: 'one tenant (a fifth)', scope: tenantViewer('hist-3'), query: {} },
    { label: 'one endpoint (a tenth)', scope: OPERATOR, query: { endpoint: endpoints[3] } },
  ];
  const time = async (scope: Actor, query: SeriesQuery) => {
    const times: number[] = [];
    let total = 0;
    for (let run = -3; run < args.runs; run++) {
      const begun = wallClock();
      total = (await deliverySeries(db, scope, { ...query, now: new Date(now) })).totals.attempts;
      if (run >= 0) times.push(wallClock() - begun);
    }
    return { ms: median(times), total };
  };
  const lines: string[] = [];
  for (const window of ['day', 'hour'] as const)
    for (const { label, scope, query } of cases) {
      const { ms, total } = await time(scope, { ...query, window });
      lines.push(
        `${window === 'day' ? 'last 24 h per hour' : 'last hour per minute'}, ${label}: ${ms.toFixed(1)} ms (${total} attempts)`,
      );
      note(`${lines.at(-1)} (load average ${load()})`);
    }

  // one plan of each kind, as PostgreSQL runs it
  for (const { label, scope, query } of cases) note(`plan, ${label}:\n${await explain(scope, query)}`);

  await db.sql`drop index app_webhook_attempts_started`;
  const without = await time(OPERATOR, { window: 'day' });
  lines.push(`without the index, last 24 h per hour, every tenant: ${without.ms.toFixed(1)} ms`);
  note(`${lines.at(-1)} (load average ${load()})`);

  console.log(
    [
      `history: ${args.history} deliveries over ${args.days} days, ${attempts} attempts in the last 24 hours (${db.server})`,
      `migration 030 (index built on every attempts partition): ${buildS.toFixed(2)} s`,
      ...lines,
    ].join('\n'),
  );
} finally {
  await db.close();
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the series statement as deliverySeries sends it (in its
 * transaction, with its settings): its tagged template is caught (the one that starts with the
 * select of the buckets; its fragments and the transaction's other statements pass through) and
 * sent with EXPLAIN in front.
 */
async function explain(scope: Actor, query: Omit<SeriesQuery, 'window'>): Promise<string> {
  const captured: string[] = [];
  const explaining = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        const value = Reflect.get(object, key, receiver);
        if (key !== 'begin') return value;
        // the work comes last, after the transaction's mode when there is one (`begin('read only', work)`)
        return (...argv: unknown[]) => {
          const run = argv.at(-1) as (tx: object) => unknown;
          return (value as (...a: unknown[]) => unknown).call(object, ...argv.slice(0, -1), (tx: object) =>
            run(explaining(tx)),
          );
        };
      },
      apply(fn, self, argv: [TemplateStringsArray, ...unknown[]]) {
        const [strings, ...values] = argv;
        if (!Array.isArray(strings) || !/^\s*select case when grouping/.test(strings[0]))
          return Reflect.apply(fn as (...args: unknown[]) => unknown, self, argv);
        const prefix = 'explain (analyze, buffers, costs off) ';
        const patched = Object.assign([prefix + strings[0], ...strings.slice(1)], {
          raw: [prefix + strings.raw[0], ...strings.raw.slice(1)],
        });
        return (
          Reflect.apply(fn as (...args: unknown[]) => unknown, self, [patched, ...values]) as Promise<
            { 'QUERY PLAN': string }[]
          >
        ).then((rows) => {
          captured.push(...rows.map((row) => row['QUERY PLAN']));
          return [];
        });
      },
    });
  await deliverySeries({ sql: explaining(db.sql) }, scope, { ...query, window: 'day', now: new Date() });
  return captured.join('\n');
}
