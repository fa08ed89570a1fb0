/**
 * Signing secrets of endpoints (sealed at rest: secret-box.ts). Each endpoint
 * has one row in `app_webhook_secrets` per secret that still signs: `expires_at` null (no end)
 * or in the future. Rotation adds a secret; without grace the old ones are deleted at once, with
 * grace they get an `expires_at` and sign alongside the new one until then. Rows hold the
 * secret sealed by secret-box.ts. Secrets are never logged and never cached.
 */
import { unprocessable } from '../../errors/app-error.ts';
import type { Config } from '../../config/index.ts';
import { createSecretBox, type SecretBox } from '../secret-box.ts';
import { generateSecretFor, shownSecret, type SigningScheme } from '../signing.ts';
import { endpointRow, type Queryable } from './store.ts';
import type { WebhookDeps } from '../deps.ts';
import { authorize, type Actor } from '../../access/actor.ts';

/** Longest grace period accepted by `rotate` (one year). */
export const MAX_GRACE_MS = 365 * 86_400_000;

/** The secret box of this configuration (encrypting when `config.secret` is set). */
export const secretBoxFor = (config: Pick<Config, 'secret'>): SecretBox => createSecretBox(config.secret ?? undefined);

/** A secret that still signs, as `webhooks:show --reveal` prints it. */
export interface RevealedSecret {
  secret: string;
  createdAt: Date;
  /** When it stops signing (end of a rotation grace period); null: no end. */
  expiresAt: Date | null;
}

/**
 * Generates a secret of `scheme` for `endpointId` and stores it sealed; answers it (a `whsec_`
 * secret, or a `whsk_` signing key: show receivers `shownSecret` of it, the public key).
 */
export async function addSecret(
  sql: Queryable,
  box: SecretBox,
  endpointId: string,
  scheme: SigningScheme = 'hmac-sha256',
): Promise<string> {
  const secret = generateSecretFor(scheme);
  await sql`insert into app_webhook_secrets (endpoint_id, sealed) values (${endpointId}, ${box.seal(secret)})`;
  return secret;
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
 * Without grace (or 0) every older secret stops signing at once (its row is deleted); with
 * `grace` milliseconds the older secrets that still sign keep signing until then (an earlier end
 * already set is kept), so the header carries two `v1,` entries meanwhile. Works on a disabled
 * endpoint, and on one whose stored secrets can no longer be read (the remedy for
 * `APP_WEBHOOK_SECRET_UNREADABLE`). Answers `{secret, graceEndsAt}`; throws 404
 * `APP_WEBHOOK_NOT_FOUND`, 422 `APP_WEBHOOK_GRACE_INVALID`, and 403 `APP_FORBIDDEN` first to a
 * role that may not rotate.
 */
export async function rotateSecret(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'log'>,
  actor: Actor,
  id: string,
  options: { grace?: number } = {},
): Promise<{ secret: string; graceEndsAt: Date | null }> {
  authorize(actor, 'endpoints.rotate');
  const { scope } = actor;
  const grace = assertGrace(options.grace);
  const box = secretBoxFor(deps.config);
  const result = await deps.sql.begin(async (tx) => {
    const row = await endpointRow(tx, deps.config, id, { forUpdate: true, scope });
    let graceEndsAt: Date | null = null;
    if (grace === 0) {
      await tx`delete from app_webhook_secrets where endpoint_id = ${id}`;
    } else {
      await tx`delete from app_webhook_secrets where endpoint_id = ${id} and expires_at <= now()`;
      const [row] = await tx<{ ends: Date }[]>`select now() + ${grace} * interval '1 millisecond' as ends`;
      graceEndsAt = row.ends;
      await tx`
        update app_webhook_secrets set expires_at = least(coalesce(expires_at, 'infinity'), ${graceEndsAt})
        where endpoint_id = ${id}`;
    }
    const secret = shownSecret(await addSecret(tx, box, id, row.signing ?? 'hmac-sha256'));
    return { secret, graceEndsAt };
  });
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
export async function revealSecrets(deps: Pick<WebhookDeps, 'config' | 'sql'>, id: string): Promise<RevealedSecret[]> {
  return (await openSecrets(deps, id)).map((entry) => ({ ...entry, secret: shownSecret(entry.secret) }));
}

/** The secrets that sign deliveries of endpoint `id` now, newest first, opened (private keys included). */
async function openSecrets(deps: Pick<WebhookDeps, 'config' | 'sql'>, id: string): Promise<RevealedSecret[]> {
  const box = secretBoxFor(deps.config);
  const rows = await deps.sql<{ sealed: string; created_at: Date; expires_at: Date | null }[]>`
    select sealed, created_at, expires_at from app_webhook_secrets
    where endpoint_id = ${id} and (expires_at is null or expires_at > now())
    order by id desc`;
  return rows.map((row) => ({
    secret: box.open(row.sealed, id),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  }));
}

/** The secrets (`whsec_`) or signing keys (`whsk_`) that sign deliveries of endpoint `id` now, newest first (for the worker). */
export async function signingSecrets(deps: Pick<WebhookDeps, 'config' | 'sql'>, id: string): Promise<string[]> {
  return (await openSecrets(deps, id)).map((entry) => entry.secret);
}
