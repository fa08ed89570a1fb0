import type { Middleware } from 'koa';
import { AppError, isAppError } from '../../shared/errors/app-error.ts';
import type { AuthRequest, Strategy } from './strategy.ts';

/**
 * The `user` slot's authentication (api/pipeline.ts): the first strategy that recognises the
 * request's credentials sets `ctx.state.principal`; a request with none stays anonymous (the
 * role guard answers 401 where a route needs a caller). Refused credentials are answered 401
 * after the limiters have counted the request (see below). Every 401 from below, the role guard's
 * included, carries the strategies' `WWW-Authenticate` challenges (RFC 9110 section 11.6.1).
 */
export function authenticate(options: { strategies: readonly Strategy[] }): Middleware {
  const { strategies } = options;
  const challenge = strategies.flatMap((strategy) => (strategy.challenge ? [strategy.challenge] : [])).join(', ');
  return async function authenticate(ctx, next) {
    const request: AuthRequest = {
      header: (name) => ctx.get(name) || undefined,
      cookie: (name) => ctx.cookies.get(name) ?? undefined,
    };
    try {
      try {
        for (const strategy of strategies) {
          const principal = await strategy.authenticate(request);
          if (principal !== undefined) {
            ctx.state.principal = principal;
            break;
          }
        }
      } catch (error) {
        // Credentials given but refused (unknown, revoked, malformed token): the request goes on
        // anonymous through the limiters, which count it against the ip, and is refused right
        // after them (rejectRefusedCredentials), so made-up tokens cannot dodge the limits.
        if (!isAppError(error) || error.status !== 401) throw error;
        ctx.state.refusedCredentials = error;
      }
      await next();
    } catch (error) {
      if (isAppError(error) && error.status === 401 && challenge && !error.headers?.['WWW-Authenticate']) {
        throw new AppError(401, error.message, {
          code: error.code,
          data: error.data,
          expose: error.expose,
          cause: error,
          headers: { ...error.headers, 'WWW-Authenticate': challenge },
        });
      }
      throw error;
    }
  };
}
