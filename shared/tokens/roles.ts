/**
 * The roles an API token (and, later, a user) holds, and what each may do. One role per token:
 *
 * | Role     | Tenant                    | May                                                        |
 * |----------|---------------------------|------------------------------------------------------------|
 * | `admin`  | every tenant; names one   | everything: any owner's endpoints, events and deliveries   |
 * | `member` | exactly its owner         | read and change its owner's endpoints, emit, retry, replay |
 * | `viewer` | exactly its owner         | read its owner's endpoints, events and deliveries          |
 *
 * Route tables and GraphQL resolvers read the lists below rather than naming roles themselves.
 */

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Roles that may read webhook records (endpoints, events, deliveries). */
export const READ_ROLES: readonly Role[] = ['admin', 'member', 'viewer'];

/** Roles that may change webhook records, emit, test, rotate, retry and replay. */
export const WRITE_ROLES: readonly Role[] = ['admin', 'member'];

/** Roles that act for every tenant (the others are bound to one owner). */
export const ALL_TENANT_ROLES: readonly Role[] = ['admin'];

/** The roles a portal link may give (an admin reaches every tenant: that is no portal). */
export const PORTAL_ROLES = ['member', 'viewer'] as const;

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** Whether a holder of `roles` may change webhook records. */
export const mayWrite = (roles: readonly string[]): boolean => roles.some((role) => (WRITE_ROLES as readonly string[]).includes(role));

/**
 * Why a holder cannot have `role` with `owner` (a token or a user): an unknown role, an admin
 * with an owner (admins reach every tenant), a member or viewer without one. Undefined: they go together.
 */
export function roleOwnerProblem(role: unknown, owner: string | null, holder: string): { field: 'role' | 'owner'; reason: string } | undefined {
  if (!isRole(role)) return { field: 'role', reason: `must be one of ${ROLES.join(', ')}` };
  const allTenants = ALL_TENANT_ROLES.includes(role);
  if (allTenants && owner !== null) return { field: 'owner', reason: `an ${role} ${holder} reaches every tenant; leave the owner out` };
  if (!allTenants && owner === null) return { field: 'owner', reason: `a ${role} ${holder} is bound to one tenant: give its owner` };
  return undefined;
}
