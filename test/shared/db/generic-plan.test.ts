/**
 * A query asked with the generic plan (shared/db/generic-plan.ts): the setting holds for that
 * query alone, its transaction is closed whatever the query did, and inside a caller's own
 * transaction nothing is set.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import type { Sql } from '../../../shared/db/connect.ts';
import { withGenericPlan } from '../../../shared/db/generic-plan.ts';
import { createTestDatabase } from '../../helpers/database.ts';

const db = await createTestDatabase();
// one connection: what the query leaves behind is what the next one finds
const sql = postgres(db.url, { max: 1, onnotice: () => {} }) as unknown as Sql;
after(() => sql.end());

/** The connection's plan_cache_mode, and whether it is inside a transaction (two statements then share one). */
async function connectionState(): Promise<{ mode: string; inTransaction: boolean }> {
  const [{ mode, xid }] = await sql<{ mode: string; xid: string }[]>`
    select current_setting('plan_cache_mode') as mode, pg_current_xact_id()::text as xid`;
  const [next] = await sql<{ xid: string }[]>`select pg_current_xact_id()::text as xid`;
  return { mode, inTransaction: next.xid === xid };
}

describe('generic plan', () => {
  it('the query is planned with plan_cache_mode force_generic_plan, and the connection goes back as it was', async () => {
    const [{ mode }] = await withGenericPlan(
      sql,
      (on) => on<{ mode: string }[]>`select current_setting('plan_cache_mode') as mode`,
    );
    assert.equal(mode, 'force_generic_plan');
    assert.deepEqual(await connectionState(), { mode: 'auto', inTransaction: false });
  });

  it('a failing query rejects with its own error, and its transaction is ended: the next query runs on a clean connection', async () => {
    await assert.rejects(
      withGenericPlan(sql, (on) => on`select 1 / ${0}::int`),
      (error: { code?: string }) => error.code === '22012',
    );
    assert.deepEqual(await connectionState(), { mode: 'auto', inTransaction: false });
  });

  it("inside a caller's transaction the query runs there, planned as PostgreSQL chooses, and nothing outlives it", async () => {
    const mode = await sql.begin((tx) =>
      withGenericPlan(tx, async (on) => {
        const [row] = await on<{ mode: string }[]>`select current_setting('plan_cache_mode') as mode`;
        return row.mode;
      }),
    );
    assert.equal(mode, 'auto');
  });
});
