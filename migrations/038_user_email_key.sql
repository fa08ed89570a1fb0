-- Users: the key that tells two emails apart as accounts (shared/accounts/user-fields.ts
-- `emailKey`: trimmed, Unicode NFKC, then lower case in every script), stored beside the email
-- and unique, so the database refuses a second account for `ädmin@example.com` when
-- `Ädmin@example.com` has one. The index on lower(email) (007) could not: under the C locale
-- lower() folds ASCII letters only. That index stays: the release before names it as the arbiter
-- of its insert's `on conflict`.
--
-- The application writes the key it computes. This migration fills the rows before it with the
-- closest key SQL gives, and `app migrate` then writes the application's own key to every row
-- whose email is not plain ASCII (shared/accounts/email-keys.ts). Of users whose emails have one
-- key, the one created first keeps it; the others keep their rows with no key, still sign in with
-- their own spelling, and `app migrate` logs a warning naming them (docs/accounts-and-console.md).
alter table app_users add column if not exists email_key text;

-- app_email_key(email): the key as close as SQL comes to the application's. ICU's root locale
-- lowers every script as the application does (ß stays, a final sigma is ς); a server built
-- without ICU lowers ASCII letters only, deterministically, and `app migrate` writes the rest.
-- normalize() needs a UTF8 database.
do $$
declare
  utf8 boolean := current_setting('server_encoding') = 'UTF8';
  icu boolean := exists (select from pg_collation where collname = 'und-x-icu' and collprovider = 'i');
  body text;
begin
  body := case
    when utf8 and icu then 'lower(normalize(btrim(email), NFKC) collate "und-x-icu")'
    when utf8 then 'lower(normalize(btrim(email), NFKC) collate "C")'
    else 'lower(btrim(email) collate "C")'
  end;
  execute format(
    'create or replace function app_email_key(email text) returns text
       language sql immutable strict parallel safe as %L',
    'select ' || body);
end
$$;

-- The rows before this migration: the first created of each key keeps it.
with keyed as (
  select id, app_email_key(email) as key,
         row_number() over (partition by app_email_key(email) order by created_at, id) as nth
    from app_users
   where email_key is null
)
update app_users u
   set email_key = keyed.key
  from keyed
 where u.id = keyed.id
   and keyed.nth = 1
   and not exists (select from app_users o where o.email_key = keyed.key);

create unique index if not exists app_users_email_key on app_users (email_key);

-- A row written without a key (by the release before, during a deploy), or whose email changes
-- without its key, gets the SQL key: a second account for a taken key is refused then too.
create or replace function app_users_fill_email_key() returns trigger language plpgsql as $$
begin
  if new.email_key is null and tg_op = 'INSERT'
     or tg_op = 'UPDATE' and new.email is distinct from old.email and new.email_key is not distinct from old.email_key then
    new.email_key := app_email_key(new.email);
  end if;
  return new;
end
$$;
create or replace trigger app_users_email_key before insert or update of email on app_users
  for each row execute function app_users_fill_email_key();
