/**
 * Which errors of a real server mean "no session" (the API answers 503) and which are a
 * statement's own: SQLSTATEs 55000, 3D000 and 28000 are both, told apart by the phase they are
 * raised in (a refused start-up is FATAL, a statement's error is ERROR).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { configurationProblem, isConnectionError } from '../../../shared/db/connection-errors.ts';
import { problemFrom } from '../../../api/problem.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';

let db: TestDatabase;
let admin: postgres.Sql;
before(async () => {
  db = await createTestDatabase();
  admin = postgres(new URL('/postgres', db.url).toString(), { max: 1, onnotice: () => {} });
});
after(() => admin.end());

/** What one query on a fresh connection to `url` throws. */
async function refusal(url: URL | string, query = 'select 1'): Promise<unknown> {
  const sql = postgres(url.toString(), { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await sql.unsafe(query);
  } catch (error) {
    return error;
  } finally {
    await sql.end({ timeout: 1 });
  }
  assert.fail(`${query} on ${url} succeeded`);
}

const withPath = (path: string) => Object.assign(new URL(db.url), { pathname: path });
const withUser = (user: string) => Object.assign(new URL(db.url), { username: user });

describe('connection errors from a real server', () => {
  it('a database that does not accept connections (allow_connections false) is unreachable, not misconfigured', async () => {
    await admin.unsafe(`alter database ${db.name} allow_connections false`);
    let error: unknown;
    try {
      error = await refusal(db.url);
    } finally {
      await admin.unsafe(`alter database ${db.name} allow_connections true`);
    }
    assert.equal((error as { code?: string }).code, '55000');
    assert.equal(isConnectionError(error), true);
    assert.equal(isConnectionError(new Error('wrapped', { cause: error })), true, 'found among the causes');
    assert.equal(configurationProblem(error), undefined);
    assert.equal(problemFrom(error, { exposeInternals: false }).status, 503);
  });

  it('a database or a role that does not exist is a configuration problem, named for the log', async () => {
    const database = await refusal(withPath('/app_test_no_such_database'));
    assert.equal((database as { code?: string }).code, '3D000');
    assert.equal(isConnectionError(database), true);
    assert.deepEqual(configurationProblem(database), {
      problem: 'DATABASE_URL names a database that does not exist',
      reason: 'database "app_test_no_such_database" does not exist',
    });

    const role = await refusal(withUser('app_test_no_such_role'));
    assert.equal((role as { code?: string }).code, '28000');
    assert.equal(isConnectionError(role), true);
    assert.match(configurationProblem(role)?.problem ?? '', /^DATABASE_URL's user may not log in/);
    assert.equal(configurationProblem(role)?.reason, 'role "app_test_no_such_role" does not exist');
    assert.equal(problemFrom(role, { exposeInternals: false }).code, 'APP_DATABASE_UNAVAILABLE');
  });

  it("the same SQLSTATEs raised by a statement are that statement's errors, not an outage", async () => {
    const cases = [
      ['55000', "create temporary sequence s; select currval('s')"], // currval before nextval
      ['3D000', 'alter database app_test_no_such_database set work_mem = 1024'],
    ] as const;
    for (const [code, query] of cases) {
      const error = await refusal(db.url, query);
      assert.equal((error as { code?: string }).code, code, query);
      assert.equal(isConnectionError(error), false, query);
      assert.equal(configurationProblem(error), undefined, query);
      assert.equal(problemFrom(error, { exposeInternals: false }).status, 500, query);
    }
  });
});
