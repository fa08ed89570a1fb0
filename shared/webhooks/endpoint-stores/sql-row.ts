/**
 * The endpoint table's row in the SQL stores (postgresql, mysql, mssql): one column per record
 * field, named in snake_case, in table order; and a record as such a row and back. The row holds
 * the JSON columns (events, filter, headers, secrets) as values: postgresql sends them as they are
 * (text[] and jsonb), mysql and mssql as JSON text (`textRowOf`, `recordOfTextRow`).
 */
import { type SecretJson, secretsFromJson, secretsToJson } from './secrets-json.ts';
import type { StoredEndpoint } from './types.ts';

/** Each record field's column, in table order (checked to name every field of a record). */
const COLUMN_OF = {
  id: 'id',
  url: 'url',
  events: 'events',
  filter: 'filter',
  owner: 'owner',
  description: 'description',
  headers: 'headers',
  secrets: 'secrets',
  signing: 'signing',
  rateLimit: 'rate_limit',
  ordering: 'ordering',
  disabledAt: 'disabled_at',
  disabledReason: 'disabled_reason',
  enabledAt: 'enabled_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  version: 'version',
} as const satisfies { [Field in keyof StoredEndpoint]: string };

/** The columns, in table order: what the stores select, insert and update. */
export const COLUMNS = Object.values(COLUMN_OF);
export type Column = (typeof COLUMNS)[number];

/** A row: every field of a record under its column, the secrets as JSON. */
export type EndpointRow = {
  [Field in keyof StoredEndpoint as (typeof COLUMN_OF)[Field]]: Field extends 'secrets'
    ? SecretJson[]
    : StoredEndpoint[Field];
};

export function rowOf(endpoint: StoredEndpoint): EndpointRow {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    filter: endpoint.filter,
    owner: endpoint.owner,
    description: endpoint.description,
    headers: endpoint.headers,
    secrets: secretsToJson(endpoint.secrets),
    signing: endpoint.signing,
    rate_limit: endpoint.rateLimit,
    ordering: endpoint.ordering,
    disabled_at: endpoint.disabledAt,
    disabled_reason: endpoint.disabledReason,
    enabled_at: endpoint.enabledAt,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
    version: endpoint.version,
  };
}

export function recordOf(row: EndpointRow): StoredEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    filter: row.filter,
    owner: row.owner,
    description: row.description,
    headers: row.headers,
    secrets: secretsFromJson(row.secrets),
    signing: row.signing,
    rateLimit: row.rate_limit,
    ordering: row.ordering,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
    enabledAt: row.enabled_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
  };
}

/** The columns that hold JSON. */
type JsonColumn = 'events' | 'filter' | 'headers' | 'secrets';

/** A row with its JSON columns as JSON text (a null filter stays null), as mysql and mssql send them. */
export type TextRow = Omit<EndpointRow, JsonColumn> & {
  events: string;
  filter: string | null;
  headers: string;
  secrets: string;
};

/** A row as read where a JSON column may come back as text (mssql, MariaDB) or already parsed (MySQL). */
export type ReadTextRow = Omit<EndpointRow, JsonColumn> & Record<JsonColumn, unknown>;

/** A JSON column's value, parsing it when it came back as text. */
export const parsedJson = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

export function textRowOf(endpoint: StoredEndpoint): TextRow {
  const row = rowOf(endpoint);
  return {
    ...row,
    events: JSON.stringify(row.events),
    filter: row.filter === null ? null : JSON.stringify(row.filter),
    headers: JSON.stringify(row.headers),
    secrets: JSON.stringify(row.secrets),
  };
}

export function recordOfTextRow(row: ReadTextRow): StoredEndpoint {
  return recordOf({
    ...row,
    events: parsedJson<string[]>(row.events),
    filter: row.filter === null ? null : parsedJson<Record<string, unknown>>(row.filter),
    headers: parsedJson<Record<string, string>>(row.headers),
    secrets: parsedJson<SecretJson[]>(row.secrets),
  });
}
