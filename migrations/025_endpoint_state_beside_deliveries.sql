-- The endpoint table may live in another store (`webhooks.store`: MySQL, SQL Server, Drizzle,
-- Mongoose, a directory on disk), while deliveries, events and jobs stay here. What the delivery
-- pipeline needs of an endpoint therefore lives here too, in its gate row (migration 014), written
-- by the core at every change of the endpoint whatever the store: its owner, whether it is
-- disabled, its ordering and rate limit, when it was last enabled, and the version of its record.
-- Claims, fairness, the emit's insert, delivery listings and the hourly checks read the gate
-- alone; none of them names the endpoint table any more. Removing an endpoint's gate row removes
-- its deliveries (and their attempts), as the foreign key to the endpoint table did; the emit
-- holds the gate rows it inserts deliveries for (`for key share`), so no delivery is written for
-- an endpoint being removed.
--
-- When the endpoint table is this database's own `app_webhooks`, triggers keep the gate equal to
-- it as well, so a row written by a deployer's own SQL is seen by the pipeline as before.
--
-- Secrets move into the endpoint record (`secrets`, a JSON array of {sealed, createdAt,
-- expiresAt}), so every store holds an endpoint whole, and each record carries the `version` that
-- guards its updates.

-- first, on its own: deliveries no longer reference the endpoint table (it may be elsewhere); the
-- lock is taken patiently so writers queue behind it for half a second at most
do $$
begin
  if exists (select 1 from pg_constraint where conname = 'app_webhook_deliveries_endpoint_id_fkey') then
    perform app_lock_patiently('lock table app_webhook_deliveries in access exclusive mode');
    alter table app_webhook_deliveries drop constraint app_webhook_deliveries_endpoint_id_fkey;
  end if;
end $$;

-- migrate: commit

alter table app_endpoint_gate add column if not exists owner text;
alter table app_endpoint_gate add column if not exists disabled_at timestamptz;
alter table app_endpoint_gate add column if not exists ordering text not null default 'none'
  check (ordering in ('none', 'fifo'));
alter table app_endpoint_gate add column if not exists rate_limit integer check (rate_limit is null or rate_limit > 0);
alter table app_endpoint_gate add column if not exists enabled_at timestamptz;
alter table app_endpoint_gate add column if not exists failing_notified_at timestamptz;
alter table app_endpoint_gate add column if not exists version integer not null default 1;
create index if not exists app_endpoint_gate_owner on app_endpoint_gate (owner);

alter table app_webhooks add column if not exists secrets jsonb not null default '[]'::jsonb;
alter table app_webhooks add column if not exists version integer not null default 1;

-- the secrets of each endpoint into its record, oldest first, as the stores keep them
do $$
begin
  if to_regclass('app_webhook_secrets') is not null then
    update app_webhooks w
       set secrets = s.secrets
      from (select endpoint_id,
                   jsonb_agg(jsonb_build_object(
                     'sealed', sealed,
                     'createdAt', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                     'expiresAt', case when expires_at is null then null
                                       else to_char(expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end)
                   order by id) as secrets
              from app_webhook_secrets group by endpoint_id) s
     where s.endpoint_id = w.id;
    drop table app_webhook_secrets;
  end if;
end $$;

insert into app_endpoint_gate (endpoint_id) select id from app_webhooks on conflict do nothing;
update app_endpoint_gate g
   set owner = w.owner, disabled_at = w.disabled_at, ordering = w.ordering, rate_limit = w.rate_limit,
       enabled_at = w.enabled_at, failing_notified_at = w.failing_notified_at, version = w.version
  from app_webhooks w where w.id = g.endpoint_id;

alter table app_endpoint_gate drop constraint if exists app_endpoint_gate_endpoint_id_fkey;

-- an endpoint's deliveries go with its gate row (their attempts with them: migration 023)
create or replace function app_endpoint_gate_removed() returns trigger language plpgsql as $$
begin
  delete from app_webhook_deliveries where endpoint_id = old.endpoint_id;
  return old;
end $$;
drop trigger if exists app_endpoint_gate_removed on app_endpoint_gate;
create trigger app_endpoint_gate_removed after delete on app_endpoint_gate
  for each row execute function app_endpoint_gate_removed();

-- `app_webhooks` keeps its gate rows equal to it: inserted and updated with it, removed with it
create or replace function app_endpoint_gate_open() returns trigger language plpgsql as $$
begin
  insert into app_endpoint_gate (endpoint_id, owner, disabled_at, ordering, rate_limit, enabled_at, version)
  values (new.id, new.owner, new.disabled_at, new.ordering, new.rate_limit, new.enabled_at, new.version)
  on conflict (endpoint_id) do update
    set owner = excluded.owner, disabled_at = excluded.disabled_at, ordering = excluded.ordering,
        rate_limit = excluded.rate_limit, enabled_at = excluded.enabled_at, version = excluded.version;
  return new;
end $$;
drop trigger if exists app_endpoint_gate_open on app_webhooks;
create trigger app_endpoint_gate_open after insert or update of owner, disabled_at, ordering, rate_limit, enabled_at, version
  on app_webhooks for each row execute function app_endpoint_gate_open();

create or replace function app_endpoint_gate_close() returns trigger language plpgsql as $$
begin
  delete from app_endpoint_gate where endpoint_id = old.id;
  return old;
end $$;
drop trigger if exists app_endpoint_gate_close on app_webhooks;
create trigger app_endpoint_gate_close after delete on app_webhooks
  for each row execute function app_endpoint_gate_close();

alter table app_webhooks drop column if exists failing_notified_at;

-- The claim, as migration 024's, reading the endpoint's ordering and state off its gate.
create or replace function app_claim_deliveries(p_ids text[], p_jobs text[], p_parks boolean[], p_cap integer)
returns table (id text, endpoint_id text, state text, slot boolean, fifo boolean)
language plpgsql volatile
set enable_seqscan to off
set enable_bitmapscan to off
set plan_cache_mode to force_generic_plan
as $$
#variable_conflict use_column
declare
  v_ids text[];
  v_endpoints text[];
  v_states text[];
  v_slots boolean[];
  v_fifos boolean[];
begin
  -- the gates of endpoints whose slots are counted exactly: FIFO ones, and those held to their cap
  perform 1 from app_endpoint_gate g
   where g.endpoint_id in (select x.endpoint_id from app_webhook_deliveries x where x.id = any(p_ids))
     and (g.ordering = 'fifo' or not coalesce(g.fast_until > now() and (g.slow_until is null or g.slow_until <= now()), false))
   order by g.endpoint_id
     for no key update of g; -- not against the emit's key share
  -- a new statement: it sees every claim and release committed before the locks were granted
  with asked as (
    select * from unnest(p_ids, p_parks) as a (id, park)
  ), found as materialized (
    select d.id, d.endpoint_id, d.created_at, d.slot, d.status, d.parked_at
      from app_webhook_deliveries d where d.id = any(p_ids)
  ), cand as (
    select d.id, d.endpoint_id, d.created_at, d.slot, a.park, (g.ordering = 'fifo') as fifo,
           (not d.slot and g.disabled_at is null) as needs
      from found d
      join asked a on a.id = d.id
      join app_endpoint_gate g on g.endpoint_id = d.endpoint_id
     where d.status in ('pending', 'running') and d.parked_at is null
  ), wanted as materialized (
    select c.endpoint_id, bool_or(c.fifo) as fifo, count(*)::int as wanted,
           (select count(*) from app_webhook_deliveries x where x.endpoint_id = c.endpoint_id and x.slot)::int as held
      from cand c where c.needs group by c.endpoint_id
  ), free as materialized (
    select e.endpoint_id,
           greatest(
             case when e.fifo and exists (select 1 from app_webhook_deliveries x
                                           where x.endpoint_id = e.endpoint_id and x.parked_at is not null) then 0
                  when not e.fifo and e.held + e.wanted <= p_cap then p_cap
                  else app_endpoint_cap(e.endpoint_id, e.fifo, p_cap) end
             - e.held,
             0) as slots
      from wanted e
  ), decided as (
    select c.id, c.endpoint_id, c.park, c.needs, c.slot, c.fifo,
           (not c.needs or row_number() over (partition by c.endpoint_id, c.needs order by c.park desc, c.created_at, c.id) <= f.slots) as go
      from cand c left join free f on f.endpoint_id = c.endpoint_id
  )
  select array_agg(x.id), array_agg(x.endpoint_id),
         array_agg(case when x.go then 'claimed' when x.park then 'parked' else 'full' end),
         array_agg(x.slot or (x.go and x.needs)), array_agg(x.fifo)
    into v_ids, v_endpoints, v_states, v_slots, v_fifos
    from decided x;
  if v_ids is null then return; end if;

  if 'claimed' = any(v_states) then
    update app_webhook_deliveries d
       set status = 'running', slot = t.slot, next_attempt_at = null, updated_at = now()
      from unnest(v_ids, v_states, v_slots) as t (id, state, slot)
     where t.state = 'claimed' and d.id = t.id;
  end if;
  if 'parked' = any(v_states) then
    update app_webhook_deliveries d
       set status = 'pending', parked_at = now(), parked_job = j.job::jsonb,
           seq = nextval('app_delivery_seq'),
           next_attempt_at = null, updated_at = now()
      from unnest(v_ids, v_states) as t (id, state)
      join unnest(p_ids, p_jobs) as j (id, job) on j.id = t.id
     where t.state = 'parked' and d.id = t.id;
  end if;
  return query select * from unnest(v_ids, v_endpoints, v_states, v_slots, v_fifos);
end $$;

-- The partition prune, as migration 023's, its kept rows checked against the gates (no foreign key).
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
  execute format('delete from %I where endpoint_id not in (select g.endpoint_id from app_endpoint_gate g)', v_new);
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
