import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prune, PRUNE_TASK } from '../../../shared/webhooks/retention.ts';
import { cronItems } from '../../../worker/runner.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { runAppInProcess } from '../../helpers/cli.ts';
import { endpoint, harness, runOnce, send, type Harness } from '../../worker/helpers.ts';

const DAY = 86_400_000;

/** One delivery per entry, emitted as its own event, then aged and put in its state by hand. */
async function seed(h: Harness, entries: { status: string; ageDays: number; attempts?: number }[]): Promise<string[]> {
  const ep = await endpoint(h, 'http://127.0.0.1:9/retention');
  const ids: string[] = [];
  for (const entry of entries) {
    const [id] = await send(h, ep, 'order.created');
    const created = new Date(Date.now() - entry.ageDays * DAY);
    await h.sql`update app_webhook_deliveries set status = ${entry.status}, created_at = ${created} where id = ${id}`;
    await h.sql`update app_events set created_at = ${created} where id = (select event_id from app_webhook_deliveries where id = ${id})`;
    for (let attempt = 1; attempt <= (entry.attempts ?? 0); attempt += 1) {
      await h.sql`insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome) values (${id}, ${attempt}, ${created}, 5, 500, 'retry')`;
    }
    ids.push(id);
  }
  await h.sql`delete from graphile_worker._private_jobs`; // the test's deliveries are not to be sent
  return ids;
}

const remaining = async (h: Harness, ids: string[]) =>
  (await h.sql<{ id: string }[]>`select id from app_webhook_deliveries where id = any(${ids})`).map((row) => row.id).sort();

describe('retention', () => {
  it('removes done deliveries past webhooks.retention and dead ones past webhooks.deadRetention, with their attempts and emptied events; never pending or running ones', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const [oldDone, newDone, deadKept, oldDead, oldPending, oldRunning] = await seed(h, [
      { status: 'done', ageDays: 40, attempts: 2 },
      { status: 'done', ageDays: 1 },
      { status: 'dead', ageDays: 60 },
      { status: 'dead', ageDays: 100, attempts: 3 },
      { status: 'pending', ageDays: 200 },
      { status: 'running', ageDays: 200 },
    ]);
    const all = [oldDone, newDone, deadKept, oldDead, oldPending, oldRunning];
    const deps = { config: h.config, sql: h.sql, log: h.log };

    const dry = await prune(deps, { dryRun: true });
    assert.deepEqual([dry.done, dry.dead, dry.events, dry.attempts], [1, 1, 2, 5]);
    assert.equal((await remaining(h, all)).length, 6, 'a dry run removes nothing');

    const result = await prune(deps, { batch: 1 });
    assert.deepEqual([result.done, result.dead, result.events, result.attempts], [1, 1, 2, 5]);
    assert.deepEqual(await remaining(h, all), [newDone, deadKept, oldPending, oldRunning].sort());
    const [{ attempts }] = await h.sql<{ attempts: number }[]>`select count(*)::int as attempts from app_webhook_attempts where delivery_id = any(${[oldDone, oldDead]})`;
    assert.equal(attempts, 0, 'attempts went with their deliveries');
    const [{ events }] = await h.sql<{ events: number }[]>`select count(*)::int as events from app_events`;
    assert.equal(events, 4, 'events with a delivery left stay');
    assert.deepEqual([(await prune(deps)).done, (await prune(deps)).dead], [0, 0], 'a second prune finds nothing');
  });

  it('a null retention keeps those records forever, and the hourly schedule is off when both are null', async () => {
    const db = await createTestDatabase();
    const keepDone = harness(db, { webhooks: { retention: null } });
    const [done] = await seed(keepDone, [{ status: 'done', ageDays: 4000 }]);
    const result = await prune({ config: keepDone.config, sql: keepDone.sql, log: keepDone.log });
    assert.equal(result.done, 0);
    assert.equal(result.cutoffs.done, null);
    assert.deepEqual(await remaining(keepDone, [done]), [done]);

    assert.deepEqual(cronItems(harness(db).config).map((item) => item.task), [PRUNE_TASK]);
    assert.deepEqual(cronItems(harness(db, { webhooks: { retention: null, deadRetention: null } }).config), []);
  });

  it('the worker runs app/prune (the task the hourly cron schedules), and `app prune --dry-run --json` says what would go', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const [old] = await seed(h, [{ status: 'done', ageDays: 45 }]);
    const cli = await runAppInProcess(['prune', '--dry-run', '--json'], {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'test', DATABASE_URL: db.url,
    });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).done, 1);
    assert.deepEqual(await remaining(h, [old]), [old], 'dry run');

    await h.sql`select graphile_worker.add_job(${PRUNE_TASK}, '{}'::json)`;
    await runOnce(h);
    assert.deepEqual(await remaining(h, [old]), [], 'pruned by the worker');
  });
});
