-- Auto-disable: when an endpoint was last enabled again, so that failures from
-- before an operator re-enabled it do not disable it again at the next sweep.
alter table app_webhooks add column if not exists enabled_at timestamptz;
