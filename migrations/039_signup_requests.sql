-- Sign-up confirmed by mail (shared/accounts/signup-links.ts): each sign-up request that was
-- mailed. For an email without an account it holds a single-use confirmation link (only the
-- SHA-256 digest of its token), valid `auth.resetTtl`, whose use makes the account; for an email
-- that has one, the mail says so and there is no link (digest null). No account exists before its
-- link is used, so these rows name no user. Spending a link is one conditional update, so it makes
-- one account even when two requests race. The rows of one email key made within the links' time
-- to live are counted to bound the mails one mailbox is sent, whoever asks.
create table if not exists app_signup_requests (
  id          bigint generated always as identity primary key,
  -- the email in its canonical spelling (shared/accounts/user-fields.ts canonicalEmail)
  email       text not null,
  -- what tells accounts apart (user-fields.ts emailKey): the mails to one mailbox are counted by it
  email_key   text not null,
  -- the name asked at sign-up: it only prefills the link page's name field; the account gets the
  -- name posted on that page (signup-links.ts completeSignUp)
  name        text,
  -- SHA-256 of the link's token; null: a notice to an email that has an account
  digest      text unique,
  created_at  timestamptz not null,
  expires_at  timestamptz not null,
  used_at     timestamptz
);
create index if not exists app_signup_requests_key on app_signup_requests (email_key, created_at);
create index if not exists app_signup_requests_expires on app_signup_requests (expires_at);
