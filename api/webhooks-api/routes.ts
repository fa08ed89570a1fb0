/**
 * The webhook API's routes, mounted beside the application's own route table
 * (api/model-framework/routing/product-api.ts), and the paths its links point at. Each
 * route names the operation of the permission table (shared/access/permissions.ts) it runs; its
 * role guard admits the roles that table gives the operation, so a caller is refused before the
 * body is read, with the core's own refusal (the same as through GraphQL), and the core, which
 * decides, refuses it again whatever face it came through.
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

/** The crud webhooks' operations, action by action; the roles each admits follow from them. */
const WEBHOOK_OPERATIONS = {
  index: 'webhooks.read',
  show: 'webhooks.read',
  create: 'endpoints.register',
  update: 'endpoints.update',
  destroy: 'endpoints.remove',
} as const satisfies Record<string, Operation>;
const WEBHOOK_ROLES: RoleRule = Object.fromEntries(
  Object.entries(WEBHOOK_OPERATIONS).map(([action, operation]) => [action, rolesFor(operation)]),
);

/** A route of the API running `operation`: the roles the table gives it, and the core's refusal for the others. */
export const operationRoute = (controller: string, operation: Operation): RouteOptions => ({
  controller,
  scope: SCOPE,
  version: VERSION,
  roles: rolesFor(operation),
  operation,
});

export const WEBHOOKS_API_ROUTES: RouteTable = {
  'POST /webhooks/filter-test': operationRoute('webhooks.filterTest', 'filters.test'),
  'crud webhooks': { scope: SCOPE, version: VERSION, roles: WEBHOOK_ROLES, operation: WEBHOOK_OPERATIONS },
  'POST /webhooks/:externalId/rotate': operationRoute('webhooks.rotate', 'endpoints.rotate'),
  'POST /webhooks/:externalId/test': operationRoute('webhooks.test', 'endpoints.send'),
  'POST /webhooks/:externalId/recover': operationRoute('webhooks.recover', 'endpoints.recover'),
  'GET /webhooks/:externalId/deliveries': operationRoute('webhooks.deliveries', 'webhooks.read'),
  'GET /events': operationRoute('events.index', 'webhooks.read'),
  'POST /events': operationRoute('events.create', 'events.emit'),
  'GET /events/:externalId': operationRoute('events.show', 'webhooks.read'),
  'GET /deliveries': operationRoute('deliveries.index', 'webhooks.read'),
  'GET /deliveries/:externalId': operationRoute('deliveries.show', 'webhooks.read'),
  'POST /deliveries/:externalId/retry': operationRoute('deliveries.retry', 'deliveries.retry'),
  'POST /deliveries/:externalId/resend': operationRoute('deliveries.resend', 'deliveries.resend'),
  'GET /event-types': operationRoute('eventTypes.index', 'webhooks.read'),
  'POST /event-types': operationRoute('eventTypes.create', 'eventTypes.create'),
  'GET /event-types/:externalId': operationRoute('eventTypes.show', 'webhooks.read'),
  'PATCH /event-types/:externalId': operationRoute('eventTypes.update', 'eventTypes.update'),
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
