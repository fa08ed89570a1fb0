/**
 * `npm start`: everything on one machine. Starts the embedded PostgreSQL when DATABASE_URL is
 * unset (data kept in .data/postgres), runs the Procfile's `release` (migrations), then every
 * other process type with its output prefixed by its name. Ctrl-C (or SIGTERM) stops the
 * processes in Procfile order, each draining gracefully, and then the database.
 *
 * `npm start -- --allow-local` allows receivers on http and on loopback/private addresses
 * (webhooks.allowHttp and webhooks.allowPrivate) in every process it starts, and records it
 * beside the database's address so the CLI of a second terminal allows them too: trying the
 * service with a receiver on this machine needs nothing else. The web process's URL is recorded
 * there too: the CLI's links (set-password, portal) lead to it when `publicUrl` is unset.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { resolveConfig } from '../../shared/config/index.ts';
import { LOCAL_DATABASE_FILE, readLocalState, type LocalState } from '../../shared/db/local-database.ts';
import { readProcfile } from './procfile.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const types = readProcfile(`${root}Procfile`);
const width = Math.max(...types.map((type) => type.name.length), 'postgres'.length);
const say = (name: string, line: string) => process.stdout.write(`${name.padEnd(width)} | ${line}\n`);
// The reader of this output may go before the stop is done: `npm start | tee log`, whose tee the
// Ctrl-C ends too. A write to it then fails with EPIPE, which unheard would end this process
// mid-stop and leave the worker and the database running (and the next `npm start` refused).
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' };
const allowLocal = process.argv.includes('--allow-local');
if (allowLocal) {
  env.APP_WEBHOOKS__ALLOW_HTTP = 'true';
  env.APP_WEBHOOKS__ALLOW_PRIVATE = 'true';
  say(
    'start',
    '--allow-local: receivers on http and on loopback or private addresses are allowed (local testing only)',
  );
}
let stopDatabase: (() => Promise<void>) | undefined;

/**
 * Where the web process will answer, from the port its config gives it (`PORT`, `APP_PORT` or
 * `APP_CONFIG`, as it reads them), for the links the CLI prints: nothing when the config does not
 * resolve (the release says why) or names port 0 (a port chosen at start).
 */
function webUrlOf(vars: NodeJS.ProcessEnv): { webUrl?: string } {
  try {
    const { port } = resolveConfig({ env: vars }).config;
    return port > 0 ? { webUrl: `http://localhost:${port}` } : {};
  } catch {
    return {};
  }
}

if (!env.DATABASE_URL) {
  // one embedded database per data directory: a second `npm start` would only see its PostgreSQL
  // refuse the directory the first one holds
  const running = readLocalState();
  if (running) {
    say(
      'start',
      `npm start is already running${running.webUrl ? ` (${running.webUrl})` : ''} with the database in .data/postgres: stop it first, or set DATABASE_URL`,
    );
    process.exit(1);
  }
  const { startCluster } = await import('./embedded-postgres.ts');
  await mkdir(`${root}.data`, { recursive: true });
  const cluster = await startCluster({ dataDir: `${root}.data/postgres`, fallbackDataDir: 'app-local' }).catch(
    (error: unknown) => {
      say('start', `the embedded PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
  env.DATABASE_URL = await cluster.database('app');
  const state: LocalState = { url: env.DATABASE_URL, pid: cluster.pid, allowLocal, ...webUrlOf(env) };
  await writeFile(LOCAL_DATABASE_FILE, JSON.stringify(state, null, 2));
  say(
    'postgres',
    `embedded PostgreSQL on 127.0.0.1:${cluster.port} (data in ${cluster.dataDir}); the CLI finds it by itself`,
  );
  stopDatabase = async () => {
    await cluster.stop();
    await rm(LOCAL_DATABASE_FILE, { force: true });
    say('postgres', 'stopped');
  };
}

function launch(name: string, command: string): ChildProcess {
  const child = spawn('sh', ['-c', `exec ${command}`], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => say(name, line));
  }
  return child;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode ?? 1)
    : new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));

const release = types.find((type) => type.name === 'release');
if (release) {
  const code = await exited(launch(release.name, release.command));
  if (code !== 0) {
    say('start', `release failed with exit code ${code}; stopping`);
    await stopDatabase?.();
    process.exit(1);
  }
}

const running = types
  .filter((type) => type.name !== 'release')
  .map((type) => ({ ...type, child: launch(type.name, type.command) }));
// where to open the console, from the port the web process's config gives it (a `PORT` of one's own
// included): its own log names the port only
const { webUrl } = webUrlOf(env);
if (webUrl && running.some((type) => type.name === 'web'))
  say(
    'start',
    `the console and the API: ${webUrl}/ (a first admin: npx app users:create --email you@example.com --role admin)`,
  );
let stopping = false;

async function stopAll(reason: string, code: number): Promise<never> {
  if (stopping) process.exit(1); // a second Ctrl-C: do not wait
  stopping = true;
  say('start', `${reason}: stopping ${running.map((r) => r.name).join(', ')}, then the database`);
  for (const { name, child } of running) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const exit = await exited(child);
    clearTimeout(timer);
    say(name, `exited with code ${exit}`);
  }
  await stopDatabase?.();
  process.exit(code);
}

process.on('SIGINT', () => void stopAll('interrupted', 0));
process.on('SIGTERM', () => void stopAll('terminated', 0));

// npm runs this script through `sh -c`, and a shell that does not hand its process over to node
// (dash, the `sh` of Debian and Ubuntu) is what npm's forwarded SIGTERM reaches: the shell dies
// and this process is left orphaned, with the web process, the worker and the database running.
// So a parent that has gone stops everything as a SIGTERM does (a stop already under way, as
// after a Ctrl-C that the shell died of too, goes on as it was).
const parent = process.ppid;
const parentWatch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(parentWatch);
  if (!stopping) void stopAll('parent process gone', 0);
}, 500);
parentWatch.unref();
for (const { name, child } of running) {
  child.once('exit', (exit) => {
    if (!stopping) void stopAll(`${name} exited unexpectedly (code ${exit})`, 1);
  });
}
