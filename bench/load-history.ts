/**
 * Loads a delivery history of a given size straight into the tables with set-based SQL (shared by
 * `bench:retention` and the table-scale benchmarks): `endpoints` endpoints, and for
 * `deliveries` deliveries one event per five deliveries, spread evenly over the last `days` days:
 * 80 % done (one attempt each), 15 % dead (two attempts), 5 % pending (no job: the rows alone
 * matter here). Bodies are small, like a typical event. Ids are `evt_<prefix>…` and
 * `msg_<prefix>…` (`prefix`: four characters, default `hist`), so histories of two prefixes can
 * be loaded into one database. Five tenants (`<prefix>-0` … `<prefix>-4`) share the endpoints
 * (endpoint i belongs to tenant i % 5), and an event's deliveries go to its tenant's endpoints,
 * as an emit's would. Answers the endpoint ids.
 */
import type { Sql } from '../shared/db/connect.ts';
import type { BenchDatabase } from './common.ts';
import { registerEndpoint } from '../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../shared/access/actor.ts';

/** Tenants of a history: owners `<prefix>-0` to `<prefix>-4`, each with `endpoints / 5` endpoints. */
export const TENANTS = 5;

export async function loadHistory(
  db: BenchDatabase,
  options: { deliveries: number; endpoints?: number; days?: number; chunk?: number; prefix?: string },
): Promise<string[]> {
  const endpoints = options.endpoints ?? 10;
  const prefix = options.prefix ?? 'hist';
  if (!/^[a-z]{4}$/.test(prefix)) throw new Error(`loadHistory: prefix ${prefix} is not four lower-case letters`);
  const evt = `evt_${prefix}`;
  const msg = `msg_${prefix}`;
  const days = options.days ?? 120;
  const chunk = options.chunk ?? 500_000;
  const deps = { config: db.config, sql: db.sql, log: db.log };
  const ids: string[] = [];
  if (endpoints < TENANTS || endpoints % TENANTS !== 0)
    throw new Error(`loadHistory: endpoints must be a multiple of ${TENANTS}`);
  const perTenant = endpoints / TENANTS;
  for (let i = 0; i < endpoints; i++)
    ids.push(
      (
        await registerEndpoint(deps, OPERATOR, {
          url: `http://127.0.0.1:9/${prefix}/${i}`,
          events: ['*'],
          owner: `${prefix}-${i % TENANTS}`,
        })
      ).id,
    );
  const sql: Sql = db.sql;
  for (let from = 0; from < options.deliveries; from += chunk) {
    const to = Math.min(options.deliveries, from + chunk) - 1;
    await sql.begin(async (tx) => {
      await tx`
        insert into app_events (id, type, owner, payload, created_at)
        select ${evt} || lpad(g::text, 12, '0'), 'order.created', ${prefix} || '-' || (g % ${TENANTS}),
               jsonb_build_object('order', g, 'total', g % 1000),
               now() - (${days}::float8 * interval '1 day') * ((g * 5)::float8 / ${options.deliveries}::float8)
          from generate_series(${Math.ceil(from / 5)}::bigint, ${Math.floor(to / 5)}::bigint) as g`;
      await tx`
        insert into app_webhook_deliveries (id, event_id, endpoint_id, owner, event_type, queue, body, status, attempts, created_at, updated_at, completed_at)
        select ${msg} || lpad(g::text, 12, '0'), ${evt} || lpad((g / 5)::text, 12, '0'),
               (${ids}::text[])[1 + (g / 5) % ${TENANTS} + ${TENANTS} * (g % ${perTenant})], ${prefix} || '-' || ((g / 5) % ${TENANTS}), 'order.created', 'webhooks',
               '{"data":{"order":' || g || '},"id":"' || ${msg} || g || '","timestamp":"2026-01-01T00:00:00.000Z","type":"order.created"}',
               case when g % 20 = 0 then 'pending' when g % 20 < 4 then 'dead' else 'done' end,
               case when g % 20 = 0 then 0 when g % 20 < 4 then 2 else 1 end,
               ts, ts, case when g % 20 = 0 then null else ts end
          from generate_series(${from}::bigint, ${to}::bigint) as g,
               lateral (select now() - (${days}::float8 * interval '1 day') * (g::float8 / ${options.deliveries}::float8) as ts) t`;
      await tx`
        insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome)
        select d.id, n, d.created_at, 20, case when d.status = 'done' then 200 else 500 end,
               case when d.status = 'done' then 'done' when n < d.attempts then 'retry' else 'dead' end
          from app_webhook_deliveries d, generate_series(1, 2) as n
         where d.id >= ${`${msg}${String(from).padStart(12, '0')}`} and d.id <= ${`${msg}${String(to).padStart(12, '0')}`} and n <= d.attempts`;
    });
  }
  await sql`analyze app_events`;
  await sql`analyze app_webhook_deliveries`;
  await sql`analyze app_webhook_attempts`;
  return ids;
}
