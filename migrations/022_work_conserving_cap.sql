-- The endpoint cap is work-conserving. `webhooks.endpointConcurrency` keeps one endpoint from
-- holding every worker while other endpoints' deliveries wait (a receiver that hangs cannot hold
-- up a healthy one); an endpoint alone with work has nobody to make room for, and its cap then
-- held one busy endpoint to a seventh of what the same work spread over many endpoints drained
-- at (measured: 258 against 2,269 deliveries a second, 1 endpoint against 100; with the cap
-- lifted, 2,088). So an endpoint is capped only while another endpoint's deliveries are waiting:
-- ready to be sent and not yet taken up, or parked for a slot of their own endpoint, or while it
-- is slow (below). Otherwise it may hold up to ALONE_CAP deliveries in flight across every worker.
--
-- Finding whether any other endpoint waits must cost a few index probes, whatever the backlog:
-- the endpoints with parked deliveries are found in the parked index (migration 014) on either
-- side of this one, and those with deliveries pending and not parked in a partial index of their
-- own (only deliveries waiting for their first or next attempt have an entry: it stays small),
-- stepping from one endpoint to the next; past 16 endpoints whose pending deliveries are all
-- scheduled later (retries), another is taken to be waiting, and the cap holds.

create index if not exists app_webhook_deliveries_waiting on app_webhook_deliveries (endpoint_id, next_attempt_at)
  where status = 'pending' and parked_at is null;

create or replace function app_others_waiting(p_endpoint text) returns boolean
language plpgsql stable
set enable_seqscan to off
set enable_bitmapscan to off
as $$
declare
  v_next text;
  v_side int;
  v_steps int;
begin
  if exists (select 1 from app_webhook_deliveries x where x.parked_at is not null and x.endpoint_id > p_endpoint)
     or exists (select 1 from app_webhook_deliveries x where x.parked_at is not null and x.endpoint_id < p_endpoint) then
    return true;
  end if;
  for v_side in 1..2 loop
    v_next := p_endpoint;
    v_steps := 0;
    loop
      if v_side = 1 then
        select min(x.endpoint_id) into v_next from app_webhook_deliveries x
         where x.status = 'pending' and x.parked_at is null and x.endpoint_id > v_next;
      else
        select max(x.endpoint_id) into v_next from app_webhook_deliveries x
         where x.status = 'pending' and x.parked_at is null and x.endpoint_id < v_next;
      end if;
      exit when v_next is null;
      if exists (select 1 from app_webhook_deliveries x
                  where x.status = 'pending' and x.parked_at is null and x.endpoint_id = v_next and x.next_attempt_at <= now()) then
        return true;
      end if;
      v_steps := v_steps + 1;
      if v_steps >= 16 then return true; end if;
    end loop;
  end loop;
  return false;
end $$;

-- A receiver that took half a second or more to answer (or to be cut off) is slow for the next
-- minute, and so is one with an attempt in flight for longer than that: it stays capped even
-- alone. Uncapped, a receiver that hangs would take every worker until its attempts time out, and
-- the next endpoint's deliveries would wait that long for one. The delivery worker sets
-- `slow_until` when it records such an attempt (shared/webhooks/deliveries/store.ts).
alter table app_endpoint_gate add column if not exists slow_until timestamptz;

-- The cap of an endpoint now: one for a FIFO endpoint; `p_cap` while another endpoint's
-- deliveries wait or while the endpoint is slow; else ALONE_CAP (256).
create or replace function app_endpoint_cap(p_endpoint text, p_fifo boolean, p_cap integer) returns integer
language sql stable
as $$
  select case
    when p_fifo then 1
    when coalesce((select g.slow_until > now() from app_endpoint_gate g where g.endpoint_id = p_endpoint), false) then p_cap
    when exists (select 1 from app_webhook_deliveries x
                  where x.endpoint_id = p_endpoint and x.status = 'running' and x.updated_at < now() - interval '500 milliseconds') then p_cap
    when app_others_waiting(p_endpoint) then p_cap
    else greatest(p_cap, 256) end
$$;

-- As migration 016's, with each endpoint's cap from app_endpoint_cap.
create or replace function app_claim_deliveries(p_ids text[], p_jobs text[], p_parks boolean[], p_cap integer)
returns table (id text, endpoint_id text, state text, slot boolean, fifo boolean)
language plpgsql volatile
set enable_seqscan to off
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
             case when e.fifo and exists (select 1 from app_webhook_deliveries x
                                           where x.endpoint_id = e.endpoint_id and x.parked_at is not null) then 0
                  else app_endpoint_cap(e.endpoint_id, e.fifo, p_cap) end
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
