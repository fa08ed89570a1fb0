/**
 * `npm test`: brings a real PostgreSQL (embedded, throwaway, unless TEST_DATABASE_URL names a
 * server), migrates a template database once, then runs every `test/**\/*.test.ts` file with
 * node's test runner. Each test file clones the template (test/helpers/database.ts), so files
 * run in parallel without seeing each other's rows.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { resolveConfig } from '../shared/config/index.ts';
import { connect } from '../shared/db/connect.ts';
import { migrate } from '../shared/db/migrate.ts';
import { createLogger } from '../shared/log/logger.ts';

/**
 * The whole suite (`npm test`, no file named) type-checks the project too: tsc runs beside the
 * database's start and the tests (it is CPU while most tests wait on sockets and timers) and its
 * verdict is awaited at the end; a type error fails the run like a failing test.
 */
const typecheck = process.argv.length <= 2 && process.env.TEST_TYPECHECK !== '0' ? runTypecheck() : undefined;

function runTypecheck(): Promise<{ ok: boolean; output: string }> {
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  const child = spawn(process.execPath, [tsc, '--noEmit', '-p', '.'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ ok: false, output: String(error) }));
    child.on('exit', (exit) => resolve({ ok: exit === 0, output: Buffer.concat(chunks).toString() }));
  });
}

const given = process.env.TEST_DATABASE_URL;
const cluster = given
  ? undefined
  : await (await import('../deploy/local/embedded-postgres.ts')).startCluster({ fast: true });
const adminUrl = given ?? (cluster as { adminUrl: string }).adminUrl;
const template = `app_test_template_${randomBytes(4).toString('hex')}`;

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
let code = 1;
try {
  await admin.unsafe(`create database ${template}`);
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  const { config } = resolveConfig({ env: { NODE_ENV: 'test', DATABASE_URL: templateUrl.toString() } });
  const log = createLogger(config, { name: 'test' });
  const sql = connect(config, log, { max: 1 });
  await migrate({ config, log });
  await sql.end();

  // a folder named on the command line stands for the test files under it
  const files = process.argv
    .slice(2)
    .map((arg) => (existsSync(arg) && statSync(arg).isDirectory() ? `${arg.replace(/\/+$/, '')}/**/*.test.ts` : arg));
  const child = spawn(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 3}`,
      '--test-timeout=120000',
      ...(files.length ? files : ['test/**/*.test.ts']),
    ],
    {
      stdio: 'inherit',
      // every test file (and every process a test spawns) compiles the same modules: Node's compile
      // cache keeps their compiled (type-stripped) code on disk, a third of a process's start-up
      env: {
        ...process.env,
        NODE_ENV: 'test',
        TEST_DATABASE_URL: adminUrl,
        TEST_TEMPLATE_DATABASE: template,
        NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'app-test-compile-cache'),
      },
    },
  );
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  code = await new Promise<number>((resolve) => child.on('exit', (exit, signal) => resolve(exit ?? (signal ? 1 : 0))));
  if (typecheck) {
    const types = await typecheck;
    process.stdout.write(
      types.ok ? 'tsc --noEmit: no type errors\n' : `tsc --noEmit found type errors:\n${types.output}`,
    );
    if (!types.ok && code === 0) code = 2;
  }
} finally {
  await admin.unsafe(`drop database if exists ${template} with (force)`).catch(() => undefined);
  await admin.end();
  await cluster?.stop();
}
process.exit(code);
