-- Retention: events are pruned by age once none of their deliveries is left;
-- this index lets the prune find the oldest events without scanning by owner.
create index if not exists app_events_created on app_events (created_at);
