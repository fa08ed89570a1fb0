/** Removing an endpoint, with its secrets, deliveries and attempts (foreign keys cascade). */
import { endpointNotFound, endpointRow, endpointTable, notifyEndpointsChanged, type EndpointGuard } from './endpoint-store.ts';
import type { WebhookDeps } from './deps.ts';

/**
 * Deletes endpoint `id` and everything recorded for it (secrets, deliveries, attempts); queued
 * jobs of its deliveries find nothing and end. Throws 404 `APP_WEBHOOK_NOT_FOUND`. Answers
 * `{id, removed: true}`.
 */
export async function remove(deps: WebhookDeps, id: string, options: { guard?: EndpointGuard } = {}): Promise<{ id: string; removed: true }> {
  if (typeof id !== 'string') throw endpointNotFound(id);
  const owner = await deps.sql.begin(async (tx) => {
    if (options.guard) options.guard(await endpointRow(tx, deps.config, id, { forUpdate: true }));
    const rows = await tx<{ owner: string | null }[]>`delete from ${endpointTable(tx, deps.config)} where id = ${id} returning owner`;
    if (rows.length === 0) throw endpointNotFound(id);
    await notifyEndpointsChanged(tx, [rows[0].owner]);
    return rows[0].owner;
  });
  deps.cache?.invalidate(owner);
  deps.log.info({ endpoint: id }, 'webhook endpoint removed');
  return { id, removed: true };
}
