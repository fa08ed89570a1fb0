/**
 * An authentication strategy: how one kind of credentials becomes a principal. The `user` slot
 * runs the strategies in order (api/auth/authenticate.ts); the first that recognises the
 * request's credentials decides: bearer API tokens (token-strategy.ts), then the sign-in session
 * cookie (session-strategy.ts).
 */
import type { Principal } from '../../shared/tokens/principal.ts';

/** What a strategy may read of a request (no Koa context: strategies are plain functions). */
export interface AuthRequest {
  /** A request header (lowercase name), or undefined. */
  header(name: string): string | undefined;
  /** A cookie, or undefined (for session strategies). */
  cookie(name: string): string | undefined;
}

export interface Strategy {
  name: string;
  /**
   * The principal these credentials stand for; undefined when the request carries none of
   * this strategy's credentials. Credentials of its kind that are not valid throw (401).
   */
  authenticate(request: AuthRequest): Promise<Principal | undefined>;
  /** Its `WWW-Authenticate` challenge, sent with every 401 (none for cookies: no scheme names them). */
  challenge?: string;
}
