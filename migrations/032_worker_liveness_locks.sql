-- The liveness lock of the worker process a pool belongs to (worker/heartbeat.ts): each worker
-- process holds the session advisory lock (class 0x61707003, this key) on a connection of its own
-- for its whole life, taken before it writes any heartbeat row. PostgreSQL releases it the moment
-- that connection closes, so a row naming a key no backend holds any more is a pool whose process
-- is gone, recovered at once instead of after `worker.staleAfter`. Null: rows of versions without
-- the lock, or written while the lock could not be taken; those follow the `staleAfter` rule alone.
alter table app_worker_heartbeats add column if not exists liveness_key integer;
