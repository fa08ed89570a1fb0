-- Two prunes may run at once (the worker's hourly `app/prune` and an operator's `app prune`), and
-- both make the weeks ahead (app_delivery_partitions_ensure, migration 023). One call at a time,
-- to the end of its transaction: the second then reads the highest partition as the first left it
-- and makes only what is still missing (most often nothing), instead of a week already made, whose
-- name is taken. The lock is an advisory one, which no reader or writer of the tables waits for.
-- Rolling deploy: the processes of the release before call app_delivery_partitions_ensure by
-- the same name and arguments, which this migration's one transaction renames and makes again
-- around the lock: they find it at every moment, and their prunes take the lock too.
do $$
begin
  if to_regprocedure('app_delivery_partitions_make(timestamptz)') is null then
    alter function app_delivery_partitions_ensure(timestamptz) rename to app_delivery_partitions_make;
  end if;
end $$;

-- Makes the weekly partitions missing up to the week holding `p_until` (app_delivery_partitions_make,
-- migration 023), one call at a time; answers how many weeks it added.
create or replace function app_delivery_partitions_ensure(p_until timestamptz) returns integer
language plpgsql
as $$
begin
  perform pg_advisory_xact_lock(hashtext('app_delivery_partitions_ensure'));
  return app_delivery_partitions_make(p_until);
end $$;
