/**
 * `app_db_pool_connections` and `app_db_pool_max_connections` (shared/metrics/pool-gauges.ts): the
 * pool's size, and the connections it holds, which grow only as statements need them at once and
 * go back to none once the pool has ended.
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
});
