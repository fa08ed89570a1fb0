/**
 * The oldest PostgreSQL the service runs on (shared/db/server-version.ts): a server older than
 * the minimum is refused with one line naming its version and the minimum; the CLI exits 1 with
 * it (its documented code for an invalid configuration); a supported server passes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureOf } from '../../../cli/failure.ts';
import {
  MINIMUM_SERVER_VERSION_NUM,
  requireSupportedServer,
  requireSupportedServerOnceReachable,
  serverVersionProblem,
  serverVersionText,
  UnsupportedServerError,
} from '../../../shared/db/server-version.ts';
import { createTestDatabase } from '../../helpers/database.ts';

const db = await createTestDatabase();

describe('the minimum PostgreSQL version', () => {
  it('is PostgreSQL 15: 15.0 and every later release pass, 14.x and older are refused', () => {
    assert.equal(MINIMUM_SERVER_VERSION_NUM, 150_000);
    for (const version of [150_000, 150_020, 160_004, 170_002, 180_001])
      assert.equal(serverVersionProblem(version), undefined);
    for (const version of [149_999, 140_011, 130_020, 90_624])
      assert.ok(serverVersionProblem(version), String(version));
  });

  it('the refusal is one line naming the server version and the minimum', () => {
    const line = serverVersionProblem(140_011) ?? '';
    assert.equal(
      line,
      'the database server runs PostgreSQL 14.11, older than the minimum this service supports, PostgreSQL 15: upgrade the server',
    );
    assert.doesNotMatch(line, /\n/);
  });

  it('reads server_version_num as a release: major.minor from 10 on, major.minor.patch before', () => {
    assert.equal(serverVersionText(150_004), '15.4');
    assert.equal(serverVersionText(180_000), '18.0');
    assert.equal(serverVersionText(90_624), '9.6.24');
  });

  it('in the CLI, a refused server is exit 1 with code APP_DATABASE_UNSUPPORTED and the one line', () => {
    const line = serverVersionProblem(140_011) ?? '';
    assert.deepEqual(failureOf(new UnsupportedServerError(line, 140_011), db.url), {
      exit: 1,
      code: 'APP_DATABASE_UNSUPPORTED',
      message: line,
    });
  });

  it('the test server passes: requireSupportedServer answers its server_version_num', async () => {
    const [{ version }] = await db.sql<
      { version: number }[]
    >`select current_setting('server_version_num')::int as version`;
    assert.equal(await requireSupportedServer(db.sql), version);
    assert.equal(await requireSupportedServerOnceReachable(db.sql), version);
  });

  it('once reachable: an aborted wait resolves undefined without asking', async () => {
    const stop = new AbortController();
    stop.abort();
    assert.equal(await requireSupportedServerOnceReachable(db.sql, { signal: stop.signal }), undefined);
  });
});
