-- The endpoint cap, third version. `webhooks.endpointConcurrency` is there so that a receiver that
-- hangs cannot take every worker while other endpoints' deliveries wait. Migration 022 capped an
-- endpoint while any other endpoint had deliveries waiting (ready, or parked), and that held the
-- service back exactly when it was busy: with three endpoints fed 100 events a second each, every
-- endpoint saw the others' deliveries waiting, all three were held to four in flight while 32
-- worker slots sat idle, and the workers spent their time parking deliveries and waking them
-- again; delivered: 247 a second of the 300 offered on one machine, 22 on a busier one, with the
-- backlog growing without end (measured with `npm run bench:sustained`). Counting only deliveries
-- that had waited for a worker for a while did not help: once a backlog formed, it counted, the
-- caps engaged, parking slowed the workers and the backlog grew.
--
-- What holds workers is slowness, not volume. So the cap now applies to an endpoint that is not
-- known to answer quickly, whatever the others do: one that is new, or had an attempt take half a
-- second or more in the last minute (`slow_until`, migration 022), or has an attempt running for
-- half a second now. An endpoint with an attempt under half a second in the last minute
-- (`fast_until`) and none slower is not capped (ALONE_CAP, 256): each of its attempts frees its
-- worker within half a second, so a delivery of another endpoint waits only for the jobs queued
-- before it, as it would if those were parked instead of sent. A new endpoint starts at its cap
-- and passes it once it has answered quickly; a receiver that hangs never does.
--
-- The claim also asks for an endpoint's cap only when the slots it would hold pass the least cap a
-- non-FIFO endpoint ever has (`webhooks.endpointConcurrency`): below that every delivery asked for
-- goes whatever the answer.

-- Until when the endpoint counts as quick: set by the delivery worker when it records an attempt
-- that took under half a second (shared/webhooks/deliveries/store.ts).
alter table app_endpoint_gate add column if not exists fast_until timestamptz;

-- The cap of an endpoint now: one for a FIFO endpoint; else `p_cap` unless it is known to answer
-- quickly and has no attempt running for half a second; else ALONE_CAP (256).
create or replace function app_endpoint_cap(p_endpoint text, p_fifo boolean, p_cap integer) returns integer
language sql stable
as $$
  select case
    when p_fifo then 1
    when not coalesce((select g.fast_until > now() and (g.slow_until is null or g.slow_until <= now())
                         from app_endpoint_gate g where g.endpoint_id = p_endpoint), false) then p_cap
    when exists (select 1 from app_webhook_deliveries x
                  where x.endpoint_id = p_endpoint and x.status = 'running' and x.updated_at < now() - interval '500 milliseconds') then p_cap
    else greatest(p_cap, 256) end
$$;

-- Nothing asks whether other endpoints wait any more: the function and the index it read go (the
-- index was one more entry to write at every change of a pending delivery).
drop function if exists app_others_waiting(text);
drop index if exists app_webhook_deliveries_waiting;

-- Of `p_endpoints`, those with deliveries parked for a slot (what a worker asks after giving a
-- slot back). A function, so its plan is made once: planned as a statement of its own it was
-- planned again at every call, over every partition, at ten times the cost of running it.
create or replace function app_endpoints_with_parked(p_endpoints text[]) returns setof text
language plpgsql stable
set enable_seqscan to off
set plan_cache_mode to force_generic_plan
as $$
begin
  return query
    select e.endpoint_id from unnest(p_endpoints) as e (endpoint_id)
     where exists (select 1 from app_webhook_deliveries p where p.endpoint_id = e.endpoint_id and p.parked_at is not null);
end $$;

-- The claim, as migration 022's, asking for the cap only past the least cap, locking the gates of
-- capped and FIFO endpoints only, its plans kept.
create or replace function app_claim_deliveries(p_ids text[], p_jobs text[], p_parks boolean[], p_cap integer)
returns table (id text, endpoint_id text, state text, slot boolean, fifo boolean)
language plpgsql volatile
set enable_seqscan to off
set enable_bitmapscan to off
-- one plan per statement, kept: planning a statement over the partitioned deliveries (migration
-- 023) visits every partition, and for an array parameter PostgreSQL keeps choosing a fresh
-- custom plan (its estimate knows the array's length); the plans here do not depend on it
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
  -- (not known to answer quickly); a quick endpoint's claims take no lock, so workers starting
  -- its deliveries at once do not queue behind one another (its cap of 256 is a ceiling, not a
  -- count that must be exact)
  perform 1 from app_endpoint_gate g
   join app_webhooks w on w.id = g.endpoint_id
   where g.endpoint_id in (select x.endpoint_id from app_webhook_deliveries x where x.id = any(p_ids))
     and (w.ordering = 'fifo' or not coalesce(g.fast_until > now() and (g.slow_until is null or g.slow_until <= now()), false))
   order by g.endpoint_id
     for update of g;
  -- a new statement: it sees every claim and release committed before the locks were granted
  with asked as (
    select * from unnest(p_ids, p_parks) as a (id, park)
  ), found as materialized (
    select d.id, d.endpoint_id, d.created_at, d.slot, d.status, d.parked_at
      from app_webhook_deliveries d where d.id = any(p_ids)
  ), cand as (
    select d.id, d.endpoint_id, d.created_at, d.slot, a.park, (w.ordering = 'fifo') as fifo,
           (not d.slot and w.disabled_at is null) as needs
      from found d
      join asked a on a.id = d.id
      join app_webhooks w on w.id = d.endpoint_id
     where d.status in ('pending', 'running') and d.parked_at is null
  ), wanted as materialized (
    -- once per endpoint: how many of its slots are held, and how many this call asks for
    select c.endpoint_id, bool_or(c.fifo) as fifo, count(*)::int as wanted,
           (select count(*) from app_webhook_deliveries x where x.endpoint_id = c.endpoint_id and x.slot)::int as held
      from cand c where c.needs group by c.endpoint_id
  ), free as materialized (
    select e.endpoint_id,
           greatest(
             case when e.fifo and exists (select 1 from app_webhook_deliveries x
                                           where x.endpoint_id = e.endpoint_id and x.parked_at is not null) then 0
                  -- within the least cap a non-FIFO endpoint has, whoever else waits: all go
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
           seq = nextval('app_delivery_seq'), -- parked now: the back of the line
           next_attempt_at = null, updated_at = now()
      from unnest(v_ids, v_states) as t (id, state)
      join unnest(p_ids, p_jobs) as j (id, job) on j.id = t.id
     where t.state = 'parked' and d.id = t.id;
  end if;
  return query select * from unnest(v_ids, v_endpoints, v_states, v_slots, v_fifos);
end $$;

