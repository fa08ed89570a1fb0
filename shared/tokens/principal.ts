/**
 * The principal: who a request acts for, as every entry point sees it (REST sets it in the
 * `user` slot as `ctx.state.principal`, GraphQL passes it to resolvers). Same shape as
 * api/model-framework/routing/roles.ts `Principal`, kept here so the core never imports the web layer.
 *
 * A principal comes from an API token (`kind: 'token'`, id = the token id; a token a user minted
 * keeps its own role and owner, at most the user's) or from a sign-in session (`kind: 'user'`,
 * id = the user id). What reads a principal (role guard, links, the actor of shared/access/, the limiters'
 * and idempotency keys) reads only `id`, `roles` and `owner`, whichever it is.
 */
import type { ApiToken } from './tokens.ts';

export interface Principal {
  /** Stable id of the caller: the key of its idempotency records and rate-limit counters. */
  id: string;
  roles: readonly string[];
  /** The tenant the caller is bound to; null or absent: none (admins). */
  owner?: string | null;
}

/** A principal authenticated by an API token. */
export interface TokenPrincipal extends Principal {
  kind: 'token';
  owner: string | null;
  tokenId: string;
  /** The token's label, for logs. */
  name: string;
  /** The user the token belongs to (its minter; revoked when that user is disabled); null: none. */
  mintedBy: string | null;
}

/** A principal signed in with a password (a session of user `id`). */
export interface UserPrincipal extends Principal {
  kind: 'user';
  owner: string | null;
  userId: string;
  email: string;
  /** The session the request came with. */
  sessionId: string;
}

/**
 * A principal of a tenant portal session: a member or viewer of one owner, signed in
 * by a single-use portal link rather than a password. Its id is the same for every portal session
 * of the owner (`portal:<owner>`), which keys its rate-limit counters and idempotency records.
 */
export interface PortalPrincipal extends Principal {
  kind: 'portal';
  owner: string;
  /** The session the request came with. */
  sessionId: string;
}

/** The principal of a portal session of `owner` with `role`. */
export function principalOfPortal(grant: { owner: string; role: string }, sessionId: string): PortalPrincipal {
  return Object.freeze({
    kind: 'portal',
    id: `portal:${grant.owner}`,
    roles: Object.freeze([grant.role]),
    owner: grant.owner,
    sessionId,
  });
}

/** The principal of a signed-in user's requests. */
export function principalOfUser(
  user: { id: string; role: string; owner: string | null; email: string },
  sessionId: string,
): UserPrincipal {
  return Object.freeze({
    kind: 'user',
    id: user.id,
    userId: user.id,
    email: user.email,
    roles: Object.freeze([user.role]),
    owner: user.owner,
    sessionId,
  });
}

/** The principal of requests carrying `token`. */
export function principalOfToken(token: ApiToken): TokenPrincipal {
  return Object.freeze({
    kind: 'token',
    id: token.id,
    tokenId: token.id,
    name: token.name,
    roles: Object.freeze([token.role]),
    owner: token.owner,
    mintedBy: token.userId,
  });
}
