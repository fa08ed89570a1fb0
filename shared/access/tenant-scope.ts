/**
 * Tenant scope (tenant isolation): whose endpoints, events and deliveries a
 * caller reaches. The CLI and admin tokens reach every tenant; member and viewer tokens exactly
 * one owner. Every REST and GraphQL read or change of webhook records goes through these
 * functions (shared/webhooks/endpoints/, events/, deliveries/), so the rule lives in one
 * place: a record of another tenant is answered exactly like a record that does not exist
 * (404), never 403, so ids do not leak across tenants.
 */
import { notFound } from '../errors/app-error.ts';
import { describeValue } from '../errors/describe-value.ts';

/** Every tenant (admins, the CLI), or exactly one owner. */
export type TenantScope = { readonly kind: 'all' } | { readonly kind: 'tenant'; readonly owner: string };

/** The scope of operators and admins. */
export const ALL_TENANTS: TenantScope = Object.freeze({ kind: 'all' });

/** The scope of a caller bound to `owner`. */
export const tenantScope = (owner: string): TenantScope => Object.freeze({ kind: 'tenant', owner });

/** Whether a record of `owner` (null: owner-less) is visible in `scope`. */
export function inScope(scope: TenantScope, owner: string | null): boolean {
  return scope.kind === 'all' || owner === scope.owner;
}

/** Throws `missing()` (the record kind's own 404) when a record of `owner` is outside `scope`. */
export function assertInScope(scope: TenantScope, owner: string | null, missing: () => Error): void {
  if (!inScope(scope, owner)) throw missing();
}

/**
 * AppError 404 `APP_TENANT_NOT_FOUND`: a caller bound to one owner named another one, or the
 * records without owner (null), which the message says in words rather than as "owner null".
 */
export const tenantNotFound = (owner: unknown) =>
  notFound(
    owner === null
      ? 'records without an owner are not reachable with these credentials'
      : `no owner ${describeValue(owner)} is reachable with these credentials`,
    {
      code: 'APP_TENANT_NOT_FOUND',
      data: { field: 'owner', value: owner },
    },
  );

/**
 * The owner a change or an emit acts for. All tenants: `requested` as given (undefined and null
 * mean no owner; the core checks the value). One tenant: its owner, whether `requested` is left
 * out or names it; naming any other owner (null included) is a 404 `APP_TENANT_NOT_FOUND`. A
 * value that cannot name an owner at all (a number, an object) is given back for the core's
 * check of the field to refuse (422), as it is for every tenant: a wrong JSON type is the
 * client's mistake to fix, not a tenant it cannot reach.
 */
export function ownerForWrite(scope: TenantScope, requested: unknown): unknown {
  if (scope.kind === 'all') return requested;
  if (requested === undefined || requested === scope.owner) return scope.owner;
  if (requested !== null && typeof requested !== 'string') return requested;
  throw tenantNotFound(requested);
}

/**
 * The owner filter of a listing. All tenants: `requested` (undefined: every owner; null: only
 * records without owner). One tenant: always its owner; naming another is a 404 like
 * `ownerForWrite`.
 */
export function ownerFilter(scope: TenantScope, requested: string | null | undefined): string | null | undefined {
  if (scope.kind === 'all') return requested;
  if (requested === undefined || requested === scope.owner) return scope.owner;
  throw tenantNotFound(requested);
}
