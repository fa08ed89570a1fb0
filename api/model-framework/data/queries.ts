/**
 * The SQL of the model layer: small named functions, identifiers through `sql(name)`, values
 * always as parameters. Table and column names come from checked declarations (shape.ts).
 */
import type { Queryable as Sql } from '../../../shared/db/connect.ts';

export type Row = Record<string, unknown>;

/** Column -> value equalities every listed row must meet (a policy scope); empty: none. */
export type Equalities = Readonly<Record<string, string | number | boolean | null>>;

/**
 * `where` of a listing: each column equal to its value (`is null` for null), and with `afterId`
 * only the rows created after that one, joined with `and`.
 */
function whereClause(sql: Sql, where: Equalities, afterId?: string) {
  const terms = Object.entries(where).map(([column, value]) =>
    value === null ? sql`${sql(column)} is null` : sql`${sql(column)} = ${value}`,
  );
  if (afterId !== undefined) terms.push(sql`id > ${afterId}::bigint`);
  return terms.length === 0
    ? sql``
    : terms.reduce((clause, term, index) => (index === 0 ? sql`where ${term}` : sql`${clause} and ${term}`), sql``);
}

/** Rows in the table (those meeting `where`). */
export async function countRows(sql: Sql, table: string, where: Equalities = {}): Promise<number> {
  const [row] = await sql<{ total: string }[]>`select count(*) as total from ${sql(table)} ${whereClause(sql, where)}`;
  return Number(row.total);
}

/** One page of rows (meeting `where`) in creation order (`id`). */
export async function selectPage(
  sql: Sql,
  table: string,
  columns: readonly string[],
  page: { limit: number; offset: number },
  where: Equalities = {},
): Promise<Row[]> {
  return sql<Row[]>`
    select ${sql(columns as string[])} from ${sql(table)}
    ${whereClause(sql, where)}
    order by id
    limit ${page.limit} offset ${page.offset}`;
}

/**
 * Up to `limit` rows (meeting `where`) after the row with internal id `afterId` (none: from the
 * first), in creation order: a listing read batch by batch, each batch starting where the last
 * ended, so no batch costs more than its own rows.
 */
export async function selectBatch(
  sql: Sql,
  table: string,
  columns: readonly string[],
  batch: { afterId: string | undefined; limit: number },
  where: Equalities = {},
): Promise<Row[]> {
  return sql<Row[]>`
    select ${sql(columns as string[])} from ${sql(table)}
    ${whereClause(sql, where, batch.afterId)}
    order by id
    limit ${batch.limit}`;
}

/** The row with this external id, if any. */
export async function selectByExternalId(
  sql: Sql,
  table: string,
  columns: readonly string[],
  externalId: string,
): Promise<Row | undefined> {
  const [row] = await sql<
    Row[]
  >`select ${sql(columns as string[])} from ${sql(table)} where external_id = ${externalId}`;
  return row;
}

/** The rows with these internal ids or external ids: one statement for many (batched references). */
export async function selectMany(
  sql: Sql,
  table: string,
  columns: readonly string[],
  keys: { ids: readonly string[]; externalIds: readonly string[] },
): Promise<Row[]> {
  return sql<Row[]>`
    select ${sql(columns as string[])} from ${sql(table)}
    where id = any(${keys.ids as string[]}::bigint[]) or external_id = any(${keys.externalIds as string[]}::text[])`;
}

/** Internal id -> external id for many rows of one table: one statement for a whole page. */
export async function selectExternalIds(sql: Sql, table: string, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; external_id: string }[]>`
    select id, external_id from ${sql(table)} where id = any(${ids as string[]}::bigint[])`;
  return new Map(rows.map((row) => [String(row.id), row.external_id]));
}

/** External id -> internal id for many rows of one table: one statement per referenced model. */
export async function selectInternalIds(
  sql: Sql,
  table: string,
  externalIds: readonly string[],
): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; external_id: string }[]>`
    select id, external_id from ${sql(table)} where external_id = any(${externalIds as string[]}::text[])`;
  return new Map(rows.map((row) => [row.external_id, String(row.id)]));
}

/** Inserts one row (column -> value) and returns it as read back. */
export async function insertRow(sql: Sql, table: string, columns: readonly string[], values: Row): Promise<Row> {
  const [row] = await sql<Row[]>`
    insert into ${sql(table)} ${sql(values as Record<string, never>, Object.keys(values))}
    returning ${sql(columns as string[])}`;
  return row;
}

/** Updates the row with this external id; undefined when there is none. */
export async function updateRow(
  sql: Sql,
  table: string,
  columns: readonly string[],
  externalId: string,
  values: Row,
): Promise<Row | undefined> {
  if (Object.keys(values).length === 0) return selectByExternalId(sql, table, columns, externalId);
  const [row] = await sql<Row[]>`
    update ${sql(table)} set ${sql(values as Record<string, never>, Object.keys(values))}
    where external_id = ${externalId}
    returning ${sql(columns as string[])}`;
  return row;
}

/** Deletes the row with this external id; whether there was one. */
export async function deleteRow(sql: Sql, table: string, externalId: string): Promise<boolean> {
  const result = await sql`delete from ${sql(table)} where external_id = ${externalId}`;
  return result.count > 0;
}
