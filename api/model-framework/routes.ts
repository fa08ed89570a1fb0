/**
 * The application's route table: route key -> options. See
 * api/model-framework/routing/table.ts for the keys, paths and options, and docs/models.md for an example.
 *
 *   'resources posts': { scope: 'api/v1', version: 'v1', roles: { default: ['*'], destroy: ['admin'] } },
 *   'crud authors': { scope: 'api/v1' },
 *   'GET /status': { controller: 'status.show' },
 */
import type { RouteTable } from './routing/table.ts';

// The webhook API (webhooks, events, deliveries; docs/webhooks-api.md) is the product's own: the
// server mounts it (api/webhooks-api/mount.ts), so this table holds only the application's routes.
const routes: RouteTable = {};

export default routes;
