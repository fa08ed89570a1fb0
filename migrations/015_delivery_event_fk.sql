-- Emit speed: the foreign key from a delivery to its event is checked once per
-- delivery row (1,000 lookups for an emit to 1,000 endpoints) and protects nothing the service
-- can do: an event and its deliveries are written in one transaction, and events are deleted only
-- by the retention prune, and only once none of their deliveries is left
-- (shared/webhooks/retention.ts). The index that joins them stays.
alter table app_webhook_deliveries drop constraint if exists app_webhook_deliveries_event_id_fkey;
