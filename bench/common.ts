/**
 * What the benchmarks share: a database (DATABASE_URL's server, else an embedded PostgreSQL
 * with its default, durable settings), a fresh migrated database per run, a loopback receiver,
 * argument parsing and statistics.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { resolveConfig, type Config } from '../shared/config/index.ts';
import { connect, type Sql } from '../shared/db/connect.ts';
import { actorOf, type Actor } from '../shared/access/actor.ts';
import { migrate } from '../shared/db/migrate.ts';
import { createLogger, type Logger } from '../shared/log/logger.ts';

/** The application secret of every benchmark process: signing secrets sealed as in production. */
export const BENCH_SECRET = 'benchmark application secret of at least 32 characters';

export interface BenchDatabase {
  url: string;
  config: Config;
  sql: Sql;
  log: Logger;
  /** Where the server came from, for the report. */
  server: string;
  /** URL of the server's `postgres` database. */
  adminUrl: string;
  /**
   * The server's postmaster pid (its CPU can be measured): the embedded server's, or
   * BENCH_PG_PID's when DATABASE_URL names a server on this machine.
   */
  serverPid?: number;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database named `bench_<random>` on DATABASE_URL's server, or on an embedded
 * PostgreSQL started for the run (default settings: fsync and synchronous_commit on; `settings`
 * added). Dropped (and the embedded server stopped) by `close`.
 */
export async function benchDatabase(
  flags: Record<string, unknown> = {},
  options: { settings?: readonly string[] } = {},
): Promise<BenchDatabase> {
  const given = process.env.DATABASE_URL;
  const cluster = given
    ? undefined
    : await (await import('../deploy/local/embedded-postgres.ts')).startCluster({ settings: options.settings ?? [] });
  const adminUrl = given ?? cluster!.adminUrl;
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const { config } = resolveConfig({
    env: { NODE_ENV: 'production', DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', APP_SECRET: BENCH_SECRET },
    flags: { ...flags, webhooks: { allowHttp: true, allowPrivate: true, ...(flags.webhooks as object | undefined) } },
  });
  const log = createLogger(config, { name: 'bench' });
  const sql = connect(config, log, { max: 8, name: 'bench' });
  await migrate({ config, log });
  return {
    url: url.toString(),
    config,
    sql,
    log,
    adminUrl,
    server: given ? 'DATABASE_URL' : 'embedded PostgreSQL (durable defaults)',
    ...(cluster
      ? { serverPid: cluster.pid }
      : process.env.BENCH_PG_PID
        ? { serverPid: Number(process.env.BENCH_PG_PID) }
        : {}),
    async close() {
      await sql.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
      await cluster?.stop();
    },
  };
}

export interface BenchReceiver {
  origin: string;
  /** Requests whose body is in and whose answer is not sent yet: the deliveries in flight here. */
  answering(): number;
  close(): Promise<void>;
}

/** How long a bench receiver takes to answer, as a real receiver does its own work first. */
export interface AnswerDelay {
  /** Milliseconds from the whole body to the answer (0: at once). */
  answerMs?: number;
  /** Up to this many milliseconds more, uniformly at random, per request. */
  jitterMs?: number;
}

/**
 * A keep-alive HTTP receiver on 127.0.0.1 answering 204 once it has the whole body, at once or
 * after `delay` (a timer per request: a slow answer holds the worker's connection, not this
 * process's event loop). `onBody` is called when the body is in, before the wait.
 */
export async function benchReceiver(
  onBody: (req: IncomingMessage, body: string) => void,
  delay: AnswerDelay = {},
): Promise<BenchReceiver> {
  const answerMs = delay.answerMs ?? 0;
  const jitterMs = delay.jitterMs ?? 0;
  let answering = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      onBody(req, Buffer.concat(chunks).toString('utf8'));
      answering += 1;
      const answer = () => {
        answering -= 1;
        res.statusCode = 204;
        res.end();
      };
      const wait = answerMs + (jitterMs > 0 ? Math.random() * jitterMs : 0);
      if (wait > 0) setTimeout(answer, wait);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answering: () => answering,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `--name value` options with numeric defaults. */
export function numberArgs<T extends Record<string, number>>(defaults: T, argv = process.argv.slice(2)): T {
  const out = { ...defaults } as Record<string, number>;
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([\w-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!match || !(match[1] in out))
      throw new Error(
        `unknown argument ${argv[i]}; known: ${Object.keys(out)
          .map((k) => `--${k}`)
          .join(' ')}`,
      );
    const value = Number(match[2] ?? argv[++i]);
    if (!Number.isFinite(value)) throw new Error(`--${match[1]} needs a number`);
    out[match[1]] = value;
  }
  return out as T;
}

/** The `q` quantile (0..1) of `values` (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (values: readonly number[]) => quantile(values, 0.5);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds on a clock shared by every process of this machine (sub-millisecond). */
export const wallClock = () => performance.timeOrigin + performance.now();

/** The most resident memory process `pid` has held (Linux `VmHWM`), in MB; null where it cannot be read. */
export function peakResidentMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const line = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * CPU seconds (user + system) used so far by process `pid` and its descendants, from /proc
 * (Linux); null elsewhere. Each process counts what it used and what its children that have
 * ended used (`cutime`, `cstime`, added when it reaps them), so a child that ends between two
 * readings (a PostgreSQL backend or autovacuum worker, say) still counts: summing the live
 * processes alone lost it, and a backend alive at the first reading and gone at the second made
 * the difference smaller, even negative.
 */
export function processTreeCpuSeconds(pid: number): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const stats = new Map<number, { ppid: number; cpu: number }>();
  const ticks = 100; // USER_HZ on Linux
  for (const entry of entries) {
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(entry), {
        ppid: Number(fields[1]),
        cpu: (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticks,
      });
    } catch {
      // gone meanwhile
    }
  }
  if (!stats.has(pid)) return null;
  let total = 0;
  const wanted = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, stat] of stats) {
      if (!wanted.has(child) && wanted.has(stat.ppid)) {
        wanted.add(child);
        grew = true;
      }
    }
  }
  for (const id of wanted) total += stats.get(id)!.cpu;
  return total;
}

/** Progress and per-run figures go to stderr; stdout carries only the result line. */
export const note = (text: string) => process.stderr.write(`${text}\n`);

/** A viewer of tenant `owner`, as the core's reads take their caller: what a tenant's page is measured as. */
export const tenantViewer = (owner: string): Actor => actorOf({ id: `viewer-${owner}`, roles: ['viewer'], owner });
