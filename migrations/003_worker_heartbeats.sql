-- Liveness of worker processes, for crash recovery. One row per graphile-worker pool
-- (`pool_id` is what graphile-worker writes into `locked_by` of the jobs the pool holds). A live
-- pool refreshes `seen_at` every `worker.heartbeat`; a pool silent for `worker.staleAfter` is
-- presumed dead and any live worker unlocks its jobs (graphile_worker.force_unlock_workers)
-- instead of leaving them locked for graphile-worker's four hours. A pool that stops cleanly
-- deletes its row. graphile-worker 0.18 keeps no table of its own pools, hence this one.
create table if not exists app_worker_heartbeats (
  pool_id     text primary key,
  host        text not null,
  pid         integer not null,
  started_at  timestamptz not null default now(),
  seen_at     timestamptz not null default now()
);
create index if not exists app_worker_heartbeats_seen_at on app_worker_heartbeats (seen_at);
