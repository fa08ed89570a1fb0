-- Every change of an API token that can refuse or alter a request made with it (revoked, expired
-- sooner, its role, owner, name, digest or user changed, deleted: also by the cascade of its
-- user's deletion) announces the token's id on `app_api_tokens_changed` when its transaction
-- commits. Each web process keeps the tokens it has looked up for a few seconds
-- (shared/tokens/cache.ts) and drops one as soon as its id is announced, whichever process or
-- command changed it (`tokens:revoke`, `users:disable`, the API, the console, plain SQL).
-- Recording a use (`last_used_at`) announces nothing.
create or replace function app_api_token_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('app_api_tokens_changed', old.id);
  return null;
end $$;

drop trigger if exists app_api_tokens_changed on app_api_tokens;
create trigger app_api_tokens_changed after update on app_api_tokens
  for each row
  when ((old.id, old.revoked_at, old.expires_at, old.role, old.owner, old.name, old.digest, old.user_id)
        is distinct from (new.id, new.revoked_at, new.expires_at, new.role, new.owner, new.name, new.digest, new.user_id))
  execute function app_api_token_changed();

drop trigger if exists app_api_tokens_deleted on app_api_tokens;
create trigger app_api_tokens_deleted after delete on app_api_tokens
  for each row execute function app_api_token_changed();
