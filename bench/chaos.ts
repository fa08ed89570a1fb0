/**
 * `npm run bench:chaos`: the delivery promises of docs/reliability.md checked from outside, the
 * way a deployer's bad day breaks them, with the real processes (`node api/main.ts`,
 * `node worker/main.ts`, production defaults) on an embedded PostgreSQL of its own (durable
 * defaults) and a receiver in this process that counts every `webhook-id` it answers.
 *
 * 1. Emits over the REST API (`POST /api/v1/events`, each with an `Idempotency-Key`, retried with
 *    the same key after a 5xx, a 409 or a dropped connection) to `--endpoints` endpoints while, at
 *    moments drawn from `--seed`, one at a time: the worker is killed with SIGKILL (three times;
 *    restarted at once, as a platform restarts it), stopped with SIGTERM mid-burst (then started
 *    again), PostgreSQL is stopped (`SIGQUIT`, its immediate shutdown, and `SIGKILL` of the
 *    postmaster) and started again on the same data directory and port, the receiver hangs (never
 *    answers) for 15 s, and answers 500 for 15 s. Then, everything healthy: every emit answered
 *    2xx must reach the receiver at least once per endpoint, nothing may stay pending or running,
 *    each emitted sequence number must be stored exactly once, and `app jobs:list` and the worker's
 *    /metrics must agree with the database. Figures: duplicates (deliveries the receiver answered
 *    2xx more than once) and what each crash left in flight; how long a killed worker's
 *    deliveries took to arrive, how long each drain took, and how long after PostgreSQL came back
 *    the worker was ready and delivering again.
 * 2. A web process killed with SIGKILL in the middle of an emit fanned out to `--fanout`
 *    endpoints (`--fanout-kills` times, at moments spread over the emit's usual duration): every
 *    event stored must have all its deliveries and all their jobs, or not exist.
 *
 * Options: --events 3000 (emits at least; the emitter also goes on until the chaos is over)
 * --rate 25 (emits a second) --endpoints 2 --seed 1 --backoff 2s (webhooks.backoff.base, so that
 * retries after the receiver's failures do not take minutes; the worker's heartbeat and staleAfter
 * keep their defaults, whose promises are checked) --settle 300 (seconds allowed at the end for
 * everything to arrive) --fanout 1000 --fanout-kills 6. Output: the figures on stdout (and as JSON
 * in the run's folder, with every process's log); exit code 1 when a promise was broken.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { startCluster, type Cluster } from '../deploy/local/embedded-postgres.ts';
import { resolveConfig } from '../shared/config/index.ts';
import { connect } from '../shared/db/connect.ts';
import { migrate } from '../shared/db/migrate.ts';
import { createLogger } from '../shared/log/logger.ts';
import { createToken } from '../shared/tokens/tokens.ts';
import { installDriverCrashGuard } from '../shared/db/driver-crash-guard.ts';
import { BENCH_SECRET, numberArgs, sleep } from './common.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function durationArg(argv: string[], name: string, fallback: string): { value: string; rest: string[] } {
  const rest: string[] = [];
  let value = fallback;
  for (let i = 0; i < argv.length; i++) {
    const match = new RegExp(`^--${name}(?:=(.*))?$`).exec(argv[i]);
    if (match) value = match[1] ?? argv[++i] ?? fallback;
    else rest.push(argv[i]);
  }
  return { value, rest };
}
const backoffArg = durationArg(process.argv.slice(2), 'backoff', '2s');
const args = numberArgs(
  { events: 3000, rate: 25, endpoints: 2, seed: 1, settle: 300, fanout: 1000, 'fanout-kills': 6 },
  backoffArg.rest,
);

/** A small seeded generator (mulberry32): the same seed draws the same chaos. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(args.seed);
// the postgres driver's known crash on a connection closed mid-write (shared/db/driver-crash-guard.ts):
// this script's own reads see the server restart too
installDriverCrashGuard(createLogger(resolveConfig({ env: { NODE_ENV: 'production' } }).config, { name: 'chaos' }));
const between = (low: number, high: number) => low + random() * (high - low);

const started = Date.now();
const clock = () => `${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s`;
const say = (line: string) => process.stdout.write(`${clock()}  ${line}\n`);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const problems: string[] = [];
const problem = (line: string) => {
  problems.push(line);
  say(`PROBLEM: ${line}`);
};

// ---------------------------------------------------------------------------------------------
// PostgreSQL, restartable on its data directory and port

const folder = await mkdtemp(join(tmpdir(), 'app-chaos-'));
await chmod(folder, 0o755); // PostgreSQL may run as another user (when this runs as root)
const dataDir = join(folder, 'postgres');
let cluster: Cluster = await startCluster({ dataDir, logFile: join(folder, 'postgres.log') });
const pgPort = cluster.port;
const databaseUrl = await cluster.database('chaos');
say(`PostgreSQL on port ${pgPort}, data and logs in ${folder}`);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops the postmaster with `signal` (SIGQUIT: immediate shutdown; SIGKILL: killed outright). */
async function stopPostgres(signal: 'SIGQUIT' | 'SIGKILL'): Promise<void> {
  process.kill(cluster.pid, signal);
  while (alive(cluster.pid)) await sleep(20);
}

/** Starts PostgreSQL again on the same data directory and port (once the old one's backends are gone). */
async function startPostgres(): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      cluster = await startCluster({ dataDir, logFile: join(folder, 'postgres.log'), port: pgPort });
      return;
    } catch (error) {
      if (tries > 50) throw error;
      await sleep(200);
    }
  }
}

{
  const { config } = resolveConfig({
    env: { NODE_ENV: 'production', DATABASE_URL: databaseUrl, APP_SECRET: BENCH_SECRET },
  });
  const log = createLogger(config, { name: 'chaos' });
  const sql = connect(config, log, { max: 2, name: 'chaos-setup' });
  await migrate({ config, log });
  await sql.end();
}
/** The script's own reads (a fresh connection each time: the server restarts under it). */
async function query<T extends readonly object[]>(text: string, params: unknown[] = []): Promise<T> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    return (await sql.unsafe(text, params as never[])) as unknown as T;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

let token: string;
{
  const { config } = resolveConfig({
    env: { NODE_ENV: 'production', DATABASE_URL: databaseUrl, APP_SECRET: BENCH_SECRET },
  });
  const log = createLogger(config, { name: 'chaos' });
  const sql = connect(config, log, { max: 1, name: 'chaos-token' });
  token = (await createToken({ sql, log }, { name: 'chaos', role: 'admin' })).token;
  await sql.end();
}

// ---------------------------------------------------------------------------------------------
// The receiver

type Mode = 'ok' | 'hang' | 'fail';
let mode: Mode = 'ok';
/** webhook-id → times the receiver answered it 2xx (the answer fully written). */
const acked = new Map<string, number>();
/** webhook-id → when it was first answered 2xx. */
const firstAck = new Map<string, number>();
/** webhook-id → requests received, answered or not. */
const seen = new Map<string, number>();
/** webhook-id → the path (endpoint) it came to. */
const pathOf = new Map<string, string>();
/** Requests open now (received, not yet answered). */
const open = new Set<string>();
let lastAckAt = 0;
const held: ServerResponse[] = [];

const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
  const id = String(req.headers['webhook-id']);
  req.resume();
  req.on('end', () => {
    seen.set(id, (seen.get(id) ?? 0) + 1);
    const path = req.url ?? '/';
    const earlier = pathOf.get(id);
    if (earlier !== undefined && earlier !== path) problem(`${id} came to ${path} and to ${earlier}`);
    pathOf.set(id, path);
    if (path.startsWith('/fan')) {
      res.end();
      return;
    }
    if (mode === 'hang') {
      held.push(res);
      return;
    }
    if (mode === 'fail') {
      res.statusCode = 500;
      res.end('failing on purpose');
      return;
    }
    open.add(id);
    res.on('close', () => open.delete(id));
    res.on('finish', () => {
      acked.set(id, (acked.get(id) ?? 0) + 1);
      if (!firstAck.has(id)) firstAck.set(id, Date.now());
      lastAckAt = Date.now();
    });
    // a short, varied answer time: some deliveries are always in flight when a worker dies
    setTimeout(() => res.end('ok'), between(5, 80));
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
const receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

// ---------------------------------------------------------------------------------------------
// Processes

const METRICS_TOKEN = 'chaos metrics token';
const webPort = await freePort();
const workerMetricsPort = await freePort();
const commonEnv = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  DATABASE_URL: databaseUrl,
  APP_SECRET: BENCH_SECRET,
  APP_WEBHOOKS__ALLOW_HTTP: 'true',
  APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
  APP_WEBHOOKS__BACKOFF__BASE: backoffArg.value,
  // the emitter is one client sending far more than a person would: the global limiter is not under test
  APP_RATE_LIMIT__MAX: '1000000',
  APP_METRICS__TOKEN: METRICS_TOKEN,
};

interface Proc {
  child: ChildProcess;
  name: string;
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
  output: () => string;
}

let instances = 0;
function launch(script: string, name: string, env: Record<string, string>): Proc {
  const logPath = join(folder, `${name}-${++instances}.log`);
  const log = createWriteStream(logPath);
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { ...process.env, ...commonEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    log.write(chunk);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => {
      log.end();
      resolve({ code, signal, at: Date.now() });
    }),
  );
  return { child, name: `${name}-${instances}`, exited, output: () => text };
}

async function waitForOutput(proc: Proc, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(proc.output())) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null)
      throw new Error(`${proc.name} exited before ${pattern}:\n${proc.output().slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`${proc.name}: no ${pattern} within ${timeoutMs} ms`);
    await sleep(20);
  }
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200;
  } catch {
    return false;
  }
}

async function startWeb(): Promise<Proc> {
  const web = launch('api/main.ts', 'web', { PORT: String(webPort) });
  while (!(await ready(`http://127.0.0.1:${webPort}/readyz`))) {
    if (web.child.exitCode !== null) throw new Error(`web exited:\n${web.output()}`);
    await sleep(50);
  }
  return web;
}

let worker: Proc;
let workerStartedAt = 0;
async function startWorker(): Promise<Proc> {
  const proc = launch('worker/main.ts', 'worker', { APP_WORKER__METRICS_PORT: String(workerMetricsPort) });
  await waitForOutput(proc, /worker started/);
  workerStartedAt = Date.now();
  return proc;
}

let web = await startWeb();
worker = await startWorker();
const api = `http://127.0.0.1:${webPort}/api/v1`;
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };

const endpointPaths: string[] = [];
for (let i = 0; i < args.endpoints; i++) {
  const path = `/ep${i}`;
  const answer = await fetch(`${api}/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: `${receiverOrigin}${path}`, events: ['chaos.*'] }),
  });
  if (answer.status !== 201) throw new Error(`registering ${path}: ${answer.status} ${await answer.text()}`);
  endpointPaths.push(path);
}
{
  // subscribed to something else: must receive nothing of this run
  const answer = await fetch(`${api}/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: `${receiverOrigin}/other`, events: ['other.*'] }),
  });
  if (answer.status !== 201) throw new Error(`registering /other: ${answer.status}`);
}

// ---------------------------------------------------------------------------------------------
// The emitter

interface Emitted {
  seq: number;
  statuses: (number | string)[];
  eventId?: string;
  deliveryIds?: string[];
  /** When the 2xx came. */
  at?: number;
  /** Retried after a 5xx or a dropped connection, with the same key. */
  retried: boolean;
}
const emitted: Emitted[] = [];
let chaosOver = false;

async function emitOne(seq: number): Promise<void> {
  const record: Emitted = { seq, statuses: [], retried: false };
  emitted.push(record);
  const key = `chaos-${args.seed}-${seq}`;
  const body = JSON.stringify({ type: 'chaos.tick', data: { seq, seed: args.seed } });
  const giveUpAt = Date.now() + 180_000;
  for (let attempt = 0; Date.now() < giveUpAt; attempt++) {
    try {
      const answer = await fetch(`${api}/events`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': key },
        body,
        signal: AbortSignal.timeout(40_000),
      });
      record.statuses.push(answer.status);
      const text = await answer.text();
      if (answer.status === 202 || answer.status === 200) {
        const json = JSON.parse(text) as { externalId: string; deliveryIds: string[] };
        record.eventId = json.externalId;
        record.deliveryIds = json.deliveryIds;
        record.at = Date.now();
        return;
      }
      if (answer.status < 500 && answer.status !== 409) {
        problem(`emit ${seq} refused: ${answer.status} ${text.slice(0, 300)}`);
        return;
      }
    } catch (error) {
      record.statuses.push((error as Error).name === 'TimeoutError' ? 'timeout' : 'dropped');
    }
    record.retried = true;
    await sleep(Math.min(2_000, 100 * 2 ** attempt));
  }
}

const emitter = (async () => {
  const inFlight = new Set<Promise<void>>();
  let seq = 0;
  const begin = Date.now();
  while (seq < args.events || !chaosOver) {
    const due = begin + (seq / args.rate) * 1000;
    if (due > Date.now()) await sleep(due - Date.now());
    while (inFlight.size >= 32) await Promise.race(inFlight);
    const one = emitOne(seq++).finally(() => inFlight.delete(one));
    inFlight.add(one);
  }
  await Promise.all(inFlight);
})();

// ---------------------------------------------------------------------------------------------
// Chaos

interface KillFigure {
  action: string;
  inFlightAtReceiver: number;
  /** Emitted before the kill, not yet received. */
  waiting: number;
  /** From the kill until every delivery that was waiting at the kill was recorded done. */
  allArrivedAfterMs: number | null;
  /** From the kill until the first delivery arrived again. */
  firstAfterMs: number | null;
}
interface DrainFigure {
  drainMs: number;
  code: number | null;
  inFlightAtSignal: number;
  /** Deliveries in flight at the signal that arrived again afterwards (the drain should finish them). */
  sentAgain: number;
}
interface DatabaseFigure {
  signal: string;
  downMs: number;
  /** From the server's return until the worker's /readyz answered 200. */
  workerReadyAfterMs: number | null;
  /** From the server's return until a delivery arrived. */
  deliveringAfterMs: number | null;
  /** From the server's return until the web's /readyz answered 200. */
  webReadyAfterMs: number | null;
  workerExited: boolean;
}
const kills: KillFigure[] = [];
const drains: DrainFigure[] = [];
const outages: DatabaseFigure[] = [];
const receiverFigures: { mode: Mode; seconds: number }[] = [];

const ackedIds = () => new Set(acked.keys());
const expectedIds = () => emitted.flatMap((e) => e.deliveryIds ?? []);

async function firstAckAfter(t: number, limitMs: number): Promise<number | null> {
  const deadline = t + limitMs;
  while (Date.now() < deadline) {
    if (lastAckAt > t) return lastAckAt - t;
    await sleep(20);
  }
  return null;
}

/**
 * Milliseconds from `since` until every delivery of `ids` is recorded done (the receiver's own
 * count cannot tell: an answer written just as the worker died was never recorded, and is sent
 * again), or null when `limitMs` passes first.
 */
async function allDone(ids: string[], since: number, limitMs: number): Promise<number | null> {
  const deadline = since + limitMs;
  while (Date.now() < deadline) {
    const [row] = await query<{ n: number }[]>(
      `select count(*)::int as n from app_webhook_deliveries where id = any($1) and status <> 'done'`,
      [ids],
    ).catch(() => [{ n: -1 }]);
    if (row.n === 0) return Date.now() - since;
    await sleep(250);
  }
  return null;
}

async function killWorker(): Promise<void> {
  const inFlight = [...open];
  const have = ackedIds();
  const waiting = expectedIds().filter((id) => !have.has(id));
  const at = Date.now();
  worker.child.kill('SIGKILL');
  await worker.exited;
  say(`worker SIGKILL: ${inFlight.length} in flight at the receiver, ${waiting.length} emitted and not yet received`);
  worker = await startWorker();
  const firstAfterMs = await firstAckAfter(at, 120_000);
  const allArrivedAfterMs = await allDone(waiting, at, 150_000);
  kills.push({
    action: 'SIGKILL',
    inFlightAtReceiver: inFlight.length,
    waiting: waiting.length,
    allArrivedAfterMs,
    firstAfterMs,
  });
  say(
    `  restarted at once: first delivery ${firstAfterMs} ms after the kill; all ${waiting.length} waiting done ${allArrivedAfterMs ?? 'NOT within 150 s'} ms after`,
  );
}

async function drainWorker(): Promise<void> {
  const inFlight = [...open];
  const before = new Map(inFlight.map((id) => [id, acked.get(id) ?? 0]));
  const at = Date.now();
  worker.child.kill('SIGTERM');
  const exit = await worker.exited;
  const drainMs = exit.at - at;
  worker = await startWorker();
  await sleep(3_000);
  const sentAgain = inFlight.filter((id) => (acked.get(id) ?? 0) > (before.get(id) ?? 0) + 1).length;
  drains.push({ drainMs, code: exit.code, inFlightAtSignal: inFlight.length, sentAgain });
  say(`worker SIGTERM: exited ${exit.code} after ${drainMs} ms, ${inFlight.length} in flight at the signal`);
  if (exit.code !== 0) problem(`the drained worker exited ${exit.code}`);
}

/** SIGTERM while the receiver hangs: the drain waits for the attempts in hand (up to webhooks.timeout). */
async function drainWhileHanging(): Promise<void> {
  mode = 'hang';
  say('receiver hangs; 2 s later the worker gets SIGTERM');
  await sleep(2_000);
  const at = Date.now();
  const inHand = held.length;
  worker.child.kill('SIGTERM');
  const exit = await worker.exited;
  mode = 'ok';
  for (const res of held.splice(0)) res.destroy();
  drains.push({ drainMs: exit.at - at, code: exit.code, inFlightAtSignal: inHand, sentAgain: 0 });
  say(`  drained with ${inHand} attempts hanging: exited ${exit.code} after ${exit.at - at} ms`);
  if (exit.code !== 0) problem(`the worker drained while the receiver hung exited ${exit.code}`);
  worker = await startWorker();
}

async function restartDatabase(signal: 'SIGQUIT' | 'SIGKILL'): Promise<void> {
  const downAt = Date.now();
  await stopPostgres(signal);
  const downFor = between(1_000, 6_000);
  say(`PostgreSQL ${signal}: down for ${Math.round(downFor)} ms`);
  await sleep(downFor);
  await startPostgres();
  const upAt = Date.now();
  let workerReadyAfterMs: number | null = null;
  let webReadyAfterMs: number | null = null;
  const deadline = upAt + 120_000;
  while (Date.now() < deadline && (workerReadyAfterMs === null || webReadyAfterMs === null)) {
    if (workerReadyAfterMs === null && (await ready(`http://127.0.0.1:${workerMetricsPort}/readyz`)))
      workerReadyAfterMs = Date.now() - upAt;
    if (webReadyAfterMs === null && (await ready(`http://127.0.0.1:${webPort}/readyz`)))
      webReadyAfterMs = Date.now() - upAt;
    await sleep(50);
  }
  const deliveringAfterMs = await firstAckAfter(upAt, 60_000);
  const workerExited = worker.child.exitCode !== null;
  outages.push({ signal, downMs: upAt - downAt, workerReadyAfterMs, webReadyAfterMs, deliveringAfterMs, workerExited });
  say(
    `  PostgreSQL back: worker ready after ${workerReadyAfterMs} ms, delivering after ${deliveringAfterMs} ms, web ready after ${webReadyAfterMs} ms`,
  );
  if (workerExited) {
    problem(`the worker exited during the database restart (${worker.child.exitCode})`);
    worker = await startWorker();
  }
}

async function receiverMode(next: Mode, seconds: number): Promise<void> {
  say(`receiver ${next} for ${seconds} s`);
  mode = next;
  await sleep(seconds * 1000);
  mode = 'ok';
  receiverFigures.push({ mode: next, seconds });
  // requests held while hanging are never answered: the worker gives up on them (webhooks.timeout)
  for (const res of held.splice(0)) setTimeout(() => res.destroy(), 30_000).unref();
}

const actions: (() => Promise<void>)[] = [
  killWorker,
  killWorker,
  killWorker,
  drainWorker,
  drainWhileHanging,
  () => restartDatabase('SIGQUIT'),
  () => restartDatabase('SIGKILL'),
  () => receiverMode('hang', 15),
  () => receiverMode('fail', 15),
];
for (let i = actions.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [actions[i], actions[j]] = [actions[j], actions[i]];
}

await sleep(5_000);
for (const action of actions) {
  await action();
  await sleep(between(2_000, 8_000));
}
chaosOver = true;
say('chaos over; emitting the rest');
await emitter;
say(`emitted: ${emitted.filter((e) => e.eventId).length} answered 2xx of ${emitted.length}`);

// ---------------------------------------------------------------------------------------------
// Everything healthy: does everything arrive?

const settleFrom = Date.now();
let missing: string[] = [];
for (;;) {
  const have = ackedIds();
  missing = expectedIds().filter((id) => !have.has(id));
  if (missing.length === 0) break;
  if (Date.now() - settleFrom > args.settle * 1000) break;
  await sleep(500);
}
const settledMs = Date.now() - settleFrom;
say(`settled ${settledMs} ms after the last emit: ${missing.length} deliveries never received`);
// the queue a little more time to finish its bookkeeping (outcomes batched, sweeps)
await sleep(3_000);

const expected = expectedIds();
const okEmits = emitted.filter((e) => e.eventId !== undefined);
const failedEmits = emitted.filter((e) => e.eventId === undefined);
const retriedEmits = okEmits.filter((e) => e.retried);
if (missing.length > 0) {
  problem(
    `${missing.length} deliveries of 2xx emits never reached the receiver, e.g. ${missing.slice(0, 5).join(', ')}`,
  );
  const rows = await query<{ id: string; status: string; attempts: number; last_error: string | null }[]>(
    'select id, status, attempts, last_error from app_webhook_deliveries where id = any($1) limit 10',
    [missing],
  );
  for (const row of rows) say(`  ${row.id}: ${row.status}, ${row.attempts} attempts, ${row.last_error ?? ''}`);
}
for (const e of okEmits) {
  if ((e.deliveryIds?.length ?? 0) !== args.endpoints)
    problem(`emit ${e.seq} answered ${e.deliveryIds?.length} deliveries, not ${args.endpoints}`);
}
const duplicates = expected.filter((id) => (acked.get(id) ?? 0) > 1);
const extraAnswers = expected.reduce((sum, id) => sum + Math.max(0, (acked.get(id) ?? 0) - 1), 0);
const otherReceived = [...pathOf.values()].filter((path) => path === '/other').length;
if (otherReceived > 0) problem(`${otherReceived} deliveries reached the endpoint subscribed to nothing emitted`);

// each sequence number stored once (the Idempotency-Key retried after a 5xx or a dropped connection)
const perSeq = await query<{ seq: number; n: number }[]>(
  `select (payload->>'seq')::int as seq, count(*)::int as n from app_events where type = 'chaos.tick' group by 1`,
);
const storedTimes = new Map(perSeq.map((row) => [row.seq, row.n]));
const storedTwice = perSeq.filter((row) => row.n > 1);
if (storedTwice.length > 0)
  problem(
    `${storedTwice.length} emits stored more than once: ${storedTwice
      .slice(0, 5)
      .map((row) => `seq ${row.seq} ×${row.n} (statuses ${emitted.find((e) => e.seq === row.seq)?.statuses.join(',')})`)
      .join('; ')}`,
  );
const okNotStored = okEmits.filter((e) => !storedTimes.has(e.seq));
if (okNotStored.length > 0)
  problem(`${okNotStored.length} emits answered 2xx are not stored: ${okNotStored.slice(0, 5).map((e) => e.seq)}`);
const failedStored = failedEmits.filter((e) => storedTimes.has(e.seq));

const statuses = await query<{ status: string; n: number }[]>(
  `select status, count(*)::int as n from app_webhook_deliveries where event_type = 'chaos.tick' group by 1 order by 1`,
);
const byStatus = Object.fromEntries(statuses.map((row) => [row.status, row.n]));
if ((byStatus.pending ?? 0) + (byStatus.running ?? 0) > 0) {
  const stuck = await query<
    { id: string; status: string; attempts: number; next_attempt_at: Date | null; parked_at: Date | null }[]
  >(
    `select id, status, attempts, next_attempt_at, parked_at from app_webhook_deliveries
      where event_type = 'chaos.tick' and status in ('pending', 'running') order by id limit 10`,
  );
  problem(`deliveries left pending or running: ${JSON.stringify(byStatus)}; e.g. ${JSON.stringify(stuck)}`);
}
if ((byStatus.dead ?? 0) > 0) problem(`${byStatus.dead} deliveries dead`);
const jobsLeft = await query<{ n: number }[]>(
  `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'app/webhook'`,
);
if (jobsLeft[0].n > 0) problem(`${jobsLeft[0].n} delivery jobs left in the queue`);
const runsLeft = await query<{ n: number }[]>('select count(*)::int as n from app_delivery_runs');
if (runsLeft[0].n > 0) problem(`${runsLeft[0].n} run rows left (app_delivery_runs)`);
const attemptsDone = await query<{ n: number }[]>(
  `select count(*)::int as n from app_webhook_attempts a join app_webhook_deliveries d on d.id = a.delivery_id
    where d.event_type = 'chaos.tick' and a.outcome = 'done'`,
);

// what an operator sees: app jobs:list and the worker's /metrics
const cli = spawnSync(
  process.execPath,
  ['cli/main.ts', 'jobs:list', '--status', 'all', '--type', 'chaos.tick', '--limit', '1'],
  {
    cwd: ROOT,
    env: { ...process.env, ...commonEnv, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  },
);
const cliFirstLine = cli.stdout.split('\n')[0] ?? '';
const cliCounts = Object.fromEntries(
  [...cliFirstLine.matchAll(/(pending|running|done|dead)\D{0,3}?(~?\d+)/g)].map((m) => [m[1], m[2]]),
);
for (const state of ['pending', 'running', 'done', 'dead'] as const) {
  const inCli = cliCounts[state] ?? '0';
  // past api.exactTotal a state's count is PostgreSQL's estimate, marked ~ (documented): not compared
  if (!inCli.startsWith('~') && String(byStatus[state] ?? 0) !== inCli)
    problem(`jobs:list says ${state} ${inCli}, the table ${byStatus[state] ?? 0} (${cliFirstLine})`);
}
const metricsText = await (
  await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  })
).text();
/**
 * The value of the sample of `name` whose labels include `labels`, or null: every sample carries
 * the process's own label (`process="worker"`) besides its own.
 */
const metric = (name: string, labels: Record<string, string> = {}) => {
  for (const line of metricsText.split('\n')) {
    const sample = /^([\w:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (sample?.[1] !== name) continue;
    const own = new Map([...(sample[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => own.get(key) === value)) return Number(sample[3]);
  }
  return null;
};
const queueDepth = metric('app_queue_depth');
const deadGauge = metric('app_dead_deliveries');
if (queueDepth !== 0) problem(`/metrics app_queue_depth is ${queueDepth} with nothing pending`);
if (deadGauge !== (byStatus.dead ?? 0))
  problem(`/metrics app_dead_deliveries is ${deadGauge}, the table ${byStatus.dead ?? 0}`);
const lastWorkerDone = metric('app_deliveries_total', { outcome: 'done' }) ?? 0;
const doneSinceLastStart = await query<{ n: number }[]>(
  `select count(*)::int as n from app_webhook_attempts where outcome = 'done' and started_at >= $1`,
  [new Date(workerStartedAt)],
);

// ---------------------------------------------------------------------------------------------
// 2. The web process killed during a large fan-out

say(`fan-out: ${args.fanout} endpoints; the worker stopped so that the jobs stay to be counted`);
worker.child.kill('SIGTERM');
await worker.exited;
/** Registers one fan-out endpoint, again after a 503 (a loaded web process may refuse a request). */
async function registerFanEndpoint(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const answer = await fetch(`${api}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiverOrigin}/fan`, events: ['fan.*'], owner: 'fan' }),
    });
    if (answer.status === 201) return;
    if (answer.status !== 503 || attempt >= 10)
      throw new Error(`fan endpoint: ${answer.status} ${await answer.text()}`);
    await sleep(500);
  }
}
for (let i = 0; i < args.fanout; i += 20) {
  await Promise.all(Array.from({ length: Math.min(20, args.fanout - i) }, registerFanEndpoint));
}
const fanBody = (n: number) => JSON.stringify({ type: 'fan.big', owner: 'fan', data: { n, pad: 'x'.repeat(2_000) } });
const timeEmit = async (n: number) => {
  const t = Date.now();
  const answer = await fetch(`${api}/events`, { method: 'POST', headers, body: fanBody(n) });
  if (answer.status !== 202) throw new Error(`fan emit: ${answer.status} ${await answer.text()}`);
  return Date.now() - t;
};
const fanMs = Math.max(await timeEmit(-1), await timeEmit(-2));
say(
  `a ${args.fanout}-endpoint emit takes ${fanMs} ms; now killing the web process during ${args['fanout-kills']} of them`,
);
const fanKills: { n: number; afterMs: number; answered: string }[] = [];
for (let n = 0; n < args['fanout-kills']; n++) {
  const afterMs = Math.round(fanMs * (0.1 + (n / Math.max(1, args['fanout-kills'] - 1)) * 1.0));
  const request = fetch(`${api}/events`, { method: 'POST', headers, body: fanBody(n) }).then(
    (answer) => String(answer.status),
    (error: Error) => `dropped (${error.message})`,
  );
  await sleep(afterMs);
  web.child.kill('SIGKILL');
  await web.exited;
  const answered = await request;
  fanKills.push({ n, afterMs, answered });
  web = await startWeb();
}
const fanEvents = await query<{ n: number; deliveries: number; jobs: number; pending: number }[]>(
  `select (e.payload->>'n')::int as n,
          (select count(*)::int from app_webhook_deliveries d where d.event_id = e.id) as deliveries,
          (select count(*)::int from graphile_worker.jobs j join app_webhook_deliveries d on d.id = j.key where d.event_id = e.id) as jobs,
          (select count(*)::int from app_webhook_deliveries d where d.event_id = e.id and d.status = 'pending') as pending
     from app_events e where e.type = 'fan.big' order by 1`,
);
for (const row of fanEvents) {
  if (row.deliveries !== args.fanout || row.jobs !== args.fanout)
    problem(`fan-out event ${row.n}: ${row.deliveries} deliveries, ${row.jobs} jobs (of ${args.fanout})`);
}
for (const kill of fanKills) {
  const stored = fanEvents.some((row) => row.n === kill.n);
  say(
    `  killed ${kill.afterMs} ms into emit ${kill.n} (the client saw: ${kill.answered}): ${stored ? 'stored whole' : 'nothing stored'}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Report

const summary = {
  seed: args.seed,
  folder,
  emits: {
    total: emitted.length,
    answered2xx: okEmits.length,
    neverAnswered2xx: failedEmits.length,
    retriedWithKey: retriedEmits.length,
    failedButStored: failedEmits.length > 0 ? failedStored.map((e) => e.seq) : [],
  },
  deliveries: {
    expected: expected.length,
    received: expected.filter((id) => acked.has(id)).length,
    missing: missing.length,
    duplicates: duplicates.length,
    extraAnswers,
    byStatus,
    attemptsDone: attemptsDone[0].n,
    settledMs,
  },
  storedTwice: storedTwice.length,
  kills,
  drains,
  outages,
  receiver: receiverFigures,
  operator: { cli: cliFirstLine, queueDepth, deadGauge, lastWorkerDone, doneSinceLastStart: doneSinceLastStart[0].n },
  fanout: { endpoints: args.fanout, emitMs: fanMs, kills: fanKills, events: fanEvents },
  problems,
};
await writeFile(join(folder, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
say(
  `emits: ${okEmits.length} answered 2xx (${retriedEmits.length} after a retry with the same key), ${failedEmits.length} never; ` +
    `deliveries: ${expected.length} expected, ${summary.deliveries.received} received, ${duplicates.length} received more than once (${extraAnswers} extra answers)`,
);
say(
  `attempts recorded done: ${attemptsDone[0].n} (receiver answered 2xx ${[...acked.values()].reduce((a, b) => a + b, 0)} times)`,
);
say(
  `jobs:list: ${cliFirstLine}; /metrics: depth ${queueDepth}, dead ${deadGauge}; the last worker counted ${lastWorkerDone} done, the table ${doneSinceLastStart[0].n} since it started`,
);
say(`summary: ${join(folder, 'summary.json')}`);
say(problems.length === 0 ? 'no promise broken' : `${problems.length} problems:\n  ${problems.join('\n  ')}`);

web.child.kill('SIGTERM');
await web.exited;
receiver.close();
receiver.closeAllConnections();
await cluster.stop();
process.exit(problems.length === 0 ? 0 : 1);
