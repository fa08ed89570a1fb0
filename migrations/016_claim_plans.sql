-- The claim's plans (fairness must not slow the delivery benchmark down). Version 014 planned
-- every statement of app_claim_deliveries at every call (plan_cache_mode force_custom_plan), to
-- keep a plan made while the tables were small from scanning them once they grew: measured with
-- pg_stat_statements, that planning cost about 0.6 ms a call, 0.07 ms of PostgreSQL time per
-- delivery, more than the rest of the fairness rules together. Here the statements keep their
-- plans, and sequential scans are off inside the function instead (every lookup it makes has its
-- index), which keeps the plans on the indexes whatever the statistics; and the updates for
-- claimed and parked deliveries run only when there is one.
create or replace function app_claim_deliveries(p_ids text[], p_jobs text[], p_parks boolean[], p_cap integer)
returns table (id text, endpoint_id text, state text, slot boolean, fifo boolean)
language plpgsql volatile
-- index scans whatever the statistics say (every lookup here has its index), so the plans can be
-- kept: a plan made while the tables were small never turns into a scan of them once they grew
set enable_seqscan to off
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
