/**
 * While the database is away the API answers 503 problem+json `APP_DATABASE_UNAVAILABLE` with
 * `Retry-After`, promptly (no request hangs on reconnect delays), GraphQL fields carry the same
 * code, readiness says 503; and once the database is back, readiness and the API follow within a
 * couple of seconds. "Away" is a TCP cut, a proxy in front of a database that is down (it accepts
 * connections and closes them before a word), a database that refuses connections (what a managed
 * PostgreSQL does during maintenance), and a `DATABASE_URL` that names a database or role the
 * server does not have (a configuration problem: logged once as such, not per request).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import { createWebServer } from '../../api/server.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { createToken } from '../../shared/tokens/tokens.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { linesInto } from '../helpers/logs.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { surviveDriverCrashAsProcessesDo } from '../helpers/driver-crash.ts';
import { eventually } from '../helpers/poll.ts';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A web server on `databaseUrl` whose log lines are kept in `lines`, and a token for it. */
async function webOn(db: TestDatabase, databaseUrl: string) {
  const config = db.configWith({ databaseUrl });
  const lines: Record<string, unknown>[] = [];
  const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
  surviveDriverCrashAsProcessesDo(log); // as api/run.ts does: a cut connection can trip the driver's known crash
  const web = createWebServer({ config, log });
  cleanups.push(() => web.shutdown('test'));
  const base = `http://127.0.0.1:${(await web.start(0)).port}`;
  const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'outage', role: 'admin' });
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' };
  return { base, headers, lines };
}

/** Every kind of request answers 503 APP_DATABASE_UNAVAILABLE with Retry-After, within the connect timeout. */
async function assertUnavailable(base: string, headers: Record<string, string>): Promise<void> {
  for (const path of ['/api/v1/webhooks', '/api/v1/deliveries', '/api/v1/events']) {
    const started = performance.now();
    const answer = await fetch(`${base}${path}`, { headers });
    const body = (await answer.json()) as { code: string; status: number };
    assert.equal(answer.status, 503, `${path}: ${JSON.stringify(body)}`);
    assert.equal(body.code, 'APP_DATABASE_UNAVAILABLE');
    assert.equal(answer.headers.get('retry-after'), '2');
    assert.match(answer.headers.get('content-type') ?? '', /problem\+json/);
    assert.ok(performance.now() - started < 6_000, `${path} answered within the connect timeout`);
  }
  // GraphQL: refused at authentication (the token lookup) with the same problem document
  const gql = await fetch(`${base}/_app/gql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: '{ webhookEndpoints { total } }' }),
  });
  const gqlBody = (await gql.json()) as { code?: string; errors?: { extensions?: { code?: string } }[] };
  assert.equal(gql.status, 503, JSON.stringify(gqlBody));
  assert.equal(
    gqlBody.code ?? gqlBody.errors?.[0]?.extensions?.code,
    'APP_DATABASE_UNAVAILABLE',
    JSON.stringify(gqlBody),
  );
  assert.equal(gql.headers.get('retry-after'), '2');
  assert.equal((await fetch(`${base}/readyz`)).status, 503);
}

/** The API and readiness answer again, within a few seconds of the database's return. */
async function assertRecovers(base: string, headers: Record<string, string>): Promise<void> {
  const back = performance.now();
  await eventually(async () => (await fetch(`${base}/readyz`)).status === 200, 10_000, 'readiness back');
  await eventually(
    async () => (await fetch(`${base}/api/v1/webhooks`, { headers })).status === 200,
    10_000,
    'the API back',
  );
  assert.ok(
    performance.now() - back < 4_000,
    `recovered ${Math.round(performance.now() - back)} ms after the database came back`,
  );
}

const errorLines = (lines: Record<string, unknown>[]) => lines.filter((line) => (line.level as number) >= 50);
const stackLines = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => typeof (line.err as { stack?: unknown } | undefined)?.stack === 'string');

describe('the web process and a database outage', () => {
  it('answers 503 APP_DATABASE_UNAVAILABLE with Retry-After while the database is away, and recovers within seconds of its return', async () => {
    const db = await createTestDatabase();
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const { base, headers } = await webOn(db, proxy.url);
    assert.equal((await fetch(`${base}/api/v1/webhooks`, { headers })).status, 200);

    await proxy.cut();
    await assertUnavailable(base, headers);
    // a few more failed attempts, as an outage of some seconds makes (the driver's own backoff grew with each)
    for (let i = 0; i < 5; i += 1) await (await fetch(`${base}/readyz`)).text();
    await proxy.restore();
    await assertRecovers(base, headers);
  });

  it('answers 503 the same way behind a proxy whose database is down (connections accepted and closed), and recovers', async () => {
    const db = await createTestDatabase();
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const { base, headers } = await webOn(db, proxy.url);
    assert.equal((await fetch(`${base}/api/v1/webhooks`, { headers })).status, 200);

    proxy.refuse();
    await assertUnavailable(base, headers);
    // asked again and again for a second and a half, the reconnect backoff paces the attempts,
    // as it does for a database that refuses connections (the driver alone opened hundreds a second)
    const before = proxy.accepted;
    const started = performance.now();
    while (performance.now() - started < 1_500) assert.equal((await fetch(`${base}/readyz`)).status, 503);
    const perSecond = (proxy.accepted - before) / ((performance.now() - started) / 1000);
    assert.ok(perSecond < 50, `${Math.round(perSecond)} connections a second while the database was down`);
    proxy.flow();
    await assertRecovers(base, headers);
  });

  it('answers 503 the same way while the database does not accept connections (allow_connections false), without an error or a stack in the log', async () => {
    const db = await createTestDatabase();
    const { base, headers, lines } = await webOn(db, db.url);
    assert.equal((await fetch(`${base}/api/v1/webhooks`, { headers })).status, 200);

    const admin = postgres(new URL('/postgres', db.url).toString(), { max: 1, onnotice: () => {} });
    cleanups.push(() => admin.end());
    await admin.unsafe(`alter database ${db.name} allow_connections false`);
    try {
      // the pools' open connections would go on working: end them, as a maintenance does
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${db.name} and pid <> pg_backend_pid()`;
      await assertUnavailable(base, headers);
      await assertUnavailable(base, headers); // new connections refused again: still 503, not a hang or a 500
    } finally {
      await admin.unsafe(`alter database ${db.name} allow_connections true`);
    }
    await assertRecovers(base, headers);
    assert.deepEqual(errorLines(lines), [], 'a maintenance is no error of the service');
    assert.deepEqual(stackLines(lines), [], 'no stack per request');
    assert.ok(
      lines.some(
        (line) =>
          line.msg === 'request refused: the database cannot be reached' &&
          /not currently accepting connections/.test(String(line.reason)),
      ),
      'the refusal is logged with its reason',
    );
  });

  for (const [what, misconfigure, problem] of [
    [
      'a database that does not exist',
      (url: URL) => void (url.pathname = '/app_test_no_such_database'),
      /DATABASE_URL names a database that does not exist/,
    ],
    [
      'a role that does not exist',
      (url: URL) => void (url.username = 'app_test_no_such_role'),
      /DATABASE_URL's user may not log in/,
    ],
  ] as const) {
    it(`answers 503 when DATABASE_URL names ${what}, and logs that configuration problem once, without a stack`, async () => {
      const db = await createTestDatabase();
      const wrong = new URL(db.url);
      misconfigure(wrong);
      const { base, headers, lines } = await webOn(db, wrong.toString());
      await assertUnavailable(base, headers);
      await assertUnavailable(base, headers);
      const errors = errorLines(lines);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.match(String(errors[0]!.msg), /^database configuration problem: /);
      assert.match(String(errors[0]!.msg), problem);
      assert.deepEqual(stackLines(lines), [], 'no stack per request');
      assert.ok(
        !lines.some((line) => line.msg === 'request refused: the database cannot be reached'),
        'no warning per request either',
      );
    });
  }
});
