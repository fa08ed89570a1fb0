-- A partition's rewrite (app_delivery_partition_rewrite, migration 026) asks, before its analyze
-- step, whether each new table has statistics yet; it read the catalog table `pg_statistic`, which
-- only a superuser may read, so on a managed PostgreSQL (where the service's role owns its
-- database and is no superuser) the first rewrite failed with `permission denied for table
-- pg_statistic`, every hour, and the partition was never pruned. It now reads the view
-- `pg_stats`, which shows any role the statistics of the columns it may read (all of a table it
-- owns): the same rows for the same question.
--
-- The function's one query is changed in place, as the server keeps its text, so that nothing
-- else of it is written again here; the change is checked to have happened (or to be there
-- already) rather than assumed.
do $$
declare
  v_function regprocedure := 'app_delivery_partition_rewrite(text, text, text[], boolean, integer, text, text, boolean)';
  v_old text := 'pg_statistic st where st.starelid = t.new_table::regclass';
  v_new text := 'pg_stats st where (st.schemaname, st.tablename) = '
    '(select n.nspname, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = t.new_table::regclass)';
  v_definition text := pg_get_functiondef(v_function);
begin
  if position(v_new in v_definition) > 0 then
    return;
  end if;
  if position(v_old in v_definition) = 0 then
    raise exception 'app_delivery_partition_rewrite does not read pg_statistic as migration 026 wrote it: not changed';
  end if;
  execute replace(v_definition, v_old, v_new);
end
$$;
