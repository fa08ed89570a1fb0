/**
 * `npm run bench:tenants` (figures in BENCHMARKS.md, "Tenants listing"): what one call of
 * `listTenants` costs on a large deployment, as the console's Tenants page (50 a page) asks it on
 * every load, and `firstOwners`, the admin's overview's tenant choices (the first 1,000). `--endpoints`
 * endpoints (the service's own table; its gate rows follow by trigger) over `--owners` owners, and
 * `--users` users and `--tokens` API tokens with owners (a tenth of them disabled or revoked,
 * a twentieth of their owners named by nothing else). Each listing is called `--calls` times after
 * 5 warm-ups; the figure is the median call. The plan of each statement (EXPLAIN ANALYZE,
 * BUFFERS) is printed to stderr with `--explain 1`.
 *
 * Options: --endpoints 100000 --owners 10000 --users 5000 --tokens 3000 --calls 20 --explain 1
 */
import postgres from 'postgres';
import { firstOwners, listTenants, MAX_TENANTS } from '../shared/accounts/tenants.ts';
import type { Sql } from '../shared/db/connect.ts';
import { OPERATOR } from '../shared/access/actor.ts';
import { benchDatabase, median, note, numberArgs } from './common.ts';

const args = numberArgs({ endpoints: 100_000, owners: 10_000, users: 5_000, tokens: 3_000, calls: 20, explain: 1 });

const db = await benchDatabase();
try {
  const { sql } = db;
  note(`loading ${args.endpoints} endpoints over ${args.owners} owners, ${args.users} users, ${args.tokens} tokens`);
  const owner = (n: string) => `lpad((${n})::text, 6, '0')`;
  await sql.unsafe(`
    insert into app_webhooks (id, url, events, owner)
    select 'ep_' || n, 'https://receiver.test/' || n, array['*'], 'tenant-' || ${owner(`n % ${args.owners}`)}
      from generate_series(1, ${args.endpoints}) n`);
  // a twentieth of the users' and tokens' owners have no endpoint
  await sql.unsafe(`
    insert into app_users (id, email, role, owner, disabled_at)
    select 'usr_' || n, 'user' || n || '@tenants.test', case when n % 3 = 0 then 'viewer' else 'member' end,
           'tenant-' || ${owner(`case when n % 20 = 1 then ${args.owners} + n else n % ${args.owners} end`)},
           case when n % 10 = 0 then now() end
      from generate_series(1, ${args.users}) n`);
  await sql.unsafe(`
    insert into app_api_tokens (id, name, role, owner, prefix, digest, revoked_at)
    select 'tok_' || n, 'token ' || n, 'member',
           'tenant-' || ${owner(`case when n % 20 = 1 then ${args.owners} + ${args.users} + n else (n * 7) % ${args.owners} end`)},
           'app_' || n, md5('token' || n), case when n % 10 = 0 then now() end
      from generate_series(1, ${args.tokens}) n`);
  await sql`vacuum analyze`;

  const deps = { sql, config: db.config };
  const { total } = await listTenants(deps, OPERATOR, { page: 1, perPage: 50 });
  const lastPage = Math.min(Math.ceil(total / 50), Math.floor(db.config.api.maxPageOffset / 50) + 1);
  const listings: [string, () => Promise<unknown>][] = [
    ['Tenants page 1 (50 a page)', () => listTenants(deps, OPERATOR, { page: 1, perPage: 50 })],
    [`Tenants page ${lastPage} (50 a page)`, () => listTenants(deps, OPERATOR, { page: lastPage, perPage: 50 })],
    [
      `overview choices (firstOwners: the first ${MAX_TENANTS}, nothing counted)`,
      () => firstOwners(deps, OPERATOR, MAX_TENANTS),
    ],
  ];
  const lines: string[] = [];
  for (const [name, call] of listings) {
    for (let i = 0; i < 5; i++) await call();
    const times: number[] = [];
    for (let i = 0; i < args.calls; i++) {
      const started = performance.now();
      await call();
      times.push(performance.now() - started);
    }
    const line = `${name}: ${median(times).toFixed(2)} ms a call (fastest ${Math.min(...times).toFixed(2)}, slowest ${Math.max(...times).toFixed(2)})`;
    note(line);
    lines.push(line);
  }
  if (args.explain) {
    // the statements listTenants sends (text and parameters, as a client with `debug` sees them)
    const seen: { text: string; params: unknown[] }[] = [];
    const watched = postgres(db.url, {
      max: 2,
      onnotice: () => {},
      debug: (_, text, params) => seen.push({ text, params }),
    });
    await listTenants({ sql: watched as unknown as Sql, config: db.config }, OPERATOR, { page: lastPage, perPage: 50 });
    await watched.end();
    for (const { text, params } of seen.filter((statement) => statement.text.includes('app_'))) {
      const plan = await sql.unsafe(`explain (analyze, buffers) ${text}`, params as never[]);
      note(`\n${text.trim()}\n${plan.map((row) => row['QUERY PLAN']).join('\n')}`);
    }
  }
  console.log(
    `bench:tenants (${args.endpoints} endpoints over ${args.owners} owners, ${args.users} users, ${args.tokens} tokens; ${total} tenants; medians of ${args.calls} calls; ${db.server})\n${lines.join('\n')}`,
  );
} finally {
  await db.close();
}
