/**
 * `app_db_pool_connections` and `app_db_pool_max_connections` (shared/metrics/pool-gauges.ts): the
 * pool's size, and the connections it holds, which grow only as statements need them at once and
 * go back to none once the pool has ended. `app_db_probe_seconds`: how long a trivial statement
 * takes through the pool, its wait for a connection included, reported while it still waits, and
 * one at a time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect, poolFigures } from '../../../shared/db/connect.ts';
import { createMetrics } from '../../../shared/metrics/registry.ts';
import { registerPoolGauges } from '../../../shared/metrics/pool-gauges.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';
import { parseMetrics, sampleValue } from '../../helpers/prometheus.ts';

describe('the database pool gauges', () => {
  it('say the size of the pool and the connections open: none before a statement, as many as ran at once, none once ended', async () => {
    const db = await createTestDatabase();
    const sql = connect(db.config, db.log, { max: 3 });
    const metrics = createMetrics({ process: 'web' });
    registerPoolGauges(metrics.registry, poolFigures(sql));
    const read = async () => {
      const families = parseMetrics(await metrics.registry.metrics());
      return [sampleValue(families, 'app_db_pool_connections'), sampleValue(families, 'app_db_pool_max_connections')];
    };
    try {
      assert.deepEqual(await read(), [0, 3], 'the driver connects lazily');
      await sql`select 1`;
      assert.deepEqual(await read(), [1, 3], 'one statement, one connection');
      // three statements that overlap: each takes a connection of its own
      await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.1)`));
      assert.deepEqual(await read(), [3, 3]);
      await Promise.all([1, 2, 3, 4, 5, 6].map(() => sql`select pg_sleep(0.05)`));
      assert.deepEqual(await read(), [3, 3], 'never past the size');
    } finally {
      await sql.end({ timeout: 5 });
    }
    await eventually(async () => (await read())[0] === 0, 5_000, 'every connection closed');
  });

  it('registers nothing for a client the service did not make with connect()', async () => {
    const db = await createTestDatabase();
    const metrics = createMetrics({ process: 'web' });
    await db.sql.begin(async (tx) => registerPoolGauges(metrics.registry, poolFigures(tx as never)));
    assert.equal(parseMetrics(await metrics.registry.metrics()).has('app_db_pool_connections'), false);
  });

  it('the probe says how long a statement waits for the pool: quick when a connection is free, the wait so far while every one is held, and one probe at a time', async () => {
    const db = await createTestDatabase();
    const sql = connect(db.config, db.log, { max: 1 });
    const metrics = createMetrics({ process: 'web' });
    // a scrape waits for the probe up to a second here: a free connection answers well within it
    const WAIT_S = 1;
    registerPoolGauges(metrics.registry, poolFigures(sql), { sql, waitMs: WAIT_S * 1000 });
    const probe = async (): Promise<number> => {
      const value = sampleValue(parseMetrics(await metrics.registry.metrics()), 'app_db_probe_seconds');
      assert.ok(value !== undefined, 'the probe gauge is exported');
      return value;
    };
    const probes = async () =>
      (
        await db.sql<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
           where datname = current_database() and query = 'select 1' and pid <> pg_backend_pid()`
      )[0].n;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const quick = await probe();
      assert.ok(quick > 0 && quick < WAIT_S, `a free connection: ${quick} s`);
      // the pool's one connection held by a transaction until the test lets go
      let taken!: () => void;
      const holding = new Promise<void>((resolve) => {
        taken = resolve;
      });
      const holder = sql.begin(async (tx) => {
        await tx`select 'held'`;
        taken();
        await held;
      });
      await holding;
      const first = await probe();
      // the scrape's timer may fire a millisecond early by this clock (the event loop's time is in whole ms)
      assert.ok(first >= WAIT_S * 0.95, `waited about the scrape's wait so far: ${first} s`);
      const second = await probe();
      assert.ok(second >= first + WAIT_S * 0.9, `the same probe, waiting longer: ${second} s after ${first} s`);
      assert.equal(await probes(), 0, 'the probes wait for the connection, not on the server');
      release();
      await holder;
      // the probe that waited ends as the connection comes back, then a new one finds it free
      await eventually(async () => (await probe()) < WAIT_S, 10_000, 'a quick probe again');
    } finally {
      release();
      await sql.end({ timeout: 5 });
    }
  });
});
