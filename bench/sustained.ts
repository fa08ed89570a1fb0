/**
 * `npm run bench:sustained`: the service run the way production runs it, emitting while it
 * delivers, on one endpoint and on many.
 *
 * 1. Drain: `--backlog` deliveries queued with the worker stopped, to one endpoint and then
 *    spread over 100; the worker starts and the rate is taken from the first delivery received
 *    to the last. A busy single endpoint (a large tenant's one integration) should drain at
 *    least half as fast as the same work spread out.
 * 2. Sustained: for 1, 3 and 100 endpoints in turn, a fixed offered load of `--rate` deliveries
 *    per second (emits of `--bytes` of data, each fanned out to every endpoint of the phase, so
 *    1 endpoint gets `--rate` emits/s and 100 endpoints `--rate`/100) for `--seconds`, with the
 *    worker running all along. Every `--sample` seconds: deliveries received in the window and
 *    the backlog (pending and running deliveries). At the end: the delivered rate of the first
 *    and the last minute, emit p50/p99 (the emit call's own time), emit-to-receiver p50/p99, and
 *    how long after the last emit the last delivery arrived.
 *
 * The worker runs as the Procfile runs it (bench/worker-process.ts); the emitter calls the core
 * `emit` in this process, as a model write or the in-process interface does; the receiver lives
 * here too and answers 204, at once or, with `--answer-ms N`, N milliseconds after the request's
 * body is in (plus up to `--answer-jitter` ms at random), as a receiver that does its own work
 * before answering. Arrivals (the rates, emit-to-receiver) are counted when the body is in.
 * A phase that does not finish within `--drain-timeout` (a slow receiver's backlog) removes its
 * endpoints, and with them what is left of its deliveries, so the next phase starts clean.
 *
 * With `--memory 1`, every sample also reads the worker's resident memory (VmRSS of
 * /proc/<pid>/status) and, from its metrics listener (prom-client's default metrics), its V8 heap
 * used and its active handles; the phase's line adds them at the end of the first minute and at
 * the last sample, the growth per minute between the two, and the heap's floor in each half of the
 * rest of the run (see `memorySummary`).
 * With `--churn N` (N > 0), every sample removes the phase's N oldest endpoints and registers N
 * new ones (the count stays), so per-endpoint state that is never forgotten shows as growth; the
 * deliveries of a removed endpoint go with it, so the phase then waits for an empty backlog
 * rather than for every delivery.
 *
 * Options: --rate 300 --seconds 180 --sample 10 --bytes 500 --backlog 6000 --drain-timeout 120
 * --only 0 (1, 3 or 100: that sustained phase alone; the drain runs unless --backlog 0)
 * --memory 0 --churn 0 --answer-ms 0 --answer-jitter 0.
 * stdout: one summary line per phase; stderr: the samples.
 */
import { loadavg } from 'node:os';
import { OPERATOR } from '../shared/access/actor.ts';
import { registerEndpoint, removeEndpoint } from '../shared/webhooks/endpoints/index.ts';
import { emit } from '../shared/webhooks/events/emit.ts';
import {
  benchDatabase,
  benchReceiver,
  median,
  note,
  numberArgs,
  quantile,
  sleep,
  wallClock,
  type BenchDatabase,
  type BenchReceiver,
} from './common.ts';
import { memorySample, METRICS_TOKEN, metricsPortOf, type MemorySample } from './process-memory.ts';
import { startWorkerProcess } from './worker-process.ts';

const args = numberArgs({
  rate: 300,
  seconds: 180,
  sample: 10,
  bytes: 500,
  backlog: 6000,
  'drain-timeout': 120,
  only: 0,
  memory: 0,
  churn: 0,
  'answer-ms': 0,
  'answer-jitter': 0,
});

/** How the receiver answers, for every summary line. */
const answering =
  args['answer-ms'] > 0 || args['answer-jitter'] > 0
    ? `receiver answers after ${args['answer-ms']}${args['answer-jitter'] > 0 ? `–${args['answer-ms'] + args['answer-jitter']}` : ''} ms`
    : 'receiver answers at once';

/** Most emits in flight at once (an emit that takes long does not hold the next ones back). */
const IN_FLIGHT = 32;

interface Arrivals {
  /** Deliveries received per event family. */
  count: Map<string, number>;
  first: Map<string, number>;
  last: Map<string, number>;
  /** Emit-to-receiver milliseconds per event family. */
  latency: Map<string, number[]>;
}

const arrivals: Arrivals = { count: new Map(), first: new Map(), last: new Map(), latency: new Map() };

function arrived(body: string): void {
  const now = wallClock();
  const event = JSON.parse(body) as { type: string; data: { t: number } };
  const family = event.type.slice(0, event.type.lastIndexOf('.'));
  arrivals.count.set(family, (arrivals.count.get(family) ?? 0) + 1);
  if (!arrivals.first.has(family)) arrivals.first.set(family, now);
  arrivals.last.set(family, now);
  const latencies = arrivals.latency.get(family) ?? [];
  latencies.push(now - event.data.t);
  arrivals.latency.set(family, latencies);
}

const received = (family: string) => arrivals.count.get(family) ?? 0;

/** Registers `count` endpoints for `family`'s events; answers their ids, oldest first. */
async function endpoints(
  db: BenchDatabase,
  origin: string,
  family: string,
  count: number,
  from = 0,
): Promise<string[]> {
  const deps = { config: db.config, sql: db.sql, log: db.log };
  const ids: string[] = [];
  for (let i = from; i < from + count; i++)
    ids.push((await registerEndpoint(deps, OPERATOR, { url: `${origin}/${family}/${i}`, events: [`${family}.*`] })).id);
  return ids;
}

async function backlog(db: BenchDatabase): Promise<number> {
  const [row] = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from app_webhook_deliveries where status in ('pending', 'running')`;
  return row.n;
}

/** Of `ids`, the endpoints marked slow now: an attempt of half a second or more within the last minute holds them to their cap. */
async function markedSlow(db: BenchDatabase, ids: readonly string[]): Promise<number> {
  const [row] = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from app_endpoint_gate where endpoint_id = any(${ids as string[]}) and slow_until > now()`;
  return row.n;
}

/** How long `ids`' recorded attempts took, as the worker timed them: p50, p90, and the share of half a second or more. */
async function attemptTimes(db: BenchDatabase, ids: readonly string[]): Promise<string> {
  const [row] = await db.sql<{ p50: number | null; p90: number | null; slow: number | null }[]>`
    select percentile_disc(0.5) within group (order by a.duration_ms) as p50,
           percentile_disc(0.9) within group (order by a.duration_ms) as p90,
           avg((a.duration_ms >= 500)::int)::float8 as slow
      from app_webhook_attempts a join app_webhook_deliveries d on d.id = a.delivery_id
     where d.endpoint_id = any(${ids as string[]})`;
  return `attempts timed p50 ${row.p50 ?? 'n/a'} ms, p90 ${row.p90 ?? 'n/a'} ms, ${((row.slow ?? 0) * 100).toFixed(0)} % at 500 ms or more`;
}

/** Waits until `family` has received `expected` deliveries, or `timeoutMs` passed; answers whether it did. */
async function until(family: string, expected: number, timeoutMs: number): Promise<boolean> {
  const deadline = wallClock() + timeoutMs;
  while (received(family) < expected) {
    if (wallClock() > deadline) return false;
    await sleep(20);
  }
  return true;
}

const pad = 'x'.repeat(Math.max(0, args.bytes - 40));

/**
 * Removes the endpoints of a phase that did not finish, and with them the deliveries still
 * queued for them, so they do not take the next phase's worker slots.
 */
async function leaveNothingBehind(db: BenchDatabase, ids: readonly string[], phase: string): Promise<void> {
  const left = await backlog(db);
  const deps = { config: db.config, sql: db.sql, log: db.log };
  for (const id of ids) await removeEndpoint(deps, OPERATOR, id);
  note(`${phase}: ${left} deliveries left undelivered, removed with their endpoints`);
}

/** Drain: `--backlog` deliveries to `count` endpoints, queued first; answers deliveries per second. */
async function drain(db: BenchDatabase, receiver: BenchReceiver, count: number): Promise<number> {
  const family = `drain${count}`;
  const ids = await endpoints(db, receiver.origin, family, count);
  const deps = { config: db.config, sql: db.sql, log: db.log };
  const events = Math.ceil(args.backlog / count);
  for (let i = 0; i < events; i++) await emit(deps, `${family}.queued`, { i, t: wallClock(), pad });
  const expected = events * count;
  const worker = await startWorkerProcess(db);
  let done = false;
  let slow = 0;
  // what the worker keeps in flight: the receiver's open requests, every 50 ms once the first arrived
  const inFlight: number[] = [];
  const watch = setInterval(() => {
    if (received(family) > 0) inFlight.push(receiver.answering());
  }, 50);
  try {
    done = await until(family, expected, args['drain-timeout'] * 1000);
    slow = await markedSlow(db, ids);
  } finally {
    clearInterval(watch);
    await worker.stop();
  }
  const timed = await attemptTimes(db, ids);
  if (!done) {
    note(`drain to ${count} endpoints: ${received(family)} of ${expected} within ${args['drain-timeout']} s`);
    await leaveNothingBehind(db, ids, `drain to ${count} endpoints`);
  }
  const rate = ((received(family) - 1) * 1000) / ((arrivals.last.get(family) ?? 0) - (arrivals.first.get(family) ?? 0));
  note(
    `drain: ${received(family)} deliveries to ${count} endpoint${count === 1 ? '' : 's'}: ${rate.toFixed(0)}/s; ${slow} marked slow at the end; ${timed}; in flight at the receiver p50 ${median(inFlight)}, max ${Math.max(0, ...inFlight)}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  return rate;
}

interface PhaseResult {
  endpoints: number;
  windows: number[];
  backlogs: number[];
  /** One per sample with `--memory 1`, else empty. */
  memory: MemorySample[];
  emitP50: number;
  emitP99: number;
  e2rP50: number;
  e2rP99: number;
  /** Seconds from the last emit to the last delivery (Infinity: not all arrived in time). */
  tail: number;
  emitted: number;
}

/** Sustained: the offered load to `count` endpoints for `--seconds`, the worker running. */
async function sustained(db: BenchDatabase, origin: string, count: number): Promise<PhaseResult> {
  const family = `load${count}`;
  const ids = await endpoints(db, origin, family, count);
  let registered = count;
  const deps = { config: db.config, sql: db.sql, log: db.log };
  const emitsPerSecond = args.rate / count;
  const total = Math.round(emitsPerSecond * args.seconds);
  const emitTimes: number[] = [];
  const windows: number[] = [];
  const backlogs: number[] = [];
  const memory: MemorySample[] = [];
  const worker = await startWorkerProcess(
    db,
    args.memory ? { APP_WORKER__METRICS_PORT: '0', APP_METRICS__TOKEN: METRICS_TOKEN } : {},
  );
  const metricsPort = args.memory ? metricsPortOf(worker.output()) : undefined;
  let result: PhaseResult;
  try {
    const started = wallClock();
    let inFlight = 0;
    let lastEmit = started;
    const sampler = (async () => {
      let seen = 0;
      for (let at = started + args.sample * 1000; at <= started + args.seconds * 1000 + 1; at += args.sample * 1000) {
        await sleep(Math.max(0, at - wallClock()));
        const now = received(family);
        windows.push((now - seen) / args.sample);
        seen = now;
        backlogs.push(await backlog(db));
        let line = `  ${count} endpoint${count === 1 ? '' : 's'}, ${((at - started) / 1000).toFixed(0)} s: ${windows.at(-1)!.toFixed(0)} delivered/s, backlog ${backlogs.at(-1)}, ${await markedSlow(db, ids)} marked slow`;
        if (args.memory) {
          const sample = await memorySample(worker.child.pid, metricsPort);
          memory.push(sample);
          line += `; worker RSS ${sample.rssMb.toFixed(1)} MB, heap used ${sample.heapMb.toFixed(1)} MB, ${sample.handles} handles`;
        }
        if (args.churn > 0) {
          const gone = ids.splice(0, Math.min(args.churn, ids.length));
          for (const id of gone) await removeEndpoint(deps, OPERATOR, id);
          ids.push(...(await endpoints(db, origin, family, gone.length, registered)));
          registered += gone.length;
          line += `; ${registered} endpoints registered so far`;
        }
        note(line);
      }
    })();
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / emitsPerSecond;
      const wait = due - wallClock();
      if (wait > 0) await sleep(wait);
      while (inFlight >= IN_FLIGHT) await sleep(1);
      inFlight += 1;
      const called = wallClock();
      lastEmit = called;
      void emit(deps, `${family}.tick`, { i, t: called, pad })
        .then(
          () => emitTimes.push(wallClock() - called),
          (error: unknown) => note(`emit failed: ${(error as Error).message}`),
        )
        .finally(() => {
          inFlight -= 1;
        });
    }
    await sampler;
    // with churn, removed endpoints take their deliveries along: the end is an empty backlog
    const delivered =
      args.churn > 0 ? await drained(db) : await until(family, total * count, args['drain-timeout'] * 1000);
    const latencies = arrivals.latency.get(family) ?? [];
    result = {
      endpoints: count,
      windows,
      backlogs,
      memory,
      emitP50: quantile(emitTimes, 0.5),
      emitP99: quantile(emitTimes, 0.99),
      e2rP50: quantile(latencies, 0.5),
      e2rP99: quantile(latencies, 0.99),
      tail: delivered ? ((arrivals.last.get(family) ?? lastEmit) - lastEmit) / 1000 : Infinity,
      emitted: total,
    };
  } finally {
    await worker.stop();
  }
  if (!Number.isFinite(result.tail)) await leaveNothingBehind(db, ids, `${count} endpoint${count === 1 ? '' : 's'}`);
  return result;
}

/** Waits until no delivery is pending or running, or `--drain-timeout` passed; answers whether it did. */
async function drained(db: BenchDatabase): Promise<boolean> {
  const deadline = wallClock() + args['drain-timeout'] * 1000;
  while ((await backlog(db)) > 0) {
    if (wallClock() > deadline) return false;
    await sleep(200);
  }
  return true;
}

const perMinute = () => Math.max(1, Math.round(60 / args.sample));

/** The mean of the windows of the first and of the last minute (or of the whole run when shorter). */
function firstAndLastMinute(windows: readonly number[]): { first: number; last: number } {
  const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return { first: mean(windows.slice(0, perMinute())), last: mean(windows.slice(-perMinute())) };
}

/**
 * The memory part of a phase's line: RSS, heap used and handles at the end of the first minute and
 * at the last sample, with the growth per minute between them; and the heap's floor (its lowest
 * sample) in the first and in the second half of what follows the first minute. Heap used is a
 * sawtooth (it climbs between major collections, minutes apart under load, and falls back), so a
 * single reading says little; a leak is a floor that rises.
 */
function memorySummary(samples: readonly MemorySample[]): string {
  if (samples.length === 0) return '';
  const n = Math.min(perMinute(), samples.length);
  const first = samples[n - 1];
  const last = samples.at(-1)!;
  const minutes = Math.max(1, samples.length - n) / perMinute();
  const growth = (a: number, b: number) => `${b - a >= 0 ? '+' : ''}${((b - a) / minutes).toFixed(2)}`;
  const after = samples.slice(n);
  const half = Math.ceil(after.length / 2);
  const floor = (values: readonly MemorySample[]) =>
    values.length === 0 ? 'n/a' : Math.min(...values.map((s) => s.heapMb)).toFixed(1);
  return (
    `; worker RSS ${first.rssMb.toFixed(1)} -> ${last.rssMb.toFixed(1)} MB (${growth(first.rssMb, last.rssMb)} MB/min), ` +
    `heap used ${first.heapMb.toFixed(1)} -> ${last.heapMb.toFixed(1)} MB (${growth(first.heapMb, last.heapMb)} MB/min), ` +
    `handles ${first.handles} -> ${last.handles} (end of the first minute -> last sample); ` +
    `heap floor ${floor(after.slice(0, half))} MB in the first half after it, ${floor(after.slice(half))} MB in the second`
  );
}

async function main() {
  const db = await benchDatabase();
  const receiver = await benchReceiver((_req, body) => arrived(body), {
    answerMs: args['answer-ms'],
    jitterMs: args['answer-jitter'],
  });
  try {
    if (args.backlog > 0) {
      const one = await drain(db, receiver, 1);
      const hundred = await drain(db, receiver, 100);
      process.stdout.write(
        `bench:sustained drain: ${args.backlog} deliveries, 1 endpoint ${one.toFixed(0)}/s, 100 endpoints ${hundred.toFixed(0)}/s, ` +
          `ratio ${(one / hundred).toFixed(2)} (target at least 0.5; ${answering}; ${db.server})\n`,
      );
    }
    for (const count of [1, 3, 100]) {
      if (args.only !== 0 && args.only !== count) continue;
      const result = await sustained(db, receiver.origin, count);
      const { first, last } = firstAndLastMinute(result.windows);
      process.stdout.write(
        `bench:sustained ${count} endpoint${count === 1 ? '' : 's'}: offered ${args.rate} deliveries/s (${(args.rate / count).toFixed(count === 1 ? 0 : 1)} emits/s of ${args.bytes} B) for ${args.seconds} s; ` +
          `delivered ${first.toFixed(0)}/s in the first minute, ${last.toFixed(0)}/s in the last (${((100 * last) / Math.max(first, 1)).toFixed(0)} %); ` +
          `backlog ${result.backlogs[0] ?? 0} -> ${result.backlogs.at(-1) ?? 0} (max ${Math.max(0, ...result.backlogs)}); ` +
          `emit p50 ${result.emitP50.toFixed(1)} ms, p99 ${result.emitP99.toFixed(1)} ms; emit->receiver p50 ${result.e2rP50.toFixed(0)} ms, p99 ${result.e2rP99.toFixed(0)} ms; ` +
          `last delivery ${Number.isFinite(result.tail) ? `${result.tail.toFixed(1)} s` : `not within ${args['drain-timeout']} s`} after the last emit; ${answering}` +
          `${args.churn > 0 ? `; ${args.churn} endpoints replaced every ${args.sample} s` : ''}${memorySummary(result.memory)}\n`,
      );
    }
  } finally {
    await receiver.close();
    await db.close();
  }
}

await main();
