/**
 * One prune at a time per database (shared/webhooks/prune-lock.ts): two prunes started together,
 * each on its own pool as two processes would be, both end without error and the rows go once.
 * The one that takes the lock is held at its first step (the weeks made ahead, whose lock this
 * test holds as a latch) while the other answers at once that another prune is running. A prune
 * whose lock connection dies while it runs stops before its next step.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '../../../shared/db/connect.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { PRUNE_LOCK } from '../../../shared/webhooks/prune-lock.ts';
import { prune, type PruneResult } from '../../../shared/webhooks/retention.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { linesInto } from '../../helpers/logs.ts';
import { eventually } from '../../helpers/poll.ts';
import { endpoint, harness, send, type Harness } from '../../worker/helpers.ts';

const DAY = 86_400_000;

/** `count` done deliveries created `ageDays` ago, each its own event's; answers their ids. */
async function seedDone(h: Harness, count: number, ageDays: number): Promise<string[]> {
  const ep = await endpoint(h, 'http://127.0.0.1:9/prune-lock');
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push(...(await send(h, ep)));
  const created = new Date(Date.now() - ageDays * DAY);
  await h.sql`update app_webhook_deliveries set status = 'done', created_at = ${created} where id = any(${ids})`;
  await h.sql`update app_events set created_at = ${created} where id in (select event_id from app_webhook_deliveries where id = any(${ids}))`;
  await h.sql`delete from graphile_worker._private_jobs`; // the deliveries are not to be sent
  return ids;
}

/** A logger of `h`'s config whose lines are kept in `lines`. */
const keptLog = (h: Harness, name: string, lines: Record<string, unknown>[]) =>
  createLogger({ ...h.config, logLevel: 'info' }, { name, destination: linesInto(lines) });

/**
 * The latch: the lock of the weeks made ahead, the first step of every prune, held until
 * `release`; `latch` settles once it is let go.
 */
async function holdFirstStep(db: TestDatabase): Promise<{ latch: Promise<unknown>; release: () => void }> {
  let held!: () => void;
  const latchHeld = new Promise<void>((resolve) => {
    held = resolve;
  });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const latch = db.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('app_delivery_partitions_ensure'))`;
    held();
    await released;
  });
  await latchHeld;
  return { latch, release };
}

describe('one prune at a time per database', () => {
  it('of two prunes started together, one prunes and the other answers at once, pruning nothing; both end without error', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const ids = await seedDone(h, 3, 40);

    const { latch, release } = await holdFirstStep(db);

    const pools = ['prune-a', 'prune-b'].map((name) => connect(h.config, h.log, { max: 2, name }));
    const lines: Record<string, unknown>[][] = [[], []];
    const settled = new Map<number, PruneResult>();
    try {
      const runs = pools.map((sql, i) =>
        prune({ config: h.config, sql, log: keptLog(h, `prune-${i}`, lines[i]) }, { budgetMs: Infinity }).then(
          (result) => {
            settled.set(i, result);
            return result;
          },
        ),
      );
      // the one without the lock answers while the other waits at the latch
      await eventually(() => settled.size > 0, 15_000, 'a prune to answer while the other waits');
      const [[skippedIndex, skipped]] = [...settled];
      assert.equal(skipped.skipped, true);
      assert.deepEqual([skipped.done, skipped.dead, skipped.events, skipped.attempts], [0, 0, 0, 0]);
      assert.deepEqual(
        lines[skippedIndex].map((line) => line.msg),
        ['another prune is running: this one removed nothing and leaves the work to it'],
      );
      const [{ holders }] = await db.sql<{ holders: number }[]>`
        select count(*)::int as holders from pg_locks
         where locktype = 'advisory' and granted and classid = 0 and objid = ${PRUNE_LOCK}::oid and objsubid = 1`;
      assert.equal(holders, 1, 'the other holds the prune lock while it runs');
      assert.equal(settled.size, 1, 'the other is still held at the latch');

      release();
      await latch;
      const pruned = await runs[1 - skippedIndex];
      assert.equal(pruned.skipped, false);
      assert.equal(pruned.done, ids.length, 'every old delivery pruned, by the one prune');
      const [{ left }] = await db.sql<{ left: number }[]>`
        select count(*)::int as left from app_webhook_deliveries where id = any(${ids})`;
      assert.equal(left, 0);

      const after = await prune({ config: h.config, sql: pools[skippedIndex], log: h.log });
      assert.equal(after.skipped, false, 'the lock went with the prune that held it');
    } finally {
      release();
      await latch.catch(() => undefined);
      await Promise.all(pools.map((sql) => sql.end({ timeout: 5 })));
    }
  });

  it('a dry run takes no lock: it counts while another prune runs', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const ids = await seedDone(h, 2, 40);
    const holder = await db.sql.reserve();
    try {
      await holder`select pg_advisory_lock(${PRUNE_LOCK})`;
      const dry = await prune({ config: h.config, sql: h.sql, log: h.log }, { dryRun: true });
      assert.deepEqual([dry.skipped, dry.done], [false, ids.length]);
      const real = await prune({ config: h.config, sql: h.sql, log: h.log });
      assert.deepEqual([real.skipped, real.done], [true, 0]);
    } finally {
      await holder`select pg_advisory_unlock(${PRUNE_LOCK})`;
      holder.release();
    }
  });

  it('a prune whose lock connection dies stops before its next step, and the prune that took the lock prunes alone', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const ids = await seedDone(h, 3, 40);
    const { latch, release } = await holdFirstStep(db);
    const pool = connect(h.config, h.log, { max: 2, name: 'prune-lost' });
    const lines: Record<string, unknown>[] = [];
    const other = await db.sql.reserve();
    try {
      const run = prune(
        { config: h.config, sql: pool, log: keptLog(h, 'prune-lost', lines) },
        { budgetMs: Infinity, batch: 1 },
      );
      const holders = async () =>
        (
          await db.sql<{ n: number }[]>`
            select count(*)::int as n from pg_locks
             where locktype = 'advisory' and granted and classid = 0 and objid = ${PRUNE_LOCK}::oid and objsubid = 1`
        )[0].n;
      await eventually(async () => (await holders()) === 1, 15_000, 'the prune to take its lock');
      // its lock connection dies (a failover, a proxy's idle timeout, an operator's pg_terminate_backend)
      await db.sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'app-prune-lock'`;
      await eventually(async () => (await holders()) === 0, 15_000, 'the lock to go with its connection');
      // another prune takes the lock meanwhile (here the test's own session, standing for it)
      await other`select pg_advisory_lock(${PRUNE_LOCK})`;
      release();
      await latch;
      const result = await run;
      assert.equal(result.done, 0, 'no delivery removed once its lock was gone');
      assert.equal(result.remaining, true, 'the work is left to the next prunes');
      assert.ok(
        lines.some((line) => /the prune lock was lost/.test(String(line.msg))),
        JSON.stringify(lines.map((line) => line.msg)),
      );
      const [{ left }] = await db.sql<{ left: number }[]>`
        select count(*)::int as left from app_webhook_deliveries where id = any(${ids})`;
      assert.equal(left, ids.length);
    } finally {
      release();
      await latch.catch(() => undefined);
      await other`select pg_advisory_unlock_all()`.catch(() => undefined);
      other.release();
      await pool.end({ timeout: 5 });
    }
  });
});
