/**
 * The tenants the service knows (for the console's Tenants page, for admins): every owner
 * named by an endpoint, a user or an API token, with how many of each it has. A tenant is not a
 * record of its own: it exists while something names it.
 */
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';

export interface Tenant {
  owner: string;
  endpoints: number;
  /** Enabled users (members and viewers) of the tenant. */
  users: number;
  /** API tokens in use (not revoked) bound to the tenant. */
  tokens: number;
}

/** Most tenants listed at once. */
export const MAX_TENANTS = 1000;

/** Every tenant, by owner, at most {@link MAX_TENANTS}. */
export async function listTenants(deps: { sql: Sql; config: Pick<Config, 'webhooks'> }): Promise<Tenant[]> {
  const { sql } = deps;
  return sql<Tenant[]>`
    select owner, sum(endpoints)::int as endpoints, sum(users)::int as users, sum(tokens)::int as tokens from (
      select owner, count(*) as endpoints, 0 as users, 0 as tokens from app_endpoint_gate where owner is not null group by owner
      union all
      select owner, 0, count(*), 0 from app_users where owner is not null and disabled_at is null group by owner
      union all
      select owner, 0, 0, count(*) from app_api_tokens where owner is not null and revoked_at is null group by owner
    ) named
    group by owner order by owner limit ${MAX_TENANTS}`;
}
