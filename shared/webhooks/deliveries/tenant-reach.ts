/**
 * Which deliveries a tenant reaches: those of its own events to endpoints that are still its own
 * (the endpoint's gate names the owner, migrations/025). An endpoint moved to another tenant
 * takes its deliveries out of the old owner's reach at once, and the worker kills the old owner's
 * undelivered ones (worker/delivery/deliver.ts). The delivery listing, the counts beside an
 * event and the answer to an emit that repeats an `eventId` all ask this, so an event's counts
 * are what its delivery listing shows. Operators (every tenant) reach every delivery.
 */
import type { Sql } from '../../db/connect.ts';
import type { Fragment } from '../../db/bounded-total.ts';
import type { TenantScope } from '../../access/tenant-scope.ts';

/**
 * The condition on deliveries `d` that they go to an endpoint `owner` owns, as a set of the
 * tenant's endpoints (for statements that read every matching row: a count, a sorted page).
 */
export const toEndpointsOf = (sql: Sql, owner: string): Fragment =>
  sql`d.endpoint_id in (select g.endpoint_id from app_endpoint_gate g where g.owner = ${owner})`;

/** The same condition asked of each row (for a page read in order through an index). */
export const toEndpointOwnedBy = (sql: Sql, owner: string): Fragment =>
  sql`(select g.owner from app_endpoint_gate g where g.endpoint_id = d.endpoint_id) = ${owner}`;

/** The conditions on deliveries `d` of a tenant's reach: its own, to its endpoints; none for an operator. */
export const keptByTenant = (sql: Sql, owner: string): Fragment =>
  sql`d.owner = ${owner} and ${toEndpointsOf(sql, owner)}`;

/** Of `deliveries`, those `scope` reaches (in their order): every one for all tenants. */
export async function inTenantReach<T extends { id: string }>(
  sql: Sql,
  scope: TenantScope,
  deliveries: readonly T[],
): Promise<T[]> {
  if (scope.kind === 'all' || deliveries.length === 0) return [...deliveries];
  const ids = deliveries.map((delivery) => delivery.id);
  const rows = await sql<{ id: string }[]>`
    select d.id from app_webhook_deliveries d
     where d.id = any(${ids}::text[]) and ${keptByTenant(sql, scope.owner)}`;
  const reached = new Set(rows.map((row) => row.id));
  return deliveries.filter((delivery) => reached.has(delivery.id));
}
