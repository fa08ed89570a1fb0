-- The claim answers everything its caller needs in one pass. Migration 025's `app_claim_deliveries`
-- answered the ids, states and slots only, so the worker's statement around it read every claimed
-- delivery again (its owner, attempts and body: one more primary-key lookup in the partitioned
-- deliveries per delivery, planned over every partition at every call) and joined the endpoints'
-- gate rows again for their state. `app_claim_deliveries_whole` decides exactly as that function
-- does (the same locks, counts and order), reads those columns off the rows it has in hand, and
-- answers them with its decisions; the body only for the ids in `p_bodies` (jobs whose payload
-- lacks it).
--
-- A function of its own name, so that workers of the release before keep calling the old one while
-- a deploy rolls (the old one stays; creating a function takes no lock on any table).
create or replace function app_claim_deliveries_whole(
  p_ids text[], p_jobs text[], p_parks boolean[], p_cap integer, p_bodies text[]
)
returns table (
  id text, endpoint_id text, state text, slot boolean, fifo boolean,
  owner text, attempts integer, body text, disabled_at timestamptz, rate_limit integer, version integer
)
language plpgsql volatile
set enable_seqscan to off
set enable_bitmapscan to off
-- one plan per statement, kept (as migration 024 says: planning over every partition at every
-- call cost more than running it)
set plan_cache_mode to force_generic_plan
as $$
#variable_conflict use_column
declare
  v_ids text[];
  v_endpoints text[];
  v_states text[];
  v_slots boolean[];
  v_fifos boolean[];
  v_owners text[];
  v_attempts integer[];
  v_bodies text[];
  v_disabled timestamptz[];
  v_rates integer[];
  v_versions integer[];
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
    select d.id, d.endpoint_id, d.created_at, d.slot, d.status, d.parked_at, d.owner, d.attempts,
           case when d.id = any(p_bodies) then d.body end as body
      from app_webhook_deliveries d where d.id = any(p_ids)
  ), cand as (
    select d.id, d.endpoint_id, d.created_at, d.slot, a.park, (g.ordering = 'fifo') as fifo,
           (not d.slot and g.disabled_at is null) as needs,
           d.owner, d.attempts, d.body, g.disabled_at, g.rate_limit, g.version
      from found d
      join asked a on a.id = d.id
      join app_endpoint_gate g on g.endpoint_id = d.endpoint_id
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
    select c.*,
           (not c.needs or row_number() over (partition by c.endpoint_id, c.needs order by c.park desc, c.created_at, c.id) <= f.slots) as go
      from cand c left join free f on f.endpoint_id = c.endpoint_id
  )
  select array_agg(x.id), array_agg(x.endpoint_id),
         array_agg(case when x.go then 'claimed' when x.park then 'parked' else 'full' end),
         array_agg(x.slot or (x.go and x.needs)), array_agg(x.fifo),
         array_agg(x.owner), array_agg(x.attempts), array_agg(case when x.go then x.body end),
         array_agg(x.disabled_at), array_agg(x.rate_limit), array_agg(x.version)
    into v_ids, v_endpoints, v_states, v_slots, v_fifos, v_owners, v_attempts, v_bodies, v_disabled, v_rates, v_versions
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
  return query select * from unnest(v_ids, v_endpoints, v_states, v_slots, v_fifos,
                                    v_owners, v_attempts, v_bodies, v_disabled, v_rates, v_versions);
end $$;
