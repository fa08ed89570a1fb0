/**
 * The `postgresql` endpoint store: the endpoint table in a PostgreSQL database. Without a `url`
 * it is the service's own database and pool, where migrations create and upgrade the table
 * (`app_webhooks`, migrations/001 and 025) and triggers keep each endpoint's gate row equal to
 * it; with a `url` it is a table in another database, created by `install`. Each write is a
 * transaction of its own: on the service's pool, that is where a request's commit is claimed, so a
 * write of a request answered 503 by its timeout never commits (shared/db/transaction.ts).
 */
import postgres from 'postgres';
import type { Sql } from '../../db/connect.ts';
import type {
  EndpointStore,
  StoreContext,
  StoredEndpoint,
  StoredEndpointPage,
  StoredEndpointQuery,
  SubscriberEndpoint,
} from './types.ts';
import { pageOf } from './paging.ts';
import { COLUMNS, type EndpointRow, recordOf, rowOf } from './sql-row.ts';
import { transaction } from '../../db/transaction.ts';

/** Columns whose null, should a row hold one, reads as the column's default in the table. */
type Defaulted = 'headers' | 'secrets' | 'signing' | 'ordering' | 'version';

/** A row as read: `filter` is absent from a table made before filters (until install adds the column). */
type Row = Omit<EndpointRow, 'filter' | Defaulted> & { filter?: EndpointRow['filter'] } & {
  [Column in Defaulted]: EndpointRow[Column] | null;
};

function toStored(row: Row): StoredEndpoint {
  return recordOf({
    ...row,
    filter: row.filter ?? null,
    headers: row.headers ?? {},
    secrets: row.secrets ?? [],
    signing: row.signing ?? 'hmac-sha256',
    ordering: row.ordering ?? 'none',
    version: row.version ?? 1,
  });
}

/** A record as postgres.js writes it: the JSON columns as jsonb (events is text[]). */
function toRow(sql: Sql, endpoint: StoredEndpoint) {
  const row = rowOf(endpoint);
  return {
    ...row,
    filter: row.filter === null ? null : sql.json(row.filter as never),
    headers: sql.json(row.headers),
    secrets: sql.json(row.secrets),
  };
}

/** A PostgreSQL endpoint store over `sql` (owned: closed by `close`, else the caller's). */
export function postgresqlStore(name: string, sql: Sql, table: string, options: { owned: boolean }): EndpointStore {
  const t = () => sql(table);
  return {
    name,
    adapter: 'postgresql',
    serviceDatabase: !options.owned,
    async install() {
      if (!options.owned) return; // the service's own database: the migrations own the table
      await transaction(sql, async (tx) => {
        // one installer at a time, whoever runs it
        await tx`select pg_advisory_xact_lock(hashtext(${`app endpoint store ${table}`}))`;
        await tx`
          create table if not exists ${tx(table)} (
            id              text primary key,
            url             text not null,
            events          text[] not null,
            filter          jsonb,
            owner           text,
            description     text,
            headers         jsonb not null default '{}'::jsonb,
            secrets         jsonb not null default '[]'::jsonb,
            signing         text not null default 'hmac-sha256',
            rate_limit      integer,
            ordering        text not null default 'none',
            disabled_at     timestamptz,
            disabled_reason text,
            enabled_at      timestamptz,
            created_at      timestamptz not null default now(),
            updated_at      timestamptz not null default now(),
            version         integer not null default 1
          )`;
        // a table made before subscription filters gets their column
        await tx`alter table ${tx(table)} add column if not exists filter jsonb`;
        await tx`create index if not exists ${tx(`${table}_owner_disabled_at`)} on ${tx(table)} (owner, disabled_at)`;
      });
    },
    async ping() {
      await sql`select 1`;
    },
    async close() {
      if (options.owned) await sql.end({ timeout: 5 });
    },
    async get(id) {
      const rows = await sql<Row[]>`select * from ${t()} where id = ${id}`;
      return rows.length === 0 ? null : toStored(rows[0]);
    },
    async getMany(ids) {
      if (ids.length === 0) return [];
      const rows = await sql<Row[]>`select * from ${t()} where id = any(${[...ids]}::text[])`;
      return rows.map(toStored);
    },
    async list(query: StoredEndpointQuery): Promise<StoredEndpointPage> {
      const where = sql`
        ${query.owner === undefined ? sql`true` : query.owner === null ? sql`owner is null` : sql`owner = ${query.owner}`}
        and ${query.enabled === undefined ? sql`true` : query.enabled ? sql`disabled_at is null` : sql`disabled_at is not null`}
        and ${query.patterns === undefined ? sql`true` : sql`events && ${[...query.patterns]}::text[]`}`;
      const window =
        query.perPage === undefined
          ? sql``
          : sql`limit ${query.perPage} offset ${((query.page ?? 1) - 1) * query.perPage}`;
      const [rows, counted] = await Promise.all([
        sql<Row[]>`select * from ${t()} where ${where} order by created_at, id ${window}`,
        query.perPage === undefined
          ? undefined
          : sql<{ total: number }[]>`select count(*)::int as total from ${t()} where ${where}`,
      ]);
      return pageOf(rows.map(toStored), counted === undefined ? rows.length : counted[0].total, query);
    },
    async subscribers(owner): Promise<SubscriberEndpoint[]> {
      // the (owner, disabled_at) index answers both forms
      const rows =
        owner === null
          ? await sql<
              SubscriberEndpoint[]
            >`select id, events, filter from ${t()} where owner is null and disabled_at is null order by id`
          : await sql<
              SubscriberEndpoint[]
            >`select id, events, filter from ${t()} where owner = ${owner} and disabled_at is null order by id`;
      return rows.map((row) => ({ id: row.id, events: row.events, filter: row.filter ?? null }));
    },
    async insert(endpoint) {
      await transaction(sql, (tx) => tx`insert into ${tx(table)} ${tx(toRow(sql, endpoint), ...COLUMNS)}`);
    },
    async update(endpoint, expectedVersion) {
      const { id: _id, created_at: _created, ...changed } = toRow(sql, endpoint);
      const rows = await transaction(
        sql,
        (tx) => tx`
        update ${tx(table)} set ${tx(changed)}
         where id = ${endpoint.id} and version = ${expectedVersion}
        returning 1`,
      );
      return rows.length === 1;
    },
    async delete(id) {
      const rows = await transaction(sql, (tx) => tx`delete from ${tx(table)} where id = ${id} returning 1`);
      return rows.length === 1;
    },
  };
}

/** Opens `stores.<name>` with adapter `postgresql`: its own pool when it names a `url`, else the service's. */
export async function openStore(context: StoreContext, service?: { sql: Sql }): Promise<EndpointStore> {
  if (context.options.url === undefined) {
    if (service === undefined) throw new Error(`stores.${context.name}.url is required for adapter postgresql`);
    return postgresqlStore(context.name, service.sql, context.table, { owned: false });
  }
  const sql = postgres(context.options.url, { max: 5, onnotice: () => {} }) as unknown as Sql;
  return postgresqlStore(context.name, sql, context.table, { owned: true });
}
