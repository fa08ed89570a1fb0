/**
 * Loads a delivery history of a given size straight into the tables with set-based SQL (shared by
 * `bench:retention` and the table-scale benchmarks): `endpoints` endpoints, and for
 * `deliveries` deliveries one event per five deliveries, spread evenly over the last `days` days.
 * Status mix: 15 % dead (two attempts); 5 % pending when less than a day old, and one delivery in
 * 100,000 pending whatever its age (an endpoint stuck: the rows a prune must keep forever); the
 * rest done (one attempt, one in ten two: a retry then success). Bodies are small, like a
 * typical event.
 *
 * Ids are those the service makes (shared/webhooks/ids.ts): `evt_`/`msg_` + ten ULID characters
 * of the creation time (the very millisecond of `created_at`) + sixteen that make them unique: four
 * naming `prefix` (four letters, default `hist`) and twelve counting, so histories of two
 * prefixes can be loaded into one database. An event's deliveries share its time, as an emit's
 * do, so they lie in the weekly partition of its week (migrations/023). Five tenants
 * (`<prefix>-0` … `<prefix>-4`) share the endpoints (endpoint i belongs to tenant i % 5), and an
 * event's deliveries go to its tenant's endpoints, as an emit's would. Answers the endpoint ids.
 */
import type { Sql } from '../shared/db/connect.ts';
import type { BenchDatabase } from './common.ts';
import { registerEndpoint } from '../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../shared/access/actor.ts';

/** Tenants of a history: owners `<prefix>-0` to `<prefix>-4`, each with `endpoints / 5` endpoints. */
export const TENANTS = 5;

const DAY = 86_400_000;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** SQL text of the `length` Crockford base32 characters of the bigint expression `value`, as ids.ts writes them. */
const base32Sql = (value: string, length: number) =>
  Array.from(
    { length },
    (_, i) => `substr('${CROCKFORD}', ((${value} >> ${5 * (length - 1 - i)}) & 31)::int + 1, 1)`,
  ).join(' || ');

/** The four id characters naming `prefix` (four lower-case letters: 26^4 values, under 32^4). */
function prefixCode(prefix: string): string {
  let value = 0;
  for (const char of prefix) value = value * 26 + (char.charCodeAt(0) - 97);
  let text = '';
  for (let i = 0; i < 4; i++, value = Math.floor(value / 32)) text = CROCKFORD[value % 32] + text;
  return text;
}

/**
 * Makes the weekly partitions (migrations/023) from the week holding `from` up to the first weekly
 * bound, in place of the part of the legacy partition they cover, so a history loaded afterwards
 * lands in weekly partitions as one written over time would. Possible only while the legacy
 * partition is empty (a fresh database): answers the number of weeks made, 0 when nothing was to be
 * made, null when the legacy partition holds rows (the history then lands in it, as in a database
 * upgraded from before partitioning).
 */
export async function historyPartitions(sql: Sql, from: Date): Promise<number | null> {
  const [legacy] = await sql<{ deliveries: string; attempts: string; upper: string; target: string }[]>`
    with parts as (
      select c.relname::text as name, i.inhparent, pg_get_expr(c.relpartbound, c.oid) as bound
        from pg_inherits i join pg_class c on c.oid = i.inhrelid
       where i.inhparent in ('app_webhook_deliveries'::regclass, 'app_webhook_attempts'::regclass)
    )
    select d.name as deliveries, a.name as attempts, substring(d.bound from 'TO [(]''([^'']+)''[)]') as upper,
           'msg_' || app_id_time(app_delivery_week(${from})) as target
      from parts d join parts a on a.bound = d.bound and a.inhparent = 'app_webhook_attempts'::regclass
     where d.inhparent = 'app_webhook_deliveries'::regclass and d.bound like '%(MINVALUE)%'`;
  if (!legacy || legacy.target >= legacy.upper) return 0;
  return sql.begin(async (tx) => {
    await tx`lock table app_webhook_deliveries, app_webhook_attempts in access exclusive mode`;
    const [{ rows }] = await tx.unsafe<{ rows: boolean }[]>(
      `select exists (select 1 from "${legacy.deliveries}") or exists (select 1 from "${legacy.attempts}") as rows`,
    );
    if (rows) return null;
    await tx.unsafe(`drop table "${legacy.attempts}", "${legacy.deliveries}"`);
    await tx.unsafe(
      `create table "${legacy.deliveries}" partition of app_webhook_deliveries for values from (minvalue) to ('${legacy.target}')`,
    );
    await tx.unsafe(
      `create table "${legacy.attempts}" partition of app_webhook_attempts for values from (minvalue) to ('${legacy.target}')`,
    );
    const weeks = await tx<{ day: string; lo: string; hi: string }[]>`
      select to_char(w at time zone 'UTC', 'YYYYMMDD') as day, 'msg_' || app_id_time(w) as lo, 'msg_' || app_id_time(w + interval '7 days') as hi
        from generate_series(app_delivery_week(${from}), app_id_time_of(${legacy.upper}) - interval '7 days', interval '7 days') as w`;
    for (const week of weeks) {
      await tx.unsafe(
        `create table "app_webhook_deliveries_${week.day}" partition of app_webhook_deliveries for values from ('${week.lo}') to ('${week.hi}')`,
      );
      await tx.unsafe(
        `create table "app_webhook_attempts_${week.day}" partition of app_webhook_attempts for values from ('${week.lo}') to ('${week.hi}')`,
      );
    }
    // owners are many to PostgreSQL's estimates, as on every partition the service makes
    // (migrations/031): without it a tenant's listing may be read through the state's index
    await tx`select app_owner_estimates()`;
    return weeks.length;
  });
}

export async function loadHistory(
  db: BenchDatabase,
  options: { deliveries: number; endpoints?: number; days?: number; chunk?: number; prefix?: string; now?: number },
): Promise<string[]> {
  const endpoints = options.endpoints ?? 10;
  const prefix = options.prefix ?? 'hist';
  if (!/^[a-z]{4}$/.test(prefix)) throw new Error(`loadHistory: prefix ${prefix} is not four lower-case letters`);
  const code = prefixCode(prefix);
  const days = options.days ?? 120;
  // a multiple of five: an event's deliveries are written in the chunk of its event
  const chunk = Math.ceil((options.chunk ?? 500_000) / 5) * 5;
  const now = options.now ?? Date.now();
  const spanMs = days * DAY;
  const total = options.deliveries;
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
  await historyPartitions(sql, new Date(now - spanMs));
  // event k (newest first) and its deliveries 5k … 5k + 4 are created at the millisecond `ms`
  const eventMs = (k: string) => `(${now}::bigint - floor(${spanMs}::numeric * (${k} * 5) / ${total})::bigint)`;
  const idText = (kind: 'evt' | 'msg', ms: string, n: string) =>
    `'${kind}_' || ${base32Sql(ms, 10)} || '${code}' || ${base32Sql(n, 12)}`;
  const at = (ms: string) => `to_timestamp(0) + ${ms} * interval '1 millisecond'`;
  for (let from = 0; from < total; from += chunk) {
    const to = Math.min(total, from + chunk) - 1;
    await sql.begin(async (tx) => {
      await tx.unsafe(`
        insert into app_events (id, type, owner, payload, created_at)
        select ${idText('evt', 'ms', 'k')}, 'order.created', '${prefix}-' || (k % ${TENANTS}),
               jsonb_build_object('order', k, 'total', k % 1000), ${at('ms')}
          from generate_series(${from / 5}::bigint, ${Math.floor(to / 5)}::bigint) as k, lateral (select ${eventMs('k')} as ms) t`);
      await tx.unsafe(
        `
        with ins as (
          insert into app_webhook_deliveries (id, event_id, endpoint_id, owner, event_type, queue, body, status, attempts, created_at, updated_at, completed_at)
          select id, ${idText('evt', 'ms', 'k')},
                 ($1::text[])[1 + k % ${TENANTS} + ${TENANTS} * (g % ${perTenant})], '${prefix}-' || (k % ${TENANTS}), 'order.created', 'webhooks',
                 '{"data":{"order":' || g || '},"id":"' || id || '","timestamp":"2026-01-01T00:00:00.000Z","type":"order.created"}',
                 status, case status when 'pending' then 0 when 'dead' then 2 when 'done' then 1 + (g % 10 = 5)::int end,
                 ts, ts, case when status <> 'pending' then ts end
            from generate_series(${from}::bigint, ${to}::bigint) as g,
                 lateral (select g / 5 as k) e,
                 lateral (select ${eventMs('k')} as ms) t,
                 lateral (select ${idText('msg', 'ms', 'g')} as id, ${at('ms')} as ts,
                                 case when g % 100000 = 0 or (g % 20 = 0 and ${eventMs('k')} > ${now - DAY}) then 'pending'
                                      when g % 20 between 1 and 3 then 'dead' else 'done' end as status) d
          returning id, status, attempts, created_at
        )
        insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome)
        select ins.id, n, ins.created_at, 20, case when ins.status = 'done' and n = ins.attempts then 200 else 500 end,
               case when ins.status = 'done' and n = ins.attempts then 'done' when n < ins.attempts then 'retry' else 'dead' end
          from ins, generate_series(1, 2) as n
         where n <= ins.attempts`,
        [ids],
      );
    });
  }
  await sql`analyze app_events`;
  await sql`analyze app_webhook_deliveries`;
  await sql`analyze app_webhook_attempts`;
  return ids;
}
