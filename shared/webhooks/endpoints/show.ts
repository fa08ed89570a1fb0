/** One endpoint with the secrets that still sign: their dates, or the secrets themselves when revealed. */
import { endpointRow, toEndpoint, type Endpoint, type EndpointRow } from './store.ts';
import { revealSecrets, type RevealedSecret } from './secrets.ts';
import type { TenantScope } from '../../access/tenant-scope.ts';
import { authorize, type Actor } from '../../access/actor.ts';
import type { WebhookDeps } from '../deps.ts';

/** A secret that still signs, without its value (what `show` tells without `reveal`). */
export interface SecretInfo {
  createdAt: Date;
  expiresAt: Date | null;
}

export type EndpointDetails = Endpoint & { secrets: SecretInfo[] | RevealedSecret[] };

/** The row of endpoint `id` when it is in `scope`; else 404 `APP_WEBHOOK_NOT_FOUND`, exactly like an unknown id. */
export const endpointInScope = (
  deps: Pick<WebhookDeps, 'config' | 'sql'>,
  scope: TenantScope,
  id: unknown,
): Promise<EndpointRow> => endpointRow(deps.sql, deps.config, id, { scope });

/**
 * Endpoint `id` in `scope` with the dates of the secrets that still sign. Throws 404
 * `APP_WEBHOOK_NOT_FOUND`.
 */
export async function showEndpoint(
  deps: Pick<WebhookDeps, 'config' | 'sql'>,
  scope: TenantScope,
  id: string,
): Promise<Endpoint & { secrets: SecretInfo[] }> {
  const row = await endpointInScope(deps, scope, id);
  const secrets = await deps.sql<{ created_at: Date; expires_at: Date | null }[]>`
    select created_at, expires_at from app_webhook_secrets
    where endpoint_id = ${row.id} and (expires_at is null or expires_at > now())
    order by id desc`;
  return {
    ...toEndpoint(row, deps.config),
    secrets: secrets.map((s) => ({ createdAt: s.created_at, expiresAt: s.expires_at })),
  };
}

/**
 * Endpoint `id` with the secrets themselves (a secret sealed under another application secret
 * throws 500 `APP_WEBHOOK_SECRET_UNREADABLE`): credentials, so a role that may not reveal them
 * is refused first (403 `APP_FORBIDDEN`). Throws 404 `APP_WEBHOOK_NOT_FOUND`.
 */
export async function revealEndpoint(
  deps: Pick<WebhookDeps, 'config' | 'sql'>,
  actor: Actor,
  id: string,
): Promise<Endpoint & { secrets: RevealedSecret[] }> {
  authorize(actor, 'endpoints.reveal');
  const row = await endpointInScope(deps, actor.scope, id);
  return { ...toEndpoint(row, deps.config), secrets: await revealSecrets(deps, row.id) };
}
