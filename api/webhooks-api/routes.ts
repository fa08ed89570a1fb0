/**
 * The webhook API's routes (issue 6), spread into api/routes.ts, and the paths and role rules
 * its links are built from, so a link is offered exactly when its route would admit the caller.
 *
 * | Route | Action | Roles |
 * |---|---|---|
 * | `crud webhooks` | index, show / create, update, destroy | read / write |
 * | `POST /webhooks/:externalId/rotate`, `/test`, `/recover` | member actions | write |
 * | `GET /webhooks/:externalId/deliveries` | the endpoint's deliveries | read |
 * | `GET /events`, `GET /events/:id` / `POST /events` | list, show / emit | read / write |
 * | `GET /deliveries`, `GET /deliveries/:id` / `POST /deliveries/:id/retry` | list, show / retry | read / write |
 * | `GET /event-types`, `GET /event-types/:name` / `POST /event-types`, `PATCH /event-types/:name` | the catalog | read / admin |
 *
 * read = admin, member, viewer; write = admin, member (shared/tokens/roles.ts).
 */
import { ALL_TENANT_ROLES, READ_ROLES, WRITE_ROLES } from '../../shared/tokens/roles.ts';
import type { RoleRule } from '../routing/roles.ts';
import type { RouteOptions, RouteTable } from '../routing/table.ts';

export const SCOPE = 'api/v1';
export const VERSION = 'v1';
const BASE = `/${SCOPE}`;

export const READ: RoleRule = READ_ROLES;
export const WRITE: RoleRule = WRITE_ROLES;
/** The service-wide event-type catalog is changed by admins only. */
export const ADMIN: RoleRule = ALL_TENANT_ROLES;
/** The crud webhooks rule: reading for every role, the rest for writers. */
export const WEBHOOK_ROLES: RoleRule = { default: WRITE_ROLES, index: READ_ROLES, show: READ_ROLES };

const single = (controller: string, roles: RoleRule): RouteOptions => ({ controller, scope: SCOPE, version: VERSION, roles });

export const WEBHOOKS_API_ROUTES: RouteTable = {
  'crud webhooks': { scope: SCOPE, version: VERSION, roles: WEBHOOK_ROLES },
  'POST /webhooks/:externalId/rotate': single('webhooks.rotate', WRITE),
  'POST /webhooks/:externalId/test': single('webhooks.test', WRITE),
  'POST /webhooks/:externalId/recover': single('webhooks.recover', WRITE),
  'GET /webhooks/:externalId/deliveries': single('webhooks.deliveries', READ),
  'GET /events': single('events.index', READ),
  'POST /events': single('events.create', WRITE),
  'GET /events/:externalId': single('events.show', READ),
  'GET /deliveries': single('deliveries.index', READ),
  'GET /deliveries/:externalId': single('deliveries.show', READ),
  'POST /deliveries/:externalId/retry': single('deliveries.retry', WRITE),
  'POST /deliveries/:externalId/resend': single('deliveries.resend', WRITE),
  'GET /event-types': single('eventTypes.index', READ),
  'POST /event-types': single('eventTypes.create', ADMIN),
  'GET /event-types/:externalId': single('eventTypes.show', READ),
  'PATCH /event-types/:externalId': single('eventTypes.update', ADMIN),
};

const id = (value: string) => encodeURIComponent(value);

/** Paths of the webhook API (what the links point at). */
export const PATHS = {
  webhooks: `${BASE}/webhooks`,
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
