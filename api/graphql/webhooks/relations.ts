/**
 * `WebhookDelivery.event` (the console's delivery page shows the event's payload beside
 * the attempts in one query): the delivery's event through the same scoped core function as
 * `webhookEvent`; null when the event is out of the caller's reach or pruned.
 */
import type { GraphQLFieldResolver } from 'graphql';
import { isAppError } from '../../../shared/errors/app-error.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import { showEvent } from '../../../shared/webhooks/events/index.ts';
import { publicEvent } from '../../../shared/webhooks/public-shapes.ts';
import type { GraphqlContext } from '../context.ts';
import type { Contribution } from '../contribution.ts';
import { actorIn } from './access.ts';

const TYPES = /* GraphQL */ `
  type WebhookDelivery {
    "The event it delivers, with its payload (null when out of reach)."
    event: WebhookEvent
  }
`;

export function relationsContribution(deps: WebhookDeps): Contribution {
  const event: GraphQLFieldResolver<{ eventId: string }, GraphqlContext> = async (delivery, _args, context) => {
    try {
      return publicEvent(await showEvent(deps, actorIn(context.principal), delivery.eventId));
    } catch (error) {
      if (isAppError(error) && error.status === 404) return null;
      throw error;
    }
  };
  return { source: 'webhook relations', types: TYPES, resolvers: { WebhookDelivery: { event } } };
}
