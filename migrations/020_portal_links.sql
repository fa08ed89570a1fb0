-- Tenant portal links: a single-use link, valid for `auth.portalLinkTtl`, that signs
-- a tenant's member into the console scoped to its owner, without a user account (as Svix's app
-- portal does). Only the SHA-256 digest of the link's token is stored; spending it is one
-- conditional update, so a link signs in once even when two requests race.
create table if not exists app_portal_links (
  digest      text primary key,
  owner       text not null,
  role        text not null check (role in ('member', 'viewer')),
  -- the user who made it (null: the CLI)
  created_by  text references app_users (id) on delete set null,
  created_at  timestamptz not null,
  expires_at  timestamptz not null,
  used_at     timestamptz
);
create index if not exists app_portal_links_expires on app_portal_links (expires_at);

-- A portal session belongs to no user: it carries the tenant and the role its link gave.
alter table app_sessions alter column user_id drop not null;
alter table app_sessions add column if not exists portal_owner text;
alter table app_sessions add column if not exists portal_role text check (portal_role in ('member', 'viewer'));
alter table app_sessions add constraint app_sessions_user_or_portal
  check ((user_id is null) = (portal_owner is not null) and (portal_owner is null) = (portal_role is null));
