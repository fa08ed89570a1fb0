/**
 * The endpoint table (`webhooks.table`, default `app_webhooks`; schema in
 * migrations/001_webhooks.sql): the record shape, the row mapping, reads by id, and the change
 * notification every process listens to (cache.ts).
 */
import { openHeaders } from './header-box.ts';
import type { SigningScheme } from '../signing.ts';
import type { Ordering } from './fields.ts';
import { isIdText } from '../ids.ts';
import { notFound } from '../../errors/app-error.ts';
import type { Config } from '../../config/index.ts';
import { assertInScope, type TenantScope } from '../../access/tenant-scope.ts';
import { clip, describeValue } from '../../errors/describe-value.ts';

/** NOTIFY channel announcing a change to an endpoint; the payload is `{"owner": <owner|null>}`. */
export const ENDPOINTS_CHANGED_CHANNEL = 'app_webhooks_changed';

/** A webhook endpoint as the programmatic interface and `--json` present it (never a secret). */
export interface Endpoint {
  id: string;
  url: string;
  events: string[];
  owner: string | null;
  description: string | null;
  headers: Record<string, string>;
  /** False once the endpoint is disabled (by an operator or by a 410 from the receiver). */
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** How its deliveries are signed: `hmac-sha256` (`v1,`) or `ed25519` (`v1a,`). */
  signing: SigningScheme;
  /** Most deliveries per second across every worker; null: no limit. */
  rateLimit: number | null;
  /** `fifo`: one delivery at a time, in emit order; `none`: in parallel. */
  ordering: Ordering;
  createdAt: Date;
  updatedAt: Date;
}

/** A row of the endpoint table as the driver returns it. */
export interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  owner: string | null;
  description: string | null;
  headers: Record<string, string> | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  /** Absent on a table from before migration 008 (read as `hmac-sha256`). */
  signing?: SigningScheme;
  rate_limit?: number | null;
  /** Absent on a table from before migration 014 (read as `none`). */
  ordering?: Ordering;
  created_at: Date;
  updated_at: Date;
}

/** Anything that runs tagged-template queries: the pool or a transaction. */
export type { Queryable } from '../../db/connect.ts';
import type { Queryable } from '../../db/connect.ts';

/** The record of a row, its header values opened (header-box.ts). */
export function toEndpoint(row: EndpointRow, config: Pick<Config, 'secret'>): Endpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    owner: row.owner,
    description: row.description,
    headers: openHeaders(config, row.headers, row.id),
    enabled: row.disabled_at === null,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
    signing: row.signing ?? 'hmac-sha256',
    rateLimit: row.rate_limit ?? null,
    ordering: row.ordering ?? 'none',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The configured endpoint table as an identifier fragment. */
export const endpointTable = (sql: Queryable, config: Pick<Config, 'webhooks'>) => sql(config.webhooks.table);

/** AppError 404 `APP_WEBHOOK_NOT_FOUND` for an unknown endpoint id. */
export const endpointNotFound = (id: unknown) =>
  notFound(`webhook endpoint ${typeof id === 'string' ? clip(id) : describeValue(id)} does not exist`, {
    code: 'APP_WEBHOOK_NOT_FOUND',
    data: { id },
  });

/**
 * The row of endpoint `id`, or a 404 `APP_WEBHOOK_NOT_FOUND`; with `scope`, an endpoint outside
 * it is the same 404 (tenant-scope.ts). With `forUpdate` the row is locked until the
 * transaction ends, so concurrent changes of one endpoint apply one after the other and the
 * scope is checked on the row the write will change: no change of owner slips in between.
 */
export async function endpointRow(
  sql: Queryable,
  config: Pick<Config, 'webhooks'>,
  id: unknown,
  options: { forUpdate?: boolean; scope?: TenantScope } = {},
): Promise<EndpointRow> {
  if (!isIdText(id)) throw endpointNotFound(id);
  const rows = options.forUpdate
    ? await sql<EndpointRow[]>`select * from ${endpointTable(sql, config)} where id = ${id} for update`
    : await sql<EndpointRow[]>`select * from ${endpointTable(sql, config)} where id = ${id}`;
  if (rows.length === 0) throw endpointNotFound(id);
  if (options.scope !== undefined) assertInScope(options.scope, rows[0].owner, () => endpointNotFound(id));
  return rows[0];
}

/**
 * Announces, from inside the caller's transaction (so only once it commits), that endpoints of
 * these owners changed; every process's cache drops those owners.
 */
export async function notifyEndpointsChanged(sql: Queryable, owners: ReadonlyArray<string | null>): Promise<void> {
  for (const owner of new Set(owners)) {
    await sql`select pg_notify(${ENDPOINTS_CHANGED_CHANNEL}, ${JSON.stringify({ owner })})`;
  }
}
