/**
 * Changing an endpoint: `updateEndpoint` (url, events, filter, owner, description, headers, enabled),
 * and the shorthands `disableEndpoint` and `enableEndpoint`. Every change is announced to the endpoint caches of every
 * process, for the old owner and the new one.
 */
import { sealHeaders } from './header-box.ts';
import { givesMaskedCredentials, keepMaskedCredentials, sealUrlCredentials } from '../destinations/credentials.ts';
import { conflict, isAppError, unprocessable } from '../../errors/app-error.ts';
import type { StoredEndpoint } from '../endpoint-stores/types.ts';
import { assertEventPatterns } from '../patterns.ts';
import { checkSubscriptions } from '../event-types/validation.ts';
import { emitOperational } from '../operational.ts';
import { assertEndpointHeaderPatch, keepStoredHeaders } from './headers.ts';
import {
  assertDescription,
  assertOrdering,
  assertOwnerWritten,
  assertRateLimit,
  checkEndpointUrl,
  type Ordering,
} from './fields.ts';
import { wakeEndpoints } from '../deliveries/flow.ts';
import { changeEndpoint, toEndpoint, type Endpoint } from './store.ts';
import type { WebhookDeps } from '../deps.ts';
import { authorize, type Actor } from '../../access/actor.ts';
import { isStoredAsGiven } from '../../db/storable-text.ts';
import { hasControlBesidesLineBreaks } from '../../security/control-characters.ts';
import { assertFilter, type WebhookFilter } from '../filters/grammar.ts';
import type { DisableReason } from '../../metrics/registry.ts';

/** The fields `update` changes; a key left out (or undefined) is kept as it is. */
export interface EndpointPatch {
  url?: string;
  events?: string[];
  /** Replaces the subscription filter; null removes it. */
  filter?: WebhookFilter | null;
  /** null removes the owner (the endpoint then receives only emits without owner). */
  owner?: string | null;
  /** null removes the description. */
  description?: string | null;
  /** Replaces every header; null or `{}` removes them all; a null value keeps that header's stored value. */
  headers?: Record<string, string | null> | null;
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
  'filter',
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
 * its host resolved again; a broker url whose credentials are given as `***` keeps the stored
 * ones for the same scheme, host and port, else 422 `APP_WEBHOOK_URL_CREDENTIALS_REQUIRED`) and
 * answers the updated endpoint. Unknown keys and an empty patch are
 * refused (422 `APP_WEBHOOK_PATCH_INVALID`); an unknown id, or an endpoint outside `scope`, is a
 * 404 `APP_WEBHOOK_NOT_FOUND` (checked on the record the change is applied to), and a caller bound to one tenant cannot
 * give the endpoint to another (404 `APP_TENANT_NOT_FOUND`). Secrets are not changed here (see
 * `rotateSecret`). A caller whose role may not change endpoints is refused first (403
 * `APP_FORBIDDEN`), and one that may not disable or enable them when the patch does.
 */
export async function updateEndpoint(
  deps: WebhookDeps,
  actor: Actor,
  id: string,
  patch: EndpointPatch,
  options: UpdateOptions = {},
): Promise<Endpoint> {
  authorize(actor, 'endpoints.update');
  const enabled = (patch as EndpointPatch | null)?.enabled;
  if (enabled !== undefined) authorize(actor, enabled === false ? 'endpoints.disable' : 'endpoints.enable');
  return applyPatch(deps, actor, id, patch, options);
}

/** How a change is applied. */
export interface UpdateOptions {
  /**
   * Apply the change only if the endpoint is still as it was at this `updatedAt`: a form that
   * sends every field (the console's) would otherwise undo, without a word, whatever someone else
   * changed since it was opened. Changed since: 409 `APP_WEBHOOK_CONFLICT`, nothing written.
   */
  ifUpdatedAt?: Date;
}

/** 409 for a change asked of the endpoint as it was at `expected`, changed since at `current.updatedAt`. */
const changedSince = (current: StoredEndpoint, expected: Date) =>
  conflict(
    `webhook endpoint ${current.id} was changed by someone else at ${current.updatedAt.toISOString()}, after the state this change was made from (${expected.toISOString()}): nothing was saved; look at the endpoint again, then repeat the change`,
    { code: 'APP_WEBHOOK_CONFLICT', data: { id: current.id, updatedAt: current.updatedAt.toISOString() } },
  );

async function applyPatch(
  deps: WebhookDeps,
  actor: Actor,
  id: string,
  patch: EndpointPatch,
  options: UpdateOptions = {},
): Promise<Endpoint> {
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
      hasControlBesidesLineBreaks(given.disabledReason) ||
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
  // a filter given as null removes it: `given` keeps nulls, only undefined means "unchanged"
  const filter = 'filter' in given ? assertFilter(given.filter) : undefined;
  if (events) await checkSubscriptions(deps, events);
  const rateLimit = given.rateLimit === undefined ? undefined : assertRateLimit(given.rateLimit);
  const ordering = 'ordering' in given ? assertOrdering(given.ordering) : undefined;
  const headers = given.headers === undefined ? undefined : assertEndpointHeaderPatch(given.headers);
  const owner = 'owner' in given ? assertOwnerWritten(scope, given.owner) : undefined;
  const description = 'description' in given ? assertDescription(given.description) : undefined;
  const url = given.url === undefined ? undefined : await checkEndpointUrl(deps, given.url);
  // `***` for the credentials (the url as shown) keeps the stored ones; others are sealed anew
  const keepCredentials = url !== undefined && givesMaskedCredentials(url);
  const sealedUrl = url === undefined || keepCredentials ? undefined : sealUrlCredentials(deps.config, url);

  const disabling = given.enabled === false;
  const enabling = given.enabled === true;
  if (given.disabledReason !== undefined && enabling) throw reasonWithoutDisabling('with enabled: true');
  const expected = options.ifUpdatedAt;
  const { before, after } = await changeEndpoint(deps, id, scope, (current, now) => {
    if (expected !== undefined && current.updatedAt.getTime() !== expected.getTime())
      throw changedSince(current, expected);
    return {
      ...current,
      url:
        url === undefined
          ? current.url
          : keepCredentials
            ? keepMaskedCredentials(url, current.url)
            : (sealedUrl ?? url),
      events: events ?? current.events,
      filter: filter === undefined ? current.filter : filter,
      owner: owner === undefined ? current.owner : owner,
      description: description === undefined ? current.description : description,
      // a null value keeps the stored (sealed) value of that header
      headers:
        headers === undefined
          ? current.headers
          : keepStoredHeaders(headers, current.headers, (open) => sealHeaders(deps.config, open)),
      disabledAt: enabling ? null : disabling ? (current.disabledAt ?? now) : current.disabledAt,
      enabledAt: enabling && current.disabledAt !== null ? now : current.enabledAt,
      rateLimit: rateLimit === undefined ? current.rateLimit : rateLimit,
      ordering: ordering ?? current.ordering,
      disabledReason: reasonAfter(current, given.disabledReason, given.enabled),
    };
  });
  // a line dissolved (fifo to none) has slots free for the deliveries that waited in it
  if (after.ordering !== before.ordering) await wakeEndpoints(deps.sql, deps.config, [before.id]);
  deps.log.info({ endpoint: id, fields: Object.keys(given) }, 'webhook endpoint updated');
  countDisabled(deps, before, after, 'operator');
  if (before.disabledAt !== null && after.disabledAt === null) {
    await emitOperational(deps, 'app.endpoint.enabled', { endpointId: id, url: after.url }, after.owner);
  } else if (before.disabledAt === null && after.disabledAt !== null) {
    await emitOperational(
      deps,
      'app.endpoint.disabled',
      { endpointId: id, url: after.url, reason: after.disabledReason },
      after.owner,
    );
  }
  return toEndpoint(after, deps.config);
}

/**
 * Counts `app_endpoints_disabled_total{reason}` when the change disabled the endpoint (one
 * disabled already is not counted again: two 410s, or an operator's new reason).
 */
function countDisabled(deps: WebhookDeps, before: StoredEndpoint, after: StoredEndpoint, reason: DisableReason): void {
  if (before.disabledAt === null && after.disabledAt !== null) deps.metrics?.endpointsDisabled.inc({ reason });
}

/**
 * The reason an endpoint keeps after a patch: none once enabled; when disabled, the one given, else
 * the one it had, else the operator's. A reason given for an endpoint that stays enabled would be
 * dropped, so it is refused (`reasonWithoutDisabling`).
 */
function reasonAfter(current: StoredEndpoint, reason: string | undefined, enabled: boolean | undefined): string | null {
  if (enabled === true) return null;
  if (enabled === false) return reason ?? current.disabledReason ?? 'disabled by an operator';
  if (reason === undefined) return current.disabledReason;
  if (current.disabledAt !== null) return reason;
  throw reasonWithoutDisabling('for an enabled endpoint');
}

/**
 * 422 `APP_WEBHOOK_PATCH_INVALID` for a `disabledReason` that could not be kept: an endpoint keeps
 * a reason while it is disabled, so the reason goes with `enabled: false` or to an endpoint that
 * is disabled already (which changes its reason).
 */
const reasonWithoutDisabling = (when: string) =>
  unprocessable(
    `cannot update webhook endpoint: disabledReason ${when} would not be kept; send it with enabled: false, or to a disabled endpoint to change its reason`,
    { code: 'APP_WEBHOOK_PATCH_INVALID', data: { field: 'disabledReason' } },
  );

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

/**
 * Disables endpoint `id` for the service itself (`cause` `gone`: a receiver answered 410 Gone;
 * `failing`: every attempt failed for `webhooks.disableAfter`): no actor, no scope. An endpoint
 * disabled already keeps its earlier date and reason. Answers the record after the change, or null
 * when the endpoint is gone.
 */
export async function disableForService(
  deps: WebhookDeps,
  id: string,
  cause: Exclude<DisableReason, 'operator'>,
  reason: string,
  at?: Date,
): Promise<StoredEndpoint | null> {
  try {
    const { before, after } = await changeEndpoint(deps, id, undefined, (current, now) => ({
      ...current,
      disabledAt: current.disabledAt ?? at ?? now,
      disabledReason: current.disabledAt === null ? reason : current.disabledReason,
    }));
    countDisabled(deps, before, after, cause);
    return after;
  } catch (error) {
    if (isAppError(error) && error.code === 'APP_WEBHOOK_NOT_FOUND') return null;
    throw error;
  }
}
