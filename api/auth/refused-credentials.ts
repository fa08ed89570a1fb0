import type { Middleware } from 'koa';

/**
 * Answers the 401 of credentials the `user` slot refused (api/auth/authenticate.ts). Mounted
 * right after the global limiter, so a request with a made-up bearer token is counted against
 * its ip like any anonymous request (and refused with 429 once over the limit) before it is told
 * its token is not valid.
 */
export function rejectRefusedCredentials(): Middleware {
  return async function rejectRefusedCredentials(ctx, next) {
    const refused = (ctx.state as { refusedCredentials?: unknown }).refusedCredentials;
    if (refused !== undefined) throw refused;
    await next();
  };
}
