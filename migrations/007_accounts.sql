-- Accounts: users who sign in with a password, their sessions, single-use password
-- links, and tokens minted by a user. Emails are unique without regard to case. Only digests of
-- session ids and link tokens are stored: a copy of this database signs nobody in.

create table if not exists app_users (
  id             text primary key,
  email          text not null,
  name           text,
  role           text not null check (role in ('admin', 'member', 'viewer')),
  -- the tenant a member or viewer belongs to; admins reach every tenant and have none
  owner          text,
  -- argon2id PHC string; null until the user sets a password through a link
  password_hash  text,
  disabled_at    timestamptz,
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now(),
  check ((role = 'admin') = (owner is null))
);
create unique index if not exists app_users_email on app_users (lower(email));
create index if not exists app_users_created on app_users (created_at, id);

create table if not exists app_sessions (
  id            text primary key,
  -- SHA-256 of the cookie's secret part
  digest        text not null unique,
  user_id       text not null references app_users (id) on delete cascade,
  -- secret the session's CSRF tokens are derived from
  csrf_secret   text not null,
  created_at    timestamptz not null,
  last_seen_at  timestamptz not null,
  -- absolute expiry (auth.session.absolute); idle expiry is judged from last_seen_at
  expires_at    timestamptz not null
);
create index if not exists app_sessions_user on app_sessions (user_id);
create index if not exists app_sessions_expires on app_sessions (expires_at);

create table if not exists app_password_links (
  digest      text primary key,
  user_id     text not null references app_users (id) on delete cascade,
  -- 'reset' (forgot-password, one hour) or 'invite' (users:create without a password)
  purpose     text not null check (purpose in ('reset', 'invite')),
  created_at  timestamptz not null,
  expires_at  timestamptz not null,
  used_at     timestamptz
);
create index if not exists app_password_links_user on app_password_links (user_id);

alter table app_api_tokens add column if not exists user_id text references app_users (id) on delete cascade;
create index if not exists app_api_tokens_user on app_api_tokens (user_id);
