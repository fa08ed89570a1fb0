/** Removing an endpoint, with its secrets, deliveries and attempts (its gate row's foreign keys cascade). */
import { deleteEndpoint, endpointNotFound } from './store.ts';
import type { WebhookDeps } from '../deps.ts';
import { authorize, type Actor } from '../../access/actor.ts';

/**
 * Deletes endpoint `id` and everything recorded for it (secrets, deliveries, attempts); queued
 * jobs of its deliveries find nothing and end. An endpoint outside `scope` is not deleted and,
 * like an unknown id, answers 404 `APP_WEBHOOK_NOT_FOUND`. Answers
 * `{id, removed: true}`. A role that may not remove endpoints gets 403 `APP_FORBIDDEN`.
 */
export async function removeEndpoint(
  deps: WebhookDeps,
  actor: Actor,
  id: string,
): Promise<{ id: string; removed: true }> {
  authorize(actor, 'endpoints.remove');
  const { scope } = actor;
  if (typeof id !== 'string') throw endpointNotFound(id);
  await deleteEndpoint(deps, id, scope);
  deps.log.info({ endpoint: id }, 'webhook endpoint removed');
  return { id, removed: true };
}
