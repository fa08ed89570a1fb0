import type { Middleware } from 'koa';
import { notFound as notFoundError } from '../../shared/errors/app-error.ts';

/** Anything no route answered is a 404 problem (rendered by the error middleware). */
export function notFound(): Middleware {
  return async function notFound(ctx, next) {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw notFoundError(`no route for ${ctx.method} ${ctx.path}`, { code: 'APP_NOT_FOUND' });
    }
  };
}
