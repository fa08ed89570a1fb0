/**
 * kill -9 with the default `worker.staleAfter` (45 s): the killed process's liveness lock
 * (worker/heartbeat.ts) goes with its connection, so a new worker recovers the deliveries it held
 * in flight at once instead of after `staleAfter`, while their endpoint, at its concurrency cap,
 * would otherwise send nothing.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { LIVENESS_LOCK } from '../../worker/heartbeat.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/poll.ts';
import { startHoldingReceiver, type Receiver } from './delivery/receiver.ts';
import { deliveryRow, endpoint, harness, send, type Harness } from './helpers.ts';
import { spawnWorker } from './processes.ts';

const db = await createTestDatabase();
const h: Harness = harness(db);
const ENV = {
  APP_WEBHOOKS__ENDPOINT_CONCURRENCY: '2',
  APP_WORKER__POLL_INTERVAL: '100ms',
  APP_WORKER__HEARTBEAT: '1s',
  APP_WORKER__STALE_AFTER: '45s', // the default, spelled out: the old rule alone would wait this long
};

/** Liveness locks held in this database now. */
async function livenessLocks(): Promise<number> {
  const [{ n }] = await h.sql<{ n: number }[]>`
    select count(*)::int as n from pg_locks
     where locktype = 'advisory' and granted and classid = ${LIVENESS_LOCK}::int::oid and objsubid = 2
       and database = (select oid from pg_database where datname = current_database())`;
  return n;
}

describe('crash recovery by liveness lock', () => {
  let receiver: Receiver;
  after(() => receiver?.close());

  it('SIGKILL with deliveries in flight to a receiver holding them: a new worker has every one done within seconds, not staleAfter', async () => {
    const target = await startHoldingReceiver(true);
    const { held, arrived } = target;
    receiver = target.receiver;
    const ep = await endpoint(h, `${receiver.origin}/`);
    const first = spawnWorker(db.url, ENV);
    await first.waitFor(/worker started/);
    const ids = (await Promise.all([1, 2, 3, 4].map(() => send(h, ep)))).flat();
    await eventually(() => held.size >= 2, 15_000, 'the endpoint at its cap (2 in flight)');
    await eventually(
      async () => (await h.sql`select 1 from app_worker_heartbeats where liveness_key is not null`).length > 0,
      10_000,
      'a heartbeat row naming its liveness key',
    );

    first.child.kill('SIGKILL');
    await first.exited;
    const killedAt = performance.now();
    target.holding = false;
    await eventually(async () => (await livenessLocks()) === 0 || undefined, 5_000, 'the lock gone with the process');

    const second = spawnWorker(db.url, ENV);
    await second.waitFor(/worker started/);
    for (const id of ids) {
      await eventually(
        async () => ((await deliveryRow(h, id))?.status === 'done' ? true : undefined),
        30_000,
        `delivery ${id} recorded done`,
      );
    }
    const took = performance.now() - killedAt;
    assert.ok(ids.every((id) => arrived.has(id)));
    assert.ok(took < 15_000, `every delivery done ${Math.round(took)} ms after the kill, well under staleAfter (45 s)`);
    assert.match(second.output(), /presumed dead/, "the new worker recovered the killed worker's jobs");
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0, second.output());
    assert.equal(await livenessLocks(), 0, 'a clean stop releases the lock');
  });
});
