import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors/app-error.ts';

/**
 * Refuses a query string longer than `maxBytes` (`api.maxQueryLength`, default 4 kB) with 414
 * `APP_QUERY_TOO_LONG`, before anything parses it or repeats it in links and logs: the filters
 * of the API fit in far less, and a 12 kB query used to make a 48 kB `Link` header. Paths in
 * `exempt` (the health paths, which never read their query) are not held to it: `/livez`
 * answers 200 whenever the process can answer.
 */
export function queryLimit(options: { maxBytes: number; exempt?: ReadonlySet<string> }): Middleware {
  return async function queryLimit(ctx, next) {
    if (options.exempt?.has(ctx.path)) return next();
    const length = Buffer.byteLength(ctx.querystring);
    if (length > options.maxBytes) {
      throw new AppError(414, `the query string is ${length} bytes; at most ${options.maxBytes} are accepted`, {
        code: 'APP_QUERY_TOO_LONG',
        data: { length, limit: options.maxBytes },
      });
    }
    await next();
  };
}
