/**
 * How deliveries are going, for the console's overview and the GraphQL fields behind
 * it: per endpoint, the success rate of the last 24 hours' attempts, the last failure with its
 * reason, and the pending and dead counts; for the queue, its depth and the age of its oldest
 * pending delivery. Decided and scoped like every read: `webhooks.read` first, then a member
 * sees its own owner's figures only.
 */
import type { Config } from '../../config/index.ts';
import type { Sql } from '../../db/connect.ts';
import { readScope, type Actor } from '../../access/actor.ts';
import { ownerFilter } from '../../access/tenant-scope.ts';
import type { WebhookDeps } from '../deps.ts';

/** The window of the success rate. */
export const HEALTH_WINDOW_MS = 86_400_000;

export interface EndpointHealth {
  endpointId: string;
  /** Attempts started in the last 24 hours, and how many of them the receiver accepted (2xx). */
  attempts24h: number;
  succeeded24h: number;
  /** succeeded24h / attempts24h, from 0 to 1; null when nothing was attempted. */
  successRate24h: number | null;
  /** The latest failed attempt, ever: when, why, and the delivery it belonged to. */
  lastFailureAt: Date | null;
  lastFailure: string | null;
  lastFailureDeliveryId: string | null;
  pending: number;
  running: number;
  dead: number;
}

/**
 * The health of each endpoint of `endpointIds` in the actor's scope (others are left out of the
 * map). Throws 403 `APP_FORBIDDEN` first to a grant that may not read webhooks.
 */
export async function endpointHealth(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  actor: Actor,
  endpointIds: readonly string[],
): Promise<Map<string, EndpointHealth>> {
  const { sql } = deps;
  const scope = readScope(actor, 'webhooks.read');
  if (endpointIds.length === 0) return new Map();
  // the deliveries of its owner's events alone: an endpoint moved to another tenant does not show
  // the new one what the earlier one sent (those deliveries are never sent to it either)
  const ownersOwn = sql`d.owner is not distinct from g.owner`;
  const rows = await sql<
    {
      id: string;
      pending: number;
      running: number;
      dead: number;
      attempts: number;
      succeeded: number;
      failed_at: Date | null;
      error: string | null;
      status: number | null;
      delivery_id: string | null;
    }[]
  >`
    select g.endpoint_id as id, c.pending, c.running, c.dead, s.attempts, s.succeeded,
           f.started_at as failed_at, f.error, f.status, f.delivery_id
      from app_endpoint_gate g
      cross join lateral (
        select count(*) filter (where d.status = 'pending')::int as pending,
               count(*) filter (where d.status = 'running')::int as running,
               count(*) filter (where d.status = 'dead')::int as dead
          from app_webhook_deliveries d where d.endpoint_id = g.endpoint_id and ${ownersOwn} and d.status in ('pending', 'running', 'dead')
      ) c
      cross join lateral (
        select count(*)::int as attempts, count(*) filter (where a.outcome = 'done')::int as succeeded
          from app_webhook_deliveries d join app_webhook_attempts a on a.delivery_id = d.id
         where d.endpoint_id = g.endpoint_id and ${ownersOwn} and a.started_at >= now() - ${HEALTH_WINDOW_MS} * interval '1 millisecond'
      ) s
      left join lateral (
        select a.started_at, a.error, a.status, a.delivery_id
          from app_webhook_deliveries d join app_webhook_attempts a on a.delivery_id = d.id
         where d.endpoint_id = g.endpoint_id and ${ownersOwn} and a.outcome <> 'done'
         order by a.started_at desc limit 1
      ) f on true
     where g.endpoint_id = any(${endpointIds as string[]}::text[])
       and ${scope.kind === 'all' ? sql`true` : sql`g.owner = ${scope.owner}`}`;
  return new Map(
    rows.map((row) => [
      row.id,
      {
        endpointId: row.id,
        attempts24h: row.attempts,
        succeeded24h: row.succeeded,
        successRate24h: row.attempts === 0 ? null : row.succeeded / row.attempts,
        lastFailureAt: row.failed_at,
        lastFailure:
          row.failed_at === null
            ? null
            : (row.error ?? (row.status === null ? 'failed' : `receiver answered ${row.status}`)),
        lastFailureDeliveryId: row.delivery_id,
        pending: row.pending,
        running: row.running,
        dead: row.dead,
      },
    ]),
  );
}

export interface QueueFigures {
  /** Deliveries pending or running. */
  depth: number;
  pending: number;
  running: number;
  dead: number;
  /** Age of the oldest pending delivery in seconds (0 when none). */
  oldestPendingAgeSeconds: number;
  /** When the oldest pending delivery was made; null when none. */
  oldestPendingAt: Date | null;
}

/**
 * The queue's figures in the actor's scope: every delivery (the operator: the metrics' view), one
 * owner's (`owner`; null: those without owner), or a member's scope (deliveries of its owner to
 * its endpoints, as listings show them; naming another owner is 404 `APP_TENANT_NOT_FOUND`). Throws 403 `APP_FORBIDDEN` first to a grant that may not
 * read webhooks. One statement over the (status, created_at) index.
 */
export async function queueFigures(
  deps: { sql: Sql; config?: Pick<Config, 'webhooks'> },
  actor: Actor,
  options: { owner?: string | null } = {},
): Promise<QueueFigures> {
  const { sql } = deps;
  const scope = readScope(actor, 'webhooks.read');
  const owner = ownerFilter(scope, options.owner);
  const [row] = await sql<
    { pending: number; running: number; dead: number; oldest_at: Date | null; oldest: number | null }[]
  >`
    select count(*) filter (where d.status = 'pending')::int as pending,
           count(*) filter (where d.status = 'running')::int as running,
           count(*) filter (where d.status = 'dead')::int as dead,
           min(d.created_at) filter (where d.status = 'pending') as oldest_at,
           extract(epoch from now() - min(d.created_at) filter (where d.status = 'pending'))::float8 as oldest
      from app_webhook_deliveries d
     where d.status in ('pending', 'running', 'dead')
       and ${owner === undefined ? sql`true` : owner === null ? sql`d.owner is null` : sql`d.owner = ${owner}`}
       and ${scope.kind === 'all' ? sql`true` : sql`exists (select 1 from app_endpoint_gate g where g.endpoint_id = d.endpoint_id and g.owner = ${scope.owner})`}`;
  return {
    depth: row.pending + row.running,
    pending: row.pending,
    running: row.running,
    dead: row.dead,
    oldestPendingAgeSeconds: Math.max(0, row.oldest ?? 0),
    oldestPendingAt: row.oldest_at,
  };
}
