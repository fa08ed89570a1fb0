import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '../../../shared/db/connect.ts';
import {
  loadDeliveries,
  migrateBefore,
  migrateUnderLoad,
  PARTITION_MIGRATION,
} from '../../../bench/migration-under-load.ts';
import { createTestDatabase } from '../../helpers/database.ts';

const ROWS = 5_000;
/** The id loadDeliveries gave its `n`th delivery. */
const loadedId = (n: number) => `msg_00${String(n).padStart(24, '0')}`;

describe('migration 023: deliveries and attempts partitioned', () => {
  it('moves a table with deliveries into the legacy partition, keeping rows, constraints and indexes, while a writer is never blocked a second', async () => {
    const db = await createTestDatabase({ empty: true });
    await migrateBefore(db);
    const endpoint = await loadDeliveries(db.sql, ROWS);
    const writer = connect(db.config, db.log, { max: 1 });
    try {
      const result = await migrateUnderLoad(db, writer, endpoint, ROWS);
      assert.ok(result.statements > 0, 'the writer ran during the migration');
      assert.ok(result.longestMs < 1_000, `the longest writer statement took ${result.longestMs.toFixed(0)} ms`);

      const [applied] = await db.sql`select count(*)::int as n from app_migrations where name = ${PARTITION_MIGRATION}`;
      assert.equal(applied.n, 1);
      const kinds = await db.sql<{ name: string; kind: string }[]>`
        select relname::text as name, relkind::text as kind from pg_class
         where relname in ('app_webhook_deliveries', 'app_webhook_attempts', 'app_webhook_deliveries_legacy', 'app_webhook_attempts_legacy') order by 1`;
      assert.deepEqual(
        kinds.map((row) => [row.name, row.kind]),
        [
          ['app_webhook_attempts', 'p'],
          ['app_webhook_attempts_legacy', 'r'],
          ['app_webhook_deliveries', 'p'],
          ['app_webhook_deliveries_legacy', 'r'],
        ],
      );

      // every row is still there, in the legacy partition, with its attempt
      const [counts] = await db.sql<{ deliveries: number; legacy: number; attempts: number; pending: number }[]>`
        select (select count(*)::int from app_webhook_deliveries) as deliveries,
               (select count(*)::int from app_webhook_deliveries_legacy) as legacy,
               (select count(*)::int from app_webhook_attempts) as attempts,
               (select count(*)::int from app_webhook_deliveries where status = 'pending') as pending`;
      assert.deepEqual(counts, {
        deliveries: ROWS + result.inserted.length,
        legacy: ROWS + result.inserted.length,
        attempts: ROWS,
        pending: ROWS / 20 + result.inserted.length,
      });
      const [missing] =
        await db.sql`select count(*)::int as n from app_webhook_deliveries where id = any(${result.inserted})`;
      assert.equal(missing.n, result.inserted.length, 'every delivery the writer inserted is there');

      // the constraints and indexes of the parent, each valid; the legacy table's own attached
      const invalid =
        await db.sql`select indexrelid::regclass::text as name from pg_index where indrelid in ('app_webhook_deliveries'::regclass, 'app_webhook_attempts'::regclass) and not indisvalid`;
      assert.equal(invalid.length, 0);
      const indexes = await db.sql<
        { name: string }[]
      >`select indexrelid::regclass::text as name from pg_index where indrelid = 'app_webhook_deliveries'::regclass order by 1`;
      assert.deepEqual(
        indexes.map((row) => row.name),
        [
          'app_webhook_deliveries_endpoint_status',
          'app_webhook_deliveries_event',
          'app_webhook_deliveries_owner_status',
          'app_webhook_deliveries_parked',
          'app_webhook_deliveries_pkey',
          'app_webhook_deliveries_slot',
          'app_webhook_deliveries_status',
        ],
      );
      await assert.rejects(
        db.sql`insert into app_webhook_deliveries (id, event_id, endpoint_id, event_type, queue, body) values (${loadedId(0)}, 'evt_x', ${endpoint}, 't', 'q', '{}')`,
        /duplicate key/,
      );
      await assert.rejects(
        db.sql`update app_webhook_deliveries set status = 'lost' where id = ${loadedId(1)}`,
        /status_check/,
      );
      // an endpoint removed takes its deliveries and their attempts, as the foreign keys did (since
      // migration 025 through its gate row, whatever store holds the endpoint)
      await db.sql`delete from app_webhooks where id = ${endpoint}`;
      const [left] =
        await db.sql`select (select count(*)::int from app_webhook_deliveries) + (select count(*)::int from app_webhook_attempts) as n`;
      assert.equal(left.n, 0);
    } finally {
      await writer.end({ timeout: 5 });
    }
  });
});
