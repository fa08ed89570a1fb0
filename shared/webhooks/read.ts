/**
 * Reading endpoints: `list` (all, or one owner's), `show` (one, with the secrets that still
 * sign when revealed) and `status` (endpoints with their delivery counts by state).
 */
import { endpointRow, endpointTable, toEndpoint, type Endpoint, type EndpointRow, type Queryable } from './endpoint-store.ts';
import { assertOwner } from './endpoint-fields.ts';
import { revealSecrets, type RevealedSecret } from './secrets.ts';
import type { WebhookDeps } from './deps.ts';

export interface ListOptions {
  /** Only this owner's endpoints; null: only endpoints without owner; absent: every endpoint. */
  owner?: string | null;
  /** true: only enabled endpoints; false: only disabled ones; absent: both. */
  enabled?: boolean;
}

/** Delivery counts by state (spec: pending, running, done, dead). */
export interface DeliveryCounts {
  pending: number;
  running: number;
  done: number;
  dead: number;
  total: number;
}

export type EndpointStatus = Endpoint & { deliveries: DeliveryCounts; lastDeliveryAt: Date | null };

/** A secret that still signs, without its value (what `show` tells without `reveal`). */
export interface SecretInfo {
  createdAt: Date;
  expiresAt: Date | null;
}

export type EndpointDetails = Endpoint & { secrets: SecretInfo[] | RevealedSecret[] };

function filters(sql: Queryable, options: ListOptions) {
  const owner = 'owner' in options && options.owner !== undefined ? assertOwner(options.owner) : undefined;
  const byOwner = owner === undefined ? sql`true` : owner === null ? sql`w.owner is null` : sql`w.owner = ${owner}`;
  const byState = options.enabled === undefined ? sql`true` : options.enabled ? sql`w.disabled_at is null` : sql`w.disabled_at is not null`;
  return sql`${byOwner} and ${byState}`;
}

/** Endpoints in the order they were created, filtered by owner and state. Never secrets. */
export async function list(deps: Pick<WebhookDeps, 'config' | 'sql'>, options: ListOptions = {}): Promise<Endpoint[]> {
  const { sql, config } = deps;
  const rows = await sql<EndpointRow[]>`
    select w.* from ${endpointTable(sql, config)} w
    where ${filters(sql, options)}
    order by w.created_at, w.id`;
  return rows.map((row) => toEndpoint(row, deps.config));
}

/**
 * Endpoint `id` with the secrets that still sign: their dates only, or with `reveal` the
 * secrets themselves (then a secret sealed under another application secret throws 500
 * `APP_WEBHOOK_SECRET_UNREADABLE`). Throws 404 `APP_WEBHOOK_NOT_FOUND`.
 */
export async function show(deps: Pick<WebhookDeps, 'config' | 'sql'>, id: string, options: { reveal?: boolean } = {}): Promise<EndpointDetails> {
  const row = await endpointRow(deps.sql, deps.config, id);
  if (options.reveal) return { ...toEndpoint(row, deps.config), secrets: await revealSecrets(deps, id) };
  const secrets = await deps.sql<{ created_at: Date; expires_at: Date | null }[]>`
    select created_at, expires_at from app_webhook_secrets
    where endpoint_id = ${id} and (expires_at is null or expires_at > now())
    order by id desc`;
  return { ...toEndpoint(row, deps.config), secrets: secrets.map((s) => ({ createdAt: s.created_at, expiresAt: s.expires_at })) };
}

/** Endpoints (filtered as `list`) with their delivery counts by state and latest delivery time. */
export async function status(deps: Pick<WebhookDeps, 'config' | 'sql'>, options: ListOptions = {}): Promise<EndpointStatus[]> {
  const { sql, config } = deps;
  const rows = await sql<(EndpointRow & { pending: number; running: number; done: number; dead: number; last_delivery_at: Date | null })[]>`
    select w.*,
      coalesce(c.pending, 0)::int as pending, coalesce(c.running, 0)::int as running,
      coalesce(c.done, 0)::int as done, coalesce(c.dead, 0)::int as dead, c.last_delivery_at
    from ${endpointTable(sql, config)} w
    left join (
      select endpoint_id,
        count(*) filter (where status = 'pending') as pending,
        count(*) filter (where status = 'running') as running,
        count(*) filter (where status = 'done') as done,
        count(*) filter (where status = 'dead') as dead,
        max(created_at) as last_delivery_at
      from app_webhook_deliveries group by endpoint_id
    ) c on c.endpoint_id = w.id
    where ${filters(sql, options)}
    order by w.created_at, w.id`;
  return rows.map((row) => ({
    ...toEndpoint(row, deps.config),
    deliveries: { pending: row.pending, running: row.running, done: row.done, dead: row.dead, total: row.pending + row.running + row.done + row.dead },
    lastDeliveryAt: row.last_delivery_at,
  }));
}
