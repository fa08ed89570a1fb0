/** The test event: one event sent to one endpoint, whether or not it subscribed (`webhooks:send`, the API's test action). */
import { sendToEndpoint } from '../events/emit.ts';
import type { Delivery } from '../events/enqueue.ts';
import type { Actor } from '../../access/actor.ts';
import type { WebhookDeps } from '../deps.ts';

/** The event sent by `sendTestEvent` unless another is named. */
export const TEST_EVENT = 'webhook.test';

/**
 * Sends one event (default `webhook.test`, data `{}`) to endpoint `id` in `scope` alone, through
 * the queue. Throws what `sendToEndpoint` throws.
 */
export function sendTestEvent(
  deps: WebhookDeps,
  actor: Actor,
  id: string,
  input: { type?: string; data?: unknown } = {},
): Promise<Delivery> {
  return sendToEndpoint(deps, actor, id, input.type ?? TEST_EVENT, input.data === undefined ? {} : input.data);
}
