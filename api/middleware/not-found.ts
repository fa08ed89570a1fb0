import type { Middleware } from 'koa';
import { AppError, notFound as notFoundError } from '../../shared/errors/app-error.ts';

/**
 * Anything no route answered is a 404 problem (`APP_NOT_FOUND`); a path that exists with other
 * methods is a 405 problem (`APP_METHOD_NOT_ALLOWED`) with `Allow`; a method no route has at
 * all (TRACE, PROPFIND …) is a 501 problem (`APP_METHOD_NOT_IMPLEMENTED`), never Koa's plain
 * text. All are rendered by the error middleware.
 */
export function notFound(): Middleware {
  return async function notFound(ctx, next) {
    await next();
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 404) {
      throw notFoundError(`no route for ${ctx.method} ${ctx.path}`, { code: 'APP_NOT_FOUND' });
    }
    if (ctx.status === 501) {
      // the router knows no route for this method anywhere (TRACE, PROPFIND, a made-up token)
      throw new AppError(501, `the method ${ctx.method} is not implemented by this service`, {
        code: 'APP_METHOD_NOT_IMPLEMENTED',
        data: { method: ctx.method },
        expose: true,
      });
    }
    if (ctx.status === 405) {
      const allow = ctx.response.get('Allow');
      throw new AppError(405, `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`, {
        code: 'APP_METHOD_NOT_ALLOWED',
        headers: { Allow: allow },
        data: { allow: allow.split(/,\s*/) },
      });
    }
  };
}
