/**
 * A query asked with the generic plan (shared/db/generic-plan.ts): the setting holds for that
 * query alone, its transaction is closed whatever the query did, and inside a caller's own
 * transaction nothing is set. Across a connection reset (an RST through a proxy) it rejects
 * whenever one of its four statements did not run, never resolves with the query's rows then,
 * settles promptly, and leaves the pool answering.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import { connect, type Sql } from '../../../shared/db/connect.ts';
import { withGenericPlan } from '../../../shared/db/generic-plan.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { surviveDriverCrashAsProcessesDo } from '../../helpers/driver-crash.ts';
import { eventually } from '../../helpers/poll.ts';
import { startResettingProxy } from '../../helpers/postgres-fronts.ts';

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

/** Far beyond a reconnect (the backoff is at most 1 s): past it, a statement counts as hung. */
const DEADLINE_MS = 5_000;

/** What `promise` came to, or 'hung' past `DEADLINE_MS`. */
async function settled(promise: Promise<unknown>): Promise<'resolved' | 'rejected' | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise<'hung'>((resolve) => (timer = setTimeout(resolve, DEADLINE_MS, 'hung'))),
  ]).finally(() => clearTimeout(timer));
}

describe('generic plan across a connection reset', () => {
  const POOL = 3;
  /** A pool of `connect()` through a proxy that resets its connections, named for pg_stat_activity. */
  async function resettingPool(name: string, max = POOL) {
    const proxy = await startResettingProxy(db.url);
    const pool = connect(db.configWith({ databaseUrl: proxy.url }), undefined, { max, name });
    after(async () => {
      await pool.end({ timeout: 1 });
      await proxy.close();
    });
    surviveDriverCrashAsProcessesDo(db.log); // as the processes do: a statement written to a closed connection trips the driver's known crash
    // one connection open, the one the transaction takes: the reset fails no other query in flight
    await pool`select 1`;
    return { proxy, pool };
  }

  /** The pool answers every query promptly: none is given to a closed or stuck connection that never settles. */
  async function answersEveryQuery(pool: Sql): Promise<void> {
    const many = POOL * 2;
    for (let round = 0; round < 2; round += 1) {
      const queries = Array.from({ length: many }, (_, i) => pool<{ i: number }[]>`select ${i}::int as i`);
      const outcomes = await Promise.all(queries.map((query) => settled(query)));
      assert.deepEqual(outcomes, Array(many).fill('resolved'), `round ${round + 1} after the reset`);
      assert.deepEqual(
        (await Promise.all(queries)).map((rows) => rows[0]?.i),
        Array.from({ length: many }, (_, i) => i),
      );
    }
    for (let i = 0; i < many; i += 1) {
      const [row] = await pool<{ i: number }[]>`select ${i}::int as i`;
      assert.equal(row?.i, i);
    }
  }

  for (const parameters of [false, true]) {
    // a query with parameters, new to its connection, is described first, then sent: two steps
    const what = parameters ? 'a query with parameters' : 'a query without parameters';
    it(`reset while its statements are in flight (${what}): it rejects promptly, and the pool answers every later query`, async () => {
      const { proxy, pool } = await resettingPool(`generic_plan_in_flight_${parameters}`);
      const sent = proxy.sent('plan_cache_mode');
      const listing = withGenericPlan(pool, (on) =>
        parameters
          ? on`select n, pg_sleep(0.2) from generate_series(1, ${3}::int) as n`
          : on`select n, pg_sleep(0.2) from generate_series(1, 3) as n`,
      );
      await sent;
      proxy.reset();
      assert.equal(await settled(listing), 'rejected');
      await answersEveryQuery(pool);
    });
  }

  it('reset while its commit runs, the query answered: it rejects, never resolves with the rows, and the pool answers every later query', async () => {
    // a commit that takes its time: a deferred constraint trigger runs at commit, on a temporary
    // table of the pool's one connection (the query's transaction is read only, and may write there)
    await sql.unsafe(`
      create function generic_plan_slow_commit() returns trigger language plpgsql as
        $$ begin perform pg_sleep(0.5); return null; end $$;`);
    const name = 'generic_plan_commit';
    const { proxy, pool } = await resettingPool(name, 1);
    await pool.unsafe(`
      create temporary table generic_plan_probe (id text primary key);
      create constraint trigger generic_plan_slow_commit after insert on generic_plan_probe
        deferrable initially deferred for each row execute function generic_plan_slow_commit();`);
    let answered = false;
    const listing = withGenericPlan(pool, (on) => {
      const query = on<{ id: string }[]>`insert into generic_plan_probe values ('a') returning id`;
      query.then(
        () => (answered = true),
        () => {},
      );
      return query;
    });
    await eventually(
      async () =>
        answered &&
        (
          await sql`select 1 from pg_stat_activity where application_name = ${name} and state = 'active' and query = 'commit'`
        ).length > 0,
      DEADLINE_MS,
      'the query answered and the commit running',
      5,
    );
    proxy.reset();
    assert.equal(await settled(listing), 'rejected', 'its commit did not answer: the rows cannot be trusted');
    await answersEveryQuery(pool);
  });

  it('waiting for a connection while the busy one is reset: it settles promptly, and the pool answers every later query', async () => {
    const { proxy, pool } = await resettingPool('generic_plan_waiting', 1);
    const sent = proxy.sent('pg_sleep');
    const busy = settled(pool`select pg_sleep(0.3)`);
    await sent;
    const listing = withGenericPlan(pool, (on) => on<{ one: number }[]>`select ${1}::int as one`);
    // it waits for the pool's one connection, which the reset then closes
    await new Promise((resolve) => setImmediate(resolve));
    proxy.reset();
    assert.equal(await busy, 'rejected');
    // rejected with the busy query's connection, or answered on the next one
    const outcome = await settled(listing);
    assert.notEqual(outcome, 'hung');
    if (outcome === 'resolved') assert.deepEqual([...(await listing)], [{ one: 1 }]);
    await answersEveryQuery(pool);
  });
});
