/** One endpoint with the secrets that still sign: their dates, or the secrets themselves when revealed. */
import { endpointRecord, toShownEndpoint, type ShownEndpoint } from './store.ts';
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

export type EndpointDetails = ShownEndpoint & { secrets: SecretInfo[] | RevealedSecret[] };

/** What a reader of endpoints may ask besides its filters. */
export interface HeaderReveal {
  /**
   * Header values too (receiver credentials): given only to a grant the permission table lets
   * reveal an endpoint's secrets (`endpoints.reveal`); anyone else who asks is refused 403
   * `APP_FORBIDDEN`. Without it every value is null, its name kept.
   */
  revealHeaders?: boolean;
}

/**
 * Whether `actor` is shown header values: when it asked, and the permission table lets it
 * reveal them (403 `APP_FORBIDDEN` when it asked and may not). Nobody sees them without asking.
 * The one rule every face's reads pass through (REST `?reveal=headers`, GraphQL `headers(reveal:
 * true)`, `webhooks:show --reveal`, the console's reveal step).
 */
export function headerValuesShown(actor: Actor, options: HeaderReveal): boolean {
  if (options.revealHeaders !== true) return false;
  authorize(actor, 'endpoints.reveal');
  return true;
}

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
 * Endpoint `id` in the actor's scope with the dates of the secrets that still sign, its header
 * values null unless revealed ({@link headerValuesShown}). Throws 403 `APP_FORBIDDEN` first to a
 * grant that may not read webhooks (or reveal, when asked), 404 `APP_WEBHOOK_NOT_FOUND`.
 */
export async function showEndpoint(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  actor: Actor,
  id: string,
  options: HeaderReveal = {},
): Promise<ShownEndpoint & { secrets: SecretInfo[] }> {
  const scope = readScope(actor, 'webhooks.read');
  const reveal = headerValuesShown(actor, options);
  const record = await endpointInScope(deps, scope, id);
  return {
    ...toShownEndpoint(record, deps.config, reveal),
    secrets: activeSecrets(record, new Date()).map((s) => ({ createdAt: s.createdAt, expiresAt: s.expiresAt })),
  };
}

/**
 * Endpoint `id` with the secrets themselves and its header values (a secret sealed under another
 * application secret throws 500 `APP_WEBHOOK_SECRET_UNREADABLE`): credentials, so a role that may
 * not reveal them is refused first (403 `APP_FORBIDDEN`). Throws 404 `APP_WEBHOOK_NOT_FOUND`.
 */
export async function revealEndpoint(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  actor: Actor,
  id: string,
): Promise<ShownEndpoint & { secrets: RevealedSecret[] }> {
  authorize(actor, 'endpoints.reveal');
  const row = await endpointInScope(deps, actor.scope, id);
  return { ...toShownEndpoint(row, deps.config, true), secrets: await revealSecrets(deps, row.id) };
}
