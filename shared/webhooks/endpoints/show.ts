/** One endpoint with the secrets that still sign: their dates, or the secrets themselves when revealed. */
import { endpointRecord, toEndpoint, type Endpoint } from './store.ts';
import { activeSecrets, revealSecrets, type RevealedSecret } from './secrets.ts';
import type { StoredEndpoint } from '../endpoint-stores/types.ts';
import type { TenantScope } from '../../access/tenant-scope.ts';
import { authorize, readScope, type Actor } from '../../access/actor.ts';
import type { WebhookDeps } from '../deps.ts';

/** A secret that still signs, without its value (what `show` tells without `reveal`). */
export interface SecretInfo {
  createdAt: Date;
  expiresAt: Date | null;
}

export type EndpointDetails = Endpoint & { secrets: SecretInfo[] | RevealedSecret[] };

/**
 * The record of endpoint `id` when it is in `scope`; else 404 `APP_WEBHOOK_NOT_FOUND`, exactly like
 * an unknown id. For the core's own operations, once they have authorized their actor.
 */
export const endpointInScope = (
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  scope: TenantScope,
  id: unknown,
): Promise<StoredEndpoint> => endpointRecord(deps, id, { scope });

/**
 * Endpoint `id` in the actor's scope with the dates of the secrets that still sign. Throws 403
 * `APP_FORBIDDEN` first to a grant that may not read webhooks, 404 `APP_WEBHOOK_NOT_FOUND`.
 */
export async function showEndpoint(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  actor: Actor,
  id: string,
): Promise<Endpoint & { secrets: SecretInfo[] }> {
  const record = await endpointInScope(deps, readScope(actor, 'webhooks.read'), id);
  return {
    ...toEndpoint(record, deps.config),
    secrets: activeSecrets(record, new Date()).map((s) => ({ createdAt: s.createdAt, expiresAt: s.expiresAt })),
  };
}

/**
 * Endpoint `id` with the secrets themselves (a secret sealed under another application secret
 * throws 500 `APP_WEBHOOK_SECRET_UNREADABLE`): credentials, so a role that may not reveal them
 * is refused first (403 `APP_FORBIDDEN`). Throws 404 `APP_WEBHOOK_NOT_FOUND`.
 */
export async function revealEndpoint(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  actor: Actor,
  id: string,
): Promise<Endpoint & { secrets: RevealedSecret[] }> {
  authorize(actor, 'endpoints.reveal');
  const row = await endpointInScope(deps, actor.scope, id);
  return { ...toEndpoint(row, deps.config), secrets: await revealSecrets(deps, row.id) };
}
