/**
 * The product's own API, mounted by the server (not discovered among the deployer's
 * controllers): the webhook routes and their controllers made from the web process's webhook
 * dependencies, beside the application's own declarations. A route key or controller name of
 * the application that is the product's stops the boot (it would hide the webhook API).
 */
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import type { ApiDefinition } from '../routing/api.ts';
import { RouteTableError } from '../routing/table.ts';
import { deliveriesController } from './controllers/deliveries.ts';
import { endpointsController } from './controllers/endpoints.ts';
import { eventsController } from './controllers/events.ts';
import { WEBHOOKS_API_ROUTES } from './routes.ts';

/** `definition` with the webhook API's routes and controllers added. */
export function withWebhooksApi(definition: ApiDefinition, deps: WebhookDeps): ApiDefinition {
  const controllers = { webhooks: endpointsController(deps), events: eventsController(deps), deliveries: deliveriesController(deps) };
  const clashes = [
    ...Object.keys(definition.routes ?? {}).filter((key) => key in WEBHOOKS_API_ROUTES).map((key) => `route "${key}" is the webhook API's own`),
    ...Object.keys(definition.controllers ?? {}).filter((name) => name in controllers).map((name) => `controller "${name}" is the webhook API's own`),
  ];
  if (clashes.length > 0) throw new RouteTableError(clashes);
  return {
    ...definition,
    routes: { ...WEBHOOKS_API_ROUTES, ...definition.routes },
    controllers: { ...controllers, ...definition.controllers },
  };
}
