/**
 * Signing secrets of endpoints (sealed before they reach any store: secret-box.ts). Each endpoint
 * record holds its secrets, each signing while its `expiresAt` is null (no end) or in the future.
 * Rotation adds a secret; without grace the old ones go at once, with grace they get an
 * `expiresAt` and sign alongside the new one until then. Secrets are never logged.
 */
import { unprocessable } from '../../errors/app-error.ts';
import { type BoxSecrets, type SecretBox, secretBoxOf } from '../secret-box.ts';
import { generateSecretFor, shownSecret, type SigningScheme } from '../signing.ts';
import { changeEndpoint, endpointRecord } from './store.ts';
import type { StoredEndpoint, StoredSecret } from '../endpoint-stores/types.ts';
import type { WebhookDeps } from '../deps.ts';
import { authorize, type Actor } from '../../access/actor.ts';
import { MAX_GRACE_MS, MAX_SIGNING_SECRETS } from './grace-limit.ts';

/** The secret box of this configuration (encrypting when `config.secret` is set, opening with `previousSecrets` too). */
export const secretBoxFor = (config: BoxSecrets): SecretBox => secretBoxOf(config);

/** A secret that still signs, as `webhooks:show --reveal` prints it. */
export interface RevealedSecret {
  secret: string;
  createdAt: Date;
  /** When it stops signing (end of a rotation grace period); null: no end. */
  expiresAt: Date | null;
}

/**
 * A new secret of `scheme`: the secret itself (a `whsec_` secret, or a
 * `whsk_` signing key: show receivers `shownSecret` of it, the public key) and its sealed form.
 */
export function newSecret(box: SecretBox, scheme: SigningScheme, now: Date): { secret: string; stored: StoredSecret } {
  const secret = generateSecretFor(scheme);
  return { secret, stored: { sealed: box.seal(secret), createdAt: now, expiresAt: null } };
}

/** The secrets of `endpoint` that sign at `now`, newest first. */
export function activeSecrets(endpoint: Pick<StoredEndpoint, 'secrets'>, now: Date): StoredSecret[] {
  return endpoint.secrets
    .filter((secret) => secret.expiresAt === null || secret.expiresAt.getTime() > now.getTime())
    .reverse();
}

/** Grace in milliseconds: undefined/null/0 = none. Throws 422 `APP_WEBHOOK_GRACE_INVALID`. */
export function assertGrace(grace: unknown): number {
  if (grace === undefined || grace === null) return 0;
  if (typeof grace !== 'number' || !Number.isFinite(grace) || grace < 0 || grace > MAX_GRACE_MS) {
    throw unprocessable(`invalid grace period: must be a number of milliseconds from 0 to ${MAX_GRACE_MS} (one year)`, {
      code: 'APP_WEBHOOK_GRACE_INVALID',
      data: { field: 'grace', value: grace },
    });
  }
  return Math.round(grace);
}

/**
 * `webhooks.rotate(id, {grace})`: a new secret for endpoint `id` (in `scope`), which signs from now on.
 * Without grace (or 0) every older secret stops signing at once (it is removed); with
 * `grace` milliseconds the older secrets that still sign keep signing until then (an earlier end
 * already set is kept), so the header carries two `v1,` entries meanwhile (one per secret still
 * signing, at most `MAX_SIGNING_SECRETS`: the oldest grace ends at once past that). Works on a disabled
 * endpoint, and on one whose stored secrets can no longer be read (the remedy for
 * `APP_WEBHOOK_SECRET_UNREADABLE`). Answers `{secret, graceEndsAt}`; throws 404
 * `APP_WEBHOOK_NOT_FOUND`, 422 `APP_WEBHOOK_GRACE_INVALID`, and 403 `APP_FORBIDDEN` first to a
 * role that may not rotate.
 */
export async function rotateSecret(
  deps: WebhookDeps,
  actor: Actor,
  id: string,
  options: { grace?: number } = {},
): Promise<{ secret: string; graceEndsAt: Date | null }> {
  authorize(actor, 'endpoints.rotate');
  const { scope } = actor;
  const grace = assertGrace(options.grace);
  const box = secretBoxFor(deps.config);
  let result: { secret: string; graceEndsAt: Date | null } | undefined;
  await changeEndpoint(deps, id, scope, (current, now) => {
    const fresh = newSecret(box, current.signing, now);
    const graceEndsAt = grace === 0 ? null : new Date(now.getTime() + grace);
    const kept =
      graceEndsAt === null
        ? []
        : activeSecrets(current, now)
            .reverse()
            .slice(1 - MAX_SIGNING_SECRETS)
            .map((secret) => ({
              ...secret,
              expiresAt:
                secret.expiresAt !== null && secret.expiresAt.getTime() < graceEndsAt.getTime()
                  ? secret.expiresAt
                  : graceEndsAt,
            }));
    result = { secret: shownSecret(fresh.secret), graceEndsAt };
    return { ...current, secrets: [...kept, fresh.stored] };
  });
  if (result === undefined) throw new Error('rotation ended without a secret');
  deps.log.info(
    { endpoint: id, graceMs: grace },
    grace === 0 ? 'webhook secret rotated; the old secret no longer signs' : 'webhook secret rotated with grace',
  );
  return result;
}

/**
 * The secrets that sign deliveries of endpoint `id` now, newest first, as the receiver is shown
 * them (`whsec_` secrets; for an ed25519 endpoint the `whpk_` public keys). Throws 500
 * `APP_WEBHOOK_SECRET_UNREADABLE` (naming the endpoint and the remedy) when one was sealed under
 * another application secret.
 */
export async function revealSecrets(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  id: string,
): Promise<RevealedSecret[]> {
  return (await openSecrets(deps, id)).map((entry) => ({ ...entry, secret: shownSecret(entry.secret) }));
}

/** The secrets that sign deliveries of endpoint `id` now, newest first, opened (private keys included). */
async function openSecrets(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  id: string,
): Promise<RevealedSecret[]> {
  const box = secretBoxFor(deps.config);
  const record = await endpointRecord(deps, id);
  return activeSecrets(record, new Date()).map((secret) => ({
    secret: box.open(secret.sealed, id),
    createdAt: secret.createdAt,
    expiresAt: secret.expiresAt,
  }));
}

/** The secrets (`whsec_`) or signing keys (`whsk_`) that sign deliveries of endpoint `id` now, newest first (for the worker). */
export async function signingSecrets(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  id: string,
): Promise<string[]> {
  return (await openSecrets(deps, id)).map((entry) => entry.secret);
}
