/**
 * Changing an endpoint: `updateEndpoint` (url, events, owner, description, headers, enabled),
 * and the shorthands `disableEndpoint` and `enableEndpoint`. Every change is announced to the endpoint caches of every
 * process, for the old owner and the new one.
 */
import { sealHeaders } from './header-box.ts';
import { unprocessable } from '../../errors/app-error.ts';
import { assertEventPatterns } from '../patterns.ts';
import { checkSubscriptions } from '../event-types/validation.ts';
import { emitOperational } from '../operational.ts';
import { assertEndpointHeaders } from './headers.ts';
import {
  assertDescription,
  assertOrdering,
  assertOwner,
  assertRateLimit,
  checkEndpointUrl,
  UNSTORABLE,
  type Ordering,
} from './fields.ts';
import { admit } from '../deliveries/flow.ts';
import {
  endpointRow,
  endpointTable,
  notifyEndpointsChanged,
  toEndpoint,
  type Endpoint,
  type EndpointRow,
} from './store.ts';
import type { WebhookDeps } from '../deps.ts';
import { ownerForWrite } from '../../access/tenant-scope.ts';
import { authorize, type Actor } from '../../access/actor.ts';
import { isStoredAsGiven } from '../../db/storable-text.ts';

/** The fields `update` changes; a key left out (or undefined) is kept as it is. */
export interface EndpointPatch {
  url?: string;
  events?: string[];
  /** null removes the owner (the endpoint then receives only emits without owner). */
  owner?: string | null;
  /** null removes the description. */
  description?: string | null;
  /** Replaces every header; null or `{}` removes them all. */
  headers?: Record<string, string> | null;
  /** false disables (as `disable`), true enables again (as `enable`). */
  enabled?: boolean;
  /** Why the endpoint is disabled, kept with it (only with `enabled: false`). */
  disabledReason?: string;
  /** Deliveries per second at most; null removes the limit. */
  rateLimit?: number | null;
  /** `fifo` or `none` (null: `none`). */
  ordering?: Ordering | null;
}

const PATCH_KEYS = new Set([
  'url',
  'events',
  'owner',
  'description',
  'headers',
  'enabled',
  'disabledReason',
  'rateLimit',
  'ordering',
]);

/**
 * Applies `patch` to endpoint `id` with the same checks as `register` (a new url is checked and
 * its host resolved again) and answers the updated endpoint. Unknown keys and an empty patch are
 * refused (422 `APP_WEBHOOK_PATCH_INVALID`); an unknown id, or an endpoint outside `scope`, is a
 * 404 `APP_WEBHOOK_NOT_FOUND` (checked on the locked row), and a caller bound to one tenant cannot
 * give the endpoint to another (404 `APP_TENANT_NOT_FOUND`). Secrets are not changed here (see
 * `rotateSecret`). A caller whose role may not change endpoints is refused first (403
 * `APP_FORBIDDEN`), and one that may not disable or enable them when the patch does.
 */
export async function updateEndpoint(
  deps: WebhookDeps,
  actor: Actor,
  id: string,
  patch: EndpointPatch,
): Promise<Endpoint> {
  authorize(actor, 'endpoints.update');
  const enabled = (patch as EndpointPatch | null)?.enabled;
  if (enabled !== undefined) authorize(actor, enabled === false ? 'endpoints.disable' : 'endpoints.enable');
  return applyPatch(deps, actor, id, patch);
}

async function applyPatch(deps: WebhookDeps, actor: Actor, id: string, patch: EndpointPatch): Promise<Endpoint> {
  const { scope } = actor;
  const given = Object.fromEntries(
    Object.entries(patch ?? {}).filter(([, value]) => value !== undefined),
  ) as EndpointPatch;
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    throw unprocessable('cannot update webhook endpoint: the patch must be an object', {
      code: 'APP_WEBHOOK_PATCH_INVALID',
      data: { field: null },
    });
  }
  const unknown = Object.keys(given).filter((key) => !PATCH_KEYS.has(key));
  if (unknown.length > 0) {
    throw unprocessable(`cannot update webhook endpoint: unknown field ${unknown.join(', ')}`, {
      code: 'APP_WEBHOOK_PATCH_INVALID',
      data: { fields: unknown },
    });
  }
  if (Object.keys(given).length === 0) {
    throw unprocessable(
      `cannot update webhook endpoint: nothing to update (give one of ${[...PATCH_KEYS].join(', ')})`,
      {
        code: 'APP_WEBHOOK_PATCH_INVALID',
        data: { fields: [] },
      },
    );
  }
  if (given.enabled !== undefined && typeof given.enabled !== 'boolean') {
    throw unprocessable('cannot update webhook endpoint: enabled must be true or false', {
      code: 'APP_WEBHOOK_PATCH_INVALID',
      data: { field: 'enabled' },
    });
  }
  if (
    given.disabledReason !== undefined &&
    (typeof given.disabledReason !== 'string' ||
      given.disabledReason.length > 1000 ||
      UNSTORABLE.test(given.disabledReason) ||
      !isStoredAsGiven(given.disabledReason))
  ) {
    throw unprocessable(
      'cannot update webhook endpoint: disabledReason must be a string of at most 1000 characters without control characters or lone surrogates',
      {
        code: 'APP_WEBHOOK_PATCH_INVALID',
        data: { field: 'disabledReason' },
      },
    );
  }
  const events = given.events === undefined ? undefined : assertEventPatterns(given.events);
  if (events) await checkSubscriptions(deps, events);
  const rateLimit = given.rateLimit === undefined ? undefined : assertRateLimit(given.rateLimit);
  const ordering = 'ordering' in given ? assertOrdering(given.ordering) : undefined;
  const headers = given.headers === undefined ? undefined : assertEndpointHeaders(given.headers);
  const owner = 'owner' in given ? assertOwner(ownerForWrite(scope, given.owner)) : undefined;
  const description = 'description' in given ? assertDescription(given.description) : undefined;
  const url = given.url === undefined ? undefined : await checkEndpointUrl(deps, given.url);

  const { before, after } = await deps.sql.begin(async (tx) => {
    const current = await endpointRow(tx, deps.config, id, { forUpdate: true, scope });
    const disabling = given.enabled === false;
    const enabling = given.enabled === true;
    const [row] = await tx<EndpointRow[]>`
      update ${endpointTable(tx, deps.config)} set
        url = ${url ?? current.url},
        events = ${events ?? current.events},
        owner = ${owner === undefined ? current.owner : owner},
        description = ${description === undefined ? current.description : description},
        headers = ${tx.json(headers === undefined ? (current.headers ?? {}) : sealHeaders(deps.config, headers ?? {}))},
        disabled_at = case when ${enabling} then null when ${disabling} then coalesce(disabled_at, now()) else disabled_at end,
        enabled_at = case when ${enabling} and disabled_at is not null then now() else enabled_at end,
        rate_limit = ${rateLimit === undefined ? tx`rate_limit` : tx`${rateLimit}::int`},
        ordering = ${ordering ?? current.ordering ?? 'none'},
        disabled_reason = case
          when ${enabling} then null
          when ${disabling} then coalesce(${given.disabledReason ?? null}::text, disabled_reason, 'disabled by an operator')
          else disabled_reason end,
        updated_at = now()
      where id = ${id}
      returning *`;
    await notifyEndpointsChanged(tx, [current.owner, row.owner]);
    // a line dissolved (fifo to none) has slots free for the deliveries that waited in it
    if (ordering !== undefined && ordering !== (current.ordering ?? 'none')) await admit(tx, deps.config, [id]);
    return { before: current, after: row };
  });
  deps.cache?.invalidate(before.owner);
  deps.cache?.invalidate(after.owner);
  deps.log.info({ endpoint: id, fields: Object.keys(given) }, 'webhook endpoint updated');
  if (before.disabled_at !== null && after.disabled_at === null) {
    await emitOperational(deps, 'app.endpoint.enabled', { endpointId: id, url: after.url }, after.owner);
  } else if (before.disabled_at === null && after.disabled_at !== null) {
    await emitOperational(
      deps,
      'app.endpoint.disabled',
      { endpointId: id, url: after.url, reason: after.disabled_reason },
      after.owner,
    );
  }
  return toEndpoint(after, deps.config);
}

/** Disables endpoint `id` (no new deliveries are written for it); `reason` is kept with it. */
export function disableEndpoint(
  deps: WebhookDeps,
  actor: Actor,
  id: string,
  options: { reason?: string } = {},
): Promise<Endpoint> {
  authorize(actor, 'endpoints.disable');
  return applyPatch(deps, actor, id, { enabled: false, disabledReason: options.reason });
}

/** Enables endpoint `id` again; emits reach it from now on. */
export function enableEndpoint(deps: WebhookDeps, actor: Actor, id: string): Promise<Endpoint> {
  authorize(actor, 'endpoints.enable');
  return applyPatch(deps, actor, id, { enabled: true });
}
