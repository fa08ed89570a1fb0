/**
 * A database as managed PostgreSQL services (RDS, Cloud SQL, Heroku, Render, Supabase, Neon)
 * hand one out: reached as a role of its own that is no superuser and may create neither
 * databases nor roles, never migrated by the test server's superuser. Two shapes:
 *
 * - `owner`: the role owns the database; `public` is as PostgreSQL 15 and later leave it (owned
 *   by `pg_database_owner`, so the database's owner, alone, may create in it).
 * - `schema`: the database is another role's; the role has CREATE on it (to make
 *   graphile-worker's schema) and owns a schema named after itself, which the default
 *   `search_path` (`"$user", public`) puts first; it may not create in `public`.
 * - `connect`: the database is another role's and the role has only what every role has there
 *   (CONNECT, TEMPORARY): too little to migrate.
 *
 * The role and the database are dropped when the file's tests end (the database first, with
 * every session still on it).
 */
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import postgres from 'postgres';
import { connect } from '../../shared/db/connect.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { testConfig, type TestDatabase } from './database.ts';

export interface OwnedDatabase extends TestDatabase {
  /** The role the service connects as. */
  role: string;
  /** The test server's superuser, connected to this database. */
  admin: postgres.Sql;
}

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function serverUrl(database: string, user?: string): string {
  const given = process.env.TEST_DATABASE_URL;
  if (!given) throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test`');
  const url = new URL(given);
  url.pathname = `/${database}`;
  if (user !== undefined) url.username = user;
  return url.toString();
}

/** Makes the role and its database (not migrated): see the file comment for the two shapes. */
export async function createOwnedDatabase(shape: 'owner' | 'schema' | 'connect'): Promise<OwnedDatabase> {
  const suffix = randomBytes(5).toString('hex');
  const role = `app_owner_${suffix}`;
  const name = `app_test_owned_${suffix}`;
  const server = postgres(serverUrl('postgres'), { max: 1, onnotice: () => {} });
  await server.unsafe(`create role ${role} login nosuperuser nocreatedb nocreaterole nobypassrls`);
  await server.unsafe(
    shape === 'owner' ? `create database ${name} owner ${role}` : `create database ${name} template template0`,
  );
  const admin = postgres(serverUrl(name), { max: 1, onnotice: () => {} });
  if (shape === 'schema') {
    await admin.unsafe(`grant create on database ${name} to ${role}`);
    await admin.unsafe(`create schema ${role} authorization ${role}`);
  }
  const url = serverUrl(name, role);
  const config = testConfig(url);
  const log = createLogger(config, { name: 'test' });
  const sql = connect(config, log, { max: 4 });
  cleanups.push(async () => {
    await sql.end({ timeout: 5 });
    await admin.end();
    await server.unsafe(`drop database if exists ${name} with (force)`);
    await server.unsafe(`drop role if exists ${role}`);
    await server.end();
  });
  return { url, name, role, admin, sql, config, log, configWith: (flags, env) => testConfig(url, flags, env) };
}
