/**
 * The application's route table (spec: "Application routes"): route key -> options. See
 * api/routing/table.ts for the keys, paths and options, and docs/models.md for an example.
 *
 *   'resources posts': { scope: 'api/v1', version: 'v1', roles: { default: ['*'], destroy: ['admin'] } },
 *   'crud authors': { scope: 'api/v1' },
 *   'GET /status': { controller: 'status.show' },
 */
import type { RouteTable } from './routing/table.ts';
import { WEBHOOKS_API_ROUTES } from './webhooks-api/routes.ts';

const routes: RouteTable = {
  // webhooks, events, deliveries over HAL with bearer tokens (issue 6; docs/webhooks-api.md)
  ...WEBHOOKS_API_ROUTES,
};

export default routes;
