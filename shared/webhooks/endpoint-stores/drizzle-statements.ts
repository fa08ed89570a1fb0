/**
 * The drizzle store's statements that read and write alike on PostgreSQL and MySQL (get, getMany,
 * list, subscribers, insert), written once, with the row mapping and the listing's conditions.
 *
 * Drizzle's two databases share no type: a union of them cannot even call `select`, each
 * dialect's builder methods being generic over its own tables. So each dialect hands in how its
 * statements start (`db.select().from(table)` …) and this module sees only the part of the
 * builders it uses (`SelectFrom` below), which both dialects' builders have as they are. What
 * differs stays with the dialect: how a listing matches patterns (a JSON operator of its own),
 * and update and delete, which learn whether a row changed differently (RETURNING on PostgreSQL,
 * the affected rows on MySQL).
 */
import { and, asc, eq, inArray, isNotNull, isNull, type SQL, sql } from 'drizzle-orm';
import type { mysqlEndpointTable, pgEndpointTable } from './drizzle.ts';
import { listCountedFirst } from './paging.ts';
import { secretsFromJson, secretsToJson } from './secrets-json.ts';
import type { EndpointStore, StoredEndpoint, StoredEndpointQuery, SubscriberEndpoint } from './types.ts';

/** The endpoint table as either dialect declares it. */
export type EndpointTable = ReturnType<typeof pgEndpointTable> | ReturnType<typeof mysqlEndpointTable>;

/** A row as both dialects read and write it: the record's fields, the secrets as JSON. */
export type Row = ReturnType<typeof pgEndpointTable>['$inferSelect'];

type SubscriberRow = Pick<Row, 'id' | 'events' | 'filter'>;

/** An ordered select: awaited whole, or one page of it. */
interface OrderedSelect<T> extends PromiseLike<T[]> {
  limit(limit: number): { offset(offset: number): PromiseLike<T[]> };
}

interface FilteredSelect<T> extends PromiseLike<T[]> {
  orderBy(...order: SQL[]): OrderedSelect<T>;
}

/** `db.select(…).from(table)` of either dialect, as far as the statements here use it. */
interface SelectFrom<T> {
  where(condition: SQL | undefined): FilteredSelect<T>;
}

/** What a dialect hands in: its table and how each statement starts on its database. */
export interface DrizzleDialect {
  table: EndpointTable;
  /** The condition that `events` holds at least one of `patterns` (never empty). */
  holdsAnyPattern(patterns: readonly string[]): SQL;
  selectRows(): SelectFrom<Row>;
  selectSubscribers(): SelectFrom<SubscriberRow>;
  selectCount(): SelectFrom<{ total: number }>;
  insert(row: Row): PromiseLike<unknown>;
}

/** A record as a row: the same fields, the secrets as JSON, the events and headers copied. */
export const toRow = (endpoint: StoredEndpoint): Row => ({
  ...endpoint,
  events: [...endpoint.events],
  headers: { ...endpoint.headers },
  secrets: secretsToJson(endpoint.secrets),
});

const fromRow = (row: Row): StoredEndpoint => ({
  ...row,
  filter: row.filter ?? null,
  secrets: secretsFromJson(row.secrets),
});

/** The conditions of a listing. */
function where(dialect: DrizzleDialect, query: StoredEndpointQuery): SQL | undefined {
  const { owner, disabledAt } = dialect.table;
  const conditions: SQL[] = [];
  if (query.owner === null) conditions.push(isNull(owner));
  else if (query.owner !== undefined) conditions.push(eq(owner, query.owner));
  if (query.enabled === true) conditions.push(isNull(disabledAt));
  else if (query.enabled === false) conditions.push(isNotNull(disabledAt));
  if (query.patterns !== undefined) {
    conditions.push(query.patterns.length === 0 ? sql`false` : dialect.holdsAnyPattern(query.patterns));
  }
  return and(...conditions);
}

/** The store's methods that are the same on both dialects. */
export function sharedStatements(
  dialect: DrizzleDialect,
): Pick<EndpointStore, 'get' | 'getMany' | 'list' | 'subscribers' | 'insert'> {
  const { table } = dialect;
  return {
    async get(id) {
      const rows = await dialect.selectRows().where(eq(table.id, id));
      return rows.length ? fromRow(rows[0]) : null;
    },

    async getMany(ids) {
      if (ids.length === 0) return [];
      const rows = await dialect.selectRows().where(inArray(table.id, [...ids]));
      return rows.map(fromRow);
    },

    async list(query) {
      const condition = where(dialect, query);
      return listCountedFirst(
        query,
        async () => (await dialect.selectCount().where(condition))[0].total,
        async ({ offset, limit }) => {
          const select = dialect.selectRows().where(condition).orderBy(asc(table.createdAt), asc(table.id));
          return (limit === undefined ? await select : await select.limit(limit).offset(offset)).map(fromRow);
        },
      );
    },

    async subscribers(owner) {
      const rows = await dialect
        .selectSubscribers()
        .where(and(owner === null ? isNull(table.owner) : eq(table.owner, owner), isNull(table.disabledAt)))
        .orderBy(asc(table.id));
      return rows.map((row): SubscriberEndpoint => ({ ...row, filter: row.filter ?? null }));
    },

    async insert(endpoint) {
      await dialect.insert(toRow(endpoint));
    },
  };
}
