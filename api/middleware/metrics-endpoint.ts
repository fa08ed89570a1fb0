import type { Middleware } from 'koa';
import type { Registry } from 'prom-client';
import { AppError, unauthorized } from '../../shared/errors/app-error.ts';
import { scrapeAllowed } from '../../shared/metrics/scrape-token.ts';

/**
 * `GET /metrics` in the Prometheus text format, behind `metrics.token` (`Authorization: Bearer
 * <token>`, compared in constant time). No token configured: the path is not there (404, as any
 * unknown path). Mounted before the limiters: a scrape is never rate limited.
 */
export function metricsEndpoint(options: {
  registry: Registry;
  token: string | null;
  path?: string;
}): Middleware | undefined {
  if (!options.token) return undefined;
  const path = options.path ?? '/metrics';
  const token = options.token;
  return async function metricsEndpoint(ctx, next) {
    if (ctx.path !== path) return next();
    // refusals are problems like every other answer of the web process
    if (!scrapeAllowed(ctx.get('Authorization'), token)) {
      const given = ctx.get('Authorization') !== '';
      throw unauthorized(
        given ? 'the bearer token is not metrics.token' : 'metrics: a bearer token (metrics.token) is required',
        {
          code: given ? 'APP_TOKEN_INVALID' : 'APP_UNAUTHENTICATED',
          headers: {
            'WWW-Authenticate': given ? 'Bearer realm="metrics", error="invalid_token"' : 'Bearer realm="metrics"',
            'Cache-Control': 'no-store',
          },
        },
      );
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new AppError(405, `${ctx.method} is not allowed on ${path}; allowed: GET, HEAD`, {
        code: 'APP_METHOD_NOT_ALLOWED',
        headers: { Allow: 'GET, HEAD' },
        data: { allow: ['GET', 'HEAD'] },
      });
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = options.registry.contentType;
    ctx.body = await options.registry.metrics();
  };
}
