import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMigrations } from 'graphile-worker';
import pg from 'pg';
import { driverUrls } from './driver-urls.ts';
import type { Config } from '../config/index.ts';
import type { Logger } from '../log/logger.ts';
import { connect, type Queryable } from './connect.ts';
import { graphileLogger } from './graphile-logger.ts';
import {
  isPermissionDenied,
  MIGRATE_PRIVILEGES,
  PRIVILEGES_DOC,
  PROCESS_PRIVILEGES,
  queueAccessProblem,
} from './role-privileges.ts';
import { requireSupportedServer } from './server-version.ts';
import { keyUserEmails } from '../accounts/email-keys.ts';

/** The project's migrations folder. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** Session advisory lock key held while migrating, so two releases never migrate at once. */
const MIGRATION_LOCK = 0x61707000; // 'app\0'

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/**
 * graphile-worker's own migrations, over a pool we make and end ourselves: given only a
 * connection string, graphile-worker ends its pool without waiting, so its connections could
 * outlive the call (and raise errors nobody listens to when the database goes away).
 */
async function installQueueSchema(config: Config, log: Logger): Promise<void> {
  const connectionString = config.databaseUrl ? driverUrls(config.databaseUrl, config.db.sslMode).pg : undefined;
  const pool = new pg.Pool({ connectionString, max: 1 });
  const failed = (error: Error) => log.warn({ err: error }, 'queue schema install: a connection failed');
  pool.on('error', failed);
  pool.on('connect', (client) => client.on('error', failed));
  try {
    await runMigrations({ pgPool: pool, logger: graphileLogger(log) });
  } finally {
    await pool.end();
  }
}

/**
 * A line of its own that ends one transaction of a migration and starts the next. A migration
 * whose work must not hold its locks all along (migrations/023: a table's constraint validated
 * between a short lock taken to add it and another to swap the table) is cut into steps, each
 * committed on its own; the migration is recorded as applied with its last step, so every step
 * before it must be safe to run again (a run that fails half-way starts over at the first).
 */
export const STEP_MARKER = /^-- migrate: commit$/m;

/** Migration files are `NNN_name.sql`; applied in numeric order, each once. */
async function migrationFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return names
    .filter((name) => /^\d+_[\w-]+\.sql$/.test(name))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b));
}

/**
 * `error` of the step `what` of a migration run, as thrown: one refused for want of a privilege
 * says so with what the run needs; another is `error` itself, or with `always`, `what` before its message.
 */
function refusedOr(error: unknown, what: string, always = false): unknown {
  const refused = isPermissionDenied(error);
  if (!refused && !always) return error;
  const needs = refused ? ` (${MIGRATE_PRIVILEGES}: ${PRIVILEGES_DOC})` : '';
  return new Error(`${what}: ${(error as Error).message}${needs}`, { cause: error });
}

/** How every reason of {@link schemaCheck} that `app migrate` mends ends, and what tells those from the others. */
export const MIGRATE_REMEDY = '(run app migrate)';

/**
 * Why the database is behind this code, or undefined when it is not: a migration of `migrations/`
 * not applied (a deploy whose release step did not run, or failed), or graphile-worker's schema
 * missing, or the role this process connects as cannot use what the migrations made (it may not
 * read the tables, or does not own the job queue: shared/db/role-privileges.ts). Readiness answers
 * 503 with it, so a platform sends no traffic to a process that would fail every request; once the
 * database is up to date the answer stays undefined without asking again.
 */
export function schemaCheck(sql: Queryable, options: { dir?: string } = {}): () => Promise<string | undefined> {
  let current = false;
  return async () => {
    if (current) return undefined;
    const files = await migrationFiles(options.dir ?? MIGRATIONS_DIR);
    let refused: string | undefined;
    const applied = await sql<{ name: string }[]>`select name from app_migrations`.catch((error: unknown) => {
      // no app_migrations table at all: a database never migrated
      if ((error as { code?: string }).code === '42P01') return [];
      if (!isPermissionDenied(error)) throw error;
      refused = `the database role may not read the service's tables (${(error as Error).message}): ${PROCESS_PRIVILEGES}`;
      return [];
    });
    if (refused !== undefined) return refused;
    const [{ queue }] = await sql<{ queue: boolean }[]>`
      select to_regclass('graphile_worker._private_jobs') is not null as queue`;
    const done = new Set(applied.map((row) => row.name));
    const pending = files.filter((file) => !done.has(file));
    if (pending.length > 0)
      return `the database is not migrated: ${pending.length} migration${pending.length === 1 ? '' : 's'} pending, from ${pending[0]} ${MIGRATE_REMEDY}`;
    if (!queue) return `the job queue schema is not installed ${MIGRATE_REMEDY}`;
    const access = await queueAccessProblem(sql);
    if (access !== undefined) return access;
    current = true;
    return undefined;
  };
}

/**
 * Applies the numbered, forward-only SQL files in `migrations/` that have not been applied
 * yet, each in its own transaction (or one per step, STEP_MARKER), writes the users' email keys
 * SQL cannot compute (shared/accounts/email-keys.ts), then installs or upgrades graphile-worker's schema. Safe
 * to run from several processes at once: the whole run holds a session advisory lock.
 *
 * The run has a connection of its own (a pool of one, ended afterwards) rather than one reserved
 * from the caller's pool: the `postgres` driver (3.4.9) gives the pool's next query a released
 * reservation whose connection closed, and that query never settles, so a database blip during a
 * web process's install at boot would have left its pool a connection short for good.
 *
 * A server older than the minimum (server-version.ts) is refused before anything is applied
 * (UnsupportedServerError), rather than failing half-way at the first migration it cannot run.
 */
export async function migrate(
  deps: { config: Config; log: Logger },
  options: { dir?: string } = {},
): Promise<MigrationResult> {
  const { config, log } = deps;
  const dir = options.dir ?? MIGRATIONS_DIR;
  const files = await migrationFiles(dir);
  // one connection, kept open for the session lock
  const session = connect(config, log, { max: 1, name: 'app-migrate', keepOpen: true });
  try {
    await requireSupportedServer(session);
    await session`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await session`
      create table if not exists app_migrations (
        name text primary key,
        applied_at timestamptz not null default now()
      )`.catch((error: unknown) => {
      throw refusedOr(error, 'the table of applied migrations could not be created');
    });
    const done = new Set((await session<{ name: string }[]>`select name from app_migrations`).map((row) => row.name));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      const steps = (await readFile(join(dir, file), 'utf8')).split(STEP_MARKER);
      for (const [index, text] of steps.entries()) {
        await session`begin`;
        try {
          await session.unsafe(text);
          if (index === steps.length - 1) await session`insert into app_migrations (name) values (${file})`;
          await session`commit`;
        } catch (error) {
          await session`rollback`.catch(() => undefined);
          const step = steps.length > 1 ? ` (step ${index + 1} of ${steps.length})` : '';
          throw refusedOr(error, `migration ${file} failed${step}`, true);
        }
      }
      applied.push(file);
      log.info({ migration: file }, 'migration applied');
    }
    // the users' email keys as the application computes them, which SQL cannot (migrations/038)
    await keyUserEmails({ sql: session, log });
    await installQueueSchema(config, log).catch((error: unknown) => {
      throw refusedOr(error, 'the job queue schema could not be installed');
    });
    return { applied, alreadyApplied: done.size };
  } finally {
    await session`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => undefined);
    await session.end({ timeout: 5 });
  }
}
