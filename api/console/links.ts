/**
 * The `_links` of the console's page objects: the actions a page offers, each one
 * only when the HAL API would offer the same action to this principal (its link functions,
 * api/webhooks-api/links.ts, decide), so a viewer's page object has no `rotate` and its page no
 * rotate button. `api` points at the record in the HAL API.
 */
import type { Link, Links } from '../hal/links.ts';
import type { Principal } from '../model-framework/routing/roles.ts';
import type { Operation } from '../../shared/access/permissions.ts';
import { principalMay } from '../../shared/access/actor.ts';
import { createLink, deliveryLinks, endpointLinks } from '../webhooks-api/links.ts';
import { PATHS } from '../webhooks-api/routes.ts';
import { CONSOLE_PATHS, consolePath } from './paths.ts';

const post = (href: string): Link => ({ href, method: 'POST' });

/**
 * An endpoint's page: update, enable or disable, secret, rotate, remove, try a filter; test and
 * replay only while it is enabled, as the HAL API offers them.
 */
export function endpointPageLinks(
  principal: Principal | undefined,
  endpoint: { externalId: string; enabled: boolean } | null | undefined,
): Links {
  if (!endpoint) return {};
  const id = endpoint.externalId;
  const api = endpointLinks(principal, { id, enabled: endpoint.enabled });
  const links: Links = {};
  if (api.self) links.api = { href: PATHS.webhook(id) };
  if (api.update) {
    links.update = post(consolePath.endpoint(id));
    links[endpoint.enabled ? 'disable' : 'enable'] = post(
      consolePath.endpointAction(id, endpoint.enabled ? 'disable' : 'enable'),
    );
    links.secret = { href: consolePath.endpointAction(id, 'secret') };
  }
  if (api.rotate) links.rotate = post(consolePath.endpointAction(id, 'rotate'));
  if (api.test) links.test = post(consolePath.endpointAction(id, 'test'));
  if (api.destroy) links.remove = { href: consolePath.endpointAction(id, 'remove') };
  if (api.recover) links.replay = { href: `${CONSOLE_PATHS.replay}?endpoint=${encodeURIComponent(id)}` };
  if (principalMay(principal, 'filters.test')) links.filterTest = post(consolePath.endpointAction(id, 'filter-test'));
  return links;
}

/** A delivery's page: its endpoint and event, retry (dead) or resend (done). */
export function deliveryPageLinks(
  principal: Principal | undefined,
  delivery:
    | {
        externalId: string;
        endpointId: string;
        eventId: string;
        status: string;
        endpoint?: { enabled: boolean } | null;
      }
    | null
    | undefined,
): Links {
  if (!delivery) return {};
  const api = deliveryLinks(principal, {
    id: delivery.externalId,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    status: String(delivery.status).toLowerCase(),
    endpointEnabled: delivery.endpoint?.enabled === true,
  });
  const links: Links = {};
  if (api.self) links.api = { href: PATHS.delivery(delivery.externalId) };
  if (api.endpoint) links.endpoint = { href: consolePath.endpoint(delivery.endpointId) };
  if (api.event) links.event = { href: `${CONSOLE_PATHS.find}?q=${encodeURIComponent(delivery.eventId)}` };
  if (api.retry) links.retry = post(consolePath.deliveryAction(delivery.externalId, 'retry'));
  if (api.resend) links.resend = post(consolePath.deliveryAction(delivery.externalId, 'resend'));
  return links;
}

/**
 * An event type's page: the type in the HAL API, and its form and deprecation button for those
 * the permission table lets change the catalog (all three post its change).
 */
export function eventTypePageLinks(
  principal: Principal | undefined,
  type: { name: string; deprecated: boolean } | null | undefined,
): Links {
  if (!type) return {};
  const links: Links = { api: { href: PATHS.eventType(type.name) } };
  if (principalMay(principal, 'eventTypes.update')) {
    links.update = post(consolePath.eventType(type.name));
    links[type.deprecated ? 'undeprecate' : 'deprecate'] = post(consolePath.eventType(type.name));
  }
  return links;
}

/** A console collection's form (register, emit, replay, add an event type), for those who may run its `operation`. */
export const consoleCreateLink = (
  principal: Principal | undefined,
  rel: string,
  href: string,
  operation: Operation,
): Links => (createLink(principal, href, operation).create ? { [rel]: post(href) } : {});
