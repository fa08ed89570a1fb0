-- How an endpoint's deliveries are signed: 'hmac-sha256' (Standard Webhooks'
-- symmetric scheme, `v1,`; secrets whsec_…) or 'ed25519' (the asymmetric scheme, `v1a,`; the
-- private keys whsk_… stay sealed in app_webhook_secrets, receivers get the public key whpk_…).
alter table app_webhooks add column if not exists signing text not null default 'hmac-sha256'
  check (signing in ('hmac-sha256', 'ed25519'));
