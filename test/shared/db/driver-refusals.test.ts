/**
 * The server's refusals that end a session reach the queries they are for, and no later one
 * (shared/db/session-start.ts). A connection whose session died mid-query, whose next start-up the
 * server refused (57P03, as PostgreSQL answers while it recovers or shuts down), and which then
 * starts a good session: the query the refused start-up was made for fails with the server's
 * refusal, a connection error (503 `APP_DATABASE_UNAVAILABLE`), and the first query of the good
 * session is answered; plain and over TLS. And a session the server ends with a FATAL during a
 * query (57P01, as at a fast shutdown): that query fails with it, the next session's first query
 * is answered. The `postgres` driver alone kept either refusal as the answer to the query it
 * counted as running and failed the next session's first query with it.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { problemFrom } from '../../../api/problem.ts';
import { connect, type Sql } from '../../../shared/db/connect.ts';
import { configurationProblem, isConnectionError } from '../../../shared/db/connection-errors.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';
import { errorResponse, startResettingProxy, startTlsPostgres } from '../../helpers/postgres-fronts.ts';

const db = await createTestDatabase();
const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Longer than the reconnect backoff's 1 s with room for a loaded machine; far below a hang. */
const PROMPT_MS = 3_000;

/** `query`'s rows or its error, failing the test when it is still unsettled after `PROMPT_MS`. */
async function settled(what: string, query: Promise<unknown>): Promise<unknown> {
  const outcome = await Promise.race([
    query.then(
      (rows) => ({ rows }),
      (error: unknown) => ({ error }),
    ),
    sleep(PROMPT_MS, undefined, { ref: false }),
  ]);
  assert.ok(outcome, `${what} settled within ${PROMPT_MS} ms`);
  // the rows as a plain array (the driver's result is an Array of its own class)
  if ('error' in outcome) return outcome.error;
  return Array.isArray(outcome.rows) ? [...outcome.rows] : outcome.rows;
}

/** Names the test's long queries, to find them in pg_stat_activity. */
const MARKER = 'driver_refusals';

/** Resolves once a query holding `marker` runs on the server. */
async function running(marker: string): Promise<void> {
  await eventually(
    async () =>
      (
        await db.sql`select 1 from pg_stat_activity
                      where query like ${`%${marker}%`} and state = 'active' and pid <> pg_backend_pid()`
      ).length > 0,
    PROMPT_MS,
    'the query running',
  );
}

const STARTING = errorResponse('57P03', 'the database system is not yet accepting connections');

describe('a connection refused at start-up after its session died mid-query', () => {
  for (const front of ['plain', 'tls'] as const) {
    it(`${front}: the waiting query fails with the refusal (503), and the next session's first query is answered, not failed with it`, async () => {
      const server = front === 'plain' ? await startResettingProxy(db.url) : await startTlsPostgres(db.url);
      cleanups.push(() => server.close());
      const sql: Sql = connect(db.configWith({ databaseUrl: server.url }), undefined, { max: 1 });
      cleanups.push(() => sql.end({ timeout: 1 }));
      await sql`select 1`;

      // the session dies mid-query
      const dying = sql.unsafe(`select pg_sleep(30) as ${MARKER}_${front}`).catch((error: unknown) => error);
      await running(`${MARKER}_${front}`);
      server.refuse(STARTING);
      server.reset();
      assert.ok(isConnectionError(await dying), 'the query cut mid-way fails with a connection error');

      // the reconnect's start-up is refused: its query fails with the server's refusal, a 503
      const refused = await settled('the query of the refused start-up', sql`select 2`);
      assert.ok(isConnectionError(refused), `a connection error: ${String(refused)}`);
      const problem = problemFrom(refused, { exposeInternals: false });
      assert.equal(problem.status, 503);
      assert.equal(problem.code, 'APP_DATABASE_UNAVAILABLE');

      // the server is back: the good session's first query is answered
      server.flow();
      const answered = await settled('the first query of the good session', sql`select 3 as three`);
      assert.deepEqual(answered, [{ three: 3 }], `answered, not failed with the stale refusal: ${String(answered)}`);

      // the refusal carried the server's words and code, and is no configuration problem
      assert.equal((refused as { code?: string }).code, '57P03');
      assert.match(String((refused as Error).message), /not yet accepting connections/);
      assert.equal(configurationProblem(refused), undefined);
    });
  }
});

describe('a session the server ends with a FATAL during a query', () => {
  it('the query fails with it (503), and the first query of the next session is answered, not failed with it', async () => {
    const sql: Sql = connect(db.config, undefined, { max: 1 });
    cleanups.push(() => sql.end({ timeout: 1 }));
    await sql`select 1`;
    const dying = sql.unsafe(`select pg_sleep(30) as ${MARKER}_fatal`).catch((error: unknown) => error);
    await running(`${MARKER}_fatal`);
    // as a fast shutdown ends every session: FATAL 57P01, then the server closes the connection
    await db.sql`select pg_terminate_backend(pid) from pg_stat_activity where query like ${`%${MARKER}_fatal%`} and pid <> pg_backend_pid()`;
    const ended = await settled('the query the session ended under', dying);
    assert.equal(problemFrom(ended, { exposeInternals: false }).status, 503, `a 503: ${String(ended)}`);

    const answered = await settled('the first query of the next session', sql`select 3 as three`);
    assert.deepEqual(answered, [{ three: 3 }], `answered, not failed with the stale FATAL: ${String(answered)}`);
    // the query the session ended under failed with the server's reason (the driver alone said CONNECTION_CLOSED)
    assert.equal((ended as { code?: string }).code, '57P01', String(ended));
  });
});
