/**
 * A worker whose server is older than the minimum (shared/db/server-version.ts) stops at once:
 * its supervisor treats the refusal as final, where an outage is waited out and retried.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Sql } from '../../shared/db/connect.ts';
import { serverVersionProblem, UnsupportedServerError } from '../../shared/db/server-version.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { supervise } from '../../worker/supervisor.ts';
import { testConfig } from '../helpers/database.ts';

describe('a worker on a server older than the minimum', () => {
  it('the supervisor gives up at once with the refusal, without waiting for the database or starting again', async () => {
    const log = createLogger(testConfig(null), { name: 'test' });
    let starts = 0;
    let waited = false;
    const supervisor = supervise({
      // never asked: a refusal is not an outage to wait out
      sql: (() => {
        waited = true;
        throw new Error('the supervisor asked the database whether it is back');
      }) as unknown as Sql,
      log,
      outageLimitMs: 60_000,
      start: async () => {
        starts += 1;
        throw new UnsupportedServerError(serverVersionProblem(140_011) ?? '', 140_011);
      },
      onDown: () => {},
      onUp: async () => {},
      lastContact: () => undefined,
    });
    await assert.rejects(supervisor.done, (error: unknown) => {
      assert.ok(error instanceof UnsupportedServerError);
      assert.match(error.message, /PostgreSQL 14\.11, older than the minimum this service supports, PostgreSQL 15/);
      return true;
    });
    assert.equal(starts, 1);
    assert.equal(waited, false);
    supervisor.stop();
  });
});
