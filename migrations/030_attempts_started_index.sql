-- Attempts by the time they started, for the console's charts (shared/webhooks/deliveries/series.ts):
-- the attempts of the last 24 hours (or hour) are read from this index in each partition instead
-- of every attempt of every partition. The partitions are by delivery id, and a delivery's
-- attempts may start long after it was made (retries, a replay of a dead delivery weeks old), so
-- the time of an attempt prunes only the partitions of deliveries made after it; in the others the
-- index answers an empty range at once.
--
-- One more entry per attempt written (attempts are only ever inserted). Partitions made later
-- (app_delivery_partitions_ensure) get the index when attached, and a partition rewritten by
-- retention (app_delivery_partition_rewrite) builds every index of its parent, this one included.
--
-- The index is made on the parent alone (no partition read), then built on each partition and
-- attached; once every partition has its own, the parent's is valid. A build holds a SHARE lock
-- on its partition (attempts of that week's deliveries wait to be written) until the migration
-- commits; the lock is asked patiently (half a second at a time, app_lock_patiently) and the
-- partitions are built oldest first, so the current week's, the one written most, is held for
-- the shortest time. BENCHMARKS.md gives the build's time at 5 million deliveries.
create index if not exists app_webhook_attempts_started on only app_webhook_attempts (started_at);

do $$
declare
  v_part record;
begin
  for v_part in
    select c.relname::text as name, c.relname::text || '_started' as index
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'app_webhook_attempts'::regclass
       and not exists (select 1 from pg_inherits x where x.inhparent = 'app_webhook_attempts_started'::regclass
                          and x.inhrelid in (select y.indexrelid from pg_index y where y.indrelid = c.oid))
     order by substring(pg_get_expr(c.relpartbound, c.oid) from 'TO [(]''([^'']+)''[)]') nulls first
  loop
    perform app_lock_patiently(format('lock table %I in share mode', v_part.name));
    execute format('create index if not exists %I on %I (started_at)', v_part.index, v_part.name);
    execute format('alter index app_webhook_attempts_started attach partition %I', v_part.index);
  end loop;
end $$;
