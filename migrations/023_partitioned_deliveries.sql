-- Deliveries and attempts partitioned by time, so retention drops or rewrites whole partitions
-- instead of deleting rows one by one (shared/webhooks/retention.ts; docs/retention.md).
--
-- The partition key is the delivery id itself (`msg_` + ULID: its first ten characters after
-- `msg_` are the creation time, and ids sort by it), and `delivery_id` for attempts: the primary
-- keys stay as they are, a delivery's attempts fall in the attempts partition of the same range,
-- and a lookup by id reads one partition. Partitions are a week wide, from Monday 00:00 UTC: a
-- done delivery goes within a week after its retention has passed, and there are few partitions
-- (about 13 for the default 90 days of dead deliveries, two ahead, and the two below), which
-- matters because the worker's per-endpoint lookups (slots held, parked, waiting) read every
-- partition's index. Two more partitions of each table: `_legacy`, the table as it was before
-- this migration (every id below the first weekly bound) and `_default`, for ids outside every
-- range (not made by the service, or past the partitions made ahead), so an insert never fails.
--
-- The switch never rewrites a row and never blocks writers for long. Three steps, each its own
-- transaction (shared/db/migrate.ts, STEP_MARKER):
--   1. a CHECK that every id is below the first weekly bound (a few days ahead), added NOT VALID:
--      a moment's lock, no scan;
--   2. the CHECK validated: a scan of the table that blocks no reads and no writes;
--   3. under a short exclusive lock: the tables renamed `_legacy`, the partitioned tables made
--      with the same columns, constraints and indexes, and the old tables attached as their
--      first partition: the validated CHECK spares the attach its scan and the indexes are the
--      old ones, attached as they are.
-- Each lock is asked with a lock_timeout of half a second and asked again until granted, so
-- writers queue behind a waiting migration for half a second at most.
--
-- The foreign key from attempts to deliveries becomes a trigger: a partition of a table that a
-- foreign key references cannot be dropped, and detaching it checks every referencing row. The
-- only thing that relied on the key was its `on delete cascade` (an endpoint removed takes its
-- deliveries and their attempts), which the trigger keeps; attempts are written only by the
-- statement that updates their delivery (shared/webhooks/deliveries/store.ts), so none names a missing one.

-- The ten ULID characters of a time (ms since the epoch, Crockford base32), as ids carry it.
create or replace function app_id_time(p_time timestamptz) returns text
language sql immutable strict parallel safe
as $$
  select string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((t.ms >> (5 * (9 - i))) & 31)::int + 1, 1), '' order by i)
    from (select floor(extract(epoch from p_time) * 1000)::bigint as ms) t, generate_series(0, 9) as i
$$;

-- The time the ten ULID characters after an id's prefix (`msg_`) stand for.
create or replace function app_id_time_of(p_id text) returns timestamptz
language sql immutable strict parallel safe
as $$
  select to_timestamp(sum((strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(p_id, 5 + i, 1)) - 1)::numeric * (32::numeric ^ (9 - i))) / 1000)
    from generate_series(0, 9) as i
$$;

-- Where the weekly partition holding `p_time` starts (Monday 00:00 UTC).
create or replace function app_delivery_week(p_time timestamptz) returns timestamptz
language sql immutable strict parallel safe
as $$ select date_trunc('week', p_time at time zone 'UTC') at time zone 'UTC' $$;

-- Takes `p_lock` (a LOCK TABLE statement) with a lock_timeout of half a second, asking again
-- until granted (at most `p_tries` times): a migration or prune waiting for a lock makes every
-- later writer of the table wait behind it, so it never waits long at a time.
create or replace function app_lock_patiently(p_lock text, p_tries integer default 120) returns void
language plpgsql
as $$
declare
  v_try integer := 0;
  v_timeout text := current_setting('lock_timeout');
begin
  loop
    begin
      perform set_config('lock_timeout', '500ms', true);
      execute p_lock;
      perform set_config('lock_timeout', v_timeout, true);
      return;
    exception when lock_not_available then
      v_try := v_try + 1;
      if v_try >= p_tries then raise; end if;
      perform pg_sleep(0.05 + random() * 0.2);
    end;
  end loop;
end $$;

do $$
declare
  v_bound text := 'msg_' || app_id_time(app_delivery_week(now() + interval '1 day') + interval '7 days');
begin
  if (select relkind from pg_class where oid = 'app_webhook_deliveries'::regclass) = 'r'
     and not exists (select 1 from pg_constraint where conname = 'app_webhook_deliveries_legacy_range') then
    perform app_lock_patiently('lock table app_webhook_deliveries, app_webhook_attempts in access exclusive mode');
    execute format('alter table app_webhook_deliveries add constraint app_webhook_deliveries_legacy_range check (id < %L) not valid', v_bound);
    execute format('alter table app_webhook_attempts add constraint app_webhook_attempts_legacy_range check (delivery_id < %L) not valid', v_bound);
  end if;
end $$;

-- migrate: commit

do $$
begin
  if exists (select 1 from pg_constraint where conname = 'app_webhook_deliveries_legacy_range' and not convalidated) then
    alter table app_webhook_deliveries validate constraint app_webhook_deliveries_legacy_range;
  end if;
  if exists (select 1 from pg_constraint where conname = 'app_webhook_attempts_legacy_range' and not convalidated) then
    alter table app_webhook_attempts validate constraint app_webhook_attempts_legacy_range;
  end if;
end $$;

-- migrate: commit

-- Creates the weekly partitions of deliveries and attempts that are missing from the highest
-- range partition up to the week holding `p_until`; answers how many weeks it added. Called at
-- migration time and by every prune (two weeks ahead), so inserts find their partition made.
-- Rows the default partitions took meanwhile for such a week (the prune had not run for two
-- weeks) move into the new partition, attempts first (deleting a delivery deletes its attempts).
create or replace function app_delivery_partitions_ensure(p_until timestamptz) returns integer
language plpgsql
as $$
declare
  v_top text;
  v_from timestamptz;
  v_to timestamptz;
  v_lo text;
  v_hi text;
  v_day text;
  v_made integer := 0;
begin
  select max(substring(pg_get_expr(c.relpartbound, c.oid) from 'TO [(]''([^'']+)''[)]')) into v_top
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
   where i.inhparent = 'app_webhook_deliveries'::regclass;
  v_from := app_id_time_of(v_top);
  if v_from is null or v_from > p_until then return 0; end if;
  perform app_lock_patiently('lock table app_webhook_deliveries, app_webhook_attempts in access exclusive mode');
  while v_from <= p_until loop
    v_to := app_delivery_week(v_from) + interval '7 days';
    v_lo := 'msg_' || app_id_time(v_from);
    v_hi := 'msg_' || app_id_time(v_to);
    v_day := to_char(v_from at time zone 'UTC', 'YYYYMMDD');
    execute format('create table %I (like app_webhook_attempts including defaults including constraints)', 'app_webhook_attempts_' || v_day);
    execute format('create table %I (like app_webhook_deliveries including defaults including constraints)', 'app_webhook_deliveries_' || v_day);
    execute format('with moved as (delete from app_webhook_attempts_default where delivery_id >= %L and delivery_id < %L returning *) insert into %I select * from moved',
                   v_lo, v_hi, 'app_webhook_attempts_' || v_day);
    execute format('with moved as (delete from app_webhook_deliveries_default where id >= %L and id < %L returning *) insert into %I select * from moved',
                   v_lo, v_hi, 'app_webhook_deliveries_' || v_day);
    execute format('alter table app_webhook_deliveries attach partition %I for values from (%L) to (%L)', 'app_webhook_deliveries_' || v_day, v_lo, v_hi);
    execute format('alter table app_webhook_attempts attach partition %I for values from (%L) to (%L)', 'app_webhook_attempts_' || v_day, v_lo, v_hi);
    v_made := v_made + 1;
    v_from := v_to;
  end loop;
  return v_made;
end $$;

-- Removes what retention lets go from one range partition of deliveries (`p_deliveries`) and
-- its attempts partition (`p_attempts`, same range): the done deliveries when `p_done_gone`,
-- the dead ones when `p_dead_gone`, never pending or running ones; answers how many done and dead
-- deliveries and attempts went. A partition with nothing left to keep is dropped whole. One with
-- rows to keep is rewritten: its kept rows are copied (with their attempts) into new tables
-- without blocking anyone, their indexes built there, then under a short exclusive lock the rows
-- that changed meanwhile are copied again (pending and running ones, and those of endpoints
-- removed since) and the new tables take the old ones' place. The work is that of the rows
-- kept, not of the rows that go, and no dead row is left behind for vacuum.
create or replace function app_delivery_partition_prune(p_deliveries text, p_attempts text, p_done_gone boolean, p_dead_gone boolean)
returns table (done integer, dead integer, attempts integer)
language plpgsql
as $$
declare
  v_keep text[] := array['pending', 'running']
    || case when p_done_gone then array[]::text[] else array['done'] end
    || case when p_dead_gone then array[]::text[] else array['dead'] end;
  v_bound text;
  v_lo text;
  v_hi text;
  v_done integer;
  v_dead integer;
  v_kept integer;
  v_attempts integer;
  v_left integer;
  v_new text := p_deliveries || '_keep';
  v_new_attempts text := p_attempts || '_keep';
  v_def text;
  v_changed text[];
begin
  -- one prune of a partition at a time (the hourly task and `app prune` may meet)
  perform pg_advisory_xact_lock(hashtext('app_delivery_partition_prune'));
  if to_regclass(p_deliveries) is null or to_regclass(p_attempts) is null then return; end if;
  select pg_get_expr(c.relpartbound, c.oid) into v_bound from pg_class c where c.oid = p_deliveries::regclass;
  v_lo := substring(v_bound from 'FROM \(''([^'']+)''\)');
  v_hi := substring(v_bound from 'TO \(''([^'']+)''\)');
  execute format('select count(*) filter (where status = ''done'' and $1), count(*) filter (where status = ''dead'' and $2),
                         count(*) filter (where status = any($3)) from %I', p_deliveries)
     into v_done, v_dead, v_kept using p_done_gone, p_dead_gone, v_keep;
  if v_done + v_dead = 0 then return; end if;
  execute format('select count(*) from %I', p_attempts) into v_attempts;

  if v_kept = 0 then
    perform app_lock_patiently('lock table app_webhook_deliveries, app_webhook_attempts in access exclusive mode');
    -- a row may have changed since it was counted (a dead delivery retried by hand)
    execute format('select count(*) from (select 1 from %I where status = any($1) limit 1) k', p_deliveries) into v_kept using v_keep;
    if v_kept = 0 then
      execute format('drop table %I', p_attempts);
      execute format('drop table %I', p_deliveries);
      return query select v_done, v_dead, v_attempts;
      return;
    end if;
  end if;

  -- the kept rows into new tables, with the parent's indexes and constraints
  execute format('drop table if exists %I, %I', v_new, v_new_attempts);
  execute format('create table %I (like app_webhook_deliveries including defaults including constraints)', v_new);
  execute format('create table %I (like app_webhook_attempts including defaults including constraints)', v_new_attempts);
  -- the range as a CHECK, so attaching needs no scan
  execute format('alter table %I add check (%s id < %L)', v_new, case when v_lo is null then '' else format('id >= %L and', v_lo) end, v_hi);
  execute format('alter table %I add check (%s delivery_id < %L)', v_new_attempts, case when v_lo is null then '' else format('delivery_id >= %L and', v_lo) end, v_hi);
  execute format('insert into %I select * from %I where status = any($1)', v_new, p_deliveries) using v_keep;
  execute format('insert into %I select a.* from %I a where a.delivery_id in (select n.id from %I n)', v_new_attempts, p_attempts, v_new);
  execute format('alter table %I add primary key (id)', v_new);
  execute format('alter table %I add primary key (delivery_id, attempt)', v_new_attempts);
  execute format('alter table %I add foreign key (endpoint_id) references app_webhooks (id) on delete cascade', v_new);
  for v_def in
    select regexp_replace(pg_get_indexdef(x.indexrelid), '^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+ ', 'CREATE \1INDEX ON ' || quote_ident(v_new) || ' ')
      from pg_index x where x.indrelid = 'app_webhook_deliveries'::regclass and not x.indisprimary
  loop
    execute v_def;
  end loop;
  execute format('analyze %I, %I', v_new, v_new_attempts);

  perform app_lock_patiently('lock table app_webhook_deliveries, app_webhook_attempts in access exclusive mode');
  -- what changed since the copy: pending and running rows (then or now), and rows of endpoints
  -- removed since (done and dead rows change in no other way)
  execute format('select array(select id from %I where status in (''pending'', ''running'') union select id from %I where status in (''pending'', ''running''))', v_new, p_deliveries)
     into v_changed;
  execute format('delete from %I where endpoint_id not in (select w.id from app_webhooks w)', v_new);
  execute format('delete from %I n where n.id = any($1)', v_new) using v_changed;
  execute format('insert into %I select * from %I where id = any($1) and status = any($2)', v_new, p_deliveries) using v_changed, v_keep;
  execute format('delete from %I a where a.delivery_id = any($1) or a.delivery_id not in (select n.id from %I n)', v_new_attempts, v_new) using v_changed;
  execute format('insert into %I select a.* from %I a where a.delivery_id = any($1) and a.delivery_id in (select n.id from %I n)', v_new_attempts, p_attempts, v_new) using v_changed;
  execute format('select count(*) from %I', v_new_attempts) into v_left;

  execute format('drop table %I', p_attempts);
  execute format('drop table %I', p_deliveries);
  execute format('alter table %I rename to %I', v_new, p_deliveries);
  execute format('alter table %I rename to %I', v_new_attempts, p_attempts);
  execute format('alter table app_webhook_deliveries attach partition %I %s', p_deliveries, v_bound);
  execute format('alter table app_webhook_attempts attach partition %I %s', p_attempts, v_bound);
  return query select v_done, v_dead, v_attempts - v_left;
end $$;

-- Attempts go with their delivery, as the foreign key's `on delete cascade` did.
create or replace function app_webhook_attempts_cascade() returns trigger
language plpgsql
as $$
begin
  delete from app_webhook_attempts a where a.delivery_id = old.id;
  return null;
end $$;

do $$
declare
  v_bound text;
  v_index record;
begin
  if (select relkind from pg_class where oid = 'app_webhook_deliveries'::regclass) = 'p' then return; end if;
  perform app_lock_patiently('lock table app_webhook_deliveries, app_webhook_attempts in access exclusive mode');
  select substring(pg_get_constraintdef(oid) from '''([^'']+)''') into v_bound
    from pg_constraint where conname = 'app_webhook_deliveries_legacy_range';

  -- the old tables and their indexes take the `_legacy` names; the new tables take theirs
  for v_index in
    select c.relname from pg_index x join pg_class c on c.oid = x.indexrelid
     where x.indrelid in ('app_webhook_deliveries'::regclass, 'app_webhook_attempts'::regclass)
  loop
    execute format('alter index %I rename to %I', v_index.relname,
                   regexp_replace(v_index.relname, '^app_webhook_(deliveries|attempts)', 'app_webhook_\1_legacy'));
  end loop;
  alter table app_webhook_attempts drop constraint app_webhook_attempts_delivery_id_fkey;
  alter table app_webhook_deliveries rename to app_webhook_deliveries_legacy;
  alter table app_webhook_attempts rename to app_webhook_attempts_legacy;

  -- same columns, defaults, NOT NULL and CHECK constraints (the legacy range CHECK aside)
  create table app_webhook_deliveries (like app_webhook_deliveries_legacy including defaults including constraints)
    partition by range (id);
  alter table app_webhook_deliveries drop constraint app_webhook_deliveries_legacy_range;
  alter table app_webhook_deliveries add primary key (id);
  alter table app_webhook_deliveries add constraint app_webhook_deliveries_endpoint_id_fkey
    foreign key (endpoint_id) references app_webhooks (id) on delete cascade;
  -- the indexes of migrations 001, 014, 017, 018 and 022, with the same definitions
  create index app_webhook_deliveries_status on app_webhook_deliveries (status, created_at desc);
  create index app_webhook_deliveries_event on app_webhook_deliveries (event_id);
  create index app_webhook_deliveries_parked on app_webhook_deliveries (endpoint_id, seq) where parked_at is not null;
  create index app_webhook_deliveries_slot on app_webhook_deliveries (endpoint_id) where slot;
  create index app_webhook_deliveries_endpoint_status on app_webhook_deliveries (endpoint_id, status, created_at desc);
  create index app_webhook_deliveries_owner_status on app_webhook_deliveries (owner, status, created_at desc);
  create index app_webhook_deliveries_waiting on app_webhook_deliveries (endpoint_id, next_attempt_at)
    where status = 'pending' and parked_at is null;

  create table app_webhook_attempts (like app_webhook_attempts_legacy including defaults including constraints)
    partition by range (delivery_id);
  alter table app_webhook_attempts drop constraint app_webhook_attempts_legacy_range;
  alter table app_webhook_attempts add primary key (delivery_id, attempt);

  -- no scan (the validated CHECK proves the range) and no index built (each matches one above)
  execute format('alter table app_webhook_deliveries attach partition app_webhook_deliveries_legacy for values from (minvalue) to (%L)', v_bound);
  execute format('alter table app_webhook_attempts attach partition app_webhook_attempts_legacy for values from (minvalue) to (%L)', v_bound);
  alter table app_webhook_deliveries_legacy drop constraint app_webhook_deliveries_legacy_range;
  alter table app_webhook_attempts_legacy drop constraint app_webhook_attempts_legacy_range;

  create table app_webhook_deliveries_default partition of app_webhook_deliveries default;
  create table app_webhook_attempts_default partition of app_webhook_attempts default;

  create trigger app_webhook_attempts_cascade after delete on app_webhook_deliveries
    for each row execute function app_webhook_attempts_cascade();

  perform app_delivery_partitions_ensure(now() + interval '14 days');
end $$;

-- migrate: commit

-- Statistics of the partitioned tables as a whole (autovacuum analyzes partitions, never their
-- parent); a sampling read that blocks no writer.
analyze app_webhook_deliveries;
analyze app_webhook_attempts;
