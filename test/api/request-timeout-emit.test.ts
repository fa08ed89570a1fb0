/**
 * An emit whose request timed out (503) never commits afterwards, and a retry
 * with the same Idempotency-Key runs it exactly once; an emit whose payload times its fan-out
 * exceeds webhooks.maxFanoutBytes is refused whole, and so is one that would take a tenant's
 * emits under way at once past it.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import { call, closeAll, startApi } from './webhooks-api/helpers.ts';
import { eventually } from '../helpers/poll.ts';
import { endpoint } from '../worker/helpers.ts';

const counts = async (sql: postgres.Sql) => {
  const [row] = await sql<{ events: number; deliveries: number; jobs: number }[]>`
    select (select count(*)::int from app_events) as events,
           (select count(*)::int from app_webhook_deliveries) as deliveries,
           (select count(*)::int from graphile_worker.jobs where task_identifier = 'app/webhook') as jobs`;
  return row;
};

describe('timed-out emits', () => {
  after(closeAll); // the worker and servers stop before the database is dropped
  it('a 503 from the request timeout means nothing was written, and the retry with the same key writes once', async () => {
    const app = await startApi({ requestTimeout: 300 });
    const token = await app.token('admin');
    // registered through the core, not the API: on a loaded machine a request of its own may
    // outlive the 300 ms deadline this file sets
    for (let i = 0; i < 5; i += 1)
      await endpoint(app.h, `https://127.0.0.1/t${i}`, { events: ['order.*'], owner: null });
    const emitOnce = () =>
      call('POST', `${app.api}/events`, {
        token,
        body: { type: 'order.created', data: { n: 1 } },
        headers: { 'Idempotency-Key': 'timeout-emit-1' },
      });
    // A transaction of the test holds app_events: the emit blocks on its first insert past its deadline.
    const blocker = postgres(app.db.url, { max: 1, onnotice: () => {} });
    const locked = blocker.begin(async (tx) => {
      await tx`lock table app_events in access exclusive mode`;
      const answer = await emitOnce();
      assert.equal(answer.status, 503, answer.text);
    });
    await locked;
    // the lock is gone: the blocked emit goes on, reaches its commit after the deadline, rolls back
    await eventually(
      async () => {
        const [{ busy }] = await blocker<{ busy: number }[]>`
        select count(*)::int as busy from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and state in ('active', 'idle in transaction') and query ilike '%app_%'`;
        return busy === 0;
      },
      10_000,
      'the blocked emit to finish',
    );
    assert.deepEqual(
      await counts(app.db.sql),
      { events: 0, deliveries: 0, jobs: 0 },
      'nothing committed after the 503',
    );

    // sent again until served, as a client would: a 503 from the deadline (a loaded machine) wrote
    // nothing, which is the rule checked above
    let retried = await emitOnce();
    for (let tries = 1; retried.status === 503 && tries < 20; tries += 1) retried = await emitOnce();
    assert.equal(retried.status, 202, retried.text);
    assert.deepEqual(await counts(app.db.sql), { events: 1, deliveries: 5, jobs: 5 });
    await blocker.end();
  });

  it('an emit writing more than webhooks.maxFanoutBytes (payload times endpoints) is refused with 413, nothing written', async () => {
    const app = await startApi({ webhooks: { maxFanoutBytes: '2kb' } });
    const token = await app.token('admin');
    for (let i = 0; i < 3; i += 1)
      await call('POST', `${app.api}/webhooks`, { token, body: { url: `https://127.0.0.1/b${i}`, events: ['big.*'] } });
    const payload = { blob: 'x'.repeat(1000) };
    const refused = await call('POST', `${app.api}/events`, { token, body: { type: 'big.one', data: payload } });
    assert.equal(refused.status, 413, refused.text);
    assert.equal(refused.body.code, 'APP_WEBHOOK_FANOUT_TOO_LARGE');
    assert.deepEqual([refused.body.data.matched, refused.body.data.limit], [3, 2048]);
    assert.deepEqual(await counts(app.db.sql), { events: 0, deliveries: 0, jobs: 0 });
    const small = await call('POST', `${app.api}/events`, {
      token,
      body: { type: 'big.one', data: { blob: 'x'.repeat(100) } },
    });
    assert.equal(small.status, 202, 'the same fan-out with a small payload is fine');
  });

  it("a tenant's emits under way at once write at most webhooks.maxFanoutBytes together: past it 429 APP_WEBHOOK_FANOUT_BUSY; other tenants are not held", async () => {
    const app = await startApi({ webhooks: { maxFanoutBytes: '2kb' } });
    const admin = await app.token('admin');
    for (const owner of ['busy', 'calm'])
      for (let i = 0; i < 3; i += 1)
        await call('POST', `${app.api}/webhooks`, {
          token: admin,
          body: { url: `https://127.0.0.1/${owner}${i}`, events: ['big.*'], owner },
        });
    const busy = await app.token('member', 'busy');
    const calm = await app.token('member', 'calm');
    const emit = (token: string) =>
      call('POST', `${app.api}/events`, { token, body: { type: 'big.one', data: { blob: 'x'.repeat(400) } } });
    // a transaction of the test holds app_events: the first emit waits there, its bytes counted
    const blocker = postgres(app.db.url, { max: 1, onnotice: () => {} });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const locked = blocker.begin(async (tx) => {
      await tx`lock table app_events in access exclusive mode`;
      held();
      await released;
    });
    await holding; // the emits start once the lock is held, not before the blocker has connected
    const waiting = async (n: number) => {
      const [{ blocked }] = await app.db.sql<{ blocked: number }[]>`
        select count(*)::int as blocked from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and query ilike '%app_events%'`;
      return blocked >= n;
    };
    const first = emit(busy);
    await eventually(() => waiting(1), 10_000, 'the first emit to wait on the lock');
    const second = await emit(busy);
    assert.equal(second.status, 429, second.text);
    assert.equal(second.body.code, 'APP_WEBHOOK_FANOUT_BUSY');
    assert.equal(second.headers.get('retry-after'), '1');
    assert.equal(second.body.data.limit, 2048);
    const other = emit(calm); // another tenant's emit is let through (and waits on the lock too)
    await eventually(() => waiting(2), 10_000, "the other tenant's emit to wait on the lock");
    release();
    await locked;
    assert.equal((await first).status, 202);
    assert.equal((await other).status, 202);
    assert.equal((await emit(busy)).status, 202, 'the bytes were given back');
    assert.deepEqual(await counts(app.db.sql), { events: 3, deliveries: 9, jobs: 9 });
    await blocker.end();
  });
});
