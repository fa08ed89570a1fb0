/** Queries of the event-type catalog (`app_event_types`, migrations/009_event_types.sql). */
import type { Queryable as Sql } from '../../db/connect.ts';

export interface EventTypeRow {
  name: string;
  description: string | null;
  schema: Record<string, unknown> | boolean | null;
  examples: unknown[];
  deprecated: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'name, description, schema, examples, deprecated, created_at, updated_at';

export async function insertEventType(
  sql: Sql,
  input: Omit<EventTypeRow, 'created_at' | 'updated_at'>,
): Promise<EventTypeRow | undefined> {
  const rows = await sql<EventTypeRow[]>`
    insert into app_event_types (name, description, schema, examples, deprecated)
    values (${input.name}, ${input.description}, ${input.schema === null ? null : sql.json(input.schema as never)}, ${sql.json(input.examples as never)}, ${input.deprecated})
    on conflict (name) do nothing
    returning ${sql.unsafe(COLUMNS)}`;
  return rows[0];
}

export async function selectEventType(sql: Sql, name: string): Promise<EventTypeRow | undefined> {
  const rows = await sql<EventTypeRow[]>`select ${sql.unsafe(COLUMNS)} from app_event_types where name = ${name}`;
  return rows[0];
}

/** The type's row, locked until the end of transaction `tx`: a change checks it as it stays. */
export async function selectEventTypeForUpdate(tx: Sql, name: string): Promise<EventTypeRow | undefined> {
  const rows = await tx<EventTypeRow[]>`
    select ${tx.unsafe(COLUMNS)} from app_event_types where name = ${name} for update`;
  return rows[0];
}

/** Types in name order; one page when given; deprecated ones only when asked. */
export function selectEventTypes(
  sql: Sql,
  options: { includeDeprecated: boolean; limit?: number; offset?: number },
): Promise<EventTypeRow[]> {
  return sql<EventTypeRow[]>`
    select ${sql.unsafe(COLUMNS)} from app_event_types
     where ${options.includeDeprecated ? sql`true` : sql`not deprecated`}
     order by name
     ${options.limit === undefined ? sql`` : sql`limit ${options.limit} offset ${options.offset ?? 0}`}`;
}

export async function countEventTypes(sql: Sql, options: { includeDeprecated: boolean }): Promise<number> {
  const [row] = await sql<
    { count: number }[]
  >`select count(*)::int as count from app_event_types where ${options.includeDeprecated ? sql`true` : sql`not deprecated`}`;
  return row.count;
}

/** Every name in the catalog (the strict mode's subscription check). */
export async function selectEventTypeNames(sql: Sql): Promise<string[]> {
  return (await sql<{ name: string }[]>`select name from app_event_types order by name`).map((row) => row.name);
}

export async function updateEventTypeRow(
  sql: Sql,
  name: string,
  patch: Partial<Pick<EventTypeRow, 'description' | 'schema' | 'examples' | 'deprecated'>>,
): Promise<EventTypeRow | undefined> {
  const set = (column: keyof typeof patch) => patch[column] !== undefined;
  const rows = await sql<EventTypeRow[]>`
    update app_event_types set
      description = ${set('description') ? sql`${patch.description ?? null}` : sql`description`},
      schema = ${set('schema') ? (patch.schema === null ? sql`null` : sql`${sql.json(patch.schema as never)}`) : sql`schema`},
      examples = ${set('examples') ? sql`${sql.json(patch.examples as never)}` : sql`examples`},
      deprecated = ${set('deprecated') ? sql`${patch.deprecated as boolean}` : sql`deprecated`},
      updated_at = now()
     where name = ${name}
    returning ${sql.unsafe(COLUMNS)}`;
  return rows[0];
}
