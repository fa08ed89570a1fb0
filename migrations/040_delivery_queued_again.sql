-- When a delivery was last queued again by hand (`jobs:retry`, `jobs:resend`, a replay of dead
-- deliveries), by whom (the actor's id: a user, a token, a portal session's `portal:<owner>`, or
-- `operator`), and how many attempts it had made before: the attempts numbered above that are its
-- current series, and its last error (`lastError`) is that series' (none until it has made one),
-- so a delivery pending again never shows the previous series' error as its current state. Null on
-- deliveries never queued again, and on those queued again before this column.
alter table app_webhook_deliveries
  add column if not exists queued_again_at timestamptz,
  add column if not exists queued_again_by text,
  add column if not exists attempts_before int;
