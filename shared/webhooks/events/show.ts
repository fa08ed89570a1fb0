/** One retained event with its payload and delivery counts. */
import { isIdText } from '../ids.ts';
import { inScope, type TenantScope } from '../../access/tenant-scope.ts';
import type { WebhookDeps } from '../deps.ts';
import {
  EVENT_COLUMNS,
  eventNotFound,
  eventsWithCountsFrom,
  toEvent,
  type EventRecord,
  type EventRow,
} from './record.ts';

/** Event `id` in `scope`, its counts of the deliveries `scope` reaches. Throws 404 `APP_WEBHOOK_EVENT_NOT_FOUND` (also for another tenant's event). */
export async function showEvent(deps: Pick<WebhookDeps, 'sql'>, scope: TenantScope, id: string): Promise<EventRecord> {
  const { sql } = deps;
  if (!isIdText(id)) throw eventNotFound(id);
  const rows = await sql<
    EventRow[]
  >`select ${sql.unsafe(EVENT_COLUMNS)} ${eventsWithCountsFrom(sql, scope)} where e.id = ${id}`;
  if (rows.length === 0 || !inScope(scope, rows[0].owner)) throw eventNotFound(id);
  return toEvent(rows[0]);
}
