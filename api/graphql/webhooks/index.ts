/**
 * The service's own GraphQL contributions: the scalars and the webhook endpoint, event and
 * delivery types, merged with the models' like any other (schema.ts).
 */
import type { Config } from '../../../shared/config/index.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import type { Contribution } from '../contribution.ts';
import { scalarsContribution } from '../scalars.ts';
import { webhookResolvers } from './resolvers.ts';
import { WEBHOOK_TYPES } from './types.ts';
import { RECENT_EVENTS_MAX } from '../../../shared/webhooks/filters/try.ts';
import { eventTypesContribution } from './event-types.ts';
import { healthContribution } from './health.ts';
import { relationsContribution } from './relations.ts';
import { seriesContribution } from './series.ts';

export function serviceContributions(deps: WebhookDeps & { config: Config }): Contribution[] {
  return [
    scalarsContribution(),
    {
      source: 'webhooks',
      types: WEBHOOK_TYPES,
      resolvers: webhookResolvers(deps, deps.config.api),
      // the pages' perPage is capped at api.maxPerPage (access.ts pageOf); recentEvents refuses more
      listSizes: {
        'Query.webhookEndpoints': deps.config.api.maxPerPage,
        'Query.webhookEvents': deps.config.api.maxPerPage,
        'Query.webhookDeliveries': deps.config.api.maxPerPage,
        'WebhookEndpoint.recentEvents': RECENT_EVENTS_MAX,
      },
    },
    eventTypesContribution(deps, deps.config.api),
    healthContribution(deps),
    seriesContribution(deps),
    relationsContribution(deps),
  ];
}
