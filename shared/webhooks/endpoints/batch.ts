/**
 * Endpoints by id, many at once, in the actor's tenant scope: what GraphQL's batch loader
 * calls to resolve the endpoint of every delivery in a page with ONE read of the store. Same rule as
 * show.ts `endpointInScope` (`inScope` of tenant-scope.ts): an endpoint of another tenant
 * is left out exactly like one that does not exist.
 */
import type { WebhookDeps } from '../deps.ts';
import { endpointStoreOf, toShownEndpoint, type ShownEndpoint } from './store.ts';
import { headerValuesShown, type HeaderReveal } from './show.ts';
import { inScope } from '../../access/tenant-scope.ts';
import { readScope, type Actor } from '../../access/actor.ts';

/**
 * id -> endpoint for the ids that exist and are in the actor's scope, header values as
 * `showEndpoint` answers them; one read of the store whatever the number of ids. Throws 403
 * `APP_FORBIDDEN` first to a grant that may not read webhooks (or reveal, when asked).
 */
export async function endpointsInScope(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  actor: Actor,
  ids: readonly string[],
  options: HeaderReveal = {},
): Promise<Map<string, ShownEndpoint>> {
  const scope = readScope(actor, 'webhooks.read');
  const reveal = headerValuesShown(actor, options);
  const wanted = [...new Set(ids.filter((id) => typeof id === 'string' && id.length > 0 && id.length <= 100))];
  if (wanted.length === 0) return new Map();
  const records = await endpointStoreOf(deps).getMany(wanted);
  return new Map(
    records
      .filter((record) => inScope(scope, record.owner))
      .map((record) => [record.id, toShownEndpoint(record, deps.config, reveal)]),
  );
}
