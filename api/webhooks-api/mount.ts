/**
 * The webhook API, mounted by the server (api/model-framework/routing/product-api.ts): its routes and the
 * controllers made from the web process's webhook dependencies.
 */
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import type { ApiDefinition } from '../model-framework/routing/api.ts';
import { withProductApi } from '../model-framework/routing/product-api.ts';
import { deliveriesController } from './controllers/deliveries.ts';
import { endpointsController } from './controllers/endpoints.ts';
import { eventsController } from './controllers/events.ts';
import { eventTypesController } from './controllers/event-types.ts';
import { WEBHOOKS_API_ROUTES } from './routes.ts';

/** `definition` with the webhook API's routes and controllers added. */
export function withWebhooksApi(definition: ApiDefinition, deps: WebhookDeps): ApiDefinition {
  const controllers = {
    webhooks: endpointsController(deps),
    events: eventsController(deps),
    deliveries: deliveriesController(deps),
    eventTypes: eventTypesController(deps),
  };
  return withProductApi(definition, 'webhook API', WEBHOOKS_API_ROUTES, controllers);
}
