/**
 * The endpoint store through Drizzle ORM (`adapter: 'drizzle'`), on PostgreSQL (postgres.js under
 * `drizzle-orm/postgres-js`) or MySQL/MariaDB (a mysql2 pool under `drizzle-orm/mysql2`), chosen by
 * `dialect`. The table is declared here with Drizzle's own schema builders (`pgTable` /
 * `mysqlTable`, named by `webhooks.table`), and every read and write goes through Drizzle's query
 * builder; the few expressions it has no operator for (a JSON array holding one of several strings)
 * are Drizzle `sql` fragments over the declared columns.
 * The statements that read and write alike on both dialects are written once, in
 * drizzle-statements.ts; this module declares the tables and opens each dialect.
 *
 * `install()` issues `create table if not exists` (and, on PostgreSQL, `create index if not exists`)
 * through Drizzle's `sql`: Drizzle's runtime migrator only replays the SQL files drizzle-kit
 * generates, and a table whose name comes from the configuration has no such files. A deployment
 * that manages its schema with drizzle-kit can instead import `pgEndpointTable` /
 * `mysqlEndpointTable` into its own schema and let drizzle-kit create the table.
 *
 * Stored shape: one row per endpoint; `events`, `headers` and `secrets` are JSON (jsonb on
 * PostgreSQL; the secrets' dates inside as ISO-8601 strings), the other dates millisecond
 * timestamps in UTC (`timestamptz(3)` / `datetime(3)`), `version` the optimistic-concurrency guard.
 */
import { and, count, eq, or, sql } from 'drizzle-orm';
import {
  customType,
  datetime,
  int,
  index as mysqlIndex,
  mysqlTable,
  text as mysqlText,
  varchar,
} from 'drizzle-orm/mysql-core';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { index as pgIndex, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { createPool } from 'mysql2';
import postgres from 'postgres';
import type { SigningScheme } from '../signing.ts';
import { sharedStatements, toRow } from './drizzle-statements.ts';
import type { SecretJson } from './secrets-json.ts';
import type { EndpointStore, StoreContext, StoredOrdering } from './types.ts';

/** A signing secret as the `secrets` JSON column holds it (part of the table's declared types). */
export type { SecretJson } from './secrets-json.ts';

/** The endpoint table as Drizzle sees it on PostgreSQL. */
export function pgEndpointTable(name: string) {
  const moment = (column: string) => timestamp(column, { withTimezone: true, precision: 3, mode: 'date' });
  return pgTable(
    name,
    {
      id: text('id').primaryKey(),
      url: text('url').notNull(),
      events: jsonb('events').$type<string[]>().notNull(),
      filter: jsonb('filter').$type<Record<string, unknown>>(),
      owner: text('owner'),
      description: text('description'),
      headers: jsonb('headers').$type<Record<string, string>>().notNull(),
      secrets: jsonb('secrets').$type<SecretJson[]>().notNull(),
      signing: text('signing').$type<SigningScheme>().notNull(),
      rateLimit: integer('rate_limit'),
      ordering: text('ordering').$type<StoredOrdering>().notNull(),
      disabledAt: moment('disabled_at'),
      disabledReason: text('disabled_reason'),
      enabledAt: moment('enabled_at'),
      createdAt: moment('created_at').notNull(),
      updatedAt: moment('updated_at').notNull(),
      version: integer('version').notNull(),
    },
    (table) => [pgIndex(pgIndexName(name)).on(table.owner, table.disabledAt)],
  );
}

/**
 * A MySQL JSON column that reads back parsed on both servers: MySQL reports JSON columns as such
 * (mysql2 parses them), MariaDB's JSON is a LONGTEXT alias that arrives as a string.
 */
const mysqlJson = <T>(column: string) =>
  customType<{ data: T; driverData: string }>({
    dataType: () => 'json',
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => (typeof value === 'string' ? JSON.parse(value) : value) as T,
  })(column);

/**
 * Text kept as its UTF-8 bytes (VARBINARY), for the owner: MySQL's and MariaDB's binary collation
 * (`utf8mb4_bin`) still pads, so `'a' = 'a '` there, and the no-pad ones are named differently on
 * each server; bytes compare exactly on both, and the index on (owner, disabled_at) still serves.
 */
const mysqlUtf8Bytes = (column: string, bytes: number) =>
  customType<{ data: string; driverData: Buffer }>({
    dataType: () => `varbinary(${bytes})`,
    toDriver: (value) => Buffer.from(value, 'utf8'),
    fromDriver: (value) => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value)),
  })(column);

/** Room for an owner's UTF-8 bytes: 255 characters of 4 bytes (the core allows at most 255 UTF-16 code units, 765 bytes). */
const OWNER_BYTES = 1020;

/** The endpoint table as Drizzle sees it on MySQL and MariaDB. */
export function mysqlEndpointTable(name: string) {
  const moment = (column: string) => datetime(column, { mode: 'date', fsp: 3 });
  return mysqlTable(
    name,
    {
      id: varchar('id', { length: 255 }).primaryKey(),
      url: mysqlText('url').notNull(),
      events: mysqlJson<string[]>('events').notNull(),
      filter: mysqlJson<Record<string, unknown>>('filter'),
      owner: mysqlUtf8Bytes('owner', OWNER_BYTES),
      description: mysqlText('description'),
      headers: mysqlJson<Record<string, string>>('headers').notNull(),
      secrets: mysqlJson<SecretJson[]>('secrets').notNull(),
      signing: varchar('signing', { length: 32 }).$type<SigningScheme>().notNull(),
      rateLimit: int('rate_limit'),
      ordering: varchar('ordering', { length: 16 }).$type<StoredOrdering>().notNull(),
      disabledAt: moment('disabled_at'),
      disabledReason: mysqlText('disabled_reason'),
      enabledAt: moment('enabled_at'),
      createdAt: moment('created_at').notNull(),
      updatedAt: moment('updated_at').notNull(),
      version: int('version').notNull(),
    },
    (table) => [mysqlIndex(MYSQL_INDEX_NAME).on(table.owner, table.disabledAt)],
  );
}

/** PostgreSQL index names share the schema's namespace with tables: prefixed by the table's name. */
const pgIndexName = (table: string) => `${table}_owner_disabled_at`;
/** The SQL mode of the MySQL sessions (see openMysql). */
const MYSQL_SQL_MODE = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION';
/** MySQL index names are per table. */
const MYSQL_INDEX_NAME = 'owner_disabled_at';

/** MySQL's "Duplicate column name" (ER_DUP_FIELDNAME), as mysql2 throws it or as Drizzle wraps it: another process added the column first. */
const isDuplicateColumn = (error: unknown): boolean => {
  const { errno, cause } = error as { errno?: number; cause?: { errno?: number } };
  return errno === 1060 || cause?.errno === 1060;
};

function openPostgresql(context: StoreContext, url: string): EndpointStore {
  // notices ("relation already exists, skipping") are expected from install and say nothing
  const client = postgres(url, { max: 4, onnotice: () => {} });
  const db = drizzlePostgres(client);
  const table = pgEndpointTable(context.table);
  return {
    name: context.name,
    adapter: 'drizzle',
    ...sharedStatements({
      table,
      holdsAnyPattern: (patterns) =>
        sql`${table.events} ?| array[${sql.join(
          patterns.map((pattern) => sql`${pattern}`),
          sql`, `,
        )}]::text[]`,
      selectRows: () => db.select().from(table),
      selectSubscribers: () => db.select({ id: table.id, events: table.events, filter: table.filter }).from(table),
      selectCount: () => db.select({ total: count() }).from(table),
      insert: (row) => db.insert(table).values(row),
    }),

    async install() {
      const name = sql.identifier(context.table);
      // two processes creating the same table at once can both pass `if not exists` and one then
      // fails on the catalog's unique index: a transaction-scoped advisory lock lines them up
      await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`endpoint-store:${context.table}`}))`);
        await tx.execute(sql`create table if not exists ${name} (
          id text collate "C" primary key,
          url text not null,
          events jsonb not null,
          filter jsonb,
          owner text collate "C",
          description text,
          headers jsonb not null,
          secrets jsonb not null,
          signing text not null,
          rate_limit integer,
          ordering text not null,
          disabled_at timestamptz(3),
          disabled_reason text,
          enabled_at timestamptz(3),
          created_at timestamptz(3) not null,
          updated_at timestamptz(3) not null,
          version integer not null
        )`);
        // a table made before subscription filters gets their column
        await tx.execute(sql`alter table ${name} add column if not exists filter jsonb`);
        await tx.execute(
          sql`create index if not exists ${sql.identifier(pgIndexName(context.table))} on ${name} (owner, disabled_at)`,
        );
      });
    },

    async ping() {
      await db.execute(sql`select 1`);
    },

    async close() {
      await client.end({ timeout: 5 });
    },

    async update(endpoint, expectedVersion) {
      const { id: _id, ...values } = toRow(endpoint);
      const rows = await db
        .update(table)
        .set(values)
        .where(and(eq(table.id, endpoint.id), eq(table.version, expectedVersion)))
        .returning({ id: table.id });
      return rows.length > 0;
    },

    async delete(id) {
      const rows = await db.delete(table).where(eq(table.id, id)).returning({ id: table.id });
      return rows.length > 0;
    },
  };
}

function openMysql(context: StoreContext, url: string): EndpointStore {
  // timezone 'Z': dates the driver itself converts are read and written as UTC
  const pool = createPool({ uri: url, timezone: 'Z', connectionLimit: 4 });
  // every connection starts in a known SQL mode, whatever the server's default: strict, so that a
  // value too long for its column is refused rather than cut (a store answers what it was given or
  // fails), without engine substitution (the table is InnoDB or is not made), and without modes
  // that change how the driver's quoted values read (NO_BACKSLASH_ESCAPES, ANSI_QUOTES)
  pool.on('connection', (connection) => {
    connection.query(`set session sql_mode = '${MYSQL_SQL_MODE}'`, (error) => {
      // the query this connection was opened for then fails with it, instead of running in another mode
      if (error) connection.destroy();
    });
  });
  const db = drizzleMysql(pool);
  const table = mysqlEndpointTable(context.table);
  return {
    name: context.name,
    adapter: 'drizzle',
    ...sharedStatements({
      table,
      // JSON_CONTAINS of each pattern, OR'ed: MySQL 5.7 and MariaDB 10.2 on (JSON_OVERLAPS is newer)
      holdsAnyPattern: (patterns) =>
        or(...patterns.map((pattern) => sql`json_contains(${table.events}, ${JSON.stringify(pattern)})`))!,
      selectRows: () => db.select().from(table),
      selectSubscribers: () => db.select({ id: table.id, events: table.events, filter: table.filter }).from(table),
      selectCount: () => db.select({ total: count() }).from(table),
      insert: (row) => db.insert(table).values(row),
    }),

    async install() {
      // one statement with its index: MySQL's metadata lock makes concurrent creations safe
      await db.execute(sql`create table if not exists ${sql.identifier(context.table)} (
        id varchar(255) not null,
        url text not null,
        events json not null,
        filter json,
        owner varbinary(${sql.raw(String(OWNER_BYTES))}),
        description text,
        headers json not null,
        secrets json not null,
        signing varchar(32) not null,
        rate_limit int,
        ordering varchar(16) not null,
        disabled_at datetime(3),
        disabled_reason text,
        enabled_at datetime(3),
        created_at datetime(3) not null,
        updated_at datetime(3) not null,
        version int not null,
        primary key (id),
        index ${sql.identifier(MYSQL_INDEX_NAME)} (owner, disabled_at)
      ) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`);
      // a table made before subscription filters gets their column (MySQL has no add column if not exists)
      const [found] = (await db.execute(
        sql`select 1 from information_schema.columns where table_schema = database() and table_name = ${context.table} and column_name = 'filter'`,
      )) as unknown as [unknown[]];
      if (found.length === 0) {
        await db
          .execute(sql`alter table ${sql.identifier(context.table)} add column filter json after events`)
          .catch((error: unknown) => {
            if (!isDuplicateColumn(error)) throw error;
          });
      }
    },

    async ping() {
      await db.execute(sql`select 1`);
    },

    async close() {
      await new Promise<void>((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve())));
    },

    async update(endpoint, expectedVersion) {
      const { id: _id, ...values } = toRow(endpoint);
      // affectedRows counts matched rows: mysql2 connects with CLIENT_FOUND_ROWS
      const [result] = await db
        .update(table)
        .set(values)
        .where(and(eq(table.id, endpoint.id), eq(table.version, expectedVersion)));
      return result.affectedRows > 0;
    },

    async delete(id) {
      const [result] = await db.delete(table).where(eq(table.id, id));
      return result.affectedRows > 0;
    },
  };
}

/** Opens the store; connections are made on first use. */
export async function openStore(context: StoreContext): Promise<EndpointStore> {
  const { dialect, url } = context.options;
  if (!url) throw new Error(`stores.${context.name}: the drizzle adapter needs a url`);
  if (dialect === 'postgresql') return openPostgresql(context, url);
  if (dialect === 'mysql') return openMysql(context, url);
  throw new Error(`stores.${context.name}: the drizzle adapter needs dialect 'postgresql' or 'mysql'`);
}
