/**
 * Sign-in sessions: the session cookie (`auth.session.cookie`) gives the principal of
 * its user. A cookie that names no live session (ended, expired, its user disabled) leaves the
 * request anonymous rather than refusing it, so a stale cookie never locks a browser out of the
 * sign-in page. A portal session gives a member or viewer of its owner. The session itself (for the CSRF check and sign-out) is kept beside the
 * principal, never inside it: the principal travels to GraphQL resolvers and logs.
 */
import type { AccountDeps } from '../../shared/accounts/deps.ts';
import { resolveSession, type Session } from '../../shared/accounts/sessions.ts';
import type { User } from '../../shared/accounts/users.ts';
import { principalOfPortal, principalOfUser, type Principal } from '../../shared/tokens/principal.ts';
import type { Strategy } from './strategy.ts';

const sessions = new WeakMap<Principal, Session>();

/** The session a principal came with; undefined for token principals and anonymous requests. */
export const sessionOf = (principal: Principal | undefined): Session | undefined =>
  principal ? sessions.get(principal) : undefined;

/**
 * Makes `session`, just started in place of the request's own (a password change renews it), the
 * request's session from here on: what the answer renders (the page's CSRF tokens, its signed-in
 * user) is made from the new session, since the old one has ended.
 */
export function continueAs(ctx: { state: { principal?: unknown } }, session: Session, user: User): void {
  const principal = principalOfUser(user, session.id);
  sessions.set(principal, session);
  ctx.state.principal = principal;
}

export function sessionCookies(deps: AccountDeps): Strategy {
  const name = deps.config.auth.session.cookie;
  return {
    name: 'session-cookie',
    async authenticate(request) {
      const found = await resolveSession(deps, request.cookie(name));
      if (!found) return undefined;
      const { session, user } = found;
      // a tenant portal session has no user: it acts as its link's role of its owner
      const principal = user
        ? principalOfUser(user, session.id)
        : principalOfPortal(session.portal as { owner: string; role: string }, session.id);
      sessions.set(principal, found.session);
      return principal;
    },
  };
}
