/**
 * The console's paths. Pages answer HTML to browsers and their page object to JSON
 * clients; every POST is a form of a page (CSRF token in `_csrf`) that redirects (303) to the page
 * that shows its result, or shows its page again with the reason; a form sent again with the same
 * form key answers its first redirect (form-once.ts).
 *
 * | Path | GET | POST |
 * |---|---|---|
 * | `/` | overview: endpoints' health, the queue | |
 * | `/endpoints/new`, `/endpoints` | register form | register |
 * | `/endpoints/:id` | settings, secrets, deliveries (filters, paging) | update |
 * | `/endpoints/:id/{enable,disable,rotate,test,remove}` | | the action |
 * | `/endpoints/:id/filter-test` | | try a filter: the endpoint's page with the answer |
 * | `/endpoints/:id/secret` | confirmation | reveal the signing secrets |
 * | `/endpoints/:id/{created,rotated}` | the new secret, once (once.ts) | |
 * | `/deliveries/:id` | payload, attempts | |
 * | `/deliveries/:id/{retry,resend}` | | the action |
 * | `/dead-letters` | dead deliveries (endpoint, time range) | |
 * | `/dead-letters/replay` | confirmation saying how many | replay them |
 * | `/events/new`, `/events` | emit form | emit |
 * | `/find` | by event id, delivery id, event type | |
 * | `/event-types` | the event-type catalog (paging); the add form (admins) | add a type |
 * | `/event-types/:name` | a type: description, schema, examples; its form (admins) | change it, deprecate or undeprecate it |
 * | `/tokens`, `/tokens/:id/revoke` | the caller's tokens | mint / revoke |
 * | `/users`, `/users/:id/{disable,enable,reset-link}` | users (admins) | invite / the action |
 * | `/tenants`, `/tenants/portal-link` | tenants (admins) | a portal link |
 * | `/tenants/portal-end` | | end a tenant's portal sessions (and its unopened links) |
 * | `/portal` | a portal link's page (`?token=`) | sign in with it |
 */
import { PORTAL_PATH } from '../accounts/paths.ts';

const id = (value: string) => encodeURIComponent(value);

export const CONSOLE_PATHS = Object.freeze({
  overview: '/',
  endpoints: '/endpoints',
  newEndpoint: '/endpoints/new',
  deadLetters: '/dead-letters',
  replay: '/dead-letters/replay',
  events: '/events',
  emit: '/events/new',
  find: '/find',
  eventTypes: '/event-types',
  tokens: '/tokens',
  users: '/users',
  tenants: '/tenants',
  portalLink: '/tenants/portal-link',
  portalEnd: '/tenants/portal-end',
  portal: PORTAL_PATH,
  account: '/account',
  assets: '/assets',
});

export const consolePath = {
  endpoint: (endpointId: string) => `/endpoints/${id(endpointId)}`,
  endpointAction: (
    endpointId: string,
    action: 'enable' | 'disable' | 'rotate' | 'test' | 'remove' | 'secret' | 'filter-test',
  ) => `/endpoints/${id(endpointId)}/${action}`,
  eventType: (name: string) => `/event-types/${id(name)}`,
  delivery: (deliveryId: string) => `/deliveries/${id(deliveryId)}`,
  deliveryAction: (deliveryId: string, action: 'retry' | 'resend') => `/deliveries/${id(deliveryId)}/${action}`,
  revokeToken: (tokenId: string) => `/tokens/${id(tokenId)}/revoke`,
  userAction: (userId: string, action: 'disable' | 'enable' | 'reset-link') => `/users/${id(userId)}/${action}`,
};
