/**
 * HAL links of resources and collections, built from the route table and filtered
 * by what the current principal may do, so no client is shown a link it would be refused on.
 */
import { pageNumbers } from './pagination.ts';
import type { ResourceAction, ResourceRoutes } from '../model-framework/routing/table.ts';

export interface Link {
  href: string;
  method?: string;
  [member: string]: unknown;
}

/** What a controller may pass in `links`: `{rel: href}` or HAL link objects (or lists of them). */
export type LinkInput = string | Link | readonly Link[];

export type Links = Record<string, Link | Link[]>;

/** Whether the current principal may run an action of the resource. */
export type May = (action: ResourceAction) => boolean;

function allowed(resource: ResourceRoutes, action: ResourceAction, may: May): boolean {
  return resource.actions.has(action) && may(action);
}

/**
 * `self`, `collection`, `edit`, `update` (PATCH), `destroy` (DELETE) of one record, as far as
 * allowed. A record-to-be without `externalId` (a `new` form's template) gets `self` = the new
 * form and `create` (POST) instead.
 */
export function itemLinks(resource: ResourceRoutes, externalId: string | undefined, may: May): Links {
  const links: Links = {};
  if (externalId !== undefined) {
    if (allowed(resource, 'show', may)) links.self = { href: resource.item(externalId) };
  } else if (allowed(resource, 'new', may)) {
    links.self = { href: resource.newForm };
  }
  if (allowed(resource, 'index', may)) links.collection = { href: resource.collection };
  if (externalId === undefined) {
    if (allowed(resource, 'create', may)) links.create = { href: resource.collection, method: 'POST' };
  } else {
    if (allowed(resource, 'edit', may)) links.edit = { href: resource.edit(externalId) };
    if (allowed(resource, 'update', may)) links.update = { href: resource.item(externalId), method: 'PATCH' };
    if (allowed(resource, 'destroy', may)) links.destroy = { href: resource.item(externalId), method: 'DELETE' };
  }
  return links;
}

/**
 * The parameters of `query` a listing's paging links repeat: those its action declared
 * (`acceptsQuery`), in that order, each value of a repeated one; nothing else.
 */
export function keptQuery(
  query: Readonly<Record<string, string | string[] | undefined>>,
  names: readonly string[],
): URLSearchParams {
  const kept = new URLSearchParams();
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) kept.append(name, one);
  }
  return kept;
}

/** A page's href: the kept parameters, then `page` and `per_page`. */
function pageHref(path: string, page: number, perPage: number, kept?: URLSearchParams): string {
  const filters = kept && kept.size > 0 ? `${kept}&` : '';
  return `${path}?${filters}page=${page}&per_page=${perPage}`;
}

/** `self`, `first`, `prev`, `next`, `last` with the `kept` parameters and `page`, `per_page`, then `create` (POST) and `new` as far as allowed. */
export function collectionLinks(
  path: string,
  counters: { page: number; perPage: number; total: number; deepest?: number },
  resource: ResourceRoutes | undefined,
  may: May,
  kept?: URLSearchParams,
): Links {
  const { page, perPage, total, deepest } = counters;
  const numbers = pageNumbers(page, perPage, total, deepest);
  const links: Links = {
    self: { href: pageHref(path, page, perPage, kept) },
    first: { href: pageHref(path, numbers.first, perPage, kept) },
  };
  if (numbers.prev !== undefined) links.prev = { href: pageHref(path, numbers.prev, perPage, kept) };
  if (numbers.next !== undefined) links.next = { href: pageHref(path, numbers.next, perPage, kept) };
  links.last = { href: pageHref(path, numbers.last, perPage, kept) };
  if (resource && allowed(resource, 'create', may)) links.create = { href: resource.collection, method: 'POST' };
  if (resource && allowed(resource, 'new', may)) links.new = { href: resource.newForm };
  return links;
}

/** Lays a controller's `links` option over generated links; a string is an href. */
export function mergeLinks(links: Links, extra: Readonly<Record<string, LinkInput>> | undefined): Links {
  if (!extra) return links;
  const merged: Links = { ...links };
  for (const [rel, value] of Object.entries(extra)) {
    if (typeof value === 'string') merged[rel] = { href: value };
    else if (Array.isArray(value)) merged[rel] = value.map((link) => ({ ...link }));
    else merged[rel] = { ...(value as Link) };
  }
  return merged;
}

/** The paging relations in the order a `Link` header lists them. */
const PAGING_RELS = ['self', 'first', 'prev', 'next', 'last'];
/** The same, most useful first: what a `Link` header keeps when it must be cut. */
const KEPT_FIRST = ['next', 'prev', 'first', 'last', 'self'];

/**
 * Longest `Link` header sent. Long filters repeat on every link, and proxies refuse large header
 * blocks (nginx buffers 4 kB by default, Node's fetch 16 kB in all): `_links` in the body always
 * has every link.
 */
export const MAX_LINK_HEADER = 2048;

/**
 * RFC 8288 `Link` header of a collection's paging links, at most MAX_LINK_HEADER characters:
 * links are kept in the order next, prev, first, last, self while they fit (and listed in the
 * order self, first, prev, next, last); empty (no header) when not even the first of them fits.
 */
export function linkHeader(links: Links): string {
  const entry = (rel: string) => `<${(links[rel] as Link).href}>; rel="${rel}"`;
  const present = (rel: string) => links[rel] !== undefined && !Array.isArray(links[rel]);
  const kept = new Set<string>();
  let length = 0;
  for (const rel of KEPT_FIRST.filter(present)) {
    const longer = length + (kept.size > 0 ? 2 : 0) + entry(rel).length;
    if (longer > MAX_LINK_HEADER) break;
    kept.add(rel);
    length = longer;
  }
  return PAGING_RELS.filter((rel) => kept.has(rel))
    .map(entry)
    .join(', ');
}
