-- When the hourly prune (the worker's task `app/prune`: retention, the endpoints failing for
-- `webhooks.disableAfter`, ended sessions) last ran to its end, in one row the worker writes as
-- the task completes (shared/webhooks/prune-runs.ts). Every process reads it with its queue gauges
-- and exports it as `app_prune_last_success_timestamp_seconds`, so a prune that fails every hour
-- shows on the scrape of any process, whichever worker ran it and however often workers restart.
--
-- The row is made with the time of this migration: until the first prune completes it says "not
-- since the service was installed or upgraded", so a deployment whose prunes never succeed (a role
-- short of a privilege) is told like one whose prunes stopped, and a new one is not.
create table if not exists app_prune_runs (
  one          boolean primary key default true check (one),
  succeeded_at timestamptz not null
);

insert into app_prune_runs (succeeded_at) values (now()) on conflict do nothing;
