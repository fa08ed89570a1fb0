import { unauthorized } from '../../shared/errors/app-error.ts';
import { principalOfToken, type TokenPrincipal } from '../../shared/tokens/principal.ts';
import { verifyToken, type ApiToken, type TokenDeps } from '../../shared/tokens/tokens.ts';
import { BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE, readBearer } from './bearer.ts';
import type { Strategy } from './strategy.ts';

/** 401 `APP_TOKEN_INVALID` with the RFC 6750 `invalid_token` challenge. */
const invalidToken = () =>
  unauthorized('the bearer token is unknown, revoked, expired or malformed', {
    code: 'APP_TOKEN_INVALID',
    headers: { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE },
  });

/**
 * API tokens sent as `Authorization: Bearer <token>` (shared/tokens). A token that is unknown,
 * revoked, expired or malformed is refused with 401 `APP_TOKEN_INVALID` on any route, open ones
 * included (RFC 6750 section 3.1), rather than serving the request anonymously. Tokens are read
 * through the process's token cache when it has one (shared/tokens/cache.ts: a revocation
 * reaches it through LISTEN/NOTIFY; `auth.tokenCache` bounds a lost notice), else from the table
 * on every request.
 */
export function bearerTokens(deps: TokenDeps): Strategy {
  // one principal per token read (a cached token is the same object on every request), so what
  // is derived from a principal (its actor) is derived once
  const principals = new WeakMap<ApiToken, TokenPrincipal>();
  return {
    name: 'bearer-token',
    challenge: BEARER_CHALLENGE,
    async authenticate(request) {
      const credentials = readBearer(request.header('authorization'));
      if (credentials.kind === 'none') return undefined;
      if (credentials.kind === 'malformed') throw invalidToken();
      const token = await (deps.tokenCache
        ? deps.tokenCache.verify(credentials.token)
        : verifyToken(deps, credentials.token));
      if (token === null) throw invalidToken();
      let principal = principals.get(token);
      if (principal === undefined) {
        principal = principalOfToken(token);
        principals.set(token, principal);
      }
      return principal;
    },
  };
}
