/**
 * `npm run bench:queue`: graphile-worker's own fetch as the queue grows. For each size in
 * `--waiting` (default 1,000, 100,000 and 1,000,000 jobs), a fresh database gets that many
 * `app/noop` jobs, the worker process starts (the delivery worker's settings: local queue,
 * batched completion), and the rate is the first `--measure` jobs (20,000, or all when fewer)
 * completed per second, timed from the first completion to the last. The rest of the queue waits
 * all along, so every fetch and completion works against a table of that size. Completions are
 * counted through the primary key over the measured jobs' ids (the oldest, which the worker takes
 * first), so counting costs the same whatever the queue's size.
 *
 * Options: --waiting 1000,100000,1000000 --measure 20000 --runs 3
 */
import { loadavg } from 'node:os';
import { benchDatabase, median, note, sleep, wallClock } from './common.ts';
import { startWorkerProcess } from './worker-process.ts';

function listArg(name: string, fallback: number[]): number[] {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  return String(process.argv[at + 1] ?? '')
    .split(',')
    .map((part) => Number(part))
    .filter((value) => Number.isInteger(value) && value > 0);
}

function numberArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? fallback : Number(process.argv[at + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const sizes = listArg('waiting', [1_000, 100_000, 1_000_000]);
const measure = numberArg('measure', 20_000);
const runs = numberArg('runs', 3);
/** Jobs added per statement. */
const CHUNK = 100_000;

async function once(size: number): Promise<{ rate: number; loadMs: number }> {
  const db = await benchDatabase();
  try {
    const loadStarted = wallClock();
    for (let added = 0; added < size; added += CHUNK) {
      await db.sql`
        select count(*) from graphile_worker.add_jobs(array(
          select row('app/noop', '{}'::json, null, null, 1, null, null, null)::graphile_worker.job_spec
            from generate_series(1, ${Math.min(CHUNK, size - added)}::int)))`;
    }
    await db.sql`analyze graphile_worker._private_jobs`;
    const loadMs = wallClock() - loadStarted;
    const measured = Math.min(measure, size);
    const [{ last }] = await db.sql<{ last: string }[]>`
      select max(id)::text as last from (select id from graphile_worker._private_jobs order by id limit ${measured}) first`;
    const left = async () =>
      (
        await db.sql<
          { n: number }[]
        >`select count(*)::int as n from graphile_worker._private_jobs where id <= ${last}::bigint`
      )[0].n;
    const worker = await startWorkerProcess(db);
    try {
      let started = 0;
      let leftAtStart = measured;
      for (;;) {
        const remaining = await left();
        if (started === 0 && remaining < measured) {
          started = wallClock();
          leftAtStart = remaining;
        }
        if (remaining === 0) break;
        await sleep(5);
      }
      return { rate: (leftAtStart * 1000) / (wallClock() - started), loadMs };
    } finally {
      await worker.stop();
    }
  } finally {
    await db.close();
  }
}

const lines: string[] = [];
for (const size of sizes) {
  const rates: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const { rate, loadMs } = await once(size);
    rates.push(rate);
    note(
      `${size} waiting, run ${run}: ${rate.toFixed(0)} jobs/s (queued in ${(loadMs / 1000).toFixed(1)} s); load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
  }
  lines.push(`${size} waiting: ${median(rates).toFixed(0)} jobs/s (runs ${rates.map((r) => r.toFixed(0)).join(', ')})`);
}
console.log(
  `bench:queue: graphile-worker no-op rate with the queue at each size (first ${measure} jobs; medians of ${runs} runs)`,
);
for (const line of lines) console.log(`  ${line}`);
