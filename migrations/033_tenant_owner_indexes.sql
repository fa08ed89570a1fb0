-- The owners of the users and API tokens that count for a tenant (enabled users, tokens not
-- revoked), in order, for the tenants listing (shared/accounts/tenants.ts). With the endpoints'
-- owner index (app_endpoint_gate_owner), each table's owners are read in order from an index
-- alone and merged: a page of tenants reads the owners up to its last one and counts only its
-- own tenants' endpoints, users and tokens, where it grouped and sorted every endpoint, user and
-- token at each call. BENCHMARKS.md ("Tenants listing") gives the figures.
--
-- Users and tokens are few (one per person or client, thousands where endpoints are a hundred
-- thousand): each index builds in milliseconds, holding writes to its table meanwhile.
create index if not exists app_users_owner on app_users (owner)
  where owner is not null and disabled_at is null;
create index if not exists app_api_tokens_owner on app_api_tokens (owner)
  where owner is not null and revoked_at is null;
