import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors/app-error.ts';
import { readiness, type ReadinessDeps } from './readiness.ts';

export const READINESS_PATHS = new Set(['/readyz', '/healthz', '/_app/health']);

/** Every health path, liveness first. */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/livez', ...READINESS_PATHS]);

/** The methods the health paths answer. */
const ALLOWED = ['GET', 'HEAD'];

/**
 * The fixed health endpoints. They run before the session, limiters and router, need no
 * credentials, and answer every method an application route would otherwise see on these
 * paths (GET and HEAD answer, others 405), so no application route ever sees them. The 405 is
 * the same problem answer a route gives (`APP_METHOD_NOT_ALLOWED`, `Allow`), rendered by the
 * error middleware.
 */
export function health(deps: ReadinessDeps): Middleware {
  return async function health(ctx, next) {
    const isLive = ctx.path === '/livez';
    if (!isLive && !READINESS_PATHS.has(ctx.path)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new AppError(405, `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ALLOWED.join(', ')}`, {
        code: 'APP_METHOD_NOT_ALLOWED',
        headers: { Allow: ALLOWED.join(', ') },
        data: { allow: ALLOWED },
      });
    }
    ctx.set('Cache-Control', 'no-store');
    if (isLive) {
      ctx.body = { status: 'ok', uptime: Math.round((Date.now() - deps.startedAt) / 10) / 100 };
      return;
    }
    const answer = await readiness(deps);
    ctx.status = answer.httpStatus;
    ctx.body = answer.body;
  };
}
