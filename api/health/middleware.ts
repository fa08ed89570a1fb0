import type { Middleware } from 'koa';
import { readiness, type ReadinessDeps } from './readiness.ts';

export const READINESS_PATHS = new Set(['/readyz', '/healthz', '/_app/health']);

/**
 * The fixed health endpoints. They run before the session, limiters and router, need no
 * credentials, and answer every method an application route would otherwise see on these
 * paths (GET and HEAD answer, others 405), so no application route ever sees them.
 */
export function health(deps: ReadinessDeps): Middleware {
  return async function health(ctx, next) {
    const isLive = ctx.path === '/livez';
    if (!isLive && !READINESS_PATHS.has(ctx.path)) return next();
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { status: 'error', reason: 'method not allowed' };
      return;
    }
    if (isLive) {
      ctx.body = { status: 'ok', uptime: Math.round((Date.now() - deps.startedAt) / 10) / 100 };
      return;
    }
    const answer = await readiness(deps);
    ctx.status = answer.httpStatus;
    ctx.body = answer.body;
  };
}
