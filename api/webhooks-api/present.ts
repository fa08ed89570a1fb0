/**
 * The public form of webhook records in HAL answers: the fields of shared/webhooks/public-shapes.ts
 * (the one home of their names, shared with GraphQL, the OpenAPI document and the CLI) with
 * their links. The endpoint row is not a model, so these play the part of a model's
 * `publish()`; an endpoint never carries a secret unless the answer is the one that made it
 * (create, rotate), and its header values are as the core answered them (null unless revealed).
 */
import type { ShownEndpoint } from '../../shared/webhooks/endpoints/store.ts';
import type { SecretInfo } from '../../shared/webhooks/endpoints/index.ts';
import type { EventRecord } from '../../shared/webhooks/events/index.ts';
import type { DeliveryDetails, ListedDelivery } from '../../shared/webhooks/deliveries/index.ts';
import type { Delivery } from '../../shared/webhooks/events/enqueue.ts';
import type { Principal } from '../model-framework/routing/roles.ts';
import {
  publicDelivery,
  publicDeliveryDetails,
  publicEndpoint,
  publicEvent,
  publicNewDelivery,
  publicSecret,
} from '../../shared/webhooks/public-shapes.ts';
import { deliveryLinks, endpointLinks, eventLinks } from './links.ts';

type Published = Record<string, unknown> & { externalId: string | null };

/** An endpoint with its links; `secrets` (dates only) when shown alone. */
export function publishEndpoint(
  principal: Principal | undefined,
  endpoint: ShownEndpoint & { secrets?: SecretInfo[] },
): Published {
  return {
    _links: endpointLinks(principal, endpoint),
    ...publicEndpoint(endpoint),
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
