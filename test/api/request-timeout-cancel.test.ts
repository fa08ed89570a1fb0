/**
 * A request answered 503 by its timeout has the statements it had under way cancelled on
 * PostgreSQL (shared/db/request-statements.ts): a listing or an emit waiting on a lock the test
 * holds is gone from the server while the lock is still held, its connection back in the pool, so
 * the pool serves the requests that follow instead of every one of them timing out behind it.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import { call, closeAll, startApi, type ApiHarness } from './webhooks-api/helpers.ts';
import { eventually } from '../helpers/poll.ts';

/**
 * A transaction of the test holding `app_events` until `end()`; resolves once the lock is held.
 * A test that fails before its `end()` has it ended after it, before the database is dropped.
 */
async function holdEvents(app: ApiHarness) {
  const blocker = postgres(app.db.url, { max: 1, onnotice: () => {} });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: (pid: number) => void;
  const holding = new Promise<number>((resolve) => (held = resolve));
  const locked = blocker.begin(async (tx) => {
    await tx`lock table app_events in access exclusive mode`;
    const [{ pid }] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
    held(pid);
    await released;
  });
  const pid = await holding;
  let ended: Promise<void> | undefined;
  const end = () =>
    (ended ??= (async () => {
      release();
      await locked;
      await blocker.end();
    })());
  after(end);
  return {
    pid,
    /** Backends other than the holder's with a statement on app_events running (or waiting on its lock). */
    async running(): Promise<number> {
      const [{ n }] = await app.db.sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
         where datname = current_database() and pid not in (${pid}, pg_backend_pid())
           and state = 'active' and query ilike '%app_events%'`;
      return n;
    },
    end,
  };
}

/** The web process's log lines at error level or above other than the timeouts' own (a 500, an unhandled rejection). */
const errorLines = (app: ApiHarness) =>
  app.logs.filter((line) => {
    const entry = JSON.parse(line) as { level: number; err?: { message?: string } };
    return entry.level >= 50 && !entry.err?.message?.startsWith('request did not finish within');
  });

describe('statements of timed-out requests', () => {
  after(closeAll); // the servers stop before the database is dropped
  it('a listing and an emit blocked on a lock are answered 503 and their statements are cancelled while the lock is still held', async () => {
    const app = await startApi({ requestTimeout: 500 });
    const token = await app.token('admin');
    const endpoint = await call('POST', `${app.api}/webhooks`, {
      token,
      body: { url: 'https://127.0.0.1/c', events: ['order.*'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text); // the emit has a delivery to write: it waits on the lock
    const lock = await holdEvents(app);
    const [listing, emit] = await Promise.all([
      call('GET', `${app.api}/events`, { token }),
      call('POST', `${app.api}/events`, { token, body: { type: 'order.created', data: { n: 1 } } }),
    ]);
    assert.equal(listing.status, 503, listing.text);
    assert.equal(emit.status, 503, emit.text);
    for (const answer of [listing, emit]) {
      assert.equal(JSON.parse(answer.text).code, 'APP_REQUEST_TIMEOUT', 'the timeout is a problem with its own code');
    }
    // the rule: a timed-out request's statement does not go on waiting on the server
    await eventually(async () => (await lock.running()) === 0, 5_000, 'the blocked statements to be cancelled');
    await lock.end();
    assert.deepEqual(errorLines(app), [], 'a cancelled statement is neither a 500 nor an unhandled rejection');
    const [{ events }] = await app.db.sql<{ events: number }[]>`select count(*)::int as events from app_events`;
    assert.equal(events, 0, 'the cancelled emit wrote nothing');
  });

  it('the pool (4 connections) serves the following requests after more requests than it has timed out on a lock', async () => {
    const app = await startApi({ requestTimeout: 500 });
    const token = await app.token('admin');
    const lock = await holdEvents(app);
    // two more than the pool: two wait for a connection, and are cancelled as they get one
    const listings = await Promise.all(Array.from({ length: 6 }, () => call('GET', `${app.api}/events`, { token })));
    assert.deepEqual(
      listings.map((answer) => answer.status),
      [503, 503, 503, 503, 503, 503],
    );
    const following = await call('GET', `${app.api}/webhooks`, { token });
    assert.equal(following.status, 200, `while the lock is still held: ${following.text}`);
    await eventually(async () => (await lock.running()) === 0, 5_000, 'the blocked statements to be cancelled');
    await lock.end();
    const afterwards = await Promise.all(Array.from({ length: 6 }, () => call('GET', `${app.api}/events`, { token })));
    assert.deepEqual(
      afterwards.map((answer) => answer.status),
      [200, 200, 200, 200, 200, 200],
      'each connection of the pool is usable',
    );
    assert.deepEqual(errorLines(app), []);
  });
});
