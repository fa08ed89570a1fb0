-- Listings at scale. A big table's deliveries listing reads the newest of each
-- state asked, one ordered scan per state (shared/webhooks/deliveries/list.ts). Filtered by
-- endpoint, those scans had only (endpoint_id, created_at) to go through, keeping the rows of one
-- state: a state the endpoint has few or none of (running, pending) read every delivery the
-- endpoint ever had. Measured at 5 million deliveries, one endpoint's listing took 891 ms; with
-- the state in the index, 1.1 ms.
--
-- The new index replaces the old one rather than joining it, so a delivery's writes keep the same
-- number of index entries (a state change writes new entries in every index of the table
-- already, the state being indexed). Whatever looked deliveries up by endpoint alone (deleting an
-- endpoint's deliveries, the worker's per-endpoint checks) uses its leading column as before.
--
-- Built inside the migration's transaction: writes to the deliveries table wait for it (about
-- 2 s per million deliveries on a small machine).
create index if not exists app_webhook_deliveries_endpoint_status
  on app_webhook_deliveries (endpoint_id, status, created_at desc);
drop index if exists app_webhook_deliveries_endpoint;
