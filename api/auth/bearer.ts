/**
 * `Authorization: Bearer <token>` (RFC 6750 section 2.1): the scheme is case-insensitive, one
 * or more spaces follow it, then the token (token68 characters).
 */

export type BearerCredentials =
  /** No Authorization header, or another scheme (Basic, a session's own…): not for this strategy. */
  | { kind: 'none' }
  /** `Bearer` with something unusable after it. */
  | { kind: 'malformed' }
  | { kind: 'token'; token: string };

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const SCHEME = /^Bearer(?: |$)/i;

/** What an Authorization header value says about a bearer token. */
export function readBearer(header: string | undefined): BearerCredentials {
  if (header === undefined || header === '' || !SCHEME.test(header)) return { kind: 'none' };
  const match = BEARER.exec(header);
  return match ? { kind: 'token', token: match[1] } : { kind: 'malformed' };
}

/** `WWW-Authenticate` challenges (RFC 6750 section 3). */
export const BEARER_CHALLENGE = 'Bearer realm="app"';
export const INVALID_TOKEN_CHALLENGE =
  'Bearer realm="app", error="invalid_token", error_description="the access token is unknown, revoked, expired or malformed"';
