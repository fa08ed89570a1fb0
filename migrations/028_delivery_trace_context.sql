-- The trace context of the emit that wrote a delivery (a W3C `traceparent`: version, trace id, the
-- emit span's id, flags), so that every attempt, however late and in whatever worker, is a span of
-- the emit's trace. Null when the emitting process did not trace. It is kept on the row, not only in
-- the job payload, because jobs are also rebuilt from the row: a FIFO delivery admitted to its
-- endpoint's line, `jobs:retry`, the recovery of a dead worker's jobs.
alter table app_webhook_deliveries add column if not exists traceparent text;
