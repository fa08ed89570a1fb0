/**
 * Endpoints by id, many at once, through a tenant scope: what GraphQL's batch loader
 * calls to resolve the endpoint of every delivery in a page with ONE statement. Same rule as
 * show.ts `endpointInScope` (`inScope` of tenant-scope.ts): an endpoint of another tenant
 * is left out exactly like one that does not exist.
 */
import type { WebhookDeps } from '../deps.ts';
import { endpointTable, toEndpoint, type Endpoint, type EndpointRow } from './store.ts';
import { inScope, type TenantScope } from '../../access/tenant-scope.ts';

/** id -> endpoint for the ids that exist and are in `scope`; one statement whatever the number of ids. */
export async function endpointsInScope(
  deps: Pick<WebhookDeps, 'config' | 'sql'>,
  scope: TenantScope,
  ids: readonly string[],
): Promise<Map<string, Endpoint>> {
  const wanted = [...new Set(ids.filter((id) => typeof id === 'string' && id.length > 0 && id.length <= 100))];
  if (wanted.length === 0) return new Map();
  const { sql, config } = deps;
  const rows = await sql<EndpointRow[]>`select * from ${endpointTable(sql, config)} where id = any(${wanted}::text[])`;
  return new Map(rows.filter((row) => inScope(scope, row.owner)).map((row) => [row.id, toEndpoint(row, config)]));
}
