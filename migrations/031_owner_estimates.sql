-- PostgreSQL is told that owners are many: a twentieth of the rows of each table of deliveries, and
-- of events, have an owner of their own (`n_distinct = -0.05`), for the estimates it makes of an
-- owner it has no statistics of.
--
-- What it serves: a tenant's listing (a member's, or an operator's `?owner=`), asked again and
-- again, is a prepared statement, and PostgreSQL keeps one plan for it (its generic plan) only
-- when a plan made for no owner in particular costs no more than one made for the owner given.
-- With the owners it measured (five tenants sharing a table, say), it took an unknown owner for an
-- average fifth of a partition's rows and judged it cheaper to read a state's rows in the table's
-- order and drop the others' than to read the owner's own index: a small tenant's page then read
-- whole partitions (20 ms against 2 ms at 2 million deliveries), so the listing was planned for
-- its owner at every call instead (6 to 8 ms of planning a call over 18 weekly partitions). Told
-- that owners are many, the generic plan reads each owner's rows through its own index (owner,
-- state, time), the best way for any owner, large or small, and the listing asks for it
-- (shared/webhooks/deliveries/list.ts). An owner PostgreSQL does know (among the most common of a
-- table) is still estimated at its measured share.
--
-- The setting is a column's, of each table, and a new table does not inherit it: a partition made
-- later (app_delivery_partitions_ensure) and the new table of a partition's rewrite
-- (app_delivery_partition_rewrite) are given it by app_owner_estimates, which retention calls after
-- making them (shared/webhooks/retention.ts), before their rows are analyzed. It takes effect at a
-- table's next ANALYZE: the tables there are now are analyzed here, the owner's column alone
-- (a sample of each, under a SHARE UPDATE EXCLUSIVE lock that lets reads and writes through;
-- about 1.4 s at 2 million deliveries).
create or replace function app_owner_estimates() returns integer
language plpgsql
as $$
declare
  v_table regclass;
  v_set integer := 0;
begin
  for v_table in
    select a.attrelid::regclass
      from pg_attribute a
     where a.attname = 'owner'
       and not a.attisdropped
       and a.attrelid in (select i.inhrelid from pg_inherits i where i.inhparent = 'app_webhook_deliveries'::regclass
                          union all
                          select to_regclass(r.deliveries || '_keep') from app_delivery_rewrites r
                          union all
                          select 'app_events'::regclass)
       and not coalesce(a.attoptions @> array['n_distinct=-0.05'], false)
  loop
    execute format('alter table %s alter column owner set (n_distinct = -0.05)', v_table);
    v_set := v_set + 1;
  end loop;
  return v_set;
end $$;

select app_owner_estimates();
analyze app_webhook_deliveries (owner);
analyze app_events (owner);
