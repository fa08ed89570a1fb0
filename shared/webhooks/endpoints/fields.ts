/**
 * Checks of the endpoint fields other than events (patterns.ts) and headers
 * (headers.ts): the url, with the address rules applied to what its host resolves to,
 * the owner and the description. Every refusal is an AppError 422 whose code names the field.
 */
import { isAppError, unprocessable } from '../../errors/app-error.ts';
import type { Logger } from '../../log/logger.ts';
import type { Config } from '../../config/index.ts';
import { checkWebhookUrl, resolveAndCheck, type HostLookup } from '../address-rules.ts';
import { isStoredAsGiven } from '../../db/storable-text.ts';
import { ownerForWrite, type TenantScope } from '../../access/tenant-scope.ts';
import { hasControlBesidesLineBreaks, hasControlCharacter } from '../../security/control-characters.ts';
import { schemeOf } from '../destinations/kinds.ts';
import { brokerHost } from '../destinations/parse.ts';

/** Longest owner (tenant) value. */
export const MAX_OWNER_LENGTH = 255;
/** Longest description. */
export const MAX_DESCRIPTION_LENGTH = 1000;
/** Longest url. */
export const MAX_URL_LENGTH = 2048;

/**
 * The owner of an endpoint or of an emit, of a token, a user or a portal link, as a write sets it:
 * undefined and null mean "no owner"; otherwise a non-empty string of at most 255 characters
 * without control characters (C0, DEL, C1) and without leading or trailing whitespace, so `"acme "`
 * never becomes a tenant beside `"acme"`. Throws AppError 422 `APP_WEBHOOK_OWNER_INVALID`. The
 * empty string is refused rather than read as "no owner", so a tenant id that is accidentally
 * empty never reaches the owner-less endpoints.
 */
export function assertOwner(owner: unknown): string | null {
  const checked = assertOwnerFilter(owner);
  if (checked !== null && checked.trim() !== checked) throw ownerInvalid('must not start or end with whitespace');
  if (checked !== null && hasControlCharacter(checked)) throw ownerInvalid('must not contain control characters');
  return checked;
}

/**
 * An owner a read filters by: the rules of {@link assertOwner} that every owner ever stored kept
 * (no C0 control character or DEL, no lone surrogate), so the records of an owner stored before
 * the whitespace and C1 rules stay reachable. Throws AppError 422 `APP_WEBHOOK_OWNER_INVALID`.
 */
export function assertOwnerFilter(owner: unknown): string | null {
  if (owner === undefined || owner === null) return null;
  if (typeof owner !== 'string') throw ownerInvalid('must be a string');
  if (owner.length === 0) throw ownerInvalid('must not be empty (leave it out for no owner)');
  if (owner.length > MAX_OWNER_LENGTH) throw ownerInvalid(`must be at most ${MAX_OWNER_LENGTH} characters`);
  if (/[\x00-\x1f\x7f]/.test(owner)) throw ownerInvalid('must not contain control characters');
  if (!isStoredAsGiven(owner))
    throw ownerInvalid('must not contain a lone UTF-16 surrogate (it cannot be stored as given)');
  return owner;
}

/**
 * The owner an endpoint write sets, for a caller of `scope` asking for `requested`
 * (`ownerForWrite`): an admin's, named in the request, by the rules of {@link assertOwner}; a
 * tenant's caller's own, read from its token or session, by those of {@link assertOwnerFilter},
 * since it was stored before and its endpoints must stay its to change.
 */
export function assertOwnerWritten(scope: TenantScope, requested: unknown): string | null {
  const owner = ownerForWrite(scope, requested);
  return scope.kind === 'all' ? assertOwner(owner) : assertOwnerFilter(owner);
}

const ownerInvalid = (reason: string) =>
  unprocessable(`invalid webhook owner: ${reason}`, {
    code: 'APP_WEBHOOK_OWNER_INVALID',
    data: { field: 'owner', reason },
  });

/** The description: undefined/null gives null; else a string of at most 1000 characters without control characters (C0 but tab, LF and CR; DEL; C1). */
export function assertDescription(description: unknown): string | null {
  if (description === undefined || description === null) return null;
  const refuse = (reason: string) =>
    unprocessable(`invalid webhook description: ${reason}`, {
      code: 'APP_WEBHOOK_DESCRIPTION_INVALID',
      data: { field: 'description', reason },
    });
  if (typeof description !== 'string') throw refuse('must be a string');
  if (description.length > MAX_DESCRIPTION_LENGTH) throw refuse(`must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  if (hasControlBesidesLineBreaks(description))
    throw refuse('must not contain NUL or other control characters (tab and line breaks are fine)');
  if (!isStoredAsGiven(description))
    throw refuse('must not contain a lone UTF-16 surrogate (it cannot be stored as given)');
  return description;
}

/**
 * The url of an endpoint, checked at registration or update (address-rules.ts): the shape rules of
 * `checkWebhookUrl` (WHATWG parsing; https or a broker's TLS scheme, the plain ones with
 * `webhooks.allowHttp`; a host; credentials only for a broker; literal and `localhost` hosts
 * against the address rules), then, unless `webhooks.allowPrivate`, every address the host name
 * resolves to (a broker's host normalised as an https host is, destinations/parse.ts). A name that resolves to one
 * refused address is refused (`APP_WEBHOOK_ADDRESS_REFUSED`). A name that does not resolve now is
 * accepted with a warning in the log: the worker resolves and checks again before every request,
 * and DNS may simply not be set up yet. Returns the normalised url text (WHATWG serialisation,
 * which is what is checked).
 */
export async function checkEndpointUrl(
  deps: { config: Pick<Config, 'webhooks'>; log: Logger; lookup?: HostLookup },
  raw: unknown,
): Promise<string> {
  const { allowHttp, allowPrivate } = deps.config.webhooks;
  if (typeof raw === 'string' && raw.length > MAX_URL_LENGTH) {
    throw unprocessable(`webhook url is not acceptable: longer than ${MAX_URL_LENGTH} characters`, {
      code: 'APP_WEBHOOK_URL_INVALID',
      data: { field: 'url', reason: `longer than ${MAX_URL_LENGTH} characters` },
    });
  }
  const url = checkWebhookUrl(raw as string, { allowHttp, allowPrivate });
  if (!allowPrivate) {
    const host = schemeOf(url.protocol)?.kind === 'http' ? url.hostname : brokerHost(url);
    try {
      await resolveAndCheck(host, { allowPrivate, lookup: deps.lookup });
    } catch (error) {
      if (!isAppError(error) || error.code !== 'APP_WEBHOOK_HOST_UNRESOLVABLE') throw error;
      deps.log.warn(
        { host, reason: error.data?.reason },
        `webhook host ${host} does not resolve now; accepted, every delivery resolves and checks it again`,
      );
    }
  }
  return url.href;
}

/** How an endpoint's deliveries are ordered: `none` (in parallel, up to `webhooks.endpointConcurrency`) or `fifo` (one at a time, in emit order). */
export const ORDERINGS = ['none', 'fifo'] as const;
export type Ordering = (typeof ORDERINGS)[number];

/** `ordering`: absent or null is `none`. Throws 422 `APP_WEBHOOK_ORDERING_INVALID`. */
export function assertOrdering(value: unknown): Ordering {
  if (value === undefined || value === null) return 'none';
  if (typeof value === 'string' && (ORDERINGS as readonly string[]).includes(value)) return value as Ordering;
  throw unprocessable(`invalid ordering: must be one of ${ORDERINGS.join(', ')}`, {
    code: 'APP_WEBHOOK_ORDERING_INVALID',
    data: { field: 'ordering' },
  });
}

/** Most deliveries per second an endpoint's `rateLimit` may name. */
export const MAX_RATE_LIMIT = 10_000;

/** `rateLimit`: absent or null (no limit), else a whole number of deliveries per second from 1. Throws 422 `APP_WEBHOOK_RATE_LIMIT_INVALID`. */
export function assertRateLimit(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_RATE_LIMIT) {
    throw unprocessable(
      `invalid rateLimit: a whole number of deliveries per second from 1 to ${MAX_RATE_LIMIT}, or null for none`,
      { code: 'APP_WEBHOOK_RATE_LIMIT_INVALID', data: { field: 'rateLimit' } },
    );
  }
  return value;
}
