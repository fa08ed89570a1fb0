/**
 * The hourly prune's record and counts (worker/tasks/prune.ts): a run that gets to its end moves
 * `app_prune_last_success_timestamp_seconds`, which any process reads from the database, and
 * counts `app_prune_runs_total{outcome="done"}` in the worker that ran it; a run that fails (here,
 * the deliveries' table held by another transaction past the worker's lock_timeout, as a
 * privilege missing on a managed database failed it every hour) counts `failed` and leaves the
 * record where it was; a run that finds another prune running counts `skipped` and records nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMetrics } from '../../../shared/metrics/registry.ts';
import { registerQueueGauges } from '../../../shared/metrics/queue-gauges.ts';
import { PRUNE_LOCK } from '../../../shared/webhooks/prune-lock.ts';
import { lastPruneSuccess } from '../../../shared/webhooks/prune-runs.ts';
import { PRUNE_TASK } from '../../../shared/webhooks/retention.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';
import { parseMetrics, sampleValue } from '../../helpers/prometheus.ts';
import { harness, worker } from '../helpers.ts';

describe('app/prune records and counts its runs', () => {
  it('a run that fails counts failed and keeps the last success; the next that gets to its end counts done and moves it, on every process', async () => {
    const db = await createTestDatabase();
    // the worker's sessions give up a lock after 200 ms (the test's own, opened before, wait)
    const [{ name }] = await db.sql<{ name: string }[]>`select current_database() as name`;
    await db.sql.unsafe(`alter database "${name}" set lock_timeout = '200ms'`);
    const h = harness(db);
    const web = createMetrics({ process: 'web' });
    registerQueueGauges(web.registry, {
      sql: db.sql,
      log: db.log,
      staleAfterMs: h.config.worker.staleAfter,
      cacheMs: 0,
    });
    const lastSuccess = async () =>
      sampleValue(parseMetrics(await web.registry.metrics()), 'app_prune_last_success_timestamp_seconds');

    const installed = await lastPruneSuccess(db.sql);
    assert.ok(installed !== null, 'the migration made the record');
    assert.equal(await lastSuccess(), installed.getTime() / 1000, 'before any prune: the time the record began');

    const handle = await worker(h);
    const runs = async (outcome: string) =>
      sampleValue(parseMetrics(await handle.metrics.registry.metrics()), 'app_prune_runs_total', { outcome }) ?? -1;
    // (the counts are compared with those before each step: the hourly cron may add a run of its own)
    const before = { done: await runs('done'), failed: await runs('failed') };
    assert.ok(before.done >= 0 && before.failed >= 0, 'both outcomes exported from the start');

    const holder = await db.sql.reserve();
    let held: Date | null;
    try {
      await holder`begin`;
      await holder`set local lock_timeout = 0`;
      await holder`lock table app_webhook_deliveries in access exclusive mode`;
      held = await lastPruneSuccess(holder);
      await db.sql`select graphile_worker.add_job(${PRUNE_TASK}, '{}'::json, max_attempts := 1)`;
      await eventually(async () => (await runs('failed')) > before.failed, 15_000, 'the failed run counted');
      assert.equal(await runs('done'), before.done, 'no run gets to its end while the table is held');
    } finally {
      await holder`rollback`;
      holder.release();
    }
    assert.deepEqual(await lastPruneSuccess(db.sql), held, 'a failed run records nothing');

    const started = Date.now();
    await db.sql`select graphile_worker.add_job(${PRUNE_TASK}, '{}'::json, max_attempts := 1)`;
    await eventually(async () => (await runs('done')) > before.done, 15_000, 'the run that got to its end counted');
    const recorded = await lastSuccess();
    assert.ok(
      recorded !== undefined && recorded * 1000 >= started - 1_000 && recorded > installed.getTime() / 1000,
      `recorded at ${recorded}, the run started at ${started / 1000}`,
    );
  });

  it('a run that finds another prune running counts skipped and records no success', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const handle = await worker(h);
    const runs = async (outcome: string) =>
      sampleValue(parseMetrics(await handle.metrics.registry.metrics()), 'app_prune_runs_total', { outcome }) ?? -1;
    const before = { done: await runs('done'), skipped: await runs('skipped') };
    assert.equal(before.skipped, 0, 'skipped exported from the start');
    const recorded = await lastPruneSuccess(db.sql);
    const holder = await db.sql.reserve();
    try {
      await holder`select pg_advisory_lock(${PRUNE_LOCK})`;
      await db.sql`select graphile_worker.add_job(${PRUNE_TASK}, '{}'::json, max_attempts := 1)`;
      await eventually(async () => (await runs('skipped')) > before.skipped, 15_000, 'the skipped run counted');
      assert.equal(await runs('done'), before.done);
      assert.deepEqual(await lastPruneSuccess(db.sql), recorded, 'a skipped run records nothing');
    } finally {
      await holder`select pg_advisory_unlock(${PRUNE_LOCK})`;
      holder.release();
    }
  });
});
