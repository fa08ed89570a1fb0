import type { Middleware } from 'koa';
import type { Registry } from 'prom-client';
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
    if (!scrapeAllowed(ctx.get('Authorization'), token)) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = 'metrics: a valid bearer token (metrics.token) is required\n';
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = options.registry.contentType;
    ctx.body = await options.registry.metrics();
  };
}
