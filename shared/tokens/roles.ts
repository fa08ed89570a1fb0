/**
 * The roles a token or a user holds, one each:
 *
 * | Role     | Tenant                    |
 * |----------|---------------------------|
 * | `admin`  | every tenant; names none  |
 * | `member` | exactly its owner         |
 * | `viewer` | exactly its owner         |
 *
 * What each role may do is the permission table's (shared/access/permissions.ts), read by every
 * core operation and face; nothing else names roles to decide.
 */

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Roles that act for every tenant (the others are bound to one owner). */
export const ALL_TENANT_ROLES: readonly Role[] = ['admin'];

/** The roles a portal link may give (an admin reaches every tenant: that is no portal). */
export const PORTAL_ROLES = ['member', 'viewer'] as const;

export const isRole = (value: unknown): value is Role =>
  typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/**
 * Why a holder cannot have `role` with `owner` (a token or a user): an unknown role, an admin
 * with an owner (admins reach every tenant), a member or viewer without one. Undefined: they go together.
 */
export function roleOwnerProblem(
  role: unknown,
  owner: string | null,
  holder: string,
): { field: 'role' | 'owner'; reason: string } | undefined {
  if (!isRole(role)) return { field: 'role', reason: `must be one of ${ROLES.join(', ')}` };
  const allTenants = ALL_TENANT_ROLES.includes(role);
  if (allTenants && owner !== null)
    return { field: 'owner', reason: `an ${role} ${holder} reaches every tenant; leave the owner out` };
  if (!allTenants && owner === null)
    return { field: 'owner', reason: `a ${role} ${holder} is bound to one tenant: give its owner` };
  return undefined;
}
