/**
 * A database that is reachable but refuses the work for now is a 503 with `Retry-After` and a
 * stable code, never a 500: a read-only server (a standby, a failover, maintenance) is
 * `APP_DATABASE_READ_ONLY`, a full disk or exhausted memory `APP_DATABASE_UNAVAILABLE`, a lock or
 * statement timeout `APP_DATABASE_BUSY`. GraphQL fields carry the same code, the CLI exits 4 with
 * it, the log has the server's words and SQLSTATE (at error level where an operator must act),
 * and the request, sent again once the server can serve it, goes through.
 *
 * Each condition is the real server's: `default_transaction_read_only`, `lock_timeout` and
 * `statement_timeout` set on the test database, a lock held by another session; a full disk
 * cannot be made here, so a trigger makes PostgreSQL raise its SQLSTATE (53100) itself.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer } from '../../api/server.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { transaction } from '../../shared/db/transaction.ts';
import { createToken } from '../../shared/tokens/tokens.ts';
import { runAppInProcess } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { linesInto } from '../helpers/logs.ts';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/**
 * A database whose sessions start with `settings` (set on the database before the web server's
 * pool opens), a web server on it (its `DATABASE_URL` ending in `urlQuery`) whose log lines are
 * kept, and an admin token made before.
 */
async function webWith(settings: Record<string, string>, urlQuery = '') {
  const db = await createTestDatabase();
  const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'refusals', role: 'admin' });
  for (const [name, value] of Object.entries(settings))
    await db.sql.unsafe(`alter database ${db.name} set ${name} = '${value}'`);
  const lines: Record<string, unknown>[] = [];
  const log = createLogger(db.config, { name: 'test', destination: linesInto(lines) });
  const web = createWebServer({ config: db.configWith({ databaseUrl: db.url + urlQuery }), log });
  cleanups.push(() => web.shutdown('test'));
  const base = `http://127.0.0.1:${(await web.start(0)).port}`;
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' };
  const addType = (name: string) =>
    fetch(`${base}/api/v1/event-types`, { method: 'POST', headers, body: JSON.stringify({ name }) });
  const graphql = async (query: string) => {
    const answer = await fetch(`${base}/_app/gql`, { method: 'POST', headers, body: JSON.stringify({ query }) });
    return (await answer.json()) as { errors?: { message: string; extensions?: { code?: string; status?: number } }[] };
  };
  return { db, base, headers, lines, addType, graphql };
}

/** The answer is a 503 problem document with `code` and `Retry-After: retryAfter`. */
async function assertRefused(answer: Response, code: string, retryAfter: string): Promise<void> {
  const body = (await answer.json()) as { code?: string; status?: number; detail?: string };
  assert.equal(answer.status, 503, JSON.stringify(body));
  assert.match(answer.headers.get('content-type') ?? '', /problem\+json/);
  assert.equal(body.code, code);
  assert.equal(answer.headers.get('retry-after'), retryAfter);
  assert.doesNotMatch(body.detail ?? '', /Internal Server Error/);
}

/** The one log line about the refusal: its level (pino's number) and its SQLSTATE. */
function refusalLine(lines: Record<string, unknown>[], sqlstate: string): Record<string, unknown> {
  const found = lines.filter((line) => line.sqlstate === sqlstate);
  assert.equal(found.length >= 1, true, `a log line with SQLSTATE ${sqlstate}: ${JSON.stringify(lines.slice(-5))}`);
  assert.equal(
    lines.some((line) => line.msg === 'request failed'),
    false,
    'not logged as a failure of the service',
  );
  return found[0];
}

/**
 * Another session's exclusive lock on the event-type catalog (plain reads still go through), held
 * until `release`; that session is exempt from the database's own time limits.
 */
async function holdEventTypesLock(db: TestDatabase): Promise<{ release: () => Promise<void> }> {
  let release = () => {};
  let locked = () => {};
  const lockTaken = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const holder = transaction(db.sql, async (tx) => {
    await tx`set local statement_timeout = 0`;
    await tx`set local lock_timeout = 0`;
    await tx`lock table app_event_types in exclusive mode`;
    locked();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  });
  await lockTaken;
  return {
    release: async () => {
      release();
      await holder;
    },
  };
}

const ERROR = 50;
const WARN = 40;

describe('a database that refuses the work for now', () => {
  it('read-only: writes answer 503 APP_DATABASE_READ_ONLY (REST, GraphQL, CLI exit 4), reads still answer, logged as an error', async () => {
    const { db, base, headers, lines, addType, graphql } = await webWith({ default_transaction_read_only: 'on' });
    await assertRefused(await addType('order.read_only'), 'APP_DATABASE_READ_ONLY', '2');
    assert.equal((await fetch(`${base}/api/v1/event-types`, { headers })).status, 200, 'reads still answer');

    const result = await graphql('mutation { createEventType(input: { name: "order.gql_read_only" }) { name } }');
    assert.equal(result.errors?.[0]?.extensions?.code, 'APP_DATABASE_READ_ONLY', JSON.stringify(result));
    assert.equal(result.errors?.[0]?.extensions?.status, 503);

    const line = refusalLine(lines, '25006');
    assert.equal(line.level, ERROR);
    assert.equal(line.code, 'APP_DATABASE_READ_ONLY');
    assert.match(String(line.reason), /read-only transaction/);

    const cli = await runAppInProcess(['tokens:create', '--name', 'ci', '--role', 'admin', '--json'], {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      APP_SECRET: 'database refusals test application secret',
    });
    assert.equal(cli.code, 4, cli.stdout + cli.stderr);
    const printed = JSON.parse(cli.stdout) as { error: { code: string; message: string } };
    assert.equal(printed.error.code, 'APP_DATABASE_READ_ONLY');
    assert.match(printed.error.message, /SQLSTATE 25006.*read-only transaction/);

    const stored = await db.sql`select count(*)::int as n from app_event_types`;
    assert.equal(stored[0].n, 0, 'nothing written');
  });

  it('with target_session_attrs=read-write in DATABASE_URL a read-only server is not used: reads answer 503 APP_DATABASE_UNAVAILABLE at once too', async () => {
    // what a deployer sets where a failover name may still point at the old primary, now a reader
    const { base, headers } = await webWith(
      { default_transaction_read_only: 'on' },
      '?target_session_attrs=read-write',
    );
    const started = performance.now();
    const answer = await fetch(`${base}/api/v1/event-types`, { headers });
    await assertRefused(answer, 'APP_DATABASE_UNAVAILABLE', '2');
    assert.ok(performance.now() - started < 3_000, 'answered at once, not after a connect timeout');
    assert.equal((await fetch(`${base}/readyz`)).status, 503);
  });

  it('a lock held past lock_timeout: 503 APP_DATABASE_BUSY with Retry-After 1, a warning; sent again once the lock is gone, it is stored', async () => {
    const { db, lines, addType } = await webWith({ lock_timeout: '200ms' });
    const lock = await holdEventTypesLock(db);
    await assertRefused(await addType('order.locked'), 'APP_DATABASE_BUSY', '1');
    await lock.release();
    assert.equal((await addType('order.locked')).status, 201, 'the same request, sent again, goes through');
    const line = refusalLine(lines, '55P03');
    assert.equal(line.level, WARN);
  });

  it('a statement past statement_timeout: 503 APP_DATABASE_BUSY', async () => {
    const { db, lines, addType } = await webWith({ statement_timeout: '300ms' });
    const lock = await holdEventTypesLock(db);
    await assertRefused(await addType('order.slow'), 'APP_DATABASE_BUSY', '1');
    await lock.release();
    assert.equal(refusalLine(lines, '57014').level, WARN);
  });

  it('a full disk: 503 APP_DATABASE_UNAVAILABLE with Retry-After 10, logged as an error with the server’s words', async () => {
    const { db, lines, addType, graphql } = await webWith({});
    await db.sql.unsafe(`
      create function test_disk_full() returns trigger language plpgsql as $$
      begin
        raise exception using errcode = 'disk_full', message = 'could not extend file "base/1/2": No space left on device';
      end $$;
      create trigger test_disk_full before insert on app_event_types for each row execute function test_disk_full();`);
    await assertRefused(await addType('order.full'), 'APP_DATABASE_UNAVAILABLE', '10');
    const result = await graphql('mutation { createEventType(input: { name: "order.gql_full" }) { name } }');
    assert.equal(result.errors?.[0]?.extensions?.code, 'APP_DATABASE_UNAVAILABLE', JSON.stringify(result));
    assert.doesNotMatch(result.errors?.[0]?.message ?? '', /No space left/, 'the server’s words stay in the log');
    const line = refusalLine(lines, '53100');
    assert.equal(line.level, ERROR);
    assert.match(String(line.reason), /No space left on device/);
  });
});
