-- Emit deduplication by the sender's own id: `source_id` is the `eventId` an
-- emit carried; one event per (owner, source_id) at a time. An id older than
-- webhooks.dedupeWindow is released (set null) when it is used again.
alter table app_events add column if not exists source_id text;
create unique index if not exists app_events_source on app_events ((coalesce(owner, '')), source_id) where source_id is not null;
