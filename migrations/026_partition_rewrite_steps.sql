-- Retention's rewrite of a weekly partition in short steps (shared/webhooks/retention.ts,
-- docs/retention.md). Migration 023 rewrote a partition passing a cut-off in one call: its kept
-- rows copied with their attempts, every index built, the new tables analyzed and swapped in.
-- That is the work of the rows kept (at 10 million deliveries, a week's dead deliveries: 117,000
-- rows and 233,000 attempts) and took seconds in the prune of the hour the week passed the
-- cut-off. Here the same rewrite is cut into steps, each its own short transaction, that the
-- hourly prunes take in turn within a time budget: the copy, a slice of the partition at a time,
-- each key and index, the foreign key, the vacuum and analyze of each table, the count, all on
-- tables nobody else reads. They start ahead of the cut-off, so in the hour it passes only the
-- swap is left: the rows that changed since they were copied copied again, and the new tables in
-- the old ones' place (the old ones dropped in a later step, not under the swap's lock).
--
-- Rows of the old partition change while it is copied (a dead delivery sent again, a pending one
-- sent, an endpoint removed with its deliveries): from the first step on, a trigger on the old
-- partitions records the id of every delivery written (and of every attempt's delivery), and the
-- swap copies those again, so the new tables hold what the old ones held at the swap.

-- A rewrite under way: the partition rewritten, the statuses it keeps (the rest goes at the
-- swap), how far it has gone and what the swap will remove.
create table if not exists app_delivery_rewrites (
  deliveries   text primary key,
  attempts     text not null,
  keep         text[] not null,
  -- the old partition's file when the copy began: the copy reads it by block, so a rewrite of
  -- the old table (VACUUM FULL, CLUSTER), which moves every row, starts the copy again
  filenode     oid not null,
  -- the blocks of the old partition read so far, and whether the copy has read them all
  copied       integer not null default 0,
  copy_done    boolean not null default false,
  -- how many of the new tables (deliveries, then attempts) have been vacuumed
  vacuumed     integer not null default 0,
  -- what the swap will remove, counted once the new tables are ready: the deliveries not kept,
  -- and the attempts of the old partition not copied
  counted      boolean not null default false,
  gone_done    integer not null default 0,
  gone_dead    integer not null default 0,
  gone_attempts integer not null default 0,
  -- swapped (or dropped): the old tables, detached and renamed `<name>_old`, are left to drop
  swapped      boolean not null default false,
  started_at   timestamptz not null default now()
);

-- The deliveries written in a partition being rewritten since its copy began (the trigger below).
create table if not exists app_delivery_rewrite_changes (
  delivery_id text primary key
);

-- Ranges of event ids left to check for events with no delivery left (the events of a partition
-- dropped or rewritten, and each hour's turn): checked a slice at a time from `after` on.
create table if not exists app_event_sweeps (
  id    bigint generated always as identity primary key,
  lo    text,
  hi    text,
  after text,
  unique nulls not distinct (lo, hi)
);

-- Records the delivery a row of a partition being rewritten belongs to (`tg_argv[0]`: the column
-- naming it), whatever the write.
create or replace function app_delivery_rewrite_log() returns trigger
language plpgsql
as $$
begin
  insert into app_delivery_rewrite_changes (delivery_id)
  select distinct k from (values
    (case when tg_op <> 'INSERT' then to_jsonb(old) ->> tg_argv[0] end),
    (case when tg_op <> 'DELETE' then to_jsonb(new) ->> tg_argv[0] end)) v (k)
   where k is not null
  on conflict do nothing;
  return null;
end $$;

-- One step of what retention does to the range partition of deliveries `p_deliveries` and its
-- attempts partition `p_attempts`: keep the deliveries whose status is in `p_keep` (always
-- pending and running) and remove the others with their attempts. `p_swap`: whether the cut-off
-- has passed (the old rows may go now); before, the steps prepare the new tables only. `p_blocks`:
-- the blocks (8 kB) of the old partition one copy step reads. `p_events_lo`, `p_events_hi`: the range of
-- event ids checked once the partition's deliveries went (app_event_sweeps). `p_long`: whether a
-- long step may start (one that reads or builds a whole table over 8 MB: a key, an index, the
-- vacuum, the count, a drop), which the caller allows early in its prune only, so that such a step
-- never comes on top of a prune's budget already spent. A null `p_keep` abandons a rewrite under
-- way (retention changed).
--
-- Answers the step taken and, for `swapped` and `dropped`, the done and dead deliveries and the
-- attempts removed (for `swapped`, counted in the step before the swap; a row written between the
-- two counts as it was then):
--   dropped   nothing to keep: both partitions taken out of the parents (past the cut-off only)
--   waiting   nothing to keep, the cut-off not passed: nothing to prepare
--   started   the new tables made, the old partitions' trigger set
--   copied    one slice of `p_blocks` blocks read, the deliveries kept copied with their attempts
--   built     one key, index or foreign key made on the new tables
--   vacuum    the caller is to run VACUUM on the new table `target`, then count it vacuumed
--             (app_delivery_rewrites.vacuumed)
--   analyzed  a new table analyzed
--   counted   what the swap will remove counted
--   ready     everything prepared, the cut-off not passed
--   swapped   the rows changed meanwhile copied again, the new tables in the old ones' place
--   cleaned   the old tables of a swap or drop dropped
--   restarted a rewrite under way with another `p_keep` (or broken) abandoned
--   later     the next step is long and `p_long` is false: nothing done
--   gone      no such partition
create or replace function app_delivery_partition_rewrite(
  p_deliveries text, p_attempts text, p_keep text[], p_swap boolean, p_blocks integer,
  p_events_lo text, p_events_hi text, p_long boolean)
returns table (step text, done integer, dead integer, attempts integer, target text)
language plpgsql
as $$
declare
  v_new text := p_deliveries || '_keep';
  v_new_attempts text := p_attempts || '_keep';
  v_state app_delivery_rewrites;
  v_bound text;
  v_lo text;
  v_hi text;
  v_done integer;
  v_dead integer;
  v_attempts integer;
  v_blocks integer;
  v_rows integer;
  v_def text;
  v_none boolean;
  v_large boolean;
  v_changed text[];
begin
  -- one step at a time (the hourly task and `app prune` may meet)
  perform pg_advisory_xact_lock(hashtext('app_delivery_partition_rewrite'));
  select * into v_state from app_delivery_rewrites r where r.deliveries = p_deliveries;
  if v_state.swapped then
    -- the old tables, out of the parents since the swap: dropping them (their files unlinked at
    -- commit, a tenth of a second or more for a week's) holds up nobody; one a step
    v_def := coalesce(to_regclass(p_attempts || '_old')::text, to_regclass(p_deliveries || '_old')::text);
    if v_def is not null then
      if not p_long and pg_total_relation_size(v_def) > 1024 * current_setting('block_size')::bigint then
        return query select 'later', 0, 0, 0, null::text;
        return;
      end if;
      execute format('drop table %s', v_def);
      if to_regclass(p_attempts || '_old') is null and to_regclass(p_deliveries || '_old') is null then
        delete from app_delivery_rewrites r where r.deliveries = p_deliveries;
      end if;
      return query select 'cleaned', 0, 0, 0, null::text;
      return;
    end if;
    delete from app_delivery_rewrites r where r.deliveries = p_deliveries;
    return query select 'cleaned', 0, 0, 0, null::text;
    return;
  end if;
  if to_regclass(p_deliveries) is null or to_regclass(p_attempts) is null then
    execute format('drop table if exists %I, %I', v_new, v_new_attempts);
    delete from app_delivery_rewrites r where r.deliveries = p_deliveries;
    return query select 'gone', 0, 0, 0, null::text;
    return;
  end if;
  select pg_get_expr(c.relpartbound, c.oid) into v_bound from pg_class c where c.oid = p_deliveries::regclass;
  v_lo := substring(v_bound from 'FROM \(''([^'']+)''\)');
  v_hi := substring(v_bound from 'TO \(''([^'']+)''\)');

  -- another plan (retention changed), new tables gone (dropped by hand) or the old one rewritten:
  -- start again
  if v_state.deliveries is not null
     and (p_keep is null or v_state.keep is distinct from p_keep
          or to_regclass(v_new) is null or to_regclass(v_new_attempts) is null
          or pg_relation_filenode(p_deliveries) is distinct from v_state.filenode) then
    perform app_lock_patiently(format('lock table %I, %I in access exclusive mode', p_deliveries, p_attempts));
    execute format('drop trigger if exists app_delivery_rewrite_log on %I', p_deliveries);
    execute format('drop trigger if exists app_delivery_rewrite_log on %I', p_attempts);
    execute format('drop table if exists %I, %I', v_new, v_new_attempts);
    delete from app_delivery_rewrite_changes c
     where (v_lo is null or c.delivery_id >= v_lo) and c.delivery_id < v_hi;
    delete from app_delivery_rewrites r where r.deliveries = p_deliveries;
    return query select 'restarted', 0, 0, 0, null::text;
    return;
  end if;
  if p_keep is null then
    return query select 'waiting', 0, 0, 0, null::text;
    return;
  end if;

  if v_state.deliveries is null then
    -- nothing to keep: dropped whole once the cut-off has passed (a look into the status index)
    execute format('select not exists (select 1 from %I where status = any($1))', p_deliveries) into strict v_none using p_keep;
    if v_none then
      if not p_swap then
        return query select 'waiting', 0, 0, 0, null::text;
        return;
      end if;
      execute format('select count(*) filter (where status = ''done''), count(*) filter (where status = ''dead'') from %I where status in (''done'', ''dead'') and not status = any($1)', p_deliveries)
         into v_done, v_dead using p_keep;
      execute format('select count(*) from %I', p_attempts) into v_attempts;
      perform app_lock_patiently(format('lock table only app_webhook_deliveries, only app_webhook_attempts, %I, %I in access exclusive mode', p_deliveries, p_attempts));
      -- a row may have changed since it was looked at (a dead delivery sent again by hand)
      execute format('select not exists (select 1 from %I where status = any($1))', p_deliveries) into strict v_none using p_keep;
      if v_none then
        -- out of the parents now, dropped in the next step (not under this lock)
        execute format('alter table app_webhook_attempts detach partition %I', p_attempts);
        execute format('alter table app_webhook_deliveries detach partition %I', p_deliveries);
        execute format('drop table if exists %I, %I', p_attempts || '_old', p_deliveries || '_old');
        execute format('alter table %I rename to %I', p_attempts, p_attempts || '_old');
        execute format('alter table %I rename to %I', p_deliveries, p_deliveries || '_old');
        insert into app_delivery_rewrites (deliveries, attempts, keep, filenode, swapped)
        values (p_deliveries, p_attempts, p_keep, 0, true);
        -- (a sweep of that range under way started over: it may have passed events kept until now)
        insert into app_event_sweeps (lo, hi) values (p_events_lo, p_events_hi)
        on conflict (lo, hi) do update set after = null;
        return query select 'dropped', v_done, v_dead, v_attempts, null::text;
        return;
      end if;
    end if;
    -- the new tables with the parent's columns, defaults and checks, and the range as a CHECK
    -- (attaching then needs no scan); keys and indexes come once the rows are in
    execute format('drop table if exists %I, %I', v_new, v_new_attempts);
    execute format('create table %I (like app_webhook_deliveries including defaults including constraints)', v_new);
    execute format('create table %I (like app_webhook_attempts including defaults including constraints)', v_new_attempts);
    execute format('alter table %I add check (%s id < %L)', v_new, case when v_lo is null then '' else format('id >= %L and', v_lo) end, v_hi);
    execute format('alter table %I add check (%s delivery_id < %L)', v_new_attempts, case when v_lo is null then '' else format('delivery_id >= %L and', v_lo) end, v_hi);
    -- from here on every write to the old partitions is recorded; the copy steps come after it
    perform app_lock_patiently(format('lock table %I, %I in share row exclusive mode', p_deliveries, p_attempts));
    execute format('drop trigger if exists app_delivery_rewrite_log on %I', p_deliveries);
    execute format('drop trigger if exists app_delivery_rewrite_log on %I', p_attempts);
    execute format('create trigger app_delivery_rewrite_log after insert or update or delete on %I for each row execute function app_delivery_rewrite_log(''id'')', p_deliveries);
    execute format('create trigger app_delivery_rewrite_log after insert or update or delete on %I for each row execute function app_delivery_rewrite_log(''delivery_id'')', p_attempts);
    delete from app_delivery_rewrite_changes c
     where (v_lo is null or c.delivery_id >= v_lo) and c.delivery_id < v_hi;
    insert into app_delivery_rewrites (deliveries, attempts, keep, filenode)
    values (p_deliveries, p_attempts, p_keep, pg_relation_filenode(p_deliveries));
    return query select 'started', 0, 0, 0, null::text;
    return;
  end if;

  if not v_state.copy_done then
    -- the next `p_blocks` blocks of the old partition (a TID range scan: the work of the slice,
    -- whatever the order of the rows), its deliveries kept copied with their attempts (looked up
    -- by the attempts' key, as an array: joined, the planner would read the whole partition of
    -- attempts for each slice). A row updated meanwhile may move to a block read before or after
    -- it: the trigger records it, and the swap copies it again.
    v_blocks := pg_relation_size(p_deliveries) / current_setting('block_size')::integer;
    if v_state.copied >= v_blocks then
      update app_delivery_rewrites r set copy_done = true where r.deliveries = p_deliveries;
      return query select 'copied', 0, 0, 0, null::text;
      return;
    end if;
    execute format($q$
      with slice as materialized (
        select * from %1$I where ctid >= %5$L::tid and ctid < %6$L::tid and status = any($1)
      ), kept as (
        insert into %2$I select * from slice
      )
      insert into %4$I select a.* from %3$I a where a.delivery_id = any(array(select s.id from slice s))$q$,
      p_deliveries, v_new, p_attempts, v_new_attempts,
      format('(%s,0)', v_state.copied), format('(%s,0)', v_state.copied + p_blocks))
      using p_keep;
    update app_delivery_rewrites r set copied = r.copied + p_blocks where r.deliveries = p_deliveries;
    return query select 'copied', 0, 0, 0, null::text;
    return;
  end if;

  -- from here on a step reads or builds a whole new table (or the old one): with new tables over
  -- 8 MB, only when the caller allows a long step (the foreign key added NOT VALID and the swap
  -- aside)
  v_large := pg_relation_size(v_new) + pg_relation_size(v_new_attempts) > 1024 * current_setting('block_size')::bigint;

  -- the keys, then the indexes of the parents one at a time, then the foreign keys
  if not exists (select 1 from pg_index x where x.indrelid = v_new::regclass and x.indisprimary) then
    if v_large and not p_long then
      return query select 'later', 0, 0, 0, null::text;
      return;
    end if;
    -- a row written during the copy may have been read twice (before and after it moved): the
    -- rows recorded are left out until the swap copies them again
    v_changed := array(select c.delivery_id from app_delivery_rewrite_changes c
                        where (v_lo is null or c.delivery_id >= v_lo) and c.delivery_id < v_hi);
    execute format('delete from %I where delivery_id = any($1)', v_new_attempts) using v_changed;
    execute format('delete from %I where id = any($1)', v_new) using v_changed;
    execute format('alter table %I add primary key (id)', v_new);
    return query select 'built', 0, 0, 0, null::text;
    return;
  end if;
  if not exists (select 1 from pg_index x where x.indrelid = v_new_attempts::regclass and x.indisprimary) then
    if v_large and not p_long then
      return query select 'later', 0, 0, 0, null::text;
      return;
    end if;
    execute format('alter table %I add primary key (delivery_id, attempt)', v_new_attempts);
    return query select 'built', 0, 0, 0, null::text;
    return;
  end if;
  select p.def into v_def
    from (select t.new_table, regexp_replace(pg_get_indexdef(x.indexrelid), '^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+ ', 'CREATE \1INDEX ON ' || quote_ident(t.new_table) || ' ') as def
            from (values ('app_webhook_deliveries'::regclass, v_new), ('app_webhook_attempts'::regclass, v_new_attempts)) t (parent, new_table)
            join pg_index x on x.indrelid = t.parent and not x.indisprimary) p
   where p.def not in (
           select regexp_replace(pg_get_indexdef(y.indexrelid), '^CREATE (UNIQUE )?INDEX \S+ ON \S+ ', 'CREATE \1INDEX ON ' || quote_ident(p.new_table) || ' ')
             from pg_index y where y.indrelid = p.new_table::regclass)
   order by p.def limit 1;
  if v_def is not null then
    if v_large and not p_long then
      return query select 'later', 0, 0, 0, null::text;
      return;
    end if;
    execute v_def;
    return query select 'built', 0, 0, 0, null::text;
    return;
  end if;
  -- the foreign keys: added NOT VALID (a moment's lock on the table referenced, no row read),
  -- from then on enforced (an endpoint removed takes its rows here too), then validated (a read
  -- that blocks no writer of the table referenced)
  select format('alter table %I add %s not valid', t.new_table, pg_get_constraintdef(k.oid)) into v_def
    from (values ('app_webhook_deliveries'::regclass, v_new), ('app_webhook_attempts'::regclass, v_new_attempts)) t (parent, new_table)
    join pg_constraint k on k.conrelid = t.parent and k.contype = 'f'
   where pg_get_constraintdef(k.oid) not in (
           select regexp_replace(pg_get_constraintdef(n.oid), ' NOT VALID$', '')
             from pg_constraint n where n.conrelid = t.new_table::regclass and n.contype = 'f')
   order by 1 limit 1;
  if v_def is not null then
    execute v_def;
    return query select 'built', 0, 0, 0, null::text;
    return;
  end if;
  select format('alter table %I validate constraint %I', n.conrelid::regclass::text, n.conname) into v_def
    from pg_constraint n
   where n.conrelid in (v_new::regclass, v_new_attempts::regclass) and n.contype = 'f' and not n.convalidated
   order by 1 limit 1;
  if v_def is not null then
    if v_large and not p_long then
      return query select 'later', 0, 0, 0, null::text;
      return;
    end if;
    -- a row of an endpoint removed before its key was added is one the trigger recorded: those
    -- rows are left out here and copied again (as they are then) at the swap
    v_changed := array(select c.delivery_id from app_delivery_rewrite_changes c
                        where (v_lo is null or c.delivery_id >= v_lo) and c.delivery_id < v_hi);
    execute format('delete from %I where delivery_id = any($1)', v_new_attempts) using v_changed;
    execute format('delete from %I where id = any($1)', v_new) using v_changed;
    execute v_def;
    return query select 'built', 0, 0, 0, null::text;
    return;
  end if;
  -- each new table vacuumed, which only the caller can do (VACUUM runs outside a transaction), and
  -- analyzed, a step each: its rows then need no hint bits set by the first reads, index-only
  -- scans skip the heap, the planner has its statistics, and autovacuum has no reason to visit it
  -- (a visit that would hold up the swap's lock)
  if v_state.vacuumed < 2 then
    if v_large and not p_long then
      return query select 'later', 0, 0, 0, null::text;
      return;
    end if;
    return query select 'vacuum', 0, 0, 0, case v_state.vacuumed when 0 then v_new else v_new_attempts end;
    return;
  end if;
  select format('analyze %I', t.new_table) into v_def
    from (values (1, v_new), (2, v_new_attempts)) t (n, new_table)
   where (select c.reltuples from pg_class c where c.oid = t.new_table::regclass) > 0
     and not exists (select 1 from pg_statistic st where st.starelid = t.new_table::regclass)
   order by t.n limit 1;
  if v_def is not null then
    if v_large and not p_long then
      return query select 'later', 0, 0, 0, null::text;
      return;
    end if;
    execute v_def;
    return query select 'analyzed', 0, 0, 0, null::text;
    return;
  end if;
  if not v_state.counted then
    if v_large and not p_long then
      return query select 'later', 0, 0, 0, null::text;
      return;
    end if;
    execute format('select count(*) filter (where status = ''done''), count(*) filter (where status = ''dead'') from %I where status in (''done'', ''dead'') and not status = any($1)', p_deliveries)
       into v_done, v_dead using p_keep;
    execute format('select (select count(*) from %I) - (select count(*) from %I)', p_attempts, v_new_attempts) into v_attempts;
    update app_delivery_rewrites r set counted = true, gone_done = v_done, gone_dead = v_dead, gone_attempts = v_attempts
     where r.deliveries = p_deliveries;
    return query select 'counted', 0, 0, 0, null::text;
    return;
  end if;
  if not p_swap then
    return query select 'ready', 0, 0, 0, null::text;
    return;
  end if;

  v_attempts := 0;
  perform app_lock_patiently(format('lock table only app_webhook_deliveries, only app_webhook_attempts, %I, %I in access exclusive mode', p_deliveries, p_attempts));
  -- the rows written since the copy began, as they are now
  v_changed := array(select c.delivery_id from app_delivery_rewrite_changes c
                      where (v_lo is null or c.delivery_id >= v_lo) and c.delivery_id < v_hi);
  -- (the attempts counted gone change by those of the rows recorded: v_attempts, those kept less)
  execute format('delete from %I where delivery_id = any($1)', v_new_attempts) using v_changed;
  get diagnostics v_rows = row_count;
  v_attempts := v_attempts + v_rows;
  execute format('delete from %I where id = any($1)', v_new) using v_changed;
  execute format('insert into %I select * from %I where id = any($1) and status = any($2)', v_new, p_deliveries) using v_changed, p_keep;
  execute format('insert into %I select a.* from %I a where a.delivery_id = any($1) and a.delivery_id in (select n.id from %I n where n.id = any($1))',
                 v_new_attempts, p_attempts, v_new) using v_changed;
  get diagnostics v_rows = row_count;
  v_attempts := v_attempts - v_rows;
  delete from app_delivery_rewrite_changes c where c.delivery_id = any(v_changed);
  -- the old tables out of the parents and renamed (dropped in the next step: dropping them here
  -- would hold this lock while their files are unlinked at commit), the new ones in their place
  execute format('alter table app_webhook_attempts detach partition %I', p_attempts);
  execute format('alter table app_webhook_deliveries detach partition %I', p_deliveries);
  execute format('drop table if exists %I, %I', p_attempts || '_old', p_deliveries || '_old');
  execute format('alter table %I rename to %I', p_attempts, p_attempts || '_old');
  execute format('alter table %I rename to %I', p_deliveries, p_deliveries || '_old');
  execute format('alter table %I rename to %I', v_new, p_deliveries);
  execute format('alter table %I rename to %I', v_new_attempts, p_attempts);
  execute format('alter table app_webhook_deliveries attach partition %I %s', p_deliveries, v_bound);
  execute format('alter table app_webhook_attempts attach partition %I %s', p_attempts, v_bound);
  update app_delivery_rewrites r set swapped = true where r.deliveries = p_deliveries;
  -- the range of its events checked (a sweep of it under way started over: it may have passed
  -- events whose deliveries went only now)
  insert into app_event_sweeps (lo, hi) values (p_events_lo, p_events_hi)
  on conflict (lo, hi) do update set after = null;
  return query select 'swapped', v_state.gone_done, v_state.gone_dead, greatest(v_state.gone_attempts + v_attempts, 0), null::text;
end $$;

-- Replaced by the steps above.
drop function if exists app_delivery_partition_prune(text, text, boolean, boolean);
