/**
 * Delivery health in GraphQL (the console's overview is one query): `health` on every
 * endpoint (the last 24 hours' success rate, the last failure and its reason, pending and dead
 * counts; read for a whole page of endpoints with one statement) and `webhookQueue` (depth and
 * the oldest pending delivery's age), over shared/webhooks/deliveries/health.ts, scoped by the
 * same rules as every webhook read.
 */
import type { GraphQLFieldResolver } from 'graphql';
import { endpointHealth, queueFigures, type EndpointHealth } from '../../../shared/webhooks/deliveries/index.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import type { GraphqlContext } from '../context.ts';
import type { Contribution } from '../contribution.ts';
import { actorIn, ownerOf } from './access.ts';

const TYPES = /* GraphQL */ `
  "How an endpoint's deliveries are going."
  type WebhookEndpointHealth {
    "Attempts started in the last 24 hours."
    attempts24h: Int!
    "Of those, the ones the receiver accepted (2xx)."
    succeeded24h: Int!
    "succeeded24h / attempts24h, from 0 to 1; null when nothing was attempted in the last 24 hours."
    successRate24h: Float
    "When the latest failed attempt started."
    lastFailureAt: DateTime
    "Why it failed (the receiver's status, a timeout, a refused address…)."
    lastFailure: String
    "The delivery (msg_…) of that attempt."
    lastFailureDeliveryId: ID
    pending: Int!
    running: Int!
    dead: Int!
  }

  "The delivery queue as the caller sees it (its own owner's deliveries for a member or viewer)."
  type WebhookQueue {
    "Deliveries pending or running."
    depth: Int!
    pending: Int!
    running: Int!
    dead: Int!
    "Age of the oldest pending delivery in seconds (0 when none)."
    oldestPendingAgeSeconds: Float!
    oldestPendingAt: DateTime
  }

  type WebhookEndpoint {
    "Success rate of the last 24 hours, last failure, pending and dead counts."
    health: WebhookEndpointHealth!
  }

  type Query {
    "Queue depth, oldest pending age and dead count; an admin may name one owner (or withoutOwner)."
    webhookQueue(owner: String, withoutOwner: Boolean): WebhookQueue!
  }
`;

const EMPTY: Omit<EndpointHealth, 'endpointId'> = {
  attempts24h: 0,
  succeeded24h: 0,
  successRate24h: null,
  lastFailureAt: null,
  lastFailure: null,
  lastFailureDeliveryId: null,
  pending: 0,
  running: 0,
  dead: 0,
};

type Resolve = GraphQLFieldResolver<any, GraphqlContext, Record<string, any>>;

export function healthContribution(deps: WebhookDeps): Contribution {
  const health: Resolve = async (endpoint: { externalId: string }, _args, context) => {
    const actor = actorIn(context.principal);
    const loader = context.loaders.get<string, EndpointHealth>('webhook-health', (ids) =>
      endpointHealth(deps, actor, ids),
    );
    return (await loader.load(endpoint.externalId)) ?? { endpointId: endpoint.externalId, ...EMPTY };
  };
  const webhookQueue: Resolve = async (_root, args, context) => {
    return queueFigures(deps, actorIn(context.principal), { owner: ownerOf(args) });
  };
  return {
    source: 'webhook health',
    types: TYPES,
    resolvers: { WebhookEndpoint: { health }, Query: { webhookQueue } },
  };
}
