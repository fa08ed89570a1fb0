/**
 * The job table's statistics are kept honest (worker/queue-statistics.ts): a backlog the planner
 * does not know of is analyzed, once, by one worker; a small queue or a known backlog is not.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from '../../worker/runner.ts';
import {
  checkQueueStatistics,
  MIN_BACKLOG,
  statisticsStale,
  watchQueueStatistics,
  type QueueStatistics,
} from '../../worker/queue-statistics.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/poll.ts';
import { harness, type Harness } from './helpers.ts';
import postgres from 'postgres';
import type { Sql } from '../../shared/db/connect.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { linesInto } from '../helpers/logs.ts';

const db = await createTestDatabase();
const h: Harness = harness(db, { webhooks: { concurrency: 2 } });

/** Queues `count` jobs of `task`, which no test worker runs unless it is given one. */
async function queue(count: number, task = 'test/idle'): Promise<void> {
  await h.sql`
    select count(*) from graphile_worker.add_jobs(array(
      select row(${task}::text, '{}'::json, null, null, 1, null, null, null)::graphile_worker.job_spec
        from generate_series(1, ${count}::int)))`;
}

/** Empties the job table and leaves statistics that expect it empty (as autovacuum would after a drain). */
async function emptyAndAnalyzed(): Promise<void> {
  await h.sql`delete from graphile_worker._private_jobs`;
  await h.sql`vacuum analyze graphile_worker._private_jobs`;
}

/** When the job table was last analyzed by hand (not by autovacuum), or null. */
async function lastAnalyze(): Promise<Date | null> {
  const [row] = await h.sql<{ last: Date | null }[]>`
    select last_analyze as last from pg_stat_all_tables where relid = 'graphile_worker._private_jobs'::regclass`;
  return row.last;
}

describe('the stale-statistics rule', () => {
  it('never below the backlog floor, always when the table was never analyzed, else past twice what the planner expects', () => {
    assert.equal(statisticsStale(MIN_BACKLOG - 1, null), false);
    assert.equal(statisticsStale(MIN_BACKLOG, null), true);
    assert.equal(statisticsStale(5_000, 2_400), true);
    assert.equal(statisticsStale(5_000, 2_500), false);
    assert.equal(statisticsStale(5_000, 0), true);
  });
});

describe('checking the job table', () => {
  it('a small queue is left alone', async () => {
    await emptyAndAnalyzed();
    await queue(MIN_BACKLOG - 100);
    const result = await checkQueueStatistics(h.sql);
    assert.equal(result.available, MIN_BACKLOG - 100);
    assert.equal(result.analyzed, false);
  });

  it('a backlog over statistics that expect an empty table is analyzed, and then the planner expects it', async () => {
    await emptyAndAnalyzed();
    await queue(3_000);
    const first = await checkQueueStatistics(h.sql);
    assert.equal(first.available, 3_000);
    assert.ok(first.planned === null || first.planned < 1_500, `planned ${first.planned}`);
    assert.equal(first.analyzed, true);
    const second = await checkQueueStatistics(h.sql);
    assert.ok(second.planned !== null && second.planned >= 2_500, `planned after the analyze: ${second.planned}`);
    assert.equal(second.analyzed, false, 'a backlog the statistics know of is not analyzed again');
  });

  it('only jobs due now count: a backlog scheduled for later is not one', async () => {
    await emptyAndAnalyzed();
    await h.sql`
      select count(*) from graphile_worker.add_jobs(array(
        select row('test/idle'::text, '{}'::json, null, now() + interval '1 hour', 1, null, null, null)::graphile_worker.job_spec
          from generate_series(1, 3000)))`;
    const result = await checkQueueStatistics(h.sql);
    assert.equal(result.available, 0);
    assert.equal(result.analyzed, false);
  });

  it('while another worker analyzes, a check does not wait for it and does not analyze again', async () => {
    await emptyAndAnalyzed();
    await queue(3_000);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const other = h.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${0x61707002})`;
      locked();
      await held;
    });
    try {
      await isLocked;
      const result = await checkQueueStatistics(h.sql);
      assert.equal(result.analyzed, false);
    } finally {
      release();
      await other;
    }
  });
});

describe('a database role that does not own the job table', () => {
  it('is told the statistics are stale and does not try to analyze', async () => {
    await emptyAndAnalyzed();
    await queue(3_000);
    const role = `app_stats_reader_${process.pid}`;
    // bypassrls: graphile-worker's table has row security on, so only such a role (or its owner) can work it
    await h.sql.unsafe(`create role ${role} login bypassrls`);
    try {
      await h.sql.unsafe(`grant usage on schema graphile_worker to ${role}`);
      await h.sql.unsafe(`grant select on graphile_worker._private_jobs to ${role}`);
      const url = new URL(db.url);
      url.username = role;
      const reader = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        const result = await checkQueueStatistics(reader as unknown as Sql);
        assert.deepEqual(
          { available: result.available, analyzed: result.analyzed, forbidden: result.forbidden },
          { available: 3_000, analyzed: false, forbidden: true },
        );
      } finally {
        await reader.end();
      }
      assert.equal((await checkQueueStatistics(h.sql)).analyzed, true, 'the owner still analyzes it');
    } finally {
      await h.sql.unsafe(`drop owned by ${role}`);
      await h.sql.unsafe(`drop role ${role}`);
    }
  });
});

describe('the watch', () => {
  const fake = (calls: number[], clock: { t: number }) => async (): Promise<QueueStatistics> => {
    calls.push(clock.t);
    return { available: 0, planned: 0, analyzed: false };
  };

  it('checks after a full fetch only, and at most every five seconds', async () => {
    const clock = { t: 1_000_000 };
    const calls: number[] = [];
    const watch = watchQueueStatistics({ sql: h.sql, log: h.log }, { now: () => clock.t, check: fake(calls, clock) });
    watch.fetched(15, 16);
    await watch.idle();
    assert.deepEqual(calls, [], 'a fetch that was not full is no backlog');
    watch.fetched(16, 16);
    await watch.idle();
    clock.t += 4_999;
    watch.fetched(16, 16);
    await watch.idle();
    clock.t += 1;
    watch.fetched(16, 16);
    await watch.idle();
    assert.deepEqual(calls, [1_000_000, 1_005_000]);
  });

  it('a failed check is logged as a warning, and the next full fetch checks again', async () => {
    const clock = { t: 0 };
    let calls = 0;
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(h.config, { name: 'test', destination: linesInto(lines) });
    const watch = watchQueueStatistics(
      { sql: h.sql, log },
      {
        now: () => clock.t,
        check: async () => {
          calls += 1;
          throw new Error('database away');
        },
      },
    );
    watch.fetched(4, 4);
    await watch.idle();
    clock.t += 5_000;
    watch.fetched(4, 4);
    await watch.idle();
    assert.equal(calls, 2);
    assert.deepEqual(
      lines.map((line) => [line.level, (line.err as { message: string }).message]),
      [
        [40, 'database away'],
        [40, 'database away'],
      ],
    );
  });

  it('a role that may not analyze is warned once, not at every check', async () => {
    const clock = { t: 0 };
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(h.config, { name: 'test', destination: linesInto(lines) });
    const watch = watchQueueStatistics(
      { sql: h.sql, log },
      {
        now: () => clock.t,
        check: async () => ({ available: 3_000, planned: 0, analyzed: false, forbidden: true }),
      },
    );
    for (let i = 0; i < 3; i++) {
      watch.fetched(4, 4);
      await watch.idle();
      clock.t += 5_000;
    }
    assert.deepEqual(
      lines.map((line) => [line.level, line.available]),
      [[40, 3_000]],
    );
    assert.match(String(lines[0].msg), /cannot analyze it/);
  });

  it('an analyze is logged once, with what was waiting and what the planner expected', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ ...h.config, logLevel: 'info' }, { name: 'test', destination: linesInto(lines) });
    const watch = watchQueueStatistics(
      { sql: h.sql, log },
      { check: async () => ({ available: 3_000, planned: 0, analyzed: true }) },
    );
    watch.fetched(4, 4);
    await watch.idle();
    assert.deepEqual(
      lines.map((line) => [line.level, line.available, line.planned]),
      [[30, 3_000, 0]],
    );
  });
});

describe('a worker with a backlog', () => {
  it('analyzes the job table when its statistics expect it empty, and runs every job', async () => {
    await emptyAndAnalyzed();
    assert.equal((await lastAnalyze()) !== null, true, 'vacuum analyze counts as an analyze by hand');
    const before = (await lastAnalyze())!;
    await queue(2_000, 'test/noop');
    let ran = 0;
    const handle = await startWorker(
      { config: h.config, log: h.log },
      {
        'test/noop': async () => {
          ran += 1;
        },
      },
    );
    try {
      await eventually(
        async () => {
          const [{ left }] = await h.sql<
            { left: number }[]
          >`select count(*)::int as left from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'test/noop')`;
          return left === 0;
        },
        60_000,
        'every job of the backlog run',
      );
    } finally {
      await handle.stop();
    }
    assert.equal(ran, 2_000);
    const after = await lastAnalyze();
    assert.ok(after !== null && after > before, 'the worker analyzed the job table');
  });
});
