-- Operational events: when `app.endpoint.failing` was last emitted for an
-- endpoint (at most once an hour).
alter table app_webhooks add column if not exists failing_notified_at timestamptz;
