/** One retained event with its payload and delivery counts. */
import { isIdText } from '../ids.ts';
import { inScope, type TenantScope } from '../../access/tenant-scope.ts';
import { readScope, type Actor } from '../../access/actor.ts';
import type { WebhookDeps } from '../deps.ts';
import {
  EVENT_COLUMNS,
  eventNotFound,
  eventsWithCountsFrom,
  toEvent,
  type EventRecord,
  type EventRow,
} from './record.ts';

/**
 * Event `id` in the actor's scope (as {@link eventInScope}). Throws 403 `APP_FORBIDDEN` first to a
 * grant that may not read webhooks.
 */
export async function showEvent(deps: Pick<WebhookDeps, 'sql'>, actor: Actor, id: string): Promise<EventRecord> {
  return eventInScope(deps, readScope(actor, 'webhooks.read'), id);
}

/**
 * Event `id` in `scope`, its counts of the deliveries `scope` reaches, for the core's own
 * operations once they have authorized their actor. Throws 404 `APP_WEBHOOK_EVENT_NOT_FOUND`
 * (also for another tenant's event).
 */
export async function eventInScope(
  deps: Pick<WebhookDeps, 'sql'>,
  scope: TenantScope,
  id: string,
): Promise<EventRecord> {
  const { sql } = deps;
  if (!isIdText(id)) throw eventNotFound(id);
  const rows = await sql<
    EventRow[]
  >`select ${sql.unsafe(EVENT_COLUMNS)} ${eventsWithCountsFrom(sql, scope)} where e.id = ${id}`;
  if (rows.length === 0 || !inScope(scope, rows[0].owner)) throw eventNotFound(id);
  return toEvent(rows[0]);
}
