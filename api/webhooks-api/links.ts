/**
 * Links of the webhook API's answers, each offered only when the permission table
 * (shared/access/permissions.ts) lets the principal run the operation it points at, the table
 * the core decides by, so every link a client is given works for it. Records of other tenants never reach these functions: the
 * core scoped them out before.
 */
import { pageNumbers } from '../hal/pagination.ts';
import { keptQuery, type Link, type Links } from '../hal/links.ts';
import { principalMay as may } from '../../shared/access/actor.ts';
import type { Operation } from '../../shared/access/permissions.ts';
import type { Principal } from '../model-framework/routing/roles.ts';
import type { Query } from '../model-framework/routing/query-parameters.ts';
import { PATHS } from './routes.ts';

export { may };

function add(links: Links, rel: string, allowed: boolean, link: Link): void {
  if (allowed) links[rel] = link;
}

/**
 * An endpoint: self, collection, update, destroy, and the member actions rotate, test, recover,
 * deliveries; `test` and `recover` only while it is enabled (a disabled endpoint refuses both
 * with 409 `APP_WEBHOOK_ENDPOINT_DISABLED`: nothing is delivered to it until it is enabled).
 */
export function endpointLinks(principal: Principal | undefined, endpoint: { id: string; enabled: boolean }): Links {
  const endpointId = endpoint.id;
  const links: Links = {};
  add(links, 'self', may(principal, 'webhooks.read'), { href: PATHS.webhook(endpointId) });
  add(links, 'collection', may(principal, 'webhooks.read'), { href: PATHS.webhooks });
  add(links, 'update', may(principal, 'endpoints.update'), { href: PATHS.webhook(endpointId), method: 'PATCH' });
  add(links, 'destroy', may(principal, 'endpoints.remove'), { href: PATHS.webhook(endpointId), method: 'DELETE' });
  add(links, 'rotate', may(principal, 'endpoints.rotate'), { href: PATHS.rotate(endpointId), method: 'POST' });
  add(links, 'test', may(principal, 'endpoints.send') && endpoint.enabled, {
    href: PATHS.test(endpointId),
    method: 'POST',
  });
  add(links, 'recover', may(principal, 'endpoints.recover') && endpoint.enabled, {
    href: PATHS.recover(endpointId),
    method: 'POST',
  });
  add(links, 'deliveries', may(principal, 'webhooks.read'), { href: PATHS.endpointDeliveries(endpointId) });
  return links;
}

/** An event: self, collection and its deliveries. */
export function eventLinks(principal: Principal | undefined, eventId: string): Links {
  const links: Links = {};
  add(links, 'self', may(principal, 'webhooks.read'), { href: PATHS.event(eventId) });
  add(links, 'collection', may(principal, 'webhooks.read'), { href: PATHS.events });
  add(links, 'deliveries', may(principal, 'webhooks.read'), {
    href: `${PATHS.deliveries}?event=${encodeURIComponent(eventId)}`,
  });
  return links;
}

/**
 * A delivery: self, collection, its endpoint and event, `retry` (POST) while it is dead and
 * `resend` (POST) once it is done, its endpoint enabled (the states these are accepted in).
 */
export function deliveryLinks(
  principal: Principal | undefined,
  delivery: { id: string; endpointId: string; eventId: string; status: string; endpointEnabled: boolean },
): Links {
  const links: Links = {};
  add(links, 'self', may(principal, 'webhooks.read'), { href: PATHS.delivery(delivery.id) });
  add(links, 'collection', may(principal, 'webhooks.read'), { href: PATHS.deliveries });
  add(links, 'endpoint', may(principal, 'webhooks.read'), { href: PATHS.webhook(delivery.endpointId) });
  add(links, 'event', may(principal, 'webhooks.read'), { href: PATHS.event(delivery.eventId) });
  add(links, 'retry', may(principal, 'deliveries.retry') && delivery.status === 'dead' && delivery.endpointEnabled, {
    href: PATHS.retry(delivery.id),
    method: 'POST',
  });
  // a dead delivery offers `retry` (which does what resend would); `resend` is the done ones' own
  add(links, 'resend', may(principal, 'deliveries.resend') && delivery.status === 'done' && delivery.endpointEnabled, {
    href: PATHS.resend(delivery.id),
    method: 'POST',
  });
  return links;
}

/** `create` (POST) on a collection, for those who may run `operation` (register, emit). */
export function createLink(principal: Principal | undefined, href: string, operation: Operation): Links {
  return may(principal, operation) ? { create: { href, method: 'POST' } } : {};
}

/**
 * Paging links (`self`, `first`, `prev`, `next`, `last`) that keep the request's filters: the
 * listing's own `filters` (the parameters its action declared) are repeated on every link, in
 * that order, then `page` and `per_page`; nothing else, so every link is one the route accepts.
 * With `deepest` (a listing with a paging bound) no link goes past that page.
 */
export function pagingLinks<P extends string>(
  path: string,
  query: Query<P>,
  counters: { page: number; perPage: number; total: number; deepest?: number },
  filters: readonly P[],
): Links {
  const kept = keptQuery(query, filters);
  const href = (page: number) => {
    const params = new URLSearchParams(kept);
    params.set('page', String(page));
    params.set('per_page', String(counters.perPage));
    return `${path}?${params}`;
  };
  const numbers = pageNumbers(counters.page, counters.perPage, counters.total, counters.deepest);
  const links: Links = { self: { href: href(counters.page) }, first: { href: href(numbers.first) } };
  if (numbers.prev !== undefined) links.prev = { href: href(numbers.prev) };
  if (numbers.next !== undefined) links.next = { href: href(numbers.next) };
  links.last = { href: href(numbers.last) };
  return links;
}
