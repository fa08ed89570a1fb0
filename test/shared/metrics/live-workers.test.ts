/**
 * `app_workers_alive` (shared/metrics/live-workers.ts): the worker processes whose heartbeat is
 * fresher than `worker.staleAfter`, one per process however many pools it runs, none once the
 * last one stopped, on the scrape of a process that is not a worker itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMetrics } from '../../../shared/metrics/registry.ts';
import { registerQueueGauges } from '../../../shared/metrics/queue-gauges.ts';
import { liveWorkers } from '../../../shared/metrics/live-workers.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { parseMetrics, sampleValue } from '../../helpers/prometheus.ts';
import { harness, worker } from '../../worker/helpers.ts';
import { eventually } from '../../helpers/poll.ts';

describe('app_workers_alive', () => {
  it('counts each process with a heartbeat fresher than worker.staleAfter once, whatever its pools, and no stale one', async () => {
    const db = await createTestDatabase();
    await db.sql`
      insert into app_worker_heartbeats (pool_id, host, pid, seen_at) values
        ('pool-a1', 'host-a', 1, now()),
        ('pool-a2', 'host-a', 1, now() - interval '10 seconds'),
        ('pool-b', 'host-b', 1, now() - interval '20 seconds'),
        ('pool-stale', 'host-c', 1, now() - interval '2 minutes')`;
    assert.equal(await liveWorkers(db.sql, 45_000), 2, 'host-a (two pools) and host-b; host-c is stale');
    assert.equal(await liveWorkers(db.sql, 15_000), 1, 'host-b is stale past 15 s');
    await db.sql`delete from app_worker_heartbeats`;
    assert.equal(await liveWorkers(db.sql, 45_000), 0);
  });

  it("shows a running worker on another process's scrape, and none once it stopped", async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const metrics = createMetrics({ process: 'web' });
    registerQueueGauges(metrics.registry, {
      sql: db.sql,
      log: db.log,
      staleAfterMs: h.config.worker.staleAfter,
      cacheMs: 0,
    });
    const alive = async () => sampleValue(parseMetrics(await metrics.registry.metrics()), 'app_workers_alive');
    assert.equal(await alive(), 0, 'no worker yet');
    const handle = await worker(h);
    await eventually(async () => (await alive()) === 1, 10_000, 'the worker counted once its heartbeat is in');
    await handle.stop();
    assert.equal(await alive(), 0, 'a worker that stopped cleanly forgets its heartbeat');
  });
});
