/** Removing an endpoint, with its secrets, deliveries and attempts (foreign keys cascade). */
import { endpointNotFound, endpointTable, notifyEndpointsChanged } from './store.ts';
import type { WebhookDeps } from '../deps.ts';
import { authorize, type Actor } from '../../access/actor.ts';

/**
 * Deletes endpoint `id` and everything recorded for it (secrets, deliveries, attempts); queued
 * jobs of its deliveries find nothing and end. One statement: an endpoint outside `scope` is
 * not deleted and, like an unknown id, answers 404 `APP_WEBHOOK_NOT_FOUND`. Answers
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
  const owner = await deps.sql.begin(async (tx) => {
    const rows = await tx<{ owner: string | null }[]>`
      delete from ${endpointTable(tx, deps.config)}
       where id = ${id} and ${scope.kind === 'all' ? tx`true` : tx`owner = ${scope.owner}`}
      returning owner`;
    if (rows.length === 0) throw endpointNotFound(id);
    await notifyEndpointsChanged(tx, [rows[0].owner]);
    return rows[0].owner;
  });
  deps.cache?.invalidate(owner);
  deps.log.info({ endpoint: id }, 'webhook endpoint removed');
  return { id, removed: true };
}
