/**
 * The worker survives database outages in the same process. Deliveries are
 * held in flight at a receiver when the database goes away (a TCP cut, then the database refusing
 * connections, then a proxy in front of it accepting connections and closing them); once it is back, every delivery arrives and none is left `running`, without
 * restarting anything. Past `worker.outageLimit` the worker gives up (the process exits non-zero)
 * and its heartbeat has already stopped.
 */
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import postgres from 'postgres';
import { WorkerOutageError } from '../../worker/supervisor.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { endpoint, flags, FAST, send, type Harness } from './helpers.ts';
import { eventually } from '../helpers/poll.ts';
import { startWorker } from '../../worker/runner.ts';
import { serveWorker } from '../../worker/run.ts';
import { freePort } from '../helpers/ports.ts';
import { tasks } from '../../worker/tasks/index.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { linesInto } from '../helpers/logs.ts';
import { surviveDriverCrashAsProcessesDo } from '../helpers/driver-crash.ts';

const db = await createTestDatabase();
// as the worker process does (worker/run.ts): a TCP cut can trip the postgres driver's known crash
surviveDriverCrashAsProcessesDo(db.log);
/** What the running test started (worker, proxy, receiver), stopped when that test ends: no test runs beside another's worker. */
const cleanups: (() => Promise<unknown>)[] = [];
const stopAll = async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
};
after(stopAll);

/**
 * A receiver that, while `hold()` is on, keeps every request waiting until `release()`
 * (deliveries in flight), and otherwise answers 200 at once.
 */
async function holdingReceiver() {
  const held: (() => void)[] = [];
  let holding = false;
  const receiver: Receiver = await startReceiver((_req, res) => {
    if (holding) held.push(() => res.end('ok'));
    else res.end('ok');
  });
  cleanups.push(() => receiver.close());
  return {
    receiver,
    hold: () => void (holding = true),
    held: () => held.length,
    release: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
  };
}

const statuses = async (ids: string[]) =>
  (await db.sql<{ status: string }[]>`select status from app_webhook_deliveries where id = any(${ids})`).map(
    (row) => row.status,
  );

async function workerThrough(url: string, extra: Record<string, unknown> = {}) {
  // held deliveries must stay in flight until released: a long attempt timeout, room for all of them
  const config = db.configWith(
    flags(
      FAST,
      {
        databaseUrl: url,
        worker: { outageLimit: '60s' },
        webhooks: { timeout: '20s', concurrency: 16, endpointConcurrency: 16, maxAttempts: 10 },
      },
      extra,
    ),
  );
  const lines: Record<string, unknown>[] = [];
  const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
  const h: Harness = { db, config, sql: db.sql, log };
  const handle = await startWorker({ config, log }, tasks);
  cleanups.push(() => handle.stop({ force: true }));
  return { h, handle, lines };
}

describe('the worker and database outages', () => {
  afterEach(stopAll);
  it('comes back by itself after a TCP cut, the database refusing connections and a proxy closing them, delivering everything, leaving nothing running', async () => {
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const { h, handle, lines } = await workerThrough(proxy.url);
    const { receiver, hold, held, release } = await holdingReceiver();
    const ep = await endpoint(h, `${receiver.origin}/held`);

    // 1. a TCP cut while ten deliveries are in flight
    hold();
    const first = (await Promise.all(Array.from({ length: 10 }, () => send(h, ep)))).flat();
    await eventually(() => held() === 10, 15_000, 'ten deliveries in flight');
    await proxy.cut();
    release();
    await eventually(() => !handle.health().running, 15_000, 'the runner noticed the outage');
    assert.equal(handle.health().ready, false, 'not ready while the database is away');
    await proxy.restore();
    await eventually(
      async () => (await statuses(first)).every((status) => status === 'done'),
      30_000,
      'every delivery of the first batch done',
    );
    assert.ok(handle.health().running, 'a new runner runs, in the same process');

    // 2. the database refusing connections (its backends terminated) while ten more are in flight
    hold();
    const second = (await Promise.all(Array.from({ length: 10 }, () => send(h, ep)))).flat();
    await eventually(() => held() === 10, 15_000, 'ten more in flight');
    const admin = postgres(new URL('/postgres', db.url).toString(), { max: 1, onnotice: () => {} });
    cleanups.push(() => admin.end());
    await admin.unsafe(`alter database ${db.name} allow_connections false`);
    try {
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${db.name} and pid <> pg_backend_pid()`;
      release();
      await eventually(() => !handle.health().running, 15_000, 'the runner noticed the second outage');
    } finally {
      await admin.unsafe(`alter database ${db.name} allow_connections true`);
    }
    await eventually(
      async () =>
        (await statuses(second).catch(() => [])).every((status) => status === 'done') &&
        (await statuses(second)).length === 10,
      30_000,
      'every delivery of the second batch done',
    );

    // 3. a proxy whose database is down (connections accepted, then closed before a word) while
    // ten more are in flight
    hold();
    const third = (await Promise.all(Array.from({ length: 10 }, () => send(h, ep)))).flat();
    await eventually(() => held() === 10, 15_000, 'ten more in flight again');
    proxy.refuse();
    release();
    await eventually(() => !handle.health().running, 15_000, 'the runner noticed the third outage');
    proxy.flow();
    await eventually(
      async () => (await statuses(third)).every((status) => status === 'done'),
      30_000,
      'every delivery of the third batch done',
    );

    const all = [...first, ...second, ...third];
    assert.deepEqual(
      (await statuses(all)).filter((status) => status !== 'done'),
      [],
      'nothing left running or pending',
    );
    const arrived = new Set(receiver.requests.map((request) => request.headers['webhook-id']));
    assert.deepEqual(
      all.filter((id) => !arrived.has(id)),
      [],
      'every delivery reached the receiver (at least once)',
    );
    await eventually(() => handle.health().ready, 10_000, 'ready again');
    // an outage fails every job and beat alike: each says why in one line, none carries a stack
    const stacked = lines.filter((line) => /\n\s+at /.test(JSON.stringify(line).replaceAll('\\n', '\n')));
    assert.deepEqual(
      stacked.map((line) => line.msg),
      [],
      'no stack in the log of an outage',
    );
  });

  it('started while its database cannot be reached, it answers /livez (alive) and /readyz 503 (not ready) on its port, and is ready once the database is there', async () => {
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    await proxy.cut();
    const port = await freePort();
    const config = db.configWith(
      flags(FAST, { databaseUrl: proxy.url, worker: { outageLimit: '60s', metricsPort: port } }),
    );
    const serving = serveWorker({ config, log: db.log });
    cleanups.push(async () => (await serving).handle.stop({ force: true }));
    const base = `http://127.0.0.1:${port}`;
    const waiting = await eventually(
      async () => (await fetch(`${base}/livez`).catch(() => undefined))?.status === 200 || undefined,
      10_000,
      'the listener up before the database',
    );
    assert.equal(waiting, true);
    const notReady = await fetch(`${base}/readyz`);
    assert.equal(notReady.status, 503);
    assert.equal(((await notReady.json()) as { running: boolean }).running, false);
    await proxy.restore();
    await serving;
    await eventually(async () => (await fetch(`${base}/readyz`)).status === 200 || undefined, 15_000, 'ready');
  });

  it('gives up past worker.outageLimit with WorkerOutageError, its heartbeat already stopped', async () => {
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const { handle } = await workerThrough(proxy.url, { worker: { outageLimit: '1s' } });
    await eventually(() => handle.health().ready, 10_000, 'ready');
    await proxy.cut();
    const cutAt = Date.now(); // no query can succeed through the proxy from here on
    await assert.rejects(handle.ended, WorkerOutageError);
    assert.equal(handle.health().running, false);
    const last = handle.health().lastHeartbeat;
    assert.ok(
      last !== null && last.getTime() <= cutAt,
      `no heartbeat after the cut (last ${last?.toISOString()}, cut ${new Date(cutAt).toISOString()})`,
    );
  });
});
