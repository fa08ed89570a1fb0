/**
 * `npm run bench:scale` (docs/scaling.md, BENCHMARKS.md "Scaling out"): the service scaled out
 * on one PostgreSQL: delivery throughput with 1, 2 and 4 worker processes, API throughput with 1
 * and 2 web processes, and what saturates first in each case.
 *
 * Every process is a real one, as the Procfile runs it (NODE_ENV=production, default
 * configuration, the loopback allowed): workers through bench/worker-process.ts (worker/run.ts,
 * the same `runWorker` as `node worker/main.ts`; its extra no-op task is never queued here), web
 * processes as `node api/main.ts` on a port of their own. The receiver and the load generators
 * live in this process. PostgreSQL is DATABASE_URL's server or an embedded one with durable
 * defaults (bench/common.ts).
 *
 * 1. API, for each count in `--webs`: that many web processes; one autocannon per process
 *    (`--connections` split evenly, as a load balancer would), `GET /api/v1/deliveries?per_page=25`
 *    with an admin token over `--api-deliveries` deliveries (bench/load-history.ts; by default more
 *    than `api.exactTotal`, so every round lists the table the way a big one is listed: the delivery
 *    rounds add to it, and a table crossing that bound between rounds made the rounds unalike),
 *    `--warmup` seconds then `--seconds` measured. Then the revocation's reach: a second token,
 *    used once on every process (cached), is revoked by plain SQL, and every process is asked
 *    every 10 ms until it answers 401; reach = the slowest process's first 401 after the commit.
 * 2. Delivery, for each count in `--workers`: `--deliveries` deliveries (events fanned out to
 *    `--endpoints` endpoints) queued with no worker running, then that many workers started at
 *    once. The rate is taken from the moment the last of them said it started to the last
 *    delivery received (deliveries received in that window / its length), and the CPU over the
 *    same window. Then, the workers idle, `--pickups` single events 250 ms apart to one more
 *    endpoint: emit-to-receiver latency of a job nobody was polling for (LISTEN/NOTIFY's work).
 *    PostgreSQL's CPU while this process emitted the backlog (4 emits at a time, no worker
 *    running) is reported per delivery too: what a delivery costs the database before its job.
 *
 * During every measured window, each process's CPU (from /proc: each worker or web process,
 * PostgreSQL's server and its backends, this process with the receiver or autocannon), the
 * machine's busy CPU (/proc/stat: other work on the machine included), and `pg_stat_activity`
 * of the benchmark's database every `--sample` ms: connections per application_name (most at
 * once), active backends and what they wait for (wait_event_type:wait_event, `CPU` when none).
 * Rounds alternate the order of the counts; each figure's median over `--runs` rounds goes to
 * stdout, the per-round figures and the load average to stderr.
 *
 * `--pgbouncer 1`: starts an embedded PostgreSQL and PgBouncer (the `pgbouncer` binary, e.g.
 * Debian's package) in transaction pooling mode in front of it (`default_pool_size`
 * `--pool-size`); the database is created and migrated directly (as a release would), this
 * process reads the results directly, and every worker and web process connects through
 * PgBouncer (`--session-pooling 1`: session pooling instead). Whatever fails is reported and the run
 * goes on where it can. `--prepare 0` adds
 * `prepare=false` to the processes' DATABASE_URL, which postgres.js reads as its option of that
 * name (unnamed statements only); graphile-worker's own client does not read it.
 *
 * Options (a count of 0 in --workers or --webs skips that phase): --workers 1,2,4 --webs 1,2 --deliveries 20000 --endpoints 10 --seconds 10 --warmup 3
 * --connections 20 --api-deliveries 20000 --runs 3 --pickups 10 --sample 100 --pgbouncer 0
 * --pool-size 20 --session-pooling 0 --prepare 1 --drain-timeout 300
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { OPERATOR } from '../shared/access/actor.ts';
import { createToken } from '../shared/tokens/tokens.ts';
import { registerEndpoint } from '../shared/webhooks/endpoints/index.ts';
import { emit } from '../shared/webhooks/events/emit.ts';
import {
  benchDatabase,
  benchReceiver,
  median,
  note,
  numberArgs,
  processTreeCpuSeconds,
  quantile,
  sleep,
  wallClock,
  type BenchDatabase,
} from './common.ts';
import { emitMany } from './emit-many.ts';
import { loadHistory } from './load-history.ts';
import { startWebProcess, type WebProcess } from './web-process.ts';
import { startWorkerProcess, type WorkerProcess } from './worker-process.ts';

/** `--name 1,2,4` options (lists of counts), taken out of argv before the numeric ones. */
function listArgs<T extends Record<string, number[]>>(defaults: T, argv: string[]): { lists: T; rest: string[] } {
  const lists = { ...defaults } as Record<string, number[]>;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([\w-]+)(?:=(.*))?$/.exec(argv[i]);
    if (match && match[1] in lists) {
      const text = match[2] ?? argv[++i] ?? '';
      const values = text
        .split(',')
        .filter((part) => part !== '')
        .map(Number);
      if (values.length === 0 || values.some((v) => !Number.isInteger(v) || v < 0))
        throw new Error(`--${match[1]} needs counts such as 1,2,4 (0: skip that phase)`);
      lists[match[1]] = values.filter((v) => v > 0);
    } else {
      rest.push(argv[i]);
    }
  }
  return { lists: lists as T, rest };
}

const { lists, rest } = listArgs({ workers: [1, 2, 4], webs: [1, 2] }, process.argv.slice(2));
const args = numberArgs(
  {
    deliveries: 20_000,
    endpoints: 10,
    seconds: 10,
    warmup: 3,
    connections: 20,
    'api-deliveries': 20000,
    runs: 3,
    pickups: 10,
    sample: 100,
    pgbouncer: 0,
    'pool-size': 20,
    'session-pooling': 0,
    prepare: 1,
    'drain-timeout': 300,
  },
  rest,
);

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const fixed = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

// ---------------------------------------------------------------------------------------------
// CPU: per process (bench/common.ts's processTreeCpuSeconds), this process, the whole machine.

/** Busy and total CPU seconds of the whole machine so far (/proc/stat; every core). */
function machineCpu(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0) / 100;
  const idle = (fields[3] + fields[4]) / 100; // idle + iowait
  return { busy: total - idle, total };
}

interface CpuMark {
  at: number;
  processes: Map<string, number>;
  postgres: number | null;
  bench: number;
  machine: { busy: number; total: number };
}

function cpuMark(db: BenchDatabase, processes: ReadonlyArray<{ label: string; pid: number | undefined }>): CpuMark {
  const usage = process.cpuUsage();
  return {
    at: wallClock(),
    processes: new Map(
      processes.map(({ label, pid }) => [label, pid === undefined ? NaN : (processTreeCpuSeconds(pid) ?? NaN)]),
    ),
    postgres: db.serverPid === undefined ? null : processTreeCpuSeconds(db.serverPid),
    bench: (usage.user + usage.system) / 1e6,
    machine: machineCpu(),
  };
}

/** CPU of a window: cores busy on average (1 = one core all along) per process, and in milliseconds per unit of work. */
interface CpuWindow {
  seconds: number;
  /** Cores busy, per process label. */
  cores: Map<string, number>;
  postgresCores: number | null;
  benchCores: number;
  machineCores: number;
}

function cpuWindow(before: CpuMark, after: CpuMark): CpuWindow {
  const seconds = (after.at - before.at) / 1000;
  const cores = new Map<string, number>();
  for (const [label, cpu] of after.processes) cores.set(label, (cpu - (before.processes.get(label) ?? NaN)) / seconds);
  return {
    seconds,
    cores,
    postgresCores:
      after.postgres === null || before.postgres === null ? null : (after.postgres - before.postgres) / seconds,
    benchCores: (after.bench - before.bench) / seconds,
    machineCores: (after.machine.busy - before.machine.busy) / seconds,
  };
}

const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

// ---------------------------------------------------------------------------------------------
// pg_stat_activity, sampled.

interface ActivitySummary {
  samples: number;
  /** Most connections to the database at once (this process's own, application_name `bench`, excluded). */
  maxConnections: number;
  /** Most connections at once per application_name. */
  maxByApp: Map<string, number>;
  /** Mean active backends per sample. */
  meanActive: number;
  /** Share of active backend-samples per wait (`CPU`: active, waiting for nothing). */
  waits: Map<string, number>;
}

function sampleActivity(db: BenchDatabase, everyMs: number): { stop(): Promise<ActivitySummary> } {
  let running = true;
  let samples = 0;
  let maxConnections = 0;
  let activeTotal = 0;
  const maxByApp = new Map<string, number>();
  const waits = new Map<string, number>();
  const loop = (async () => {
    while (running) {
      const started = wallClock();
      const rows = await db.sql<{ app: string; state: string | null; wait: string | null; n: number }[]>`
        select coalesce(nullif(application_name, ''), '(unnamed)') as app, state,
               wait_event_type || ':' || wait_event as wait, count(*)::int as n
          from pg_stat_activity
         where datname = current_database() and backend_type = 'client backend' and application_name <> 'bench'
         group by 1, 2, 3`;
      samples += 1;
      maxConnections = Math.max(maxConnections, sum(rows.map((r) => r.n)));
      const byApp = new Map<string, number>();
      for (const row of rows) {
        byApp.set(row.app, (byApp.get(row.app) ?? 0) + row.n);
        if (row.state === 'active') {
          activeTotal += row.n;
          const key = row.wait ?? 'CPU';
          waits.set(key, (waits.get(key) ?? 0) + row.n);
        } else if (row.state === 'idle in transaction') {
          waits.set('(idle in transaction)', (waits.get('(idle in transaction)') ?? 0) + row.n);
        }
      }
      for (const [app, n] of byApp) maxByApp.set(app, Math.max(maxByApp.get(app) ?? 0, n));
      await sleep(Math.max(0, everyMs - (wallClock() - started)));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const shares = new Map<string, number>();
      const counted = sum(waits.values());
      for (const [key, n] of [...waits].sort((a, b) => b[1] - a[1])) shares.set(key, n / Math.max(1, counted));
      return { samples, maxConnections, maxByApp, meanActive: activeTotal / Math.max(1, samples), waits: shares };
    },
  };
}

const activityText = (a: ActivitySummary) =>
  `connections at most ${a.maxConnections} (${[...a.maxByApp]
    .sort()
    .map(([app, n]) => `${app} ${n}`)
    .join(', ')}); ` +
  `active backends ${fixed(a.meanActive, 1)} on average, waiting: ${
    [...a.waits]
      .slice(0, 5)
      .map(([key, share]) => `${key} ${(100 * share).toFixed(0)}%`)
      .join(', ') || 'none active'
  }`;

// ---------------------------------------------------------------------------------------------
// PgBouncer in transaction pooling mode (`--pgbouncer 1`).

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

interface Bouncer {
  port: number;
  log(): string;
  stop(): Promise<void>;
}

/** PgBouncer (`mode` pooling) in front of 127.0.0.1:`serverPort`, run as `postgres` when we are root (it refuses root). */
async function startPgbouncer(serverPort: number, poolSize: number, mode: 'transaction' | 'session'): Promise<Bouncer> {
  const dir = await mkdtemp(join(tmpdir(), 'app-pgbouncer-'));
  const port = await freePort();
  const ini = [
    '[databases]',
    `* = host=127.0.0.1 port=${serverPort}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    `pool_mode = ${mode}`,
    `default_pool_size = ${poolSize}`,
    'max_client_conn = 2000',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
  ].join('\n');
  await writeFile(join(dir, 'pgbouncer.ini'), `${ini}\n`);
  await writeFile(join(dir, 'userlist.txt'), '"postgres" ""\n');
  let ids: { uid?: number; gid?: number } = {};
  if (process.getuid?.() === 0) {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (uid.status !== 0) throw new Error('running as root and no `postgres` user to run PgBouncer as');
    ids = { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
    await chown(dir, ids.uid!, ids.gid!);
    for (const file of ['pgbouncer.ini', 'userlist.txt']) await chown(join(dir, file), ids.uid!, ids.gid!);
  }
  const child = spawn('pgbouncer', [join(dir, 'pgbouncer.ini')], { ...ids, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error) => {
    output += `\n${error.message}`;
  });
  const readLog = () => {
    try {
      return readFileSync(join(dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return output;
    }
  };
  for (const deadline = wallClock() + 10_000; !/listening on 127\.0\.0\.1:\d+/.test(readLog()); await sleep(50)) {
    if (wallClock() > deadline || child.exitCode !== null)
      throw new Error(`PgBouncer did not start:\n${output}\n${readLog()}`);
  }
  return {
    port,
    log: readLog,
    async stop() {
      child.kill('SIGINT');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The receiver: deliveries counted per event family, pickups timed.

const arrivals = { bench: 0, first: 0, last: 0, pickups: [] as number[] };

function arrived(body: string): void {
  const now = wallClock();
  if (body.includes('"type":"pickup.ping"')) {
    arrivals.pickups.push(now - (JSON.parse(body) as { data: { t: number } }).data.t);
    return;
  }
  arrivals.bench += 1;
  if (arrivals.first === 0) arrivals.first = now;
  arrivals.last = now;
}

async function doneCount(db: BenchDatabase): Promise<number> {
  const [row] = await db.sql<
    { done: number }[]
  >`select count(*)::int as done from app_webhook_deliveries where status = 'done' and event_type like 'bench.%'`;
  return row.done;
}

// ---------------------------------------------------------------------------------------------
// The phases.

interface DeliveryRound {
  workers: number;
  rate: number;
  /** Milliseconds from the first worker's start to the last's. */
  startSpread: number;
  window: CpuWindow;
  /** CPU milliseconds per delivery: every worker together, PostgreSQL, this process. */
  perDelivery: { workers: number; postgres: number | null; bench: number };
  /** PostgreSQL's CPU milliseconds per delivery queued, while the backlog was emitted (no worker running). */
  emitPostgres: number | null;
  activity: ActivitySummary;
  pickupP50: number;
  pickupMax: number;
  parked: number;
}

let parkedBefore = 0;

async function deliveryRound(db: BenchDatabase, url: string, workers: number): Promise<DeliveryRound> {
  const events = Math.ceil(args.deliveries / args.endpoints);
  const emitBefore = cpuMark(db, []);
  const queued = await emitMany(db, 'bench.order.created', events);
  const emitAfter = cpuMark(db, []);
  const emitCost =
    emitAfter.postgres === null || emitBefore.postgres === null
      ? null
      : ((emitAfter.postgres - emitBefore.postgres) * 1000) / queued;
  const doneBefore = await doneCount(db);
  arrivals.bench = 0;
  arrivals.first = 0;
  const startedAt = wallClock();
  const started: WorkerProcess[] = await Promise.all(
    Array.from({ length: workers }, () => startWorkerProcess(db, { DATABASE_URL: url })),
  );
  try {
    const startSpread = wallClock() - startedAt;
    const labels = started.map((w, i) => ({ label: `worker ${i + 1}`, pid: w.child.pid }));
    const receivedAtStart = arrivals.bench;
    const before = cpuMark(db, labels);
    const activity = sampleActivity(db, args.sample);
    const deadline = wallClock() + args['drain-timeout'] * 1000;
    while (arrivals.bench < queued && wallClock() < deadline) await sleep(10);
    const after = cpuMark(db, labels);
    const summary = await activity.stop();
    if (arrivals.bench < queued)
      throw new Error(
        `${workers} workers: ${arrivals.bench} of ${queued} deliveries within ${args['drain-timeout']} s`,
      );
    while ((await doneCount(db)) < doneBefore + queued) {
      if (wallClock() > deadline + 30_000)
        throw new Error(
          `${workers} workers: every delivery received, but ${queued + doneBefore - (await doneCount(db))} not recorded done 30 s later`,
        );
      await sleep(20);
    }
    const inWindow = queued - receivedAtStart;
    const window = cpuWindow(before, after);
    // the window ends at the last delivery received, not when the loop above saw it
    const rate = (inWindow * 1000) / (arrivals.last - before.at);
    const per = (cores: number) => (cores * window.seconds * 1000) / inWindow;
    const [{ parked }] = await db.sql<
      { parked: number }[]
    >`select count(*)::int as parked from app_webhook_deliveries where seq is not null`;
    const parkedShare = (parked - parkedBefore) / queued;
    parkedBefore = parked;

    // pickups: the workers idle, single events nobody polls for
    arrivals.pickups.length = 0;
    const deps = { config: db.config, sql: db.sql, log: db.log };
    for (let i = 0; i < args.pickups; i++) {
      await emit(deps, 'pickup.ping', { i, t: wallClock() });
      await sleep(250);
    }
    const pickupDeadline = wallClock() + 10_000;
    while (arrivals.pickups.length < args.pickups && wallClock() < pickupDeadline) await sleep(10);
    return {
      workers,
      rate,
      startSpread,
      window,
      perDelivery: {
        workers: per(sum(window.cores.values())),
        postgres: window.postgresCores === null ? null : per(window.postgresCores),
        bench: per(window.benchCores),
      },
      emitPostgres: emitCost,
      activity: summary,
      pickupP50: quantile(arrivals.pickups, 0.5),
      pickupMax: arrivals.pickups.length < args.pickups ? Infinity : Math.max(...arrivals.pickups),
      parked: parkedShare,
    };
  } finally {
    for (const worker of started) await worker.stop().catch((error: unknown) => note((error as Error).message));
  }
}

interface ApiRound {
  webs: number;
  rps: number;
  p50: number;
  p99: number;
  window: CpuWindow;
  /** CPU milliseconds per request: every web process together, PostgreSQL, this process (autocannon). */
  perRequest: { webs: number; postgres: number | null; bench: number };
  activity: ActivitySummary;
  /** Milliseconds from the revocation's commit until every web process refused the token. */
  revocationReach: number;
}

async function apiRound(db: BenchDatabase, url: string, webs: number, token: string): Promise<ApiRound> {
  const started: WebProcess[] = await Promise.all(Array.from({ length: webs }, () => startWebProcess(url)));
  try {
    const path = '/api/v1/deliveries?per_page=25';
    const headers = { accept: 'application/hal+json', authorization: `Bearer ${token}` };
    const perProcess = Math.max(1, Math.round(args.connections / webs));
    const run = (seconds: number) =>
      Promise.all(
        started.map((web) =>
          autocannon({
            url: `http://127.0.0.1:${web.port}${path}`,
            headers,
            connections: perProcess,
            duration: seconds,
            workers: 1,
          }),
        ),
      );
    await run(args.warmup);
    const labels = started.map((w, i) => ({ label: `web ${i + 1}`, pid: w.child.pid }));
    const before = cpuMark(db, labels);
    const activity = sampleActivity(db, args.sample);
    const results = await run(args.seconds);
    const after = cpuMark(db, labels);
    const summary = await activity.stop();
    for (const result of results) {
      if (result.errors > 0 || result.non2xx > 0)
        throw new Error(
          `${webs} web processes: ${result.errors} errors, ${result.non2xx} answers other than 2xx (${JSON.stringify(result.statusCodeStats)})`,
        );
    }
    const requests = sum(results.map((r) => r.requests.total));
    const window = cpuWindow(before, after);
    const per = (cores: number) => (cores * window.seconds * 1000) / requests;

    // the revocation's reach: a token every process has cached, revoked by plain SQL
    const second = await createToken({ sql: db.sql, log: db.log }, { name: `revoked ${webs}`, role: 'admin' });
    const ask = (web: WebProcess) =>
      fetch(`http://127.0.0.1:${web.port}${path}`, {
        headers: { ...headers, authorization: `Bearer ${second.token}` },
      }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    for (const web of started)
      if ((await ask(web)) !== 200) throw new Error('the second token was refused before its revocation');
    await db.sql`update app_api_tokens set revoked_at = now() where id = ${second.id}`;
    const revokedAt = wallClock();
    const reach = await Promise.all(
      started.map(async (web) => {
        while (wallClock() - revokedAt < 30_000) {
          if ((await ask(web)) === 401) return wallClock() - revokedAt;
          await sleep(10);
        }
        return Infinity;
      }),
    );
    return {
      webs,
      rps: sum(results.map((r) => r.requests.average)),
      p50: median(results.map((r) => r.latency.p50)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
      window,
      perRequest: {
        webs: per(sum(window.cores.values())),
        postgres: window.postgresCores === null ? null : per(window.postgresCores),
        bench: per(window.benchCores),
      },
      activity: summary,
      revocationReach: Math.max(...reach),
    };
  } finally {
    for (const web of started) await web.stop();
  }
}

const coresText = (w: CpuWindow) =>
  `cores busy: ${[...w.cores].map(([label, c]) => `${label} ${fixed(c)}`).join(', ')}${w.postgresCores === null ? '' : `, postgres ${fixed(w.postgresCores)}`}, ` +
  `this process ${fixed(w.benchCores)}; machine ${fixed(w.machineCores)} of 2`;

/** The process that used the most CPU in a window ("postgres", "workers", "web processes", "this process"). */
function busiest(w: CpuWindow, group: string): string {
  const shares: Array<[string, number]> = [
    [group, sum(w.cores.values())],
    ['this process', w.benchCores],
  ];
  if (w.postgresCores !== null) shares.push(['postgres', w.postgresCores]);
  const [name, cores] = shares.sort((a, b) => b[1] - a[1])[0];
  return `${name} ${fixed(cores)} cores`;
}

async function main() {
  let cluster: Awaited<ReturnType<typeof import('../deploy/local/embedded-postgres.ts').startCluster>> | undefined;
  let bouncer: Bouncer | undefined;
  if (args.pgbouncer) {
    cluster = await (await import('../deploy/local/embedded-postgres.ts')).startCluster();
    bouncer = await startPgbouncer(
      cluster.port,
      args['pool-size'],
      args['session-pooling'] ? 'session' : 'transaction',
    );
    process.env.DATABASE_URL = cluster.adminUrl;
    process.env.BENCH_PG_PID = String(cluster.pid);
    note(
      `PgBouncer (${args['session-pooling'] ? 'session' : 'transaction'} pooling, default_pool_size ${args['pool-size']}) on port ${bouncer.port} in front of PostgreSQL on ${cluster.port}`,
    );
  }
  const db = await benchDatabase();
  const processUrl = (() => {
    const url = new URL(db.url);
    if (bouncer) url.port = String(bouncer.port);
    if (!args.prepare) url.searchParams.set('prepare', 'false');
    return url.toString();
  })();
  const receiver = await benchReceiver((_req, body) => arrived(body));
  const where =
    `${db.server}${bouncer ? `, worker and web processes through PgBouncer ${spawnSync('pgbouncer', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]} in ${args['session-pooling'] ? 'session' : 'transaction'} pooling mode, default_pool_size ${args['pool-size']}` : ''}` +
    `${args.prepare ? '' : ', prepare=false in their DATABASE_URL'}`;
  try {
    const deps = { config: db.config, sql: db.sql, log: db.log };
    note(`loading ${args['api-deliveries']} deliveries for the API; load average ${load()}`);
    await loadHistory(db, { deliveries: args['api-deliveries'], endpoints: 10, days: 30 });
    await db.sql`analyze`;
    const admin = await createToken({ sql: db.sql, log: db.log }, { name: 'bench admin', role: 'admin' });
    for (let i = 0; i < args.endpoints; i++)
      await registerEndpoint(deps, OPERATOR, { url: `${receiver.origin}/in/${i}`, events: ['bench.*'] });
    await registerEndpoint(deps, OPERATOR, { url: `${receiver.origin}/pickup`, events: ['pickup.*'] });

    const apiRounds = new Map<number, ApiRound[]>(lists.webs.map((n) => [n, []]));
    const deliveryRounds = new Map<number, DeliveryRound[]>(lists.workers.map((n) => [n, []]));
    const failures: string[] = [];
    for (let run = 0; run < args.runs; run++) {
      const order = <T>(values: T[]) => (run % 2 === 0 ? values : [...values].reverse());
      for (const webs of order(lists.webs)) {
        try {
          const r = await apiRound(db, processUrl, webs, admin.token);
          apiRounds.get(webs)!.push(r);
          note(
            `round ${run + 1}, ${webs} web: ${r.rps.toFixed(0)} req/s (p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms); CPU per request: web ${fixed(r.perRequest.webs)} ms, ` +
              `postgres ${fixed(r.perRequest.postgres ?? NaN)} ms, autocannon ${fixed(r.perRequest.bench)} ms; ${coresText(r.window)}; ${activityText(r.activity)}; ` +
              `revocation reached every process in ${fixed(r.revocationReach, 0)} ms; load average ${load()}`,
          );
        } catch (error) {
          failures.push(`${webs} web: ${(error as Error).message.slice(0, 400)}`);
          note(`round ${run + 1}, ${webs} web FAILED: ${(error as Error).message}`);
        }
      }
      for (const workers of order(lists.workers)) {
        try {
          const r = await deliveryRound(db, processUrl, workers);
          deliveryRounds.get(workers)!.push(r);
          note(
            `round ${run + 1}, ${workers} worker: ${r.rate.toFixed(0)} deliveries/s (workers started within ${r.startSpread.toFixed(0)} ms); CPU per delivery: workers ${fixed(r.perDelivery.workers)} ms, ` +
              `postgres ${fixed(r.perDelivery.postgres ?? NaN)} ms, receiver ${fixed(r.perDelivery.bench)} ms (emitting it: postgres ${fixed(r.emitPostgres ?? NaN)} ms); ${coresText(r.window)}; ${activityText(r.activity)}; ` +
              `parked for the endpoint cap ${(100 * r.parked).toFixed(1)}%; idle pickup p50 ${fixed(r.pickupP50, 1)} ms, max ${fixed(r.pickupMax, 1)} ms; load average ${load()}`,
          );
        } catch (error) {
          failures.push(`${workers} worker: ${(error as Error).message.slice(0, 400)}`);
          note(`round ${run + 1}, ${workers} worker FAILED: ${(error as Error).message}`);
        }
      }
    }

    const med = <T>(rounds: T[], of: (r: T) => number | null) =>
      median(rounds.map(of).filter((x): x is number => x !== null));
    const lines: string[] = [];
    for (const [webs, rounds] of apiRounds) {
      if (rounds.length === 0) continue;
      const top = rounds.map((r) => busiest(r.window, 'web processes'));
      lines.push(
        `bench:scale api ${webs} web: ${med(rounds, (r) => r.rps).toFixed(0)} req/s (p50 ${med(rounds, (r) => r.p50).toFixed(1)} ms, p99 ${med(rounds, (r) => r.p99).toFixed(1)} ms); ` +
          `CPU per request web ${fixed(med(rounds, (r) => r.perRequest.webs))} ms, postgres ${fixed(med(rounds, (r) => r.perRequest.postgres))} ms, autocannon ${fixed(med(rounds, (r) => r.perRequest.bench))} ms; ` +
          `cores busy: web ${fixed(med(rounds, (r) => sum(r.window.cores.values())))}, postgres ${fixed(med(rounds, (r) => r.window.postgresCores))}, autocannon ${fixed(med(rounds, (r) => r.window.benchCores))}, machine ${fixed(med(rounds, (r) => r.window.machineCores))} of 2; ` +
          `busiest: ${top.join(' / ')}; connections at most ${med(rounds, (r) => r.activity.maxConnections)}; active backends ${fixed(
            med(rounds, (r) => r.activity.meanActive),
            1,
          )}; ` +
          `lock waits ${fixed(100 * med(rounds, (r) => sum([...r.activity.waits].filter(([k]) => k.startsWith('Lock:')).map(([, v]) => v))), 1)}% of active; ` +
          `revocation reach ${fixed(
            med(rounds, (r) => r.revocationReach),
            0,
          )} ms`,
      );
    }
    for (const [workers, rounds] of deliveryRounds) {
      if (rounds.length === 0) continue;
      const top = rounds.map((r) => busiest(r.window, 'workers'));
      lines.push(
        `bench:scale delivery ${workers} worker: ${med(rounds, (r) => r.rate).toFixed(0)} deliveries/s; ` +
          `CPU per delivery workers ${fixed(med(rounds, (r) => r.perDelivery.workers))} ms, postgres ${fixed(med(rounds, (r) => r.perDelivery.postgres))} ms, receiver ${fixed(med(rounds, (r) => r.perDelivery.bench))} ms (emitting it: postgres ${fixed(med(rounds, (r) => r.emitPostgres))} ms); ` +
          `cores busy: workers ${fixed(med(rounds, (r) => sum(r.window.cores.values())))}, postgres ${fixed(med(rounds, (r) => r.window.postgresCores))}, receiver ${fixed(med(rounds, (r) => r.window.benchCores))}, machine ${fixed(med(rounds, (r) => r.window.machineCores))} of 2; ` +
          `busiest: ${top.join(' / ')}; connections at most ${med(rounds, (r) => r.activity.maxConnections)}; active backends ${fixed(
            med(rounds, (r) => r.activity.meanActive),
            1,
          )}; ` +
          `lock waits ${fixed(100 * med(rounds, (r) => sum([...r.activity.waits].filter(([k]) => k.startsWith('Lock:')).map(([, v]) => v))), 1)}% of active; ` +
          `parked ${fixed(100 * med(rounds, (r) => r.parked), 1)}%; idle pickup p50 ${fixed(
            med(rounds, (r) => r.pickupP50),
            1,
          )} ms, max ${fixed(
            med(rounds, (r) => r.pickupMax),
            0,
          )} ms`,
      );
    }
    for (const failure of failures) lines.push(`bench:scale FAILED ${failure.replace(/\s+/g, ' ')}`);
    const footer = `(medians of ${args.runs} rounds; ${args.deliveries} deliveries to ${args.endpoints} endpoints; API ${args.seconds} s, ${args.connections} connections, ${args['api-deliveries']} deliveries; ${where}; load average at the end ${load()})`;
    process.stdout.write(`${lines.join('\n')}\n${footer}\n`);
    if (bouncer)
      note(
        `PgBouncer's log, its warnings and errors:\n${bouncer
          .log()
          .split('\n')
          .filter((l) => /WARNING|ERROR|FATAL/.test(l))
          .slice(0, 20)
          .join('\n')}`,
      );
  } finally {
    await receiver.close();
    await db.close();
    await bouncer?.stop();
    await cluster?.stop();
  }
}

await main();
