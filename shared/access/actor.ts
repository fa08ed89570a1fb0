/**
 * The actor: the caller of a core operation, as every face hands it to the core. It carries the
 * caller's role (and how it signed in, which makes a portal session's grant), its tenant scope
 * and, for a signed-in user, the user it acts as. Every core operation that takes an actor calls
 * {@link authorize} for its row of the permission table first: a change by {@link authorize}, a
 * read by {@link readScope}, which answers the tenant scope it then reads in.
 */
import { forbidden, isAppError, unauthorized } from '../errors/app-error.ts';
import type { Principal } from '../tokens/principal.ts';
import { ALL_TENANT_ROLES } from '../tokens/roles.ts';
import { ALL_TENANTS, tenantScope, type TenantScope } from './tenant-scope.ts';
import { grants, OPERATION_TEXT, type Operation } from './permissions.ts';

/**
 * How the caller came: the operator (CLI, in-process interface), an API token, a password
 * session, a tenant portal session, or no credentials at all (an open route of the application).
 */
export type ActorKind = 'operator' | 'token' | 'user' | 'portal' | 'anonymous';

export interface Actor {
  /** The caller's stable id (user, token, `portal:<owner>` or `operator`), for logs. */
  readonly id: string;
  readonly kind: ActorKind;
  readonly role: string;
  /** The signed-in user it acts as; null for tokens, portal sessions and the operator. */
  readonly userId: string | null;
  /**
   * The user these credentials belong to: a signed-in user itself, or the user a token was
   * minted by (a token minted with a token belongs to that token's user); null for the operator,
   * portal sessions and tokens no user minted. A token this actor mints belongs to that user too,
   * so disabling the user revokes every token its credentials led to.
   */
  readonly belongsTo: string | null;
  /** Whose records it reaches. */
  readonly scope: TenantScope;
}

/** The operator: the CLI and the in-process `webhooks` interface act as an admin of every tenant. */
export const OPERATOR: Actor = Object.freeze({
  id: 'operator',
  kind: 'operator',
  role: 'admin',
  userId: null,
  belongsTo: null,
  scope: ALL_TENANTS,
});

/**
 * The caller of an open route that came without credentials, for the faces that hand the core an
 * actor there (the application's controllers, `ctx.webhooks`): its role is in no row of the
 * permission table, so every operation is refused with 403 `APP_FORBIDDEN`, and its scope names
 * an owner no record can have (an owner is never empty), so it reaches nothing either way.
 */
export const ANONYMOUS: Actor = Object.freeze({
  id: 'anonymous',
  kind: 'anonymous',
  role: 'anonymous',
  userId: null,
  belongsTo: null,
  scope: tenantScope(''),
});

/** The grant of the permission table an actor holds: its role, or `portal <role>` for a portal session. */
export const grantOf = (actor: Actor): string => (actor.kind === 'portal' ? `portal ${actor.role}` : actor.role);

const KINDS: readonly string[] = ['token', 'user', 'portal'];

/**
 * The actor of a request's principal. No principal is a 401 `APP_UNAUTHENTICATED`; a role other
 * than admin without an owner reaches nothing (403 `APP_FORBIDDEN`).
 */
export function actorOf(principal: Principal | undefined): Actor {
  if (!principal) throw unauthorized('this needs an authenticated caller', { code: 'APP_UNAUTHENTICATED' });
  const known = actors.get(principal);
  if (known !== undefined) return known;
  const given = principal as Principal & { kind?: string; userId?: string; mintedBy?: string | null };
  const kind = (given.kind !== undefined && KINDS.includes(given.kind) ? given.kind : 'token') as ActorKind;
  const role = principal.roles[0] ?? '';
  const userId = kind === 'user' ? (given.userId ?? principal.id) : null;
  const actor = Object.freeze({
    id: principal.id,
    kind,
    role,
    userId,
    belongsTo: kind === 'token' ? (given.mintedBy ?? null) : userId,
    scope: scopeOfRole(role, principal.owner),
  });
  if (Object.isFrozen(principal) && Object.isFrozen(principal.roles)) actors.set(principal, actor);
  return actor;
}

/**
 * The actor of each frozen principal (what shared/tokens/principal.ts makes): asked for every
 * link of every record of an answer, and a principal cannot change.
 */
const actors = new WeakMap<Principal, Actor>();

function scopeOfRole(role: string, owner: string | null | undefined): TenantScope {
  if ((ALL_TENANT_ROLES as readonly string[]).includes(role)) return ALL_TENANTS;
  if (typeof owner === 'string' && owner.length > 0) return tenantScope(owner);
  throw forbidden('these credentials are bound to no tenant', { code: 'APP_FORBIDDEN', data: { reason: 'no tenant' } });
}

/** Whether `actor` may run `operation` (the permission table; no principal: no). */
export const allows = (actor: Actor | undefined, operation: Operation): boolean =>
  actor !== undefined && grants(operation, grantOf(actor));

/** A role or grant with its article, as refusals name it: `an admin`, `a portal viewer`. */
export const withArticle = (word: string): string => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;

/** Throws 403 `APP_FORBIDDEN` (data: operation, role) unless `actor` may run `operation`. */
export function authorize(actor: Actor, operation: Operation): void {
  if (allows(actor, operation)) return;
  const grant = grantOf(actor);
  throw forbidden(`${withArticle(grant)} may not ${OPERATION_TEXT[operation]}`, {
    code: 'APP_FORBIDDEN',
    data: { operation, role: grant },
  });
}

/**
 * The tenant scope `actor` reads in, once {@link authorize} has let it run the read `operation`
 * (403 `APP_FORBIDDEN` otherwise): what every core read calls before it reads anything, so the
 * table decides reads as it decides changes, whichever face asked.
 */
export function readScope(actor: Actor, operation: Operation): TenantScope {
  authorize(actor, operation);
  return actor.scope;
}

/** Whether `error` is {@link authorize}'s refusal: the caller's role may not do this at all (not a form's mistake). */
export const isRoleRefusal = (error: unknown): boolean =>
  isAppError(error) && error.status === 403 && typeof error.data?.operation === 'string';

/** The actor of `principal` when there is one and it reaches a tenant, else undefined (for links and buttons). */
export function actorIfAny(principal: Principal | undefined): Actor | undefined {
  if (!principal) return undefined;
  try {
    return actorOf(principal);
  } catch (error) {
    if (isAppError(error)) return undefined;
    throw error;
  }
}

/** Whether `principal` may run `operation`: what decides the links and buttons a caller is offered. */
export const principalMay = (principal: Principal | undefined, operation: Operation): boolean =>
  allows(actorIfAny(principal), operation);
