-- Subscription filters: an endpoint may carry a filter (a JSON document in MongoDB's query style,
-- checked by the core before it is stored) that an event must match, beside its type patterns, to
-- reach it. Null: no filter, every event its patterns match.
alter table app_webhooks add column if not exists filter jsonb;

-- How many endpoints subscribed to an event's type were left out by their filters, counted at emit
-- time and kept with the event, so its page can say why it reached fewer endpoints.
alter table app_events add column if not exists filtered_out integer not null default 0
  check (filtered_out >= 0);
