/**
 * Migration 023 (deliveries and attempts partitioned) on a database that already holds
 * deliveries, while a writer keeps inserting and updating deliveries: what
 * `bench:partition-migration` measures at a million rows and test/shared/db/partition-migration.test.ts
 * checks at a few thousand. The writer's statements are timed one by one; the longest is how
 * long the migration blocked a writer at most.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../shared/config/index.ts';
import type { Sql } from '../shared/db/connect.ts';
import { migrate, MIGRATIONS_DIR } from '../shared/db/migrate.ts';
import type { Logger } from '../shared/log/logger.ts';
import { newDeliveryId } from '../shared/webhooks/ids.ts';

/** The migration that partitions the tables. */
export const PARTITION_MIGRATION = '023_partitioned_deliveries.sql';

interface Deps {
  config: Config;
  sql: Sql;
  log: Logger;
}

/** Migrates an empty database up to the migration before PARTITION_MIGRATION. */
export async function migrateBefore(deps: Deps): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'migrations-before-'));
  try {
    for (const name of await readdir(MIGRATIONS_DIR)) {
      if (/^\d+_/.test(name) && parseInt(name, 10) < parseInt(PARTITION_MIGRATION, 10))
        await cp(join(MIGRATIONS_DIR, name), join(dir, name));
    }
    await migrate(deps, { dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Loads `rows` deliveries of one endpoint and event (ids below any of the service's, each with
 * one attempt; a twentieth pending), under the schema before PARTITION_MIGRATION. Answers the
 * endpoint id.
 */
export async function loadDeliveries(sql: Sql, rows: number): Promise<string> {
  const endpoint = 'ep_PARTITIONMIGRATION000000000';
  await sql`insert into app_webhooks (id, url, events) values (${endpoint}, 'http://127.0.0.1:9/', '{*}')`;
  await sql`insert into app_events (id, type, payload) values ('evt_00000000000000000000000000', 'order.created', '{}')`;
  const chunk = 250_000;
  for (let from = 0; from < rows; from += chunk) {
    const to = Math.min(rows, from + chunk) - 1;
    await sql`
      insert into app_webhook_deliveries (id, event_id, endpoint_id, owner, event_type, queue, body, status, attempts)
      select 'msg_00' || lpad(g::text, 24, '0'), 'evt_00000000000000000000000000', ${endpoint}, 'tenant', 'order.created', 'webhooks',
             '{"data":{"order":' || g || '},"type":"order.created"}', case when g % 20 = 0 then 'pending' else 'done' end, 1
        from generate_series(${from}::bigint, ${to}::bigint) as g`;
    await sql`
      insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome)
      select 'msg_00' || lpad(g::text, 24, '0'), 1, now(), 20, 200, 'done' from generate_series(${from}::bigint, ${to}::bigint) as g`;
  }
  await sql`vacuum (analyze) app_webhook_deliveries, app_webhook_attempts`;
  return endpoint;
}

export interface UnderLoad {
  /** The migration's wall time. */
  migrationMs: number;
  /** The writer's statements run meanwhile, and the longest of them. */
  statements: number;
  longestMs: number;
  /** Ids the writer inserted. */
  inserted: string[];
}

/**
 * Runs the migrations left (PARTITION_MIGRATION among them) while `writer` inserts a delivery
 * and updates an existing one in turn, each statement on its own, as fast as it can; answers
 * the timings once both are done.
 */
export async function migrateUnderLoad(deps: Deps, writer: Sql, endpoint: string, rows: number): Promise<UnderLoad> {
  let migrating = true;
  let statements = 0;
  let longestMs = 0;
  const inserted: string[] = [];
  const timed = async (statement: () => Promise<unknown>) => {
    const started = performance.now();
    await statement();
    longestMs = Math.max(longestMs, performance.now() - started);
    statements += 1;
  };
  const writing = (async () => {
    for (let n = 0; migrating; n++) {
      const id = newDeliveryId();
      await timed(
        () => writer`
        insert into app_webhook_deliveries (id, event_id, endpoint_id, owner, event_type, queue, body)
        values (${id}, 'evt_00000000000000000000000000', ${endpoint}, 'tenant', 'order.created', 'webhooks', '{}')`,
      );
      inserted.push(id);
      const old = `msg_00${String((n * 7919) % rows).padStart(24, '0')}`;
      await timed(
        () => writer`update app_webhook_deliveries set attempts = attempts + 1, updated_at = now() where id = ${old}`,
      );
    }
  })();
  const started = performance.now();
  try {
    await migrate(deps);
  } finally {
    migrating = false;
    await writing;
  }
  return { migrationMs: performance.now() - started, statements, longestMs, inserted };
}
