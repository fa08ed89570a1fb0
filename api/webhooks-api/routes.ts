/**
 * The webhook API's routes, mounted beside the application's own route table
 * (api/model-framework/routing/product-api.ts), and the paths its links point at. Each
 * route names the operation of the permission table (shared/access/permissions.ts) it runs; its
 * role guard admits the roles that table gives the operation, so a caller is refused before the
 * body is read, and the core, which decides, refuses it again whatever face it came through.
 *
 * | Route | Action | Operation |
 * |---|---|---|
 * | `crud webhooks` | index, show / create, update, destroy | webhooks.read / endpoints.register, update, remove |
 * | `POST /webhooks/:externalId/rotate`, `/test`, `/recover` | member actions | endpoints.rotate, send, recover |
 * | `GET /webhooks/:externalId/deliveries` | the endpoint's deliveries | webhooks.read |
 * | `POST /webhooks/filter-test` | try a filter on an event | filters.test |
 * | `GET /events`, `GET /events/:id` / `POST /events` | list, show / emit | webhooks.read / events.emit |
 * | `GET /deliveries`, `GET /deliveries/:id` / `POST /deliveries/:id/retry`, `/resend` | list, show / retry, resend | webhooks.read / deliveries.retry, resend |
 * | `GET /event-types`, `GET /event-types/:name` / `POST /event-types`, `PATCH /event-types/:name` | the catalog | webhooks.read / eventTypes.create, update |
 */
import { rolesFor, type Operation } from '../../shared/access/permissions.ts';
import type { RoleRule } from '../model-framework/routing/roles.ts';
import type { RouteOptions, RouteTable } from '../model-framework/routing/table.ts';

export const SCOPE = 'api/v1';
export const VERSION = 'v1';
const BASE = `/${SCOPE}`;

const READ = rolesFor('webhooks.read');
/** The crud webhooks rule: each action's operation. */
const WEBHOOK_ROLES: RoleRule = {
  index: READ,
  show: READ,
  create: rolesFor('endpoints.register'),
  update: rolesFor('endpoints.update'),
  destroy: rolesFor('endpoints.remove'),
};

const single = (controller: string, operation: Operation): RouteOptions => ({
  controller,
  scope: SCOPE,
  version: VERSION,
  roles: rolesFor(operation),
});

export const WEBHOOKS_API_ROUTES: RouteTable = {
  'POST /webhooks/filter-test': single('webhooks.filterTest', 'filters.test'),
  'crud webhooks': { scope: SCOPE, version: VERSION, roles: WEBHOOK_ROLES },
  'POST /webhooks/:externalId/rotate': single('webhooks.rotate', 'endpoints.rotate'),
  'POST /webhooks/:externalId/test': single('webhooks.test', 'endpoints.send'),
  'POST /webhooks/:externalId/recover': single('webhooks.recover', 'endpoints.recover'),
  'GET /webhooks/:externalId/deliveries': single('webhooks.deliveries', 'webhooks.read'),
  'GET /events': single('events.index', 'webhooks.read'),
  'POST /events': single('events.create', 'events.emit'),
  'GET /events/:externalId': single('events.show', 'webhooks.read'),
  'GET /deliveries': single('deliveries.index', 'webhooks.read'),
  'GET /deliveries/:externalId': single('deliveries.show', 'webhooks.read'),
  'POST /deliveries/:externalId/retry': single('deliveries.retry', 'deliveries.retry'),
  'POST /deliveries/:externalId/resend': single('deliveries.resend', 'deliveries.resend'),
  'GET /event-types': single('eventTypes.index', 'webhooks.read'),
  'POST /event-types': single('eventTypes.create', 'eventTypes.create'),
  'GET /event-types/:externalId': single('eventTypes.show', 'webhooks.read'),
  'PATCH /event-types/:externalId': single('eventTypes.update', 'eventTypes.update'),
};

/** Characters encodeURIComponent leaves as they are, enough for every id the service makes. */
const PLAIN = /^[\w.~-]*$/;
/** An id as a path segment (a link per id, six per listed delivery: most ids need no encoding). */
const id = (value: string) => (PLAIN.test(value) ? value : encodeURIComponent(value));

/** Paths of the webhook API (what the links point at). */
export const PATHS = {
  webhooks: `${BASE}/webhooks`,
  filterTest: `${BASE}/webhooks/filter-test`,
  webhook: (endpointId: string) => `${BASE}/webhooks/${id(endpointId)}`,
  rotate: (endpointId: string) => `${BASE}/webhooks/${id(endpointId)}/rotate`,
  test: (endpointId: string) => `${BASE}/webhooks/${id(endpointId)}/test`,
  recover: (endpointId: string) => `${BASE}/webhooks/${id(endpointId)}/recover`,
  endpointDeliveries: (endpointId: string) => `${BASE}/webhooks/${id(endpointId)}/deliveries`,
  events: `${BASE}/events`,
  event: (eventId: string) => `${BASE}/events/${id(eventId)}`,
  deliveries: `${BASE}/deliveries`,
  delivery: (deliveryId: string) => `${BASE}/deliveries/${id(deliveryId)}`,
  retry: (deliveryId: string) => `${BASE}/deliveries/${id(deliveryId)}/retry`,
  resend: (deliveryId: string) => `${BASE}/deliveries/${id(deliveryId)}/resend`,
  eventTypes: `${BASE}/event-types`,
  eventType: (name: string) => `${BASE}/event-types/${id(name)}`,
};
