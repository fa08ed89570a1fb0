/**
 * Registering an endpoint (`webhooks.register(options)` of the programmatic interface): the only
 * way to create one, for REST, GraphQL, the CLI and the programmatic interface alike.
 */
import { sealHeaders } from './header-box.ts';
import { assertNotMasked, sealUrlCredentials } from '../destinations/credentials.ts';
import { assertEventPatterns } from '../patterns.ts';
import { checkSubscriptions } from '../event-types/validation.ts';
import { assertEndpointHeaders } from './headers.ts';
import {
  assertDescription,
  assertOrdering,
  assertOwnerWritten,
  assertRateLimit,
  checkEndpointUrl,
  type Ordering,
} from './fields.ts';
import { createEndpoint, toEndpoint, type Endpoint } from './store.ts';
import { newSecret, secretBoxFor } from './secrets.ts';
import { SIGNING_SCHEMES, shownSecret, type SigningScheme } from '../signing.ts';
import { unprocessable } from '../../errors/app-error.ts';
import { assertFilter, type WebhookFilter } from '../filters/grammar.ts';
import type { StoredEndpoint } from '../endpoint-stores/types.ts';
import { newEndpointId } from '../ids.ts';
import type { WebhookDeps } from '../deps.ts';
import { authorize, type Actor } from '../../access/actor.ts';

export interface RegisterOptions {
  url: string;
  /** Exact event names, families `<prefix>.*`, or `*`. */
  events: string[];
  /** A subscription filter the events must match as well (shared/webhooks/filters/); absent or null: none. */
  filter?: WebhookFilter | null;
  /** The tenant; absent: an owner-less endpoint, reached only by emits without owner. */
  owner?: string | null;
  description?: string | null;
  /** Receiver-specific headers sent with every delivery (reserved and hop-by-hop names refused). */
  headers?: Record<string, string> | null;
  /** `hmac-sha256` (default; `v1,` with a `whsec_` secret) or `ed25519` (`v1a,`; the receiver gets a `whpk_` public key). */
  signing?: SigningScheme | null;
  /** Most deliveries per second to it, across every worker (above it they wait, not fail); absent or null: none. */
  rateLimit?: number | null;
  /** `fifo`: one delivery at a time, in emit order; absent, null or `none`: in parallel. */
  ordering?: Ordering | null;
}

/** The endpoint as registered, with its one signing secret or public key (shown again only by `webhooks:show --reveal`). */
export type RegisteredEndpoint = Endpoint & { secret: string };

/** `signing`: absent or null is `hmac-sha256`. Throws 422 `APP_WEBHOOK_SIGNING_INVALID`. */
export function assertSigning(signing: unknown): SigningScheme {
  if (signing === undefined || signing === null) return 'hmac-sha256';
  if (typeof signing === 'string' && (SIGNING_SCHEMES as readonly string[]).includes(signing))
    return signing as SigningScheme;
  throw unprocessable(`invalid signing: must be one of ${SIGNING_SCHEMES.join(', ')}`, {
    code: 'APP_WEBHOOK_SIGNING_INVALID',
    data: { field: 'signing' },
  });
}

/**
 * Checks every field (url shape and resolved addresses, event patterns, filter, headers, owner,
 * description; each refusal a 422 whose `APP_WEBHOOK_*` code names the field), then writes the
 * endpoint, a broker url's credentials sealed (destinations/credentials.ts), with its first secret (`whsec_` + base64 of 32 random bytes, or an Ed25519 key, sealed before it
 * reaches the store), and announces the change to every process's endpoint cache. A caller bound to
 * one tenant registers for that tenant only (naming another owner: 404 `APP_TENANT_NOT_FOUND`);
 * a role that may not register is refused first (403 `APP_FORBIDDEN`).
 */
export async function registerEndpoint(
  deps: WebhookDeps,
  actor: Actor,
  options: RegisterOptions,
): Promise<RegisteredEndpoint> {
  authorize(actor, 'endpoints.register');
  const input = (options ?? {}) as Partial<RegisterOptions>;
  const owner = assertOwnerWritten(actor.scope, input.owner);
  const events = assertEventPatterns(input.events);
  const filter = assertFilter(input.filter);
  await checkSubscriptions(deps, events);
  const headers = assertEndpointHeaders(input.headers);
  const description = assertDescription(input.description);
  const signing = assertSigning(input.signing);
  const rateLimit = assertRateLimit(input.rateLimit);
  const ordering = assertOrdering(input.ordering);
  const url = await checkEndpointUrl(deps, input.url);
  assertNotMasked(url);
  const box = secretBoxFor(deps.config);
  const id = newEndpointId();

  const now = new Date();
  const { secret, stored: sealed } = newSecret(box, signing, now);
  const stored: StoredEndpoint = {
    id,
    url: sealUrlCredentials(deps.config, url),
    events,
    filter,
    owner,
    description,
    headers: sealHeaders(deps.config, headers),
    secrets: [sealed],
    signing,
    rateLimit,
    ordering,
    disabledAt: null,
    disabledReason: null,
    enabledAt: null,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  await createEndpoint(deps, stored);
  deps.log.info(
    { endpoint: id, owner, events, filtered: filter !== null, host: new URL(url).host },
    'webhook endpoint registered',
  );
  return { ...toEndpoint(stored, deps.config), secret: shownSecret(secret) };
}
