/**
 * The public form of webhook records in HAL answers. The endpoint row is not a model, so these
 * play the part of a model's `publish()`: `externalId` is the record's own id (`ep_…`, `evt_…`,
 * `msg_…`, what the CLI uses), there is no other key, and an endpoint never carries a secret
 * unless the answer is the one that made it (create, rotate).
 */
import type { Endpoint } from '../../shared/webhooks/endpoints/store.ts';
import type { SecretInfo } from '../../shared/webhooks/endpoints/index.ts';
import type { EventRecord } from '../../shared/webhooks/events/index.ts';
import type { DeliveryDetails, ListedDelivery } from '../../shared/webhooks/deliveries/index.ts';
import type { Delivery } from '../../shared/webhooks/events/enqueue.ts';
import type { Principal } from '../routing/roles.ts';
import { forbidden } from '../../shared/errors/app-error.ts';
import { maskHeaders } from '../../shared/webhooks/endpoints/header-box.ts';
import { deliveryLinks, endpointLinks, eventLinks, may } from './links.ts';
import { WRITE } from './routes.ts';

type Published = Record<string, unknown> & { externalId: string | null };

/**
 * Whether `principal` may see endpoint header values (receiver credentials): members and admins,
 * when they ask (`?reveal=headers`, GraphQL `headers(reveal: true)`); 403 `APP_FORBIDDEN` for a
 * viewer who asks. Nobody sees them without asking.
 */
export function revealHeadersFor(principal: Principal | undefined, asked: boolean): boolean {
  if (!asked) return false;
  if (!may(principal, WRITE)) {
    throw forbidden('header values are shown to members and admins only (a viewer sees their names)', { code: 'APP_FORBIDDEN', data: { field: 'reveal' } });
  }
  return true;
}

/** An endpoint with its links; `secrets` (dates only) when shown alone; header values only when revealed. */
export function publishEndpoint(principal: Principal | undefined, endpoint: Endpoint & { secrets?: SecretInfo[] }, options: { revealHeaders?: boolean } = {}): Published {
  return {
    _links: endpointLinks(principal, endpoint.id),
    externalId: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    owner: endpoint.owner,
    description: endpoint.description,
    headers: options.revealHeaders ? endpoint.headers : maskHeaders(endpoint.headers),
    enabled: endpoint.enabled,
    disabledAt: endpoint.disabledAt,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
    ...(endpoint.secrets ? { secrets: endpoint.secrets.map((s) => ({ createdAt: s.createdAt, expiresAt: s.expiresAt })) } : {}),
  };
}

/** An event with its payload (`data`) and delivery counts. */
export function publishEvent(principal: Principal | undefined, event: EventRecord): Published {
  return {
    _links: eventLinks(principal, event.id),
    externalId: event.id,
    type: event.type,
    owner: event.owner,
    data: event.data,
    createdAt: event.createdAt,
    deliveries: event.deliveries,
  };
}

/** A delivery as listed (summary) or shown (with `endpoint` and every attempt as `attempts`). */
export function publishDelivery(
  principal: Principal | undefined,
  delivery: ListedDelivery | DeliveryDetails,
): Published {
  const details = 'attemptsMade' in delivery ? delivery : undefined;
  const endpointEnabled = details ? details.endpoint?.enabled === true : (delivery as { endpointEnabled: boolean }).endpointEnabled;
  return {
    _links: deliveryLinks(principal, { ...delivery, endpointEnabled }),
    externalId: delivery.id,
    status: delivery.status,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    type: delivery.event,
    owner: delivery.owner,
    queue: delivery.queue,
    attemptCount: delivery.attempts,
    nextAttemptAt: delivery.nextAttemptAt,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
    completedAt: delivery.completedAt,
    ...(details
      ? {
          endpoint: details.endpoint === null ? null : { url: details.endpoint.url, enabled: details.endpoint.enabled, disabledReason: details.endpoint.disabledReason },
          attempts: details.attemptsMade.map((a) => ({
            attempt: a.attempt,
            startedAt: a.startedAt,
            durationMs: a.durationMs,
            status: a.status,
            outcome: a.outcome,
            error: a.error,
            excerpt: a.excerpt,
          })),
        }
      : {}),
  };
}

/** A delivery just written by emit or test (pending, no attempt yet). */
export function publishNewDelivery(principal: Principal | undefined, delivery: Delivery): Published {
  return {
    _links: deliveryLinks(principal, { id: delivery.id, endpointId: delivery.endpointId, eventId: delivery.eventId, status: delivery.status, endpointEnabled: true }),
    externalId: delivery.id,
    status: delivery.status,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    type: delivery.event,
    owner: delivery.owner,
    queue: delivery.queue,
    createdAt: delivery.createdAt,
  };
}
