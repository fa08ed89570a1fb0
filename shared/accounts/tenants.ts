/**
 * The tenants the service knows (for the console's Tenants page, for admins): every owner
 * named by an endpoint, a user or an API token, with how many of each it has. A tenant is not a
 * record of its own: it exists while something names it.
 */
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import { pageOffset } from '../db/page-depth.ts';
import { authorize, type Actor } from '../access/actor.ts';

export interface Tenant {
  owner: string;
  endpoints: number;
  /** Enabled users (members and viewers) of the tenant. */
  users: number;
  /** API tokens in use (not revoked) bound to the tenant. */
  tokens: number;
}

/** Most tenants one page lists (the owners an admin picks from on the overview are the first page of this size). */
export const MAX_TENANTS = 1000;

/** Every owner in order, once: the union that {@link listTenants} and {@link firstOwners} read. */
const ownersInOrder = (sql: Sql) => sql`
  select owner from app_endpoint_gate where owner is not null
  union
  select owner from app_users where owner is not null and disabled_at is null
  union
  select owner from app_api_tokens where owner is not null and revoked_at is null
  order by owner`;

/**
 * The first `limit` owners in order, with nothing counted: what a choice of tenants needs (the
 * console's tenant filters), without the counts and the total the Tenants page pays for. Throws
 * 403 `APP_FORBIDDEN` first to a grant that may not list tenants.
 */
export async function firstOwners(deps: { sql: Sql }, actor: Actor, limit = MAX_TENANTS): Promise<string[]> {
  authorize(actor, 'tenants.read');
  const rows = await deps.sql<
    { owner: string }[]
  >`select owner from (${ownersInOrder(deps.sql)} limit ${limit}) o order by owner`;
  return rows.map((row) => row.owner);
}

/**
 * One page of the tenants, by owner, with how many there are. A deployment whose every tenant
 * has accounts and endpoints names tens of thousands of owners: the Tenants page lists them a
 * page at a time, and a page past `api.maxPageOffset` is 422 `APP_PAGE_TOO_DEEP` as every
 * other listing's. Throws 403 `APP_FORBIDDEN` first to a grant that may not list tenants.
 */
export async function listTenants(
  deps: { sql: Sql; config: Pick<Config, 'api'> },
  actor: Actor,
  window: { page: number; perPage: number },
): Promise<{ records: Tenant[]; total: number }> {
  authorize(actor, 'tenants.read');
  const { sql } = deps;
  const perPage = Math.min(window.perPage, MAX_TENANTS);
  const offset = pageOffset(window.page, perPage, deps.config.api.maxPageOffset, []);
  // Each table's owners come in order from its owner index (app_endpoint_gate_owner,
  // app_users_owner, app_api_tokens_owner: migration 033) and are merged without duplicates, so
  // a page reads the owners up to its last one and counts its own tenants' rows alone; the total
  // reads every owner entry once, in order, and neither groups nor sorts (BENCHMARKS.md, "Tenants
  // listing"). The `order by` is what makes PostgreSQL merge the indexes for the total too.
  const owners = ownersInOrder(sql);
  const [records, [{ total }]] = await Promise.all([
    sql<Tenant[]>`
      select o.owner,
             (select count(*) from app_endpoint_gate g where g.owner = o.owner)::int as endpoints,
             (select count(*) from app_users u where u.owner = o.owner and u.disabled_at is null)::int as users,
             (select count(*) from app_api_tokens t where t.owner = o.owner and t.revoked_at is null)::int as tokens
        from (${owners} limit ${perPage} offset ${offset}) o
       order by o.owner`,
    sql<{ total: number }[]>`select count(*)::int as total from (${owners}) named`,
  ]);
  return { records, total };
}
