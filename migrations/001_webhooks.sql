-- Webhook endpoints, their signing secrets, emitted events, deliveries and delivery attempts.
-- Ids are opaque text made by the service (ep_…, evt_…, msg_…); msg_ ids are the webhook-id.

create table if not exists app_webhooks (
  id           text primary key,
  url          text not null,
  events       text[] not null,
  owner        text,
  description  text,
  headers      jsonb not null default '{}'::jsonb,
  disabled_at  timestamptz,
  disabled_reason text,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now()
);
create index if not exists app_webhooks_owner_disabled_at on app_webhooks (owner, disabled_at);

-- Several secrets may sign at once (rotation with grace); `sealed` is AES-256-GCM text
-- (enc:v1:<key id>:…) or plain:<secret> when the application has no secret.
create table if not exists app_webhook_secrets (
  id           bigint generated always as identity primary key,
  endpoint_id  text not null references app_webhooks (id) on delete cascade,
  sealed       text not null,
  created_at   timestamptz not null default now(),
  expires_at   timestamptz
);
create index if not exists app_webhook_secrets_endpoint on app_webhook_secrets (endpoint_id);

create table if not exists app_events (
  id          text primary key,
  type        text not null,
  owner       text,
  payload     jsonb not null,
  created_at  timestamptz not null default now()
);
create index if not exists app_events_owner_created on app_events (owner, created_at desc);

-- One row per (event, endpoint). `body` is the exact signed JSON text of the envelope.
-- status: pending (queued or waiting for a retry), running, done, dead.
create table if not exists app_webhook_deliveries (
  id            text primary key,
  event_id      text not null references app_events (id) on delete cascade,
  endpoint_id   text not null references app_webhooks (id) on delete cascade,
  owner         text,
  event_type    text not null,
  queue         text not null,
  body          text not null,
  status        text not null default 'pending' check (status in ('pending', 'running', 'done', 'dead')),
  attempts      integer not null default 0,
  next_attempt_at timestamptz,
  last_error    text,
  last_status   integer,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now(),
  completed_at  timestamptz
);
create index if not exists app_webhook_deliveries_endpoint on app_webhook_deliveries (endpoint_id, created_at desc);
create index if not exists app_webhook_deliveries_status on app_webhook_deliveries (status, created_at desc);
create index if not exists app_webhook_deliveries_event on app_webhook_deliveries (event_id);

create table if not exists app_webhook_attempts (
  delivery_id  text not null references app_webhook_deliveries (id) on delete cascade,
  attempt      integer not null,
  started_at   timestamptz not null,
  duration_ms  integer not null,
  status       integer,
  outcome      text not null check (outcome in ('done', 'retry', 'dead')),
  error        text,
  excerpt      text,
  primary key (delivery_id, attempt)
);
