-- Two refinements of the work-conserving cap (migration 022).
--
-- Who counts as waiting. An endpoint is capped while another endpoint's deliveries wait for a
-- WORKER: ready and not yet taken up. Parked deliveries no longer count: they wait for a slot of
-- their own endpoint (its cap, or a FIFO line), and counting them made the cap hold itself up:
-- with three busy endpoints, each capped because the others had deliveries parked, twelve
-- deliveries were in flight while 32 worker slots sat idle, and a load of 300 a second was
-- delivered at 247 (measured). And for an endpoint that answers quickly (an attempt under half a
-- second in the last minute, `fast_until`, and none slower), a delivery elsewhere counts only
-- once it has been ready for 250 ms: one picked up sooner had a worker free for it, so nobody is
-- held up; one older means the workers are full, and the cap then makes room for it. An endpoint
-- not known to be quick (new, or silent) is capped as soon as anything else is ready, so a
-- receiver that hangs cannot take every worker in the first moments of a burst either; a slow
-- one stays capped whatever the others do (migration 022).
--
-- Asking less often. The claim asks for an endpoint's cap (app_endpoint_cap) only when the slots
-- it would hold pass the least cap a non-FIFO endpoint ever has (`webhooks.endpointConcurrency`):
-- below that every delivery asked for goes whatever the answer. Measured with pg_stat_statements,
-- the cap cost about a quarter of the claim's time.

-- Until when the endpoint counts as quick: set by the delivery worker when it records an attempt
-- that took under half a second (worker/delivery/store.ts).
alter table app_endpoint_gate add column if not exists fast_until timestamptz;

-- Whether another endpoint has a delivery ready for at least `p_grace` and not taken up (not
-- parked): found by stepping through the endpoints with such deliveries in the partial index of
-- migration 022, on either side of this one; past 16 endpoints whose deliveries are all
-- scheduled later or younger than the grace, another is taken to be waiting.
create or replace function app_others_waiting_for_worker(p_endpoint text, p_grace interval) returns boolean
language plpgsql stable
set enable_seqscan to off
set enable_bitmapscan to off
as $$
declare
  v_next text;
  v_side int;
  v_steps int;
begin
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
                  where x.status = 'pending' and x.parked_at is null and x.endpoint_id = v_next
                    and x.next_attempt_at <= now() - p_grace) then
        return true;
      end if;
      v_steps := v_steps + 1;
      if v_steps >= 16 then return true; end if;
    end loop;
  end loop;
  return false;
end $$;

-- The cap of an endpoint now: one for a FIFO endpoint; `p_cap` while it is slow or while another
-- endpoint's deliveries wait for a worker (see above); else ALONE_CAP (256).
create or replace function app_endpoint_cap(p_endpoint text, p_fifo boolean, p_cap integer) returns integer
language sql stable
as $$
  select case
    when p_fifo then 1
    when coalesce((select g.slow_until > now() from app_endpoint_gate g where g.endpoint_id = p_endpoint), false) then p_cap
    when exists (select 1 from app_webhook_deliveries x
                  where x.endpoint_id = p_endpoint and x.status = 'running' and x.updated_at < now() - interval '500 milliseconds') then p_cap
    when app_others_waiting_for_worker(p_endpoint,
           case when coalesce((select g.fast_until > now() from app_endpoint_gate g where g.endpoint_id = p_endpoint), false)
                then interval '250 milliseconds' else interval '0' end) then p_cap
    else greatest(p_cap, 256) end
$$;

drop function if exists app_others_waiting(text);

-- The claim, as migration 022's, asking for the cap only past the least cap.
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

