-- Fairness and FIFO per endpoint.
--
-- A delivery holds one of its endpoint's slots (`slot`) from its claim until its attempt is
-- recorded (a FIFO endpoint's delivery until it is done or dead). A delivery that finds its
-- endpoint at its cap (`webhooks.endpointConcurrency`; 1 for a FIFO endpoint) is parked: it keeps
-- status pending, has no job, and takes no worker slot until a finishing delivery of the same
-- endpoint wakes it (shared/webhooks/deliveries/store.ts, shared/webhooks/deliveries/flow.ts). Claims and
-- wakes count the slots held under a lock on the endpoint's gate row, taken in endpoint order, so
-- the count is exact across every worker process; giving a slot back needs no lock.

-- `none`: deliveries go out in parallel (up to the cap); `fifo`: one at a time, in emit order.
alter table app_webhooks add column if not exists ordering text not null default 'none'
  check (ordering in ('none', 'fifo'));

-- `slot`: the delivery holds one of its endpoint's slots (never once it is done or dead).
-- `parked_at`: parked for a slot since
-- then (null: not parked; never once done or dead), with `parked_job` the job to queue when woken and `seq` its place in
-- the line (from app_delivery_seq: emit order for FIFO endpoints, parking order otherwise).
alter table app_webhook_deliveries add column if not exists slot boolean not null default false;
alter table app_webhook_deliveries add column if not exists parked_at timestamptz;
alter table app_webhook_deliveries add column if not exists parked_job jsonb;
alter table app_webhook_deliveries add column if not exists seq bigint;
create sequence if not exists app_delivery_seq;

create index if not exists app_webhook_deliveries_parked on app_webhook_deliveries (endpoint_id, seq)
  where parked_at is not null;
create index if not exists app_webhook_deliveries_slot on app_webhook_deliveries (endpoint_id)
  where slot;

-- One row per endpoint: what claims and wakes lock to count its slots (no data of its own).
create table if not exists app_endpoint_gate (
  endpoint_id text primary key references app_webhooks (id) on delete cascade
);

insert into app_endpoint_gate (endpoint_id) select id from app_webhooks on conflict do nothing;

-- Whoever writes an endpoint (API, CLI, a deployer's own SQL), its gate row exists.
create or replace function app_endpoint_gate_open() returns trigger language plpgsql as $$
begin
  insert into app_endpoint_gate (endpoint_id) values (new.id) on conflict do nothing;
  return new;
end $$;
drop trigger if exists app_endpoint_gate_open on app_webhooks;
create trigger app_endpoint_gate_open after insert on app_webhooks
  for each row execute function app_endpoint_gate_open();

-- Claims deliveries (shared/webhooks/deliveries/store.ts `claimDeliveries`), in one call: locks the gates of
-- their endpoints in endpoint order, then, in a statement of its own (so it sees every claim and
-- every release committed before the locks were granted), counts each endpoint's slots held and
-- gives the free ones to the deliveries that need one: those that would otherwise park first,
-- then the oldest. A FIFO endpoint has one slot, and none for a newcomer while others wait in its
-- line. The others are parked (`p_parks`) or left as they are. Answers each delivery found pending
-- or running and not parked: its state (claimed, parked, full), whether it holds a slot, and
-- whether its endpoint is FIFO.
create or replace function app_claim_deliveries(p_ids text[], p_jobs text[], p_parks boolean[], p_cap integer)
returns table (id text, endpoint_id text, state text, slot boolean, fifo boolean)
language plpgsql volatile
-- plans made for the arrays at hand: a generic plan does not know their length, and tables that
-- grew since they were last analyzed make it scan them
set plan_cache_mode to force_custom_plan
-- plain index scans: they mark the index entries of deliveries that gave their slot back as dead
-- as they pass them, so counting the slots held stays cheap between vacuums (a bitmap scan
-- would visit every such entry's row again at each count)
set enable_bitmapscan to off
as $$
#variable_conflict use_column
declare
  v_ids text[];
  v_endpoints text[];
  v_states text[];
  v_slots boolean[];
  v_fifos boolean[];
begin
  perform 1 from app_endpoint_gate g
   where g.endpoint_id in (select x.endpoint_id from app_webhook_deliveries x where x.id = any(p_ids))
   order by g.endpoint_id
     for update;
  -- a new statement: it sees every claim and release committed before the locks were granted
  with asked as (
    select * from unnest(p_ids, p_parks) as a (id, park)
  ), found as materialized (
    -- primary key lookups alone (no other index of the table is worth reading for a few ids)
    select d.id, d.endpoint_id, d.created_at, d.slot, d.status, d.parked_at
      from app_webhook_deliveries d where d.id = any(p_ids)
  ), cand as (
    select d.id, d.endpoint_id, d.created_at, d.slot, a.park, (w.ordering = 'fifo') as fifo,
           (not d.slot and w.disabled_at is null) as needs
      from found d
      join asked a on a.id = d.id
      join app_webhooks w on w.id = d.endpoint_id
     where d.status in ('pending', 'running') and d.parked_at is null
  ), free as materialized (
    -- once per endpoint
    select e.endpoint_id,
           greatest(
             case when not e.fifo then p_cap
                  when exists (select 1 from app_webhook_deliveries x
                                where x.endpoint_id = e.endpoint_id and x.parked_at is not null) then 0
                  else 1 end
             - (select count(*) from app_webhook_deliveries x where x.endpoint_id = e.endpoint_id and x.slot)::int,
             0) as slots
      from (select c.endpoint_id, bool_or(c.fifo) as fifo from cand c where c.needs group by c.endpoint_id) e
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

  update app_webhook_deliveries d
     set status = 'running', slot = t.slot, next_attempt_at = null, updated_at = now()
    from unnest(v_ids, v_states, v_slots) as t (id, state, slot)
   where t.state = 'claimed' and d.id = t.id;
  update app_webhook_deliveries d
     set status = 'pending', parked_at = now(), parked_job = j.job::jsonb,
         seq = nextval('app_delivery_seq'), -- parked now: the back of the line
         next_attempt_at = null, updated_at = now()
    from unnest(v_ids, v_states) as t (id, state)
    join unnest(p_ids, p_jobs) as j (id, job) on j.id = t.id
   where t.state = 'parked' and d.id = t.id;
  return query select * from unnest(v_ids, v_endpoints, v_states, v_slots, v_fifos);
end $$;
