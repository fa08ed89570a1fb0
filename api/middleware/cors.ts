import koaCors from '@koa/cors';
import type { Middleware } from 'koa';
import type { Config } from '../../shared/config/index.ts';

/** Headers a browser client may read on a cross-origin answer. */
export const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-Total-Count',
  'Link',
  'ETag',
  'Location',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'Idempotency-Replayed',
];

/**
 * CORS for the origins in `config.cors.origins` (`*` for any); none configured, no CORS headers
 * are sent and browsers keep the same-origin rule.
 */
export function cors(options: Config['cors']): Middleware | undefined {
  if (options.origins.length === 0) return undefined;
  const any = options.origins.includes('*');
  const allowed = new Set(options.origins);
  const handler = koaCors({
    origin: (ctx) =>
      any && !options.credentials ? '*' : allowed.has(ctx.get('Origin')) || any ? ctx.get('Origin') : '',
    credentials: options.credentials,
    exposeHeaders: EXPOSED_HEADERS,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    keepHeadersOnError: true,
    maxAge: 600,
  });
  return async function cors(ctx, next) {
    await handler(ctx, next);
  };
}
