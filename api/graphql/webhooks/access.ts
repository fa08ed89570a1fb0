/**
 * Who GraphQL's callers are to the core: the actor of the request's principal (401
 * `APP_UNAUTHENTICATED` without one), which every query and mutation hands to its core function,
 * where the permission table (shared/access/permissions.ts) decides and the tenant scope narrows.
 * Also the page arguments, read by the REST pagination rules.
 */
import { listInvalid } from '../../../shared/webhooks/list-filters.ts';
import { actorOf, type Actor } from '../../../shared/access/actor.ts';
import { pageFrom, type PaginationLimits } from '../../hal/pagination.ts';
import { deepestPage } from '../../../shared/db/page-depth.ts';
import type { Principal } from '../../model-framework/routing/roles.ts';

/** The page arguments as the schema names them. */
const GRAPHQL_NAMES = { page: 'page', perPage: 'perPage' };

/** The caller as the core's reads and writes take it (they decide what its role may do). */
export const actorIn = (principal: Principal | undefined): Actor => actorOf(principal);

/** `page` and `perPage` by the REST rules (400 `APP_PAGINATION_INVALID` naming the argument; perPage capped at `api.maxPerPage`). */
export function pageOf(
  args: { page?: number | null; perPage?: number | null },
  limits: PaginationLimits,
): { page: number; perPage: number } {
  const { page, perPage } = pageFrom(
    { page: args.page ?? undefined, perPage: args.perPage ?? undefined },
    limits,
    GRAPHQL_NAMES,
  );
  return { page, perPage };
}

/**
 * A page as the `…Page` types present it, with the deepest page the listing answers at its
 * `perPage` (`maxPageOffset`, api.maxPageOffset: every listing refuses a page past it).
 */
export const pageAnswer = <T>(
  records: T[],
  total: number,
  page: { page: number; perPage: number },
  maxPageOffset: number,
  totalEstimated = false,
) => ({
  nodes: records,
  page: page.page,
  perPage: page.perPage,
  total,
  pages: Math.ceil(total / page.perPage),
  totalEstimated,
  deepestPage: deepestPage(page.perPage, maxPageOffset),
});

/** `owner` / `withoutOwner` of a filter as the core's owner filter (null: records without owner). */
export function ownerOf(
  filter: { owner?: string | null; withoutOwner?: boolean | null } | null | undefined,
): string | null | undefined {
  if (filter?.withoutOwner === true) {
    // the REST rule (api/webhooks-api/query.ts): the two contradict each other
    if (filter.owner !== undefined && filter.owner !== null)
      throw listInvalid('withoutOwner', 'cannot be combined with owner', true);
    return null;
  }
  return filter?.owner ?? undefined;
}
