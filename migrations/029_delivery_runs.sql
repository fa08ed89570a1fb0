-- Claims of quick endpoints without rewriting the delivery row.
--
-- Until now every claim rewrote its delivery row (status `running`, `slot`, `updated_at`): a new
-- version of a wide row, not a HOT update (`status` and `slot` are in the table's indexes), so one
-- entry more in each of its indexes, about 900 of the 2,700 bytes of WAL a delivery cost, and the
-- largest statement of the delivery path (measured with `npm run bench:delivery -- --profile 1`).
--
-- A claim that takes no gate lock (an endpoint known to answer quickly, not FIFO, migration 024)
-- and, here, no rate limit and not disabled, now writes one narrow row into `app_delivery_runs`
-- instead: the delivery stays `pending` on its row while its attempt runs, and its run row holds
-- its slot. Recording the attempt deletes the run row in the same statement that writes the
-- outcome. What the run rows stand for:
--
-- - slots: an endpoint holds the slots its deliveries hold on their rows plus its run rows
--   (`app_endpoint_held`), counted by every claim, wake and sweep, as the rows alone were;
-- - an attempt running for half a second (the cap's test of a quick endpoint, migration 024):
--   a run row older than that counts as the `running` row of the same age did;
-- - the status shown: the recovery sweep (worker/heartbeat.ts) marks the row of a run older than
--   half a second `running`, so a receiver that hangs is seen as before, within one heartbeat.
--
-- The table is UNLOGGED: no WAL. A server crash empties it (PostgreSQL truncates unlogged tables
-- in its recovery; a standby promoted in a failover has it empty), and nothing is lost with it: a
-- run row stands only for a slot and the age of an attempt, every state that matters is on the
-- delivery's row and its job (an attempt in flight at the crash is recorded by its worker or, that
-- failing, its job runs again: at least once, as after any crash), and the slots count anew. A
-- worker crash leaves its rows, as it left its `running` rows: they hold their slots until the job
-- runs again (its claim takes the row over) or the sweep finds the delivery finished.
--
-- Safe on a live database: a new, empty table and functions; nothing here locks the deliveries.
create unlogged table if not exists app_delivery_runs (
  delivery_id text primary key,
  endpoint_id text not null,
  started_at timestamptz not null default now()
);
create index if not exists app_delivery_runs_endpoint on app_delivery_runs (endpoint_id, started_at);

-- The slots endpoint `p_endpoint` holds: its deliveries' on their rows, and its runs'.
create or replace function app_endpoint_held(p_endpoint text) returns integer
language sql stable
as $$
  select ((select count(*) from app_webhook_deliveries d where d.endpoint_id = p_endpoint and d.slot)
        + (select count(*) from app_delivery_runs r where r.endpoint_id = p_endpoint))::int
$$;

-- The cap of an endpoint now, as migration 024's, with a run row as old as half a second counting
-- as the `running` delivery it stands for.
create or replace function app_endpoint_cap(p_endpoint text, p_fifo boolean, p_cap integer) returns integer
language sql stable
as $$
  select case
    when p_fifo then 1
    when not coalesce((select g.fast_until > now() and (g.slow_until is null or g.slow_until <= now())
                         from app_endpoint_gate g where g.endpoint_id = p_endpoint), false) then p_cap
    when exists (select 1 from app_webhook_deliveries x
                  where x.endpoint_id = p_endpoint and x.status = 'running' and x.updated_at < now() - interval '500 milliseconds') then p_cap
    when exists (select 1 from app_delivery_runs r
                  where r.endpoint_id = p_endpoint and r.started_at < now() - interval '500 milliseconds') then p_cap
    else greatest(p_cap, 256) end
$$;

-- The claim, deciding as migration 025's `app_claim_deliveries` does (the same locks, counts and
-- order, the slots counted with the run rows), answering with its decisions what its caller used to
-- read again around it (the delivery's owner, attempts and body, the gate's state: one more
-- primary-key lookup per delivery in the partitioned table), the body only for the ids in
-- `p_bodies`. A claim on the quick path (`slot` and `run` true) writes its run row; any other
-- marks its row `running` as before. A function of its own name, so that workers of the release
-- before keep calling the old one while a deploy rolls (creating a function locks no table).
create or replace function app_claim_deliveries_whole(
  p_ids text[], p_jobs text[], p_parks boolean[], p_cap integer, p_bodies text[]
)
returns table (
  id text, endpoint_id text, state text, slot boolean, fifo boolean, run boolean,
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
  v_runs boolean[];
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
           -- the quick path: no gate lock was taken for it (above), no rate limit, pending
           (g.ordering <> 'fifo' and g.rate_limit is null and d.status = 'pending'
            and coalesce(g.fast_until > now() and (g.slow_until is null or g.slow_until <= now()), false)) as quick,
           d.owner, d.attempts, d.body, g.disabled_at, g.rate_limit, g.version
      from found d
      join asked a on a.id = d.id
      join app_endpoint_gate g on g.endpoint_id = d.endpoint_id
     where d.status in ('pending', 'running') and d.parked_at is null
  ), wanted as materialized (
    -- once per endpoint: how many of its slots are held, and how many this call asks for
    select c.endpoint_id, bool_or(c.fifo) as fifo, count(*)::int as wanted,
           -- `app_endpoint_held`, written out: called as a function it is run on its own per endpoint
           ((select count(*) from app_webhook_deliveries x where x.endpoint_id = c.endpoint_id and x.slot)
          + (select count(*) from app_delivery_runs r where r.endpoint_id = c.endpoint_id))::int as held
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
         array_agg(x.slot or (x.go and x.needs)), array_agg(x.fifo), array_agg(x.go and x.needs and x.quick),
         array_agg(x.owner), array_agg(x.attempts), array_agg(case when x.go then x.body end),
         array_agg(x.disabled_at), array_agg(x.rate_limit), array_agg(x.version)
    into v_ids, v_endpoints, v_states, v_slots, v_fifos, v_runs, v_owners, v_attempts, v_bodies, v_disabled, v_rates, v_versions
    from decided x;
  if v_ids is null then return; end if;

  if true = any(v_runs) then
    insert into app_delivery_runs as r (delivery_id, endpoint_id)
    select t.id, t.endpoint_id from unnest(v_ids, v_endpoints, v_runs) as t (id, endpoint_id, run) where t.run
    on conflict (delivery_id) do update set endpoint_id = excluded.endpoint_id, started_at = now();
  end if;
  if exists (select 1 from unnest(v_states, v_runs) as t (state, run) where t.state = 'claimed' and not t.run) then
    update app_webhook_deliveries d
       set status = 'running', slot = t.slot, next_attempt_at = null, updated_at = now()
      from unnest(v_ids, v_states, v_slots, v_runs) as t (id, state, slot, run)
     where t.state = 'claimed' and not t.run and d.id = t.id;
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
  return query select * from unnest(v_ids, v_endpoints, v_states, v_slots, v_fifos, v_runs,
                                    v_owners, v_attempts, v_bodies, v_disabled, v_rates, v_versions);
end $$;
