/**
 * A statement a request started does not outlive the request by more than `requestTimeout`: the
 * web process's connections carry it as their `statement_timeout`, so a listing held up (here by
 * a lock a test transaction keeps on the deliveries) is cancelled by PostgreSQL soon after the
 * request was answered 503, instead of holding a connection of the pool until the lock goes.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import { createToken } from '../../shared/tokens/tokens.ts';
import { eventually } from '../helpers/poll.ts';
import { serveWeb } from '../helpers/web.ts';

const REQUEST_TIMEOUT_MS = 400;

describe('statements of a timed-out request', () => {
  const blockers: postgres.Sql[] = [];
  after(async () => {
    for (const blocker of blockers) await blocker.end();
  });

  it('a listing blocked past requestTimeout answers 503 and its statement is gone soon after, the lock still held', async () => {
    const { base, db } = await serveWeb({ requestTimeout: REQUEST_TIMEOUT_MS });
    const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'ops', role: 'admin' });
    const blocker = postgres(db.url, { max: 1, onnotice: () => {} });
    blockers.push(blocker);
    await blocker.begin(async (tx) => {
      // a transaction sees pg_stat_activity as it first read it, until told to read it again
      const waiting = async () => {
        await tx`select pg_stat_clear_snapshot()`;
        return tx<{ pid: number }[]>`
        select pid from pg_stat_activity
         where datname = current_database() and application_name = 'app-web' and state = 'active'
           and query ilike '%app_webhook_deliveries%'`;
      };
      await tx`lock table app_webhook_deliveries in access exclusive mode`;
      const started = Date.now();
      const answer = await fetch(`${base}/api/v1/deliveries?per_page=100`, {
        headers: { Authorization: `Bearer ${token}`, Accept: 'application/hal+json' },
      });
      assert.equal(answer.status, 503, await answer.text());
      // the listing's statement ends within about requestTimeout of its start, while the lock
      // that holds it up is still taken: PostgreSQL cancelled it
      await eventually(async () => (await waiting()).length === 0, 5_000, 'the listing statement to be cancelled');
      const gone = Date.now() - started;
      assert.ok(gone < REQUEST_TIMEOUT_MS * 4, `the statement lasted ${gone} ms`);
    });
  });
});
