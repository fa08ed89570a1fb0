/**
 * What the `webhooks:*` and `events:emit` commands share: the core's dependencies from the CLI
 * context, the parsing of option texts (event lists, `--header 'Name: value'`, `--data` JSON,
 * `--grace 24h`) and the text forms of endpoints and deliveries. `--json` prints the records
 * themselves.
 */
import { isoOrDash, plural, table } from './text-forms.ts';
import { publicEndpoint } from '../../shared/webhooks/public-shapes.ts';
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import type { SigningScheme } from '../../shared/webhooks/signing.ts';
import type { Endpoint } from '../../shared/webhooks/endpoints/store.ts';
import { maskedEndpoint, type ShownEndpoint } from '../../shared/webhooks/endpoints/shown.ts';
import type { Delivery } from '../../shared/webhooks/events/enqueue.ts';
import type { EmitResult } from '../../shared/webhooks/events/emit.ts';
import type { CliContext } from '../context.ts';

/** The core's dependencies for one command (no endpoint cache: a command runs once). */
export const webhookDeps = (context: CliContext): WebhookDeps => ({
  config: context.config,
  sql: context.sql(),
  log: context.log,
  endpoints: context.endpoints(),
});

export {
  parseEventList,
  parseGrace,
  parseHeaderList,
  parseJsonData,
} from '../../shared/webhooks/text-input.ts';

/** ISO text of a date, `-` for none. */

/**
 * An endpoint read as the CLI prints it: its public fields (shared/webhooks/public-shapes.ts, the
 * names REST and GraphQL use), header values (receiver credentials) as the core answered them,
 * null unless revealed (`webhooks:show --reveal`), in the text and in `--json` alike.
 */
export const shown = (endpoint: ShownEndpoint): PrintedEndpoint => publicEndpoint(endpoint);

/** An endpoint a command changed as the CLI prints it: as {@link shown}, its header values hidden. */
export const changed = (endpoint: Endpoint): PrintedEndpoint => publicEndpoint(maskedEndpoint(endpoint));

export type PrintedEndpoint = ReturnType<typeof publicEndpoint>;

/** Several lines describing one endpoint (pass it through `shown` or `changed` first). */
export function endpointText(endpoint: PrintedEndpoint): string {
  const headers = Object.entries(endpoint.headers).map(
    ([name, value]) => `${name}: ${value ?? '(hidden; webhooks:show --reveal)'}`,
  );
  return [
    `id:          ${endpoint.externalId}`,
    `url:         ${endpoint.url}`,
    `events:      ${endpoint.events.join(', ')}`,
    `filter:      ${endpoint.filter === null ? '(none)' : JSON.stringify(endpoint.filter)}`,
    `owner:       ${endpoint.owner ?? '(none)'}`,
    `description: ${endpoint.description || '(none)'}`,
    `headers:     ${headers.length === 0 ? '(none)' : headers.join('\n             ')}`,
    `state:       ${endpoint.enabled ? 'enabled' : `disabled since ${isoOrDash(endpoint.disabledAt)} (${endpoint.disabledReason || 'no reason given'})`}`,
    `rate limit:  ${endpoint.rateLimit === null ? 'none' : `${endpoint.rateLimit} deliveries per second`}`,
    `ordering:    ${endpoint.ordering === 'fifo' ? 'fifo (one at a time, in emit order)' : 'none (in parallel)'}`,
    `signing:     ${endpoint.signing === 'ed25519' ? 'ed25519 (v1a, signatures; receivers verify with the public key)' : 'hmac-sha256 (v1, signatures)'}`,
    `created:     ${isoOrDash(endpoint.createdAt)}`,
    `updated:     ${isoOrDash(endpoint.updatedAt)}`,
  ].join('\n');
}

/**
 * What the text forms call the value a receiver is given: an hmac-sha256 endpoint's secret
 * (`whsec_`), an ed25519 endpoint's public key (`whpk_`; its private key is never printed).
 * `--json` keeps the field name `secret` of REST and GraphQL, beside `signing`.
 */
export const receiverKeyWords = (signing: SigningScheme) =>
  signing === 'ed25519'
    ? { key: 'public key', previous: 'the previous key', inUse: 'public keys that verify its signatures' }
    : { key: 'secret', previous: 'the previous secret', inUse: 'secrets that sign' };

/** Endpoints as a table, one line each. */
export function endpointTable(
  endpoints: readonly Pick<Endpoint, 'id' | 'enabled' | 'owner' | 'events' | 'url'>[],
): string {
  return table([
    ['ID', 'STATE', 'OWNER', 'EVENTS', 'URL'],
    ...endpoints.map((e) => [e.id, e.enabled ? 'enabled' : 'disabled', e.owner ?? '-', e.events.join(','), e.url]),
  ]);
}

/** One line per delivery. */
export function deliveryLines(deliveries: readonly Delivery[]): string {
  return deliveries.map((d) => `${d.id}  ${d.event} -> ${d.endpointId}  (queue ${d.queue})`).join('\n');
}

/**
 * The text form of an emit: the event and the deliveries queued; for a repeated `--event-id`
 * (`eventId`) that it was a duplicate, with the original event and its deliveries; when nothing
 * was queued, why.
 */
export function emittedText(result: EmitResult, eventId?: string): string {
  const whose = result.owner === null ? 'without owner' : `of owner ${result.owner}`;
  if (result.event === null) return `no enabled endpoint ${whose} subscribes to ${result.type}; nothing queued`;
  const filtered =
    result.filteredOut === 0
      ? ''
      : ` (${plural(result.filteredOut, 'subscribed endpoint', 'subscribed endpoints')} left out by ${result.filteredOut === 1 ? 'its filter' : 'their filters'})`;
  const deliveries = result.deliveries.length === 0 ? '' : `:\n${deliveryLines(result.deliveries)}`;
  if (result.duplicate) {
    return `event id ${eventId} was emitted already; nothing queued. The original event ${result.event.id}, ${plural(result.deliveries.length, 'delivery', 'deliveries')}${deliveries}`;
  }
  if (result.deliveries.length === 0) return `event ${result.event.id} written; nothing queued${filtered}`;
  return `queued ${plural(result.deliveries.length, 'delivery', 'deliveries')} of event ${result.event.id}${filtered}${deliveries}`;
}
