/**
 * A worker's liveness lock that its heartbeat's database does not see (its connection reached
 * another server: after a failover moved the database's name, a reader) is not recorded in the
 * heartbeat rows, so no sweep presumes the live worker dead and runs its deliveries again; the
 * lock's connection is opened again. The other server here is the machine's own PostgreSQL on
 * 5432, the heartbeat's the test's embedded one.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openLiveness, startHeartbeat, sweep } from '../../worker/heartbeat.ts';
import { createTestDatabase, testConfig } from '../helpers/database.ts';
import { eventually } from '../helpers/poll.ts';
import { captureLogger } from '../shared/webhooks/fixtures.ts';
import { harness } from './helpers.ts';

const db = await createTestDatabase();
const stops: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const stop of stops.reverse()) await stop();
});

describe('a liveness lock held on another server', () => {
  it('is left out of the heartbeat rows (no sweep presumes the worker dead) and its connection is opened again', async () => {
    const h = harness(db);
    const capture = captureLogger(h.config);
    const elsewhere = testConfig('postgres://postgres@127.0.0.1:5432/postgres');
    const liveness = openLiveness(elsewhere, capture.log);
    stops.push(() => liveness.close());
    const heartbeat = startHeartbeat({ config: h.config, sql: h.sql, log: capture.log, liveness });
    stops.push(() => heartbeat.stop({ forget: true }));
    const pool = `liveness-elsewhere-${process.pid}`;
    heartbeat.add(pool);

    const row = async () =>
      (
        await h.sql<
          { key: number | null }[]
        >`select liveness_key as key from app_worker_heartbeats where pool_id = ${pool}`
      )[0];
    await eventually(async () => (await row()) !== undefined, 10_000, 'the first heartbeat row');
    assert.equal((await row()).key, null, 'a key this database does not see held is not recorded');

    await sweep(h);
    assert.notEqual(await row(), undefined, 'the sweep does not take the live worker for dead');

    await eventually(
      () => capture.lines().some((line) => String(line.msg).includes('its connection is opened again')),
      10_000,
      'the warning',
    );
    // the next beat takes the lock on the new connection
    await eventually(
      () => capture.lines().some((line) => line.msg === 'liveness lock taken again after its connection was lost'),
      10_000,
      'the lock taken again on a new connection',
    );
    assert.equal((await row()).key, null, 'still not recorded: the new connection reached the same other server');
  });
});
