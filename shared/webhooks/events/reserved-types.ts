/**
 * Event types starting with `app.` are the service's own (operational events, docs/events.md):
 * a tenant's caller may neither emit one nor send one as a test, so what a receiver gets under
 * such a name always comes from the service (or from an admin, who runs it).
 */
import type { Actor } from '../../access/actor.ts';
import { unprocessable } from '../../errors/app-error.ts';

/** The prefix of the service's own event types. */
export const SERVICE_TYPE_PREFIX = 'app.';

/** Whether `type` is one of the service's own event types (whose deliveries raise none). */
export const isOperational = (type: string): boolean => type.startsWith(SERVICE_TYPE_PREFIX);

/** Throws 422 `APP_WEBHOOK_EVENT_TYPE_RESERVED` when `actor` reaches one tenant and `type` is the service's own. */
export function assertTypeNotReserved(actor: Actor, type: string): void {
  if (actor.scope.kind === 'all' || !isOperational(type)) return;
  throw unprocessable(
    `event type ${type} is reserved: types starting with "${SERVICE_TYPE_PREFIX}" are the service's own operational events`,
    { code: 'APP_WEBHOOK_EVENT_TYPE_RESERVED', data: { field: 'type', type } },
  );
}
