/**
 * `npm run bench:delivery` (figures in BENCHMARKS.md): the delivery worker's sustained rate, the
 * emit-to-receiver latency at a steady offered load, and graphile-worker's own rate for a no-op
 * task on the same database, in the same run.
 *
 * The worker runs as the Procfile runs it (`node worker/main.ts`, NODE_ENV=production, its
 * default configuration but the loopback allowed); the receiver and the emitter live in this
 * process; PostgreSQL is DATABASE_URL's server or an embedded one with durable defaults.
 *
 * 1. Throughput: `--deliveries` deliveries (events fanned out to `--endpoints` endpoints) are
 *    queued with the worker stopped, then the worker starts; rate = deliveries received per
 *    second from the first to the last, all of them recorded done.
 * 2. Latency: with the worker idle, `--rate` events per second to one endpoint for
 *    `--seconds`; latency = receiver's clock minus the clock when emit was called.
 * 3. No-op: `--deliveries` `app/noop` jobs are queued the same way; rate = jobs completed per
 *    second by the same worker process.
 * 4. Floor (`--floor 1`): `--deliveries` `app/bench-post` jobs, each signing a delivery-sized body
 *    and POSTing it to the receiver as a delivery is sent, recording nothing (bench/worker.ts);
 *    rate = requests received per second from the first to the last. Its ratio to the no-op is
 *    the most any delivery made of one job and one signed request could reach on this machine;
 *    the difference to the throughput phase is what the claim and the record cost.
 * The job table is vacuumed before phases 1, 3 and 4, so that none runs over another's dead rows.
 * Each is repeated `--runs` times; the medians are printed on one line (per-run figures on stderr).
 * The ratio is each run's delivery rate over its own no-op rate, the median of those. The CPU a
 * delivery costs (worker, PostgreSQL, this process) is counted from the first delivery's arrival
 * to the last one recorded; the worker's CPU until then (loading its code, connecting) is printed
 * apart as its start-up.
 *
 * `--destination <kind>` (default `http`, the HTTP receiver) sends to a broker instead
 * (bench/destinations/: `amqp`, `nats`, …): the endpoints are the broker's URLs, and a consumer
 * of ours counts the messages where the receiver counts the requests, in the throughput and the
 * latency phases alike (latency: the consumer's clock at arrival minus the clock at emit).
 *
 * Options: --deliveries 20000 --endpoints 10 --rate 100 --seconds 10 --runs 3 --concurrency 0
 * (0: the configured default, webhooks.concurrency) --history 0 (deliveries of other tenants
 * written straight into the tables first, bench/load-history.ts: the same figures on big tables)
 * --profile 0 (1: PostgreSQL's statements of each throughput phase, per delivery, on stderr;
 * bench/statement-profile.ts) --floor 0 (1: run phase 4 too).
 */
import { loadavg } from 'node:os';
import { emit } from '../shared/webhooks/events/emit.ts';
import { registerEndpoint } from '../shared/webhooks/endpoints/index.ts';
import {
  benchDatabase,
  benchReceiver,
  median,
  note,
  numberArgs,
  peakResidentMb,
  processTreeCpuSeconds,
  quantile,
  sleep,
  wallClock,
  type BenchDatabase,
} from './common.ts';
import { emitMany } from './emit-many.ts';
import { loadHistory } from './load-history.ts';
import { openStatementProfile, PROFILE_SETTINGS, profileLines, type StatementProfile } from './statement-profile.ts';
import { OPERATOR } from '../shared/access/actor.ts';
import { startWorkerProcess } from './worker-process.ts';
import { BENCH_DESTINATIONS, destinationArg } from './destinations/index.ts';
import type { BenchDestination } from './destinations/types.ts';

const { destination, rest: numericArgv } = destinationArg(process.argv.slice(2));
const args = numberArgs(
  {
    deliveries: 20_000,
    endpoints: 10,
    rate: 100,
    seconds: 10,
    runs: 3,
    concurrency: 0,
    history: 0,
    profile: 0,
    floor: 0,
  },
  numericArgv,
);

const startWorker = (db: BenchDatabase, onSpawn?: (pid: number) => void) =>
  startWorkerProcess(db, args.concurrency > 0 ? { APP_WEBHOOKS__CONCURRENCY: String(args.concurrency) } : {}, onSpawn);

/** CPU milliseconds per delivery: worker process, PostgreSQL server, this process (receiver, emitter). */
interface CpuShare {
  worker: number;
  postgres: number | null;
  bench: number;
}

interface CpuSample {
  worker: number;
  postgres: number | null;
  bench: number;
}

function cpuNow(db: BenchDatabase, workerPid?: number): CpuSample {
  const usage = process.cpuUsage();
  return {
    worker: workerPid === undefined ? 0 : (processTreeCpuSeconds(workerPid) ?? NaN),
    postgres: db.serverPid === undefined ? null : processTreeCpuSeconds(db.serverPid),
    bench: (usage.user + usage.system) / 1e6,
  };
}

function cpuSince(before: CpuSample, after: CpuSample, count: number): CpuShare | null {
  if (Number.isNaN(after.worker)) return null;
  const per = (seconds: number) => (seconds * 1000) / count;
  return {
    worker: per(after.worker - before.worker),
    postgres: after.postgres === null || before.postgres === null ? null : per(after.postgres - before.postgres),
    bench: per(after.bench - before.bench),
  };
}

const cpuText = (cpu: CpuShare) =>
  `${(cpu.worker + (cpu.postgres ?? 0) + cpu.bench).toFixed(2)} ms (worker ${cpu.worker.toFixed(2)}, ` +
  `${cpu.postgres === null ? '' : `postgres ${cpu.postgres.toFixed(2)}, `}receiver and emitter ${cpu.bench.toFixed(2)})`;

const medianShare = (shares: CpuShare[]): CpuShare => ({
  worker: median(shares.map((s) => s.worker)),
  postgres: shares.some((s) => s.postgres === null) ? null : median(shares.map((s) => s.postgres!)),
  bench: median(shares.map((s) => s.bench)),
});

/**
 * The job table as a busy queue's autovacuum keeps it, before each timed phase: without this the
 * no-op phase found the throughput phase's dead job rows (and a run's throughput phase the
 * previous run's), and ran slower for them (19,751 against 29,495 jobs/s with 100,000 jobs).
 */
async function vacuumJobs(db: BenchDatabase): Promise<void> {
  await db.sql`vacuum (analyze) graphile_worker._private_jobs`;
}

async function jobsLeft(db: BenchDatabase): Promise<number> {
  const [row] = await db.sql<{ left: number }[]>`select count(*)::int as left from graphile_worker._private_jobs`;
  return row.left;
}

/** A body as large as the throughput phase's deliveries carry: one of theirs, as stored. */
async function sampleBody(db: BenchDatabase): Promise<string> {
  const [row] = await db.sql<{ body: string }[]>`
    select body from app_webhook_deliveries where body is not null order by created_at desc limit 1`;
  return (
    row?.body ??
    JSON.stringify({ type: 'bench.order.created', timestamp: new Date().toISOString(), data: { i: 1, t: 0 } })
  );
}

async function doneCount(db: BenchDatabase): Promise<number> {
  const [row] = await db.sql<
    { done: number }[]
  >`select count(*)::int as done from app_webhook_deliveries where status = 'done'`;
  return row.done;
}

async function main() {
  const db = await benchDatabase({}, { settings: args.profile ? PROFILE_SETTINGS : [] });
  const profile: StatementProfile | undefined = args.profile ? await openStatementProfile(db.adminUrl) : undefined;
  let received = 0;
  let first = 0;
  let last = 0;
  /** The throughput phase's worker, and the CPU used when its first delivery arrived. */
  let workerPid: number | undefined;
  let atFirst: CpuSample | undefined;
  const latencies: number[] = [];
  const arrived = (body: string) => {
    const now = wallClock();
    received += 1;
    if (first === 0) {
      first = now;
      if (workerPid !== undefined) atFirst = cpuNow(db, workerPid);
    }
    last = now;
    if (body.includes('"type":"latency.ping"')) {
      const sent = (JSON.parse(body) as { data: { t: number } }).data.t;
      latencies.push(now - sent);
    }
  };
  const receiver = await benchReceiver((_req, body) => arrived(body));
  /**
   * A timed phase whose `count` requests reach the receiver: the worker is started, the rate taken
   * from the first arrival to the last, and the CPU counted from the first arrival until
   * `settled` (what the phase waits for besides the arrivals) resolves; the worker's CPU before the
   * first arrival (loading its code, connecting) is its start-up, reported apart.
   */
  const timedArrivals = async (count: number, settled: () => Promise<void>) => {
    received = 0;
    first = 0;
    atFirst = undefined;
    const cpuBefore = cpuNow(db);
    const worker = await startWorker(db, (pid) => {
      workerPid = pid;
    });
    while (received < count) await sleep(20);
    const rate = ((count - 1) * 1000) / (last - first);
    await settled();
    const cpuAtEnd = cpuNow(db, worker.child.pid);
    workerPid = undefined;
    // set by the receiver meanwhile
    const cpuAtFirst = atFirst as CpuSample | undefined;
    return {
      worker,
      rate,
      cpu: cpuAtFirst ? cpuSince(cpuAtFirst, cpuAtEnd, count - 1) : null,
      startup: cpuAtFirst ? cpuAtFirst.worker - cpuBefore.worker : null,
    };
  };
  const broker: BenchDestination | undefined =
    destination === 'http'
      ? undefined
      : await (await BENCH_DESTINATIONS[destination]()).openBenchDestination(Math.random().toString(36).slice(2, 8));
  const deps = { config: db.config, sql: db.sql, log: db.log };
  try {
    for (let i = 0; i < args.endpoints; i++)
      await registerEndpoint(deps, OPERATOR, {
        url: broker?.url(i) ?? `${receiver.origin}/in/${i}`,
        events: ['bench.*'],
      });
    await registerEndpoint(deps, OPERATOR, {
      url: broker?.url(args.endpoints) ?? `${receiver.origin}/latency`,
      events: ['latency.*'],
    });
    await broker?.start(arrived);
    if (args.history > 0) {
      const started = wallClock();
      await loadHistory(db, { deliveries: args.history });
      // as a table that grew over time would be: vacuumed (else autovacuum's first pass over the
      // loaded rows runs during the measurement)
      await db.sql`vacuum (analyze) app_events, app_webhook_deliveries, app_webhook_attempts`;
      note(`loaded a history of ${args.history} deliveries in ${((wallClock() - started) / 1000).toFixed(1)} s`);
    }
    const events = Math.ceil(args.deliveries / args.endpoints);
    const rates: number[] = [];
    const p50s: number[] = [];
    const p99s: number[] = [];
    const noopRates: number[] = [];
    /** Each run's delivery rate over the no-op's in the same run. */
    const ratios: number[] = [];
    const cpuPerDelivery: CpuShare[] = [];
    /** The worker's CPU seconds from its start to its first delivery, each run. */
    const startups: number[] = [];
    const parkedShares: number[] = [];
    /** Phase 4, when asked for: its rate, its ratio to the no-op and its CPU per job. */
    const floorRates: number[] = [];
    const floorRatios: number[] = [];
    const floorCpu: CpuShare[] = [];
    /** The worker's peak resident memory in each run (MB), the throughput and latency phases. */
    const peaks: number[] = [];
    let parkedBefore = 0;

    for (let run = 1; run <= args.runs; run++) {
      // 1. Throughput: a backlog, then the worker.
      const queued = await emitMany(db, 'bench.order.created', events);
      await vacuumJobs(db);
      const doneBefore = await doneCount(db);
      await profile?.reset();
      const { worker, rate, cpu, startup } = await timedArrivals(queued, async () => {
        while ((await doneCount(db)) < doneBefore + queued) await sleep(20);
      });
      if (startup !== null) startups.push(startup);
      rates.push(rate);
      if (profile)
        note(
          [
            `run ${run}: PostgreSQL statements of the throughput phase (pg_stat_statements; WAL in all ${(await profile.walPerUnit(queued)).toFixed(0)} B/delivery):`,
            ...profileLines(await profile.top(queued), 'delivery'),
          ].join('\n'),
        );
      // deliveries that waited for their endpoint's cap (webhooks.endpointConcurrency) at least once
      const [{ parked }] = await db.sql<
        { parked: number }[]
      >`select count(*)::int as parked from app_webhook_deliveries where seq is not null`;
      parkedShares.push((parked - parkedBefore) / queued);
      parkedBefore = parked;
      if (cpu) cpuPerDelivery.push(cpu);

      // 2. Latency at a steady offered rate, the worker idle.
      latencies.length = 0;
      const total = args.rate * args.seconds;
      const started = wallClock();
      for (let i = 0; i < total; i++) {
        const due = started + (i * 1000) / args.rate;
        const wait = due - wallClock();
        if (wait > 0) await sleep(wait);
        void emit(deps, 'latency.ping', { i, t: wallClock() });
      }
      while (latencies.length < total) await sleep(20);
      p50s.push(quantile(latencies, 0.5));
      p99s.push(quantile(latencies, 0.99));
      const peak = peakResidentMb(worker.child.pid);
      if (peak !== null) peaks.push(peak);
      await worker.stop();

      // 3. graphile-worker's own rate for a no-op task, same worker process settings.
      await db.sql`
        select count(*) from graphile_worker.add_jobs(array(
          select row('app/noop', '{}'::json, null, null, 1, null, null, null)::graphile_worker.job_spec
            from generate_series(1, ${args.deliveries}::int)))`;
      await vacuumJobs(db);
      const noopWorker = await startWorker(db);
      let t0 = 0;
      let left = args.deliveries;
      let leftAtT0 = left;
      for (;;) {
        left = await jobsLeft(db);
        if (t0 === 0 && left < args.deliveries) {
          t0 = wallClock();
          leftAtT0 = left;
        }
        if (left === 0) break;
        await sleep(10);
      }
      const noopRate = (leftAtT0 * 1000) / (wallClock() - t0);
      noopRates.push(noopRate);
      ratios.push(rate / noopRate);
      await noopWorker.stop();

      // 4. The floor: one job and one signed POST each, nothing recorded.
      let floorText = '';
      if (args.floor > 0) {
        const body = await sampleBody(db);
        await db.sql`
          select count(*) from graphile_worker.add_jobs(array(
            select row('app/bench-post', json_build_object('url', ${`${receiver.origin}/floor`}::text, 'id', 'msg_floor_' || i, 'body', ${body}::text),
                       null, null, 1, null, null, null)::graphile_worker.job_spec
              from generate_series(1, ${args.deliveries}::int) as i))`;
        await vacuumJobs(db);
        // nothing is recorded: the phase ends with the last request received
        const floor = await timedArrivals(args.deliveries, async () => {});
        const { worker: floorWorker, rate: floorRate, cpu: share } = floor;
        while ((await jobsLeft(db)) > 0) await sleep(20);
        await floorWorker.stop();
        floorRates.push(floorRate);
        floorRatios.push(floorRate / noopRate);
        if (share) floorCpu.push(share);
        floorText = `; floor ${floorRate.toFixed(0)} jobs/s (ratio ${(floorRate / noopRate).toFixed(2)}${share ? `, CPU per job ${cpuText(share)}` : ''})`;
      }
      note(
        `run ${run}: ${rate.toFixed(0)} deliveries/s; emit->receiver p50 ${p50s.at(-1)!.toFixed(1)} ms, p99 ${p99s.at(-1)!.toFixed(1)} ms; ` +
          `no-op ${noopRate.toFixed(0)} jobs/s (ratio ${ratios.at(-1)!.toFixed(2)})${floorText}${cpu ? `; CPU per delivery: ${cpuText(cpu)}` : ''}${startups.length === run ? `; worker start-up ${startups.at(-1)!.toFixed(2)} s of CPU` : ''}${peak !== null ? `; worker peak resident memory ${peak.toFixed(0)} MB` : ''}; parked for the endpoint cap ${(100 * parkedShares.at(-1)!).toFixed(1)}%; load average ${loadavg()
            .map((x) => x.toFixed(2))
            .join(' ')}`,
      );
    }

    const rate = median(rates);
    const noop = median(noopRates);
    process.stdout.write(
      `bench:delivery: ${rate.toFixed(0)} deliveries/s sustained (${args.deliveries} deliveries to ${args.endpoints} endpoints` +
        `${args.history > 0 ? `, ${args.history} older deliveries in the tables` : ''}); ` +
        `emit->receiver p50 ${median(p50s).toFixed(1)} ms, p99 ${median(p99s).toFixed(1)} ms at ${args.rate} events/s for ${args.seconds} s; ` +
        `graphile-worker no-op ${noop.toFixed(0)} jobs/s; ratio ${median(ratios).toFixed(2)} (median of the runs' own); ` +
        (floorRates.length > 0
          ? `floor (one job and one signed POST, nothing recorded) ${median(floorRates).toFixed(0)} jobs/s, ratio to the no-op ${median(floorRatios).toFixed(2)}${floorCpu.length > 0 ? `, CPU per job ${cpuText(medianShare(floorCpu))}` : ''}; `
          : '') +
        `destination ${destination}; ` +
        (cpuPerDelivery.length > 0 ? `CPU per delivery ${cpuText(medianShare(cpuPerDelivery))}; ` : '') +
        (startups.length > 0 ? `worker start-up ${median(startups).toFixed(2)} s of CPU; ` : '') +
        (peaks.length > 0 ? `worker peak resident memory ${median(peaks).toFixed(0)} MB ` : '') +
        `(medians of ${args.runs} runs; ${db.server})\n`,
    );
  } finally {
    await profile?.close();
    await broker?.close();
    await receiver.close();
    await db.close();
  }
}

await main();
