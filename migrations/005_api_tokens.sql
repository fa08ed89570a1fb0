-- API tokens for REST and GraphQL clients. A token is shown once, when it is made;
-- only its SHA-256 digest is stored. `role` is admin, member or viewer; member and viewer
-- tokens are bound to one `owner` (tenant), admin tokens to none. Tokens minted by a user get
-- its id in a nullable column added by 007_accounts.sql; nothing here changes.

create table if not exists app_api_tokens (
  id            text primary key,
  name          text not null,
  role          text not null check (role in ('admin', 'member', 'viewer')),
  owner         text,
  -- first characters of the token (its fixed prefix and 4 more), to recognise it in listings
  prefix        text not null,
  digest        text not null unique,
  created_at    timestamptz not null default now(),
  expires_at    timestamptz,
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  check ((role = 'admin') = (owner is null))
);
create index if not exists app_api_tokens_created on app_api_tokens (created_at, id);
