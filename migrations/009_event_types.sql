-- The event-type catalog: the events senders emit, described for receivers.
-- One catalog for the whole service (event names are the sender's vocabulary, the same for every
-- tenant). `schema` is a JSON Schema (draft 2020-12) for the events' `data`; null: any data.
create table if not exists app_event_types (
  name         text primary key,
  description  text,
  schema       jsonb,
  examples     jsonb not null default '[]'::jsonb,
  deprecated   boolean not null default false,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now()
);
