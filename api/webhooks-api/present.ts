/**
 * The public form of webhook records in HAL answers: the fields of shared/webhooks/public-shapes.ts
 * (the one home of their names, shared with GraphQL, the OpenAPI document and the CLI) with
 * their links. The endpoint row is not a model, so these play the part of a model's
 * `publish()`; an endpoint never carries a secret unless the answer is the one that made it
 * (create, rotate).
 */
import type { Endpoint } from '../../shared/webhooks/endpoints/store.ts';
import type { SecretInfo } from '../../shared/webhooks/endpoints/index.ts';
import type { EventRecord } from '../../shared/webhooks/events/index.ts';
import type { DeliveryDetails, ListedDelivery } from '../../shared/webhooks/deliveries/index.ts';
import type { Delivery } from '../../shared/webhooks/events/enqueue.ts';
import type { Principal } from '../model-framework/routing/roles.ts';
import { forbidden } from '../../shared/errors/app-error.ts';
import {
  publicDelivery,
  publicDeliveryDetails,
  publicEndpoint,
  publicEvent,
  publicNewDelivery,
  publicSecret,
} from '../../shared/webhooks/public-shapes.ts';
import { deliveryLinks, endpointLinks, eventLinks, may } from './links.ts';

type Published = Record<string, unknown> & { externalId: string | null };

/**
 * Whether `principal` may see endpoint header values (receiver credentials): those the permission
 * table lets reveal an endpoint's credentials, when they ask (`?reveal=headers`, GraphQL `headers(reveal: true)`); 403 `APP_FORBIDDEN` for a
 * viewer who asks. Nobody sees them without asking.
 */
export function revealHeadersFor(principal: Principal | undefined, asked: boolean): boolean {
  if (!asked) return false;
  if (!may(principal, 'endpoints.reveal')) {
    throw forbidden('header values are shown to members and admins only (a viewer sees their names)', {
      code: 'APP_FORBIDDEN',
      data: { field: 'reveal' },
    });
  }
  return true;
}

/** An endpoint with its links; `secrets` (dates only) when shown alone; header values only when revealed. */
export function publishEndpoint(
  principal: Principal | undefined,
  endpoint: Endpoint & { secrets?: SecretInfo[] },
  options: { revealHeaders?: boolean } = {},
): Published {
  return {
    _links: endpointLinks(principal, endpoint),
    ...publicEndpoint(endpoint, options),
    ...(endpoint.secrets ? { secrets: endpoint.secrets.map(publicSecret) } : {}),
  };
}

/** An event with its payload (`data`) and delivery counts. */
export function publishEvent(principal: Principal | undefined, event: EventRecord): Published {
  return { _links: eventLinks(principal, event.id), ...publicEvent(event) };
}

/** A delivery as listed, or shown alone (with `endpoint` and every attempt as `attempts`). */
export function publishDelivery(
  principal: Principal | undefined,
  delivery: ListedDelivery | DeliveryDetails,
): Published {
  const details = 'attemptsMade' in delivery ? delivery : undefined;
  const endpointEnabled = details
    ? details.endpoint?.enabled === true
    : (delivery as { endpointEnabled: boolean }).endpointEnabled;
  return {
    _links: deliveryLinks(principal, { ...delivery, endpointEnabled }),
    ...(details ? publicDeliveryDetails(details) : publicDelivery(delivery)),
  };
}

/** A delivery just written by emit or test (pending, no attempt yet). */
export function publishNewDelivery(principal: Principal | undefined, delivery: Delivery): Published {
  return {
    _links: deliveryLinks(principal, {
      id: delivery.id,
      endpointId: delivery.endpointId,
      eventId: delivery.eventId,
      status: delivery.status,
      endpointEnabled: true,
    }),
    ...publicNewDelivery(delivery),
  };
}
