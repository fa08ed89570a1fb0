-- The shared backend on PostgreSQL, used when
-- `shared.backend` is `postgres`.
--
-- app_shared_entries: expiring JSON entries; idempotency records and sign-in lockouts.
-- `value` is JSON text, kept as written (stored answers are replayed byte for byte). Expired rows
-- read as absent and are purged by the web processes every five minutes.
create table if not exists app_shared_entries (
  key         text primary key,
  value       text not null,
  expires_at  timestamptz not null
);
create index if not exists app_shared_entries_expires_at on app_shared_entries (expires_at);

-- app_rate_limits: fixed-window rate-limit counters (rate-limiter-flexible's Postgres layout,
-- with a timestamptz expiry on the database clock). Unlogged: one write per request, and
-- counters lost in a crash or a failover only reset some windows.
create unlogged table if not exists app_rate_limits (
  key         text primary key,
  points      integer not null,
  expires_at  timestamptz not null
);
create index if not exists app_rate_limits_expires_at on app_rate_limits (expires_at);
