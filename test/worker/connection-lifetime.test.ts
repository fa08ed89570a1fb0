/**
 * Every database connection of a worker is replaced after `db.maxLifetime`, so a worker whose
 * connections were opened on a read-only session (a failover moved the database's name, and they
 * were opened on the old primary, now a reader) recovers by itself once new sessions are writable
 * again. The database is set `default_transaction_read_only` before the worker starts, so every
 * connection it opens refuses writes, and its runner's first fetch too (graphile-worker keeps
 * that refusal: worker/read-only-fetch.ts restarts the runner once the worker's own writes go
 * through again). Once the setting is reset every delivery arrives within a bound that follows
 * from the lifetime, and the worker stops leaving no connection open.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import { createLogger } from '../../shared/log/logger.ts';
import { startWorker } from '../../worker/runner.ts';
import { tasks } from '../../worker/tasks/index.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { linesInto } from '../helpers/logs.ts';
import { eventually } from '../helpers/poll.ts';
import { startReceiver } from './delivery/receiver.ts';
import { endpoint, FAST, flags, send, type Harness } from './helpers.ts';

const LIFETIME_MS = 2_000;
const HEARTBEAT_MS = 200; // FAST: the recovery sweep runs after each beat
/**
 * From the reset on: every connection opened before it is gone within LIFETIME_MS; the next beat
 * (HEARTBEAT_MS) then writes, and the next refused fetch restarts the runner, which the
 * supervisor starts again at once (or after its first backoff, 250 ms); a delivery whose job
 * failed meanwhile is armed again by the sweep after a beat. The rest is room for a loaded machine.
 */
const RECOVERY_BOUND_MS = LIFETIME_MS + 2 * HEARTBEAT_MS + 250 + 5_000;

const db = await createTestDatabase();
const admin = postgres(new URL('/postgres', db.url).toString(), { max: 1, onnotice: () => {} });
const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await admin.unsafe(`alter database ${db.name} reset default_transaction_read_only`).catch(() => undefined);
  await admin.end();
});

/** The connections of this database's worker processes still open, by application name. */
const workerConnections = async () =>
  (
    await admin<{ name: string }[]>`
      select application_name as name from pg_stat_activity
       where datname = ${db.name} and application_name like 'app-worker%'`
  ).map((row) => row.name);

describe('a worker whose connections were opened read-only', () => {
  it('replaces them within db.maxLifetime and delivers everything once new sessions are writable, then stops leaving no connection open', async (t) => {
    const config = db.configWith(flags(FAST, { db: { maxLifetime: `${LIFETIME_MS}ms` } }));
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
    const h: Harness = { db, config, sql: db.sql, log };
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    cleanups.push(() => receiver.close());
    const ep = await endpoint(h, `${receiver.origin}/hook`);
    const ids = (await Promise.all(Array.from({ length: 5 }, (_, n) => send(h, ep, 'order.created', { n })))).flat();
    assert.equal(ids.length, 5);

    // every connection the worker opens from here on holds a read-only session
    await admin.unsafe(`alter database ${db.name} set default_transaction_read_only = on`);
    const handle = await startWorker({ config, log }, tasks);
    let stopped = false;
    cleanups.push(() => (stopped ? Promise.resolve() : handle.stop({ force: true })));
    await eventually(
      () => lines.some((line) => JSON.stringify(line).includes('read-only transaction')),
      15_000,
      'a write of the worker refused by its read-only session',
    );
    assert.equal(receiver.requests.length, 0, 'nothing delivered while every session refuses writes');

    await admin.unsafe(`alter database ${db.name} reset default_transaction_read_only`);
    const resetAt = performance.now();
    await eventually(
      () => new Set(receiver.requests.map((request) => request.headers['webhook-id'])).size === ids.length,
      RECOVERY_BOUND_MS,
      'every delivery at the receiver',
    );
    const recoveredMs = Math.round(performance.now() - resetAt);
    await eventually(
      async () =>
        (await db.sql<{ status: string }[]>`select status from app_webhook_deliveries where id = any(${ids})`).every(
          (row) => row.status === 'done',
        ),
      RECOVERY_BOUND_MS,
      'every delivery recorded done',
    );

    const stopStarted = performance.now();
    await handle.stop();
    stopped = true;
    const stopMs = Math.round(performance.now() - stopStarted);
    // the server forgets a connection a moment after the client closed it
    await eventually(
      async () => (await workerConnections()).length === 0 || undefined,
      5_000,
      'no connection of the worker left open',
    );
    t.diagnostic(
      `every delivery ${recoveredMs} ms after the reset (bound ${RECOVERY_BOUND_MS} ms); stopped in ${stopMs} ms`,
    );
  });
});
