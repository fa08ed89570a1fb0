-- Per-endpoint rate limit: `rate_limit` deliveries per second at most, held
-- across every worker process by pacing: each start reserves the endpoint's next free slot,
-- 1/rate_limit seconds after the previous one, and a delivery whose slot is later waits for it.
alter table app_webhooks add column if not exists rate_limit integer check (rate_limit is null or rate_limit > 0);
create table if not exists app_endpoint_pace (
  endpoint_id  text primary key,
  -- the earliest time the next delivery to this endpoint may start
  next_at      timestamptz not null
);
