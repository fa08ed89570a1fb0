-- Fairness and FIFO per endpoint (issue 16, items 1 and 3).
--
-- Every endpoint has a gate row: `running` counts its deliveries holding a slot (claimed by a
-- worker, or woken to run next), `waiting` its deliveries parked for a slot. A delivery that
-- finds its endpoint at its cap (`webhooks.endpointConcurrency`; 1 for a FIFO endpoint) is parked:
-- it keeps status pending, has no job, and takes no worker slot until a finishing delivery of
-- the same endpoint wakes it (worker/delivery/store.ts, shared/webhooks/deliveries/flow.ts).
-- Workers change the counters in the statements that change the deliveries, locking gate rows
-- in endpoint order, so the counters are exact across every worker process.

-- `none`: deliveries go out in parallel (up to the cap); `fifo`: one at a time, in emit order.
alter table app_webhooks add column if not exists ordering text not null default 'none'
  check (ordering in ('none', 'fifo'));

-- `slot`: the delivery holds one of its endpoint's slots. `parked_at`: parked for a slot since
-- then (null: not parked), with `parked_job` the job to queue when woken and `seq` its place in
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

create table if not exists app_endpoint_gate (
  endpoint_id text primary key references app_webhooks (id) on delete cascade,
  running     integer not null default 0,
  waiting     integer not null default 0,
  -- slots the last claim statement granted (read back by that statement)
  granted     integer not null default 0
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
