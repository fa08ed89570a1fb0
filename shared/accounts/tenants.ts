/**
 * The tenants the service knows (for the console's Tenants page, for admins): every owner
 * named by an endpoint, a user or an API token, with how many of each it has. A tenant is not a
 * record of its own: it exists while something names it.
 */
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import { pageOffset } from '../db/page-depth.ts';

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

/**
 * One page of the tenants, by owner, with how many there are. A deployment whose every tenant
 * has accounts and endpoints names tens of thousands of owners: the Tenants page lists them a
 * page at a time, and a page past `api.maxPageOffset` is 422 `APP_PAGE_TOO_DEEP` as every
 * other listing's.
 */
export async function listTenants(
  deps: { sql: Sql; config: Pick<Config, 'api'> },
  window: { page: number; perPage: number },
): Promise<{ records: Tenant[]; total: number }> {
  const { sql } = deps;
  const perPage = Math.min(window.perPage, MAX_TENANTS);
  const offset = pageOffset(window.page, perPage, deps.config.api.maxPageOffset, []);
  const [records, [{ total }]] = await Promise.all([
    sql<Tenant[]>`
      select owner, sum(endpoints)::int as endpoints, sum(users)::int as users, sum(tokens)::int as tokens from (
        select owner, count(*) as endpoints, 0 as users, 0 as tokens from app_endpoint_gate where owner is not null group by owner
        union all
        select owner, 0, count(*), 0 from app_users where owner is not null and disabled_at is null group by owner
        union all
        select owner, 0, 0, count(*) from app_api_tokens where owner is not null and revoked_at is null group by owner
      ) named
      group by owner order by owner limit ${perPage} offset ${offset}`,
    sql<{ total: number }[]>`
      select count(*)::int as total from (
        select owner from app_endpoint_gate where owner is not null
        union
        select owner from app_users where owner is not null and disabled_at is null
        union
        select owner from app_api_tokens where owner is not null and revoked_at is null
      ) named`,
  ]);
  return { records, total };
}
