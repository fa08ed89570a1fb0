/**
 * Operational events (docs/events.md "Operational events"): the service tells about itself through the
 * ordinary pipeline. `app.endpoint.disabled` (with the reason), `app.endpoint.enabled`,
 * `app.delivery.dead` and `app.endpoint.failing` (the first failure after a success, at most once
 * an hour per endpoint) go to the endpoints of the same owner that subscribe to them with an `app.`
 * pattern (`app.*`, `app.endpoint.*`, or the name itself: `*` does not include them, so an endpoint
 * that takes every application event is not sent the service's own), and to owner-less endpoints
 * (the operator's) subscribed the same way. A delivery of an operational event never causes another
 * one. Emitting one never fails what caused it: a failure is logged.
 */
import type { WebhookDeps } from './deps.ts';
import { emit } from './events/emit.ts';
import { maskUrl } from './destinations/credentials.ts';
import { SERVICE_TYPE_PREFIX } from './events/reserved-types.ts';

export const OPERATIONAL_EVENTS = [
  'app.endpoint.disabled',
  'app.endpoint.enabled',
  'app.delivery.dead',
  'app.endpoint.failing',
] as const;
export type OperationalEvent = (typeof OPERATIONAL_EVENTS)[number];

export { isOperational } from './events/reserved-types.ts';

/** A subscription to operational events: an explicit `app.` pattern. */
const operatorPattern = (pattern: string): boolean => pattern.startsWith(SERVICE_TYPE_PREFIX);

/**
 * Emits `type` with `data` about something of `owner`: to its subscribed endpoints, and (for a
 * tenant's event) to owner-less endpoints subscribed to an `app.` pattern. An endpoint's `url` in
 * `data` is sent masked (a broker url's credentials as `***`), whoever passes it in.
 */
export async function emitOperational(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'log' | 'cache' | 'metrics'>,
  type: OperationalEvent,
  data: Record<string, unknown>,
  owner: string | null,
): Promise<void> {
  if (typeof data.url === 'string') data = { ...data, url: maskUrl(data.url) };
  try {
    await emit(deps, type, data, { owner, only: operatorPattern });
    if (owner !== null) await emit(deps, type, { ...data, owner }, { owner: null, only: operatorPattern });
  } catch (error) {
    deps.log.error({ err: error, event: type, owner }, 'an operational event could not be emitted');
  }
}
