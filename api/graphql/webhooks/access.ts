/**
 * Who may do what through GraphQL, by the same rules as the REST routes: the roles of
 * shared/tokens/roles.ts (read: admin, member, viewer; write: admin, member) decided by the
 * role guard's own `decide`, then the caller's tenant scope (`scopeOf`), which every core
 * function applies. Also the page arguments, read by the REST pagination rules.
 */
import { listInvalid } from '../../../shared/webhooks/list-filters.ts';
import { forbidden, unauthorized } from '../../../shared/errors/app-error.ts';
import { scopeOf } from '../../../shared/tokens/principal.ts';
import { ALL_TENANT_ROLES, READ_ROLES, WRITE_ROLES } from '../../../shared/tokens/roles.ts';
import type { TenantScope } from '../../../shared/webhooks/tenant-scope.ts';
import { parsePagination, type PaginationLimits } from '../../hal/pagination.ts';
import { decide, type Principal } from '../../routing/roles.ts';

/** The caller may use `roles`, else 401 `APP_UNAUTHENTICATED` / 403 `APP_FORBIDDEN` (as the role guard). */
function allow(principal: Principal | undefined, roles: readonly string[], action: string): void {
  const decision = decide(roles, action, principal);
  if (decision === 'unauthenticated') throw unauthorized('this needs an authenticated caller', { code: 'APP_UNAUTHENTICATED' });
  if (decision === 'forbidden') throw forbidden(`the caller's roles do not allow ${action}`, { code: 'APP_FORBIDDEN', data: { action } });
}

/** The tenant scope of a caller allowed to read webhook records. */
export function readScope(principal: Principal | undefined, action: string): TenantScope {
  allow(principal, READ_ROLES, action);
  return scopeOf(principal);
}

/** The tenant scope of a caller allowed to change webhook records, emit, retry. */
export function writeScope(principal: Principal | undefined, action: string): TenantScope {
  allow(principal, WRITE_ROLES, action);
  return scopeOf(principal);
}

/** A caller allowed to change the service-wide event-type catalog (admins). */
export function adminOnly(principal: Principal | undefined, action: string): void {
  allow(principal, ALL_TENANT_ROLES, action);
}

/** A caller allowed to read (the event-type catalog: every role). */
export function reader(principal: Principal | undefined, action: string): void {
  allow(principal, READ_ROLES, action);
}

/** `page` and `perPage` by the REST rules (400 `APP_PAGINATION_INVALID`; perPage capped at `api.maxPerPage`). */
export function pageOf(args: { page?: unknown; perPage?: unknown }, limits: PaginationLimits): { page: number; perPage: number } {
  const text = (value: unknown) => (value === undefined || value === null ? undefined : String(value));
  const { page, perPage } = parsePagination({ page: text(args.page), per_page: text(args.perPage) }, limits);
  return { page, perPage };
}

/** A page as the `…Page` types present it. */
export const pageAnswer = <T>(records: T[], total: number, page: { page: number; perPage: number }, totalEstimated = false) => ({
  nodes: records,
  page: page.page,
  perPage: page.perPage,
  total,
  pages: Math.ceil(total / page.perPage),
  totalEstimated,
});

/** `owner` / `withoutOwner` of a filter as the core's owner filter (null: records without owner). */
export function ownerOf(filter: { owner?: string | null; withoutOwner?: boolean | null } | null | undefined): string | null | undefined {
  if (filter?.withoutOwner === true) {
    // the REST rule (api/webhooks-api/query.ts): the two contradict each other
    if (filter.owner !== undefined && filter.owner !== null) throw listInvalid('withoutOwner', 'cannot be combined with owner', true);
    return null;
  }
  return filter?.owner ?? undefined;
}
