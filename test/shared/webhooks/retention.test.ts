import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import postgres from 'postgres';
import { newDeliveryId, newEventId } from '../../../shared/webhooks/ids.ts';
import { DUMP_APPLICATION, LEAD_MS, prune as pruneWithin, PRUNE_TASK } from '../../../shared/webhooks/retention.ts';
import { cronItems } from '../../../worker/runner.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { runAppInProcess } from '../../helpers/cli.ts';
import { endpoint, harness, runOnce, send, type Harness } from '../../worker/helpers.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * A prune with no time budget: it takes every step there is, so one prune does what retention
 * allows (the budget, which spreads the steps over prunes, has its own tests below).
 */
const prune = (deps: Parameters<typeof pruneWithin>[0], options: Parameters<typeof pruneWithin>[1] = {}) =>
  pruneWithin(deps, { budgetMs: Infinity, ...options });

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

/**
 * Deliveries written straight into weekly partitions of a time ahead of the clock (where the
 * legacy partition of a fresh database does not reach): each is its own event's, created at
 * `base + offsetDays`, with `attempts` attempts. The partitions of the first two weeks are made
 * first, as the prune makes them ahead of time; later rows go to the default partition.
 */
async function seedAt(
  h: Harness,
  base: number,
  entries: { status: string; offsetDays: number; attempts?: number }[],
): Promise<string[]> {
  const ep = await endpoint(h, 'http://127.0.0.1:9/partitions');
  await h.sql`select app_delivery_partitions_ensure(${new Date(base + 7 * DAY)})`;
  const ids: string[] = [];
  for (const entry of entries) {
    const time = base + entry.offsetDays * DAY;
    const [id, event] = [newDeliveryId(time), newEventId(time)];
    await h.sql`insert into app_events (id, type, payload, created_at) values (${event}, 'order.created', '{}', ${new Date(time)})`;
    await h.sql`
      insert into app_webhook_deliveries (id, event_id, endpoint_id, event_type, queue, body, status, created_at)
      values (${id}, ${event}, ${ep.id}, 'order.created', 'webhooks', '{}', ${entry.status}, ${new Date(time)})`;
    for (let attempt = 1; attempt <= (entry.attempts ?? 0); attempt += 1) {
      await h.sql`insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome) values (${id}, ${attempt}, ${new Date(time)}, 5, 500, 'retry')`;
    }
    ids.push(id);
  }
  return ids;
}

const partitionOf = async (h: Harness, id: string) =>
  (
    await h.sql<
      { name: string }[]
    >`select tableoid::regclass::text as name from app_webhook_deliveries where id = ${id}`
  )[0]?.name;

const remaining = async (h: Harness, ids: string[]) =>
  (await h.sql<{ id: string }[]>`select id from app_webhook_deliveries where id = any(${ids})`)
    .map((row) => row.id)
    .sort();

/** Attempts of deliveries `ids`, as [delivery, attempt count], by delivery. */
const attemptsOf = async (h: Harness, ids: string[]) =>
  (
    await h.sql<{ id: string; n: number }[]>`
      select delivery_id as id, count(*)::int as n from app_webhook_attempts where delivery_id = any(${ids})
       group by delivery_id order by delivery_id`
  ).map((row) => [row.id, row.n]);

/** The rewrites under way (migrations/026), the new tables they are preparing and the old ones left to drop. */
const underWay = async (h: Harness) => ({
  rewrites: (await h.sql<{ deliveries: string }[]>`select deliveries from app_delivery_rewrites`).map(
    (row) => row.deliveries,
  ),
  tables: (
    await h.sql<{ name: string }[]>`
      select relname::text as name from pg_class where relkind = 'r' and (relname like '%\_keep' or relname like '%\_old') order by 1`
  ).map((row) => row.name),
});

/**
 * The deliveries' partitions PostgreSQL is not told that owners are many (migrations/031), and
 * those whose statistics of the owner were made without it: both empty when every partition, made
 * at migration time, later or by a rewrite, has the setting from before its rows were analyzed.
 */
const ownerEstimatesMissing = async (h: Harness) => {
  const rows = await h.sql<{ name: string; set: boolean; analyzed: number | null }[]>`
    select c.relname::text as name, coalesce(a.attoptions @> array['n_distinct=-0.05'], false) as set,
           (select s.n_distinct from pg_stats s where s.tablename = c.relname and s.attname = 'owner') as analyzed
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      join pg_attribute a on a.attrelid = c.oid and a.attname = 'owner'
     where i.inhparent = 'app_webhook_deliveries'::regclass
     order by 1`;
  return {
    unset: rows.filter((row) => !row.set).map((row) => row.name),
    analyzedWithout: rows.filter((row) => row.analyzed !== null && row.analyzed !== -0.05).map((row) => row.name),
  };
};

/**
 * Events written straight into the tables, each with its deliveries: the event created at
 * `base + offsetDays`, each delivery at `base + (its own offsetDays, default the event's)`, to
 * `endpointId`. A delivery of another time than its event's is not what the service writes
 * (an emit writes them at one time) but must still keep its event.
 */
async function seedEvents(
  h: Harness,
  base: number,
  endpointId: string,
  events: { offsetDays: number; deliveries: { status: string; offsetDays?: number; endpointId?: string }[] }[],
): Promise<{ event: string; deliveries: string[] }[]> {
  const seeded: { event: string; deliveries: string[] }[] = [];
  for (const entry of events) {
    const time = base + entry.offsetDays * DAY;
    const event = newEventId(time);
    await h.sql`insert into app_events (id, type, payload, created_at) values (${event}, 'order.created', '{}', ${new Date(time)})`;
    const deliveries: string[] = [];
    for (const delivery of entry.deliveries) {
      const at = base + (delivery.offsetDays ?? entry.offsetDays) * DAY;
      const id = newDeliveryId(at);
      await h.sql`
        insert into app_webhook_deliveries (id, event_id, endpoint_id, event_type, queue, body, status, created_at)
        values (${id}, ${event}, ${delivery.endpointId ?? endpointId}, 'order.created', 'webhooks', '{}', ${delivery.status}, ${new Date(at)})`;
      deliveries.push(id);
    }
    seeded.push({ event, deliveries });
  }
  return seeded;
}

const eventsLeft = async (h: Harness, ids: string[]) =>
  (await h.sql<{ id: string }[]>`select id from app_events where id = any(${ids})`).map((row) => row.id).sort();

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
    const [{ attempts }] = await h.sql<
      { attempts: number }[]
    >`select count(*)::int as attempts from app_webhook_attempts where delivery_id = any(${[oldDone, oldDead]})`;
    assert.equal(attempts, 0, 'attempts went with their deliveries');
    const [{ events }] = await h.sql<{ events: number }[]>`select count(*)::int as events from app_events`;
    assert.equal(events, 4, 'events with a delivery left stay');
    assert.deepEqual([(await prune(deps)).done, (await prune(deps)).dead], [0, 0], 'a second prune finds nothing');
  });

  it('the weeks a prune makes ahead are told that owners are many before a row is in them (migrations/031)', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const weeks = async () =>
      (
        await h.sql<{ n: number }[]>`
          select count(*)::int as n from pg_inherits where inhparent = 'app_webhook_deliveries'::regclass`
      )[0].n;
    const made = await weeks();
    await prune({ config: h.config, sql: h.sql, log: h.log }, { now: Date.now() + 30 * DAY });
    assert.ok((await weeks()) >= made + 4, 'four weeks and more made ahead');
    assert.deepEqual(await ownerEstimatesMissing(h), { unset: [], analyzedWithout: [] });
  });

  it('a null retention keeps those records forever; with both null the hourly prune still makes the weeks ahead', async () => {
    const db = await createTestDatabase();
    const keepDone = harness(db, { webhooks: { retention: null } });
    const [done] = await seed(keepDone, [{ status: 'done', ageDays: 4000 }]);
    const result = await prune({ config: keepDone.config, sql: keepDone.sql, log: keepDone.log });
    assert.equal(result.done, 0);
    assert.equal(result.cutoffs.done, null);
    assert.deepEqual(await remaining(keepDone, [done]), [done]);

    assert.deepEqual(
      cronItems().map((item) => item.task),
      [PRUNE_TASK],
      'scheduled whatever the retention: it also makes partitions, disables failing endpoints and ends sessions',
    );
    const keepAll = harness(db, { webhooks: { retention: null, deadRetention: null } });
    const weeks = async () =>
      (
        await keepAll.sql<{ n: number }[]>`
          select count(*)::int as n from pg_inherits where inhparent = 'app_webhook_deliveries'::regclass`
      )[0].n;
    const made = await weeks();
    const kept = await prune(
      { config: keepAll.config, sql: keepAll.sql, log: keepAll.log },
      { now: Date.now() + 30 * DAY },
    );
    assert.deepEqual([kept.done, kept.dead], [0, 0], 'nothing removed');
    assert.deepEqual(await remaining(keepAll, [done]), [done]);
    assert.ok((await weeks()) >= made + 4, 'the weeks ahead are made all the same');
  });

  it('the worker runs app/prune (the task the hourly cron schedules), and `app prune --dry-run --json` says what would go', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const [old] = await seed(h, [{ status: 'done', ageDays: 45 }]);
    const cli = await runAppInProcess(['prune', '--dry-run', '--json'], {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
    });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).done, 1);
    assert.deepEqual(await remaining(h, [old]), [old], 'dry run');

    await h.sql`select graphile_worker.add_job(${PRUNE_TASK}, '{}'::json)`;
    await runOnce(h);
    assert.deepEqual(await remaining(h, [old]), [], 'pruned by the worker');
  });

  describe('by partition', () => {
    // a Monday (00:00 UTC) three weeks or more ahead of the clock: its weeks are weekly
    // partitions, beyond the legacy partition of a fresh database
    const ahead = new Date(Date.now() + 21 * DAY);
    const base = Date.UTC(
      ahead.getUTCFullYear(),
      ahead.getUTCMonth(),
      ahead.getUTCDate() + ((8 - ahead.getUTCDay()) % 7),
    );
    const week = (time: number) => new Date(time).toISOString().slice(0, 10).replaceAll('-', '');

    it('drops a partition whole once everything in it is past retention, attempts partition and all', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const [done, dead] = await seedAt(h, base, [
        { status: 'done', offsetDays: 1, attempts: 2 },
        { status: 'dead', offsetDays: 2, attempts: 1 },
      ]);
      const partition = await partitionOf(h, done);
      assert.equal(partition, `app_webhook_deliveries_${week(base)}`);
      const deps = { config: h.config, sql: h.sql, log: h.log };

      const notYet = await prune(deps, { now: base + 40 * DAY });
      assert.deepEqual(
        [notYet.done, notYet.dead],
        [1, 0],
        'past the done cut-off only: the done delivery goes, the dead one stays',
      );
      assert.deepEqual(await remaining(h, [done, dead]), [dead]);

      const now = base + 120 * DAY;
      const dry = await prune(deps, { now, dryRun: true });
      assert.deepEqual([dry.done, dry.dead, dry.attempts], [0, 1, 1]);
      const result = await prune(deps, { now });
      assert.deepEqual([result.done, result.dead, result.attempts], [0, 1, 1]);
      const tables =
        await h.sql`select relname from pg_class where relname in (${`app_webhook_deliveries_${week(base)}`}, ${`app_webhook_attempts_${week(base)}`})`;
      assert.equal(tables.length, 0, 'both partitions dropped');
      assert.deepEqual(await remaining(h, [done, dead]), []);
    });

    it('rewrites a partition with the rows it keeps (dead within retention, pending, running) and their attempts; pending ones are never pruned', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const [done, dead, pending, running, newer] = await seedAt(h, base, [
        { status: 'done', offsetDays: 1, attempts: 1 },
        { status: 'dead', offsetDays: 2, attempts: 3 },
        { status: 'pending', offsetDays: 3, attempts: 1 },
        { status: 'running', offsetDays: 4 },
        { status: 'done', offsetDays: 20 },
      ]);
      const deps = { config: h.config, sql: h.sql, log: h.log };
      assert.equal(
        await partitionOf(h, newer),
        'app_webhook_deliveries_default',
        'no partition made that far ahead yet: the default one took it',
      );
      const before = await h.sql<
        { oid: number }[]
      >`select ${`app_webhook_deliveries_${week(base)}`}::regclass::oid as oid`;

      const result = await prune(deps, { now: base + 40 * DAY });
      assert.deepEqual([result.done, result.dead, result.attempts], [1, 0, 1]);
      assert.deepEqual(
        await remaining(h, [done, dead, pending, running, newer]),
        [dead, pending, running, newer].sort(),
      );
      const after = await h.sql<
        { oid: number }[]
      >`select ${`app_webhook_deliveries_${week(base)}`}::regclass::oid as oid`;
      assert.notEqual(after[0].oid, before[0].oid, "a new table took the partition's place");
      assert.deepEqual(
        await ownerEstimatesMissing(h),
        { unset: [], analyzedWithout: [] },
        'the rewritten partition and the weeks made since are told that owners are many, the new table before its analyze',
      );
      assert.equal(await partitionOf(h, dead), `app_webhook_deliveries_${week(base)}`);
      assert.equal(
        await partitionOf(h, newer),
        `app_webhook_deliveries_${week(base + 14 * DAY)}`,
        'moved out of the default partition once its week was made',
      );
      const attempts = await h.sql<
        { delivery_id: string; n: number }[]
      >`select delivery_id, count(*)::int as n from app_webhook_attempts group by delivery_id order by delivery_id`;
      assert.deepEqual(
        attempts.map((row) => [row.delivery_id, row.n]),
        [
          [dead, 3],
          [pending, 1],
        ],
        "the kept deliveries' attempts came along",
      );
      // the rewritten partition behaves as before: looked up, updated, cascaded
      await h.sql`update app_webhook_deliveries set status = 'running' where id = ${pending}`;
      assert.equal((await h.sql`select status from app_webhook_deliveries where id = ${pending}`)[0].status, 'running');

      const later = await prune(deps, { now: base + 100 * DAY });
      assert.deepEqual([later.done, later.dead], [1, 1], 'the dead one past its own retention, and the newer done one');
      assert.deepEqual(
        await remaining(h, [done, dead, pending, running, newer]),
        [pending, running].sort(),
        'pending and running stay whatever their age',
      );
      const [{ n }] = await h.sql<
        { n: number }[]
      >`select count(*)::int as n from app_webhook_attempts where delivery_id = ${dead}`;
      assert.equal(n, 0);
    });

    it('with a short budget, spreads a rewrite over successive prunes (one step each), removes nothing before its swap and exactly what is past retention at it', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const ids = await seedAt(h, base, [
        { status: 'done', offsetDays: 1, attempts: 1 },
        { status: 'done', offsetDays: 2, attempts: 2 },
        { status: 'done', offsetDays: 3 },
        { status: 'dead', offsetDays: 2, attempts: 3 },
        { status: 'dead', offsetDays: 4, attempts: 1 },
        { status: 'pending', offsetDays: 5, attempts: 1 },
        { status: 'running', offsetDays: 6 },
      ]);
      const kept = [ids[3], ids[4], ids[5], ids[6]].sort();
      const attemptsBefore = await attemptsOf(h, kept);
      const deps = { config: h.config, sql: h.sql, log: h.log };
      // the first week is past the done cut-off (30 days), not the dead one (90); the weeks after
      // it hold nothing
      const now = base + 40 * DAY;
      const dry = await prune(deps, { now, dryRun: true });
      assert.deepEqual([dry.done, dry.dead, dry.attempts], [3, 0, 3]);

      const total = { done: 0, dead: 0, attempts: 0, events: 0 };
      let prunes = 0;
      let swappedAt = 0;
      for (let more = true; more; ) {
        assert.ok(prunes < 60, 'the work ends');
        // one step a prune: every prune past the first step is over budget
        const result = await pruneWithin(deps, { now: now + prunes * HOUR, budgetMs: 0, copyBlocks: 1 });
        prunes += 1;
        assert.ok(result.steps <= 1, `one step a prune, not ${result.steps}`);
        total.done += result.done;
        total.dead += result.dead;
        total.attempts += result.attempts;
        total.events += result.events;
        if (result.done > 0) swappedAt = prunes;
        if (swappedAt === 0)
          assert.deepEqual((await remaining(h, ids)).length, ids.length, 'nothing removed before the swap');
        more = result.remaining;
      }
      assert.ok(swappedAt > 10, `the rewrite took ${swappedAt} prunes: copy slices, keys, indexes, analyze, swap`);
      assert.deepEqual([total.done, total.dead, total.attempts], [dry.done, dry.dead, dry.attempts]);
      assert.equal(total.events, 3, "the done deliveries' events went, in the prunes after the swap");
      assert.deepEqual(await remaining(h, ids), kept);
      assert.deepEqual(await attemptsOf(h, kept), attemptsBefore, "the kept deliveries' attempts came along");
      assert.deepEqual(await underWay(h), { rewrites: [], tables: [] });
      const [{ changes }] = await h.sql<
        { changes: number }[]
      >`select count(*)::int as changes from app_delivery_rewrite_changes`;
      assert.equal(changes, 0);
    });

    it('prepares a rewrite in the hours before the cut-off (LEAD_MS), removing nothing, and swaps it in at the first prune past it, with the rows written meanwhile as they are then', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const other = await endpoint(h, 'http://127.0.0.1:9/removed');
      const [done, dead, retried, sent, stays, pending] = await seedAt(h, base, [
        { status: 'done', offsetDays: 1, attempts: 1 },
        { status: 'dead', offsetDays: 2, attempts: 2 },
        { status: 'dead', offsetDays: 3, attempts: 1 },
        { status: 'pending', offsetDays: 4, attempts: 1 },
        { status: 'dead', offsetDays: 5, attempts: 1 },
        { status: 'pending', offsetDays: 6 },
      ]);
      const [removed] = await seedEvents(h, base, other.id, [{ offsetDays: 2, deliveries: [{ status: 'dead' }] }]);
      const all = [done, dead, retried, sent, stays, pending, ...removed.deliveries];
      const deps = { config: h.config, sql: h.sql, log: h.log };
      // the week's range ends at base + 7 days: past the done cut-off (30 days) 37 days on
      const cutoff = base + 37 * DAY;

      const early = await prune(deps, { now: cutoff - LEAD_MS - HOUR });
      assert.equal(early.steps, 0, 'earlier: nothing prepared');
      assert.deepEqual(await underWay(h), { rewrites: [], tables: [] });

      const ahead = await prune(deps, { now: cutoff - LEAD_MS + HOUR });
      assert.deepEqual([ahead.done, ahead.dead, ahead.remaining], [0, 0, false]);
      assert.deepEqual(await remaining(h, all), all.sort(), 'nothing removed before the cut-off');
      assert.deepEqual(await underWay(h), {
        rewrites: [`app_webhook_deliveries_${week(base)}`],
        tables: [`app_webhook_attempts_${week(base)}_keep`, `app_webhook_deliveries_${week(base)}_keep`],
      });

      // written after the copy: a dead delivery sent again and now done, a pending one sent
      // (done), one more attempt of a dead one, an endpoint removed with its delivery
      await h.sql`update app_webhook_deliveries set status = 'done', attempts = 2 where id = ${retried}`;
      await h.sql`insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome) values (${retried}, 2, now(), 5, 200, 'done')`;
      await h.sql`update app_webhook_deliveries set status = 'done' where id = ${sent}`;
      await h.sql`insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome) values (${stays}, 2, now(), 5, 500, 'dead')`;
      await h.sql`delete from app_webhooks where id = ${other.id}`;

      const still = await prune(deps, { now: cutoff - HOUR });
      assert.deepEqual(
        [still.done, still.dead, still.steps],
        [0, 0, 0],
        'prepared: nothing more to do before the cut-off',
      );
      assert.deepEqual(await remaining(h, all), [done, dead, retried, sent, stays, pending].sort());

      // the cut-off passes: one step, the swap
      const swap = await pruneWithin(deps, { now: cutoff, budgetMs: 0 });
      assert.equal(swap.steps, 1);
      assert.deepEqual(
        await remaining(h, all),
        [dead, stays, pending].sort(),
        'the done ones went, as they were at the swap',
      );
      assert.deepEqual(
        await attemptsOf(h, [dead, retried, sent, stays, pending]),
        [
          [dead, 2],
          [stays, 2],
        ].sort(),
        'attempts as they were at the swap, those of the rows gone gone with them',
      );
      assert.deepEqual(
        await underWay(h),
        {
          rewrites: [`app_webhook_deliveries_${week(base)}`],
          tables: [`app_webhook_attempts_${week(base)}_old`, `app_webhook_deliveries_${week(base)}_old`],
        },
        'the old tables, out of the partitioned ones, are left for the next step',
      );
      assert.equal(await partitionOf(h, stays), `app_webhook_deliveries_${week(base)}`);
      // the new partition is the service's: updated, and its deletes cascade
      await h.sql`update app_webhook_deliveries set status = 'pending' where id = ${stays}`;
      await h.sql`delete from app_webhook_deliveries where id = ${dead}`;
      assert.deepEqual(await attemptsOf(h, [dead]), []);

      // the next prunes, a step each: the old tables dropped, the events of the week
      for (let hour = 1, more = true; more; hour += 1) {
        assert.ok(hour <= 5, 'done within a few prunes');
        const next = await pruneWithin(deps, { now: cutoff + hour * HOUR, budgetMs: 0 });
        assert.deepEqual([next.done, next.dead], [0, 0]);
        more = next.remaining;
      }
      assert.deepEqual(await underWay(h), { rewrites: [], tables: [] }, 'the old tables dropped');
      const [{ triggers }] = await h.sql<{ triggers: number }[]>`
        select count(*)::int as triggers from pg_trigger where tgname = 'app_delivery_rewrite_log'`;
      assert.equal(triggers, 0, 'the old tables went with their trigger');
    });

    it("starts a sweep of a week's events over when the week's deliveries go, so events passed while their deliveries were still there go too", async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const ep = await endpoint(h, 'http://127.0.0.1:9/sweep');
      await h.sql`select app_delivery_partitions_ensure(${new Date(base + 7 * DAY)})`;
      const seeded = await seedEvents(
        h,
        base,
        ep.id,
        [1, 2, 3].map((offsetDays) => ({ offsetDays, deliveries: [{ status: 'done' }] })),
      );
      const events = seeded.map((one) => one.event).sort();
      // a sweep of the week's range that went past the first two events (their deliveries were
      // there then), as the hourly turn may have
      const [{ bound }] = await h.sql<{ bound: string }[]>`
        select pg_get_expr(c.relpartbound, c.oid) as bound from pg_class c where c.relname = ${`app_webhook_deliveries_${week(base)}`}`;
      const [, lo, hi] = /FROM \('msg_([^']+)'\) TO \('msg_([^']+)'\)/.exec(bound) ?? [];
      await h.sql`insert into app_event_sweeps (lo, hi, after) values (${`evt_${lo}`}, ${`evt_${hi}`}, ${events[1]})`;
      const result = await prune({ config: h.config, sql: h.sql, log: h.log }, { now: base + 40 * DAY });
      assert.equal(result.done, 3);
      assert.deepEqual(await eventsLeft(h, events), [], 'all three events went');
      const [{ sweeps }] = await h.sql<{ sweeps: number }[]>`select count(*)::int as sweeps from app_event_sweeps`;
      assert.equal(sweeps, 0);
    });

    it('abandons a rewrite under way once retention is made longer, removing nothing', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const ids = await seedAt(h, base, [
        { status: 'done', offsetDays: 1, attempts: 1 },
        { status: 'dead', offsetDays: 2 },
      ]);
      const cutoff = base + 37 * DAY;
      await prune({ config: h.config, sql: h.sql, log: h.log }, { now: cutoff - 2 * HOUR });
      assert.equal((await underWay(h)).tables.length, 2, 'prepared');
      const longer = harness(db, { webhooks: { retention: '60d' } });
      await prune({ config: longer.config, sql: longer.sql, log: longer.log }, { now: cutoff });
      assert.deepEqual(await underWay(h), { rewrites: [], tables: [] });
      assert.deepEqual(await remaining(h, ids), ids.sort());
      const [{ triggers }] = await h.sql<{ triggers: number }[]>`
        select count(*)::int as triggers from pg_trigger where tgname = 'app_delivery_rewrite_log'`;
      assert.equal(triggers, 0);
    });

    it('removes events once no delivery is left and they are past retention, and makes the partitions ahead', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const [done, dead] = await seedAt(h, base, [
        { status: 'done', offsetDays: 1 },
        { status: 'dead', offsetDays: 1 },
      ]);
      const events = async () =>
        (
          await h.sql<
            { id: string }[]
          >`select event_id as id from app_webhook_deliveries where id = any(${[done, dead]})`
        ).map((row) => row.id);
      const [doneEvent, deadEvent] = await events();
      const deps = { config: h.config, sql: h.sql, log: h.log };
      const result = await prune(deps, { now: base + 40 * DAY });
      assert.equal(result.events, 1);
      const left = (
        await h.sql<{ id: string }[]>`select id from app_events where id = any(${[doneEvent, deadEvent]})`
      ).map((row) => row.id);
      assert.deepEqual(left, [deadEvent], 'the event of the kept dead delivery stays');
      const ahead = await h.sql<{ name: string }[]>`
        select c.relname::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
         where i.inhparent = 'app_webhook_deliveries'::regclass and c.relname = ${`app_webhook_deliveries_${week(base + 49 * DAY)}`}`;
      assert.equal(ahead.length, 1, 'the partition of two weeks after `now` exists');
    });
    it("a delivery written into the range of a week already dropped (a web clock behind the worker's) lies in the default partition and is pruned there by its creation, as the dry run counts it", async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const [first] = await seedAt(h, base, [{ status: 'done', offsetDays: 1 }]);
      const deps = { config: h.config, sql: h.sql, log: h.log };
      await prune(deps, { now: base + 40 * DAY });
      assert.deepEqual(await remaining(h, [first]), [], 'the week went whole');
      const dropped = await h.sql`select 1 from pg_class where relname = ${`app_webhook_deliveries_${week(base)}`}`;
      assert.equal(dropped.length, 0, "the week's partition is dropped");

      // written afterwards with a time in that week: no partition holds its range any more
      const [late, lateDone] = await seedAt(h, base, [
        { status: 'pending', offsetDays: 2, attempts: 1 },
        { status: 'done', offsetDays: 2, attempts: 2 },
      ]);
      assert.equal(await partitionOf(h, late), 'app_webhook_deliveries_default');
      assert.equal(await partitionOf(h, lateDone), 'app_webhook_deliveries_default');

      const now = base + 41 * DAY;
      const dry = await prune(deps, { now, dryRun: true });
      const result = await prune(deps, { now });
      assert.deepEqual([result.done, result.attempts], [1, 2], 'the done one past retention goes, with its attempts');
      assert.deepEqual([dry.done, dry.attempts], [result.done, result.attempts], 'the dry run counted what went');
      assert.deepEqual(await remaining(h, [late, lateDone]), [late], 'the pending one stays');
      assert.deepEqual(await attemptsOf(h, [late]), [[late, 1]], 'with its attempt');
      const again = await prune(deps, { now, dryRun: true });
      assert.equal(again.done, 0, 'nothing more to count');
    });

    it('two prunes at once (the hourly one and `app prune`) both end without error and together remove exactly what is past retention', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const deps = { config: h.config, sql: h.sql, log: h.log };
      for (let round = 0; round < 4; round += 1) {
        const at = base + round * 7 * DAY;
        const [done, dead, pending] = await seedAt(h, at, [
          { status: 'done', offsetDays: 1, attempts: 1 },
          { status: 'dead', offsetDays: 2, attempts: 2 },
          { status: 'pending', offsetDays: 3, attempts: 1 },
        ]);
        const now = at + 40 * DAY;
        const results = await Promise.all([prune(deps, { now }), prune(deps, { now })]);
        assert.equal(results[0].done + results[1].done, 1, `round ${round}: the done one counted once`);
        assert.deepEqual(await remaining(h, [done, dead, pending]), [dead, pending].sort());
        assert.deepEqual(
          await attemptsOf(h, [dead, pending]),
          [
            [dead, 2],
            [pending, 1],
          ].sort(),
        );
      }
    });

    it('while a pg_dump reads the database, leaves the partitions to a later prune instead of queueing every writer behind the dump', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const [done] = await seedAt(h, base, [{ status: 'done', offsetDays: 1 }]);
      const partitions = async () =>
        (
          await h.sql<{ n: number }[]>`
          select count(*)::int as n from pg_inherits where inhparent = 'app_webhook_deliveries'::regclass`
        )[0].n;
      const made = await partitions();
      const deps = { config: h.config, sql: h.sql, log: h.log };
      // a dump as pg_dump reads: a session of its name holding a share lock on the tables
      const dump = postgres(db.url, { max: 1, connection: { application_name: DUMP_APPLICATION }, onnotice: () => {} });
      let end = () => {};
      const ended = new Promise<void>((resolve) => (end = resolve));
      let locked = () => {};
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const reading = dump.begin(async (tx) => {
        await tx`lock table app_webhook_deliveries, app_webhook_attempts in access share mode`;
        locked();
        await ended;
      });
      try {
        await holding;
        const began = performance.now();
        const during = await prune(deps, { now: base + 40 * DAY });
        assert.ok(performance.now() - began < 2_000, 'the prune did not wait for the lock');
        assert.equal(during.remaining, true);
        assert.equal(await partitions(), made, 'no partition made or dropped meanwhile');
        assert.deepEqual(await remaining(h, [done]), [done]);
      } finally {
        end();
        await reading;
        await dump.end({ timeout: 5 });
      }
      const afterwards = await prune(deps, { now: base + 40 * DAY });
      assert.equal(afterwards.done, 1);
      assert.ok((await partitions()) > made, 'the weeks ahead made by the next prune');
    });

    it("removes the events of a dropped or rewritten partition's weeks once none of their deliveries is left, and keeps every event with a delivery left, wherever it lies", async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const ep = await endpoint(h, 'http://127.0.0.1:9/events');
      await h.sql`select app_delivery_partitions_ensure(${new Date(base + 21 * DAY)})`;
      const [mixed, doneOnly, later, pending, young] = await seedEvents(h, base, ep.id, [
        { offsetDays: 1, deliveries: [{ status: 'done' }, { status: 'dead' }] },
        { offsetDays: 2, deliveries: [{ status: 'done' }, { status: 'done' }] },
        // a delivery two weeks after its event: in a partition the prune does not touch yet
        { offsetDays: 3, deliveries: [{ status: 'done' }, { status: 'done', offsetDays: 17 }] },
        { offsetDays: 4, deliveries: [{ status: 'pending' }, { status: 'done' }] },
        { offsetDays: 15, deliveries: [{ status: 'done' }] },
      ]);
      const all = [mixed, doneOnly, later, pending, young].map((seeded) => seeded.event);
      const deps = { config: h.config, sql: h.sql, log: h.log };

      // the first week is past the done cut-off (30 days), the third is not
      let now = base + 40 * DAY;
      const dry = await prune(deps, { now, dryRun: true });
      const first = await prune(deps, { now });
      assert.deepEqual([first.done, first.dead, first.events], [5, 0, 1]);
      assert.equal(dry.events, first.events, 'the dry run counts the events the prune removes');
      assert.deepEqual(
        await eventsLeft(h, all),
        [mixed, later, pending, young].map((seeded) => seeded.event).sort(),
        'only the event with no delivery left went',
      );

      // the dead one past its retention (90 days): the first week is dropped; the third week is past the done cut-off
      now = base + 100 * DAY;
      const second = await prune(deps, { now });
      assert.deepEqual([second.done, second.dead], [2, 1]);
      const left = await eventsLeft(h, all);
      assert.ok(!left.includes(mixed.event), 'its last delivery went: the event goes');
      assert.ok(left.includes(pending.event), 'a pending delivery is left: the event stays');
      assert.ok(!left.includes(young.event), "the third week's event goes with its week");
      const [{ n }] = await h.sql<
        { n: number }[]
      >`select count(*)::int as n from app_webhook_deliveries where event_id = ${pending.event}`;
      assert.equal(n, 1);

      // an event whose last delivery went in a week other than its own is found by the hourly turns
      const ranges = (
        await h.sql<
          { n: number }[]
        >`select count(*)::int as n from pg_inherits where inhparent = 'app_webhook_deliveries'::regclass`
      )[0].n;
      for (let hour = 1; hour <= ranges && (await eventsLeft(h, [later.event])).length > 0; hour += 1) {
        await prune(deps, { now: now + hour * 3_600_000 });
      }
      assert.deepEqual(
        await eventsLeft(h, all),
        [pending.event],
        'within as many hourly prunes as there are partitions',
      );
    });

    it('removes, within as many hourly prunes as there are partitions, the old events whose deliveries went with their endpoint', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const [kept, removed] = [
        await endpoint(h, 'http://127.0.0.1:9/kept'),
        await endpoint(h, 'http://127.0.0.1:9/removed'),
      ];
      await h.sql`select app_delivery_partitions_ensure(${new Date(base + 7 * DAY)})`;
      const [stays, orphaned] = await seedEvents(h, base, kept.id, [
        { offsetDays: 1, deliveries: [{ status: 'dead' }] },
        { offsetDays: 1, deliveries: [{ status: 'dead', endpointId: removed.id }] },
      ]);
      const deps = { config: h.config, sql: h.sql, log: h.log };
      const now = base + 40 * DAY;
      assert.equal((await prune(deps, { now })).events, 0, 'dead deliveries within their retention keep their events');
      await h.sql`delete from app_webhooks where id = ${removed.id}`;
      const ranges = (
        await h.sql<
          { n: number }[]
        >`select count(*)::int as n from pg_inherits where inhparent = 'app_webhook_deliveries'::regclass`
      )[0].n;
      let hours = 0;
      while ((await eventsLeft(h, [orphaned.event])).length > 0) {
        hours += 1;
        assert.ok(hours <= ranges, `still there after ${ranges} hourly prunes`);
        const dry = await prune(deps, { now: now + hours * 3_600_000, dryRun: true });
        const result = await prune(deps, { now: now + hours * 3_600_000 });
        assert.equal(dry.events, result.events, 'the dry run counts the events the prune removes');
      }
      assert.deepEqual(
        await eventsLeft(h, [stays.event, orphaned.event]),
        [stays.event],
        'the event with a delivery left stays',
      );
    });
  });
});
