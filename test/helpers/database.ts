/**
 * A fresh database per test file, cloned from the migrated template that test/run.ts made
 * (or, when a file is run alone with TEST_DATABASE_URL set, migrated on the spot).
 */
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import postgres from 'postgres';
import { resolveConfig, type Config } from '../../shared/config/index.ts';
import { connect, type Sql } from '../../shared/db/connect.ts';
import { migrate } from '../../shared/db/migrate.ts';
import { createLogger, type Logger } from '../../shared/log/logger.ts';

export interface TestDatabase {
  url: string;
  name: string;
  sql: Sql;
  config: Config;
  log: Logger;
  /** A config for this database with extra values laid over (like the flags layer). */
  configWith(flags: Record<string, unknown>, env?: Record<string, string>): Config;
}

const ADMIN_URL = process.env.TEST_DATABASE_URL;

/**
 * Cleanups of the databases this file made. Registered on the file's root test when this
 * module is imported (top level), so calling createTestDatabase() inside a `before` hook
 * does not drop the database as soon as that hook ends.
 */
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function urlFor(name: string): string {
  if (!ADMIN_URL)
    throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test` (it starts an embedded PostgreSQL)');
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The config every test starts from: test defaults, receivers on loopback allowed. */
export function testConfig(
  databaseUrl: string | null,
  flags: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Config {
  return resolveConfig({
    env: { NODE_ENV: 'test', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...env },
    flags: { ...flags, webhooks: { allowHttp: true, allowPrivate: true, ...(flags.webhooks as object | undefined) } },
  }).config;
}

/**
 * Creates a database for this file, migrated (or `empty`: not even migrated), and drops it
 * when the file's tests are done.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const name = `app_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(urlFor('postgres'), { max: 1, onnotice: () => {} });
  const template = options.empty ? undefined : process.env.TEST_TEMPLATE_DATABASE;
  // file_copy: a small template copies faster than the default WAL_LOG strategy writes it to the WAL
  await admin.unsafe(
    template ? `create database ${name} template ${template} strategy file_copy` : `create database ${name}`,
  );
  const url = urlFor(name);
  const config = testConfig(url);
  const log = createLogger(config, { name: 'test' });
  const sql = connect(config, log, { max: 4 });
  if (!template && !options.empty) await migrate({ config, log });
  cleanups.push(async () => {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  return {
    url,
    name,
    sql,
    config,
    log,
    configWith: (flags, env) => testConfig(url, flags, env),
  };
}
