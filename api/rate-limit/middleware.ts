import type { Context, Middleware } from 'koa';
import { tooManyRequests } from '../../shared/errors/app-error.ts';
import { sharedUnavailable } from '../../shared/stores/errors.ts';
import type { Counter, FailureLog } from '../../shared/stores/types.ts';
import { checkLimit, limitKey, type Decision } from './check.ts';
import { rateLimited } from './errors.ts';
import { rateLimitHeaders, type LimitState } from './headers.ts';

export interface RateLimitOptions {
  /** Names the limiter in logs (`global`, `auth`, `route POST /orders`). */
  name: string;
  /** The counter (resolved at boot when it comes from a custom store module). */
  counter: () => Counter | Promise<Counter>;
  /** Which requests count (default: all that reach it). */
  applies?: (ctx: Context) => boolean;
  /** Counter key (default: the user id when authenticated, else the client ip). */
  keyOf?: (ctx: Context) => string;
  /** `shared.onError`: `closed` refuses with 503 when the store fails, `open` serves uncounted. */
  onError: 'closed' | 'open';
  logFailure: FailureLog;
}

const defaultKey = (ctx: Context) => limitKey({ principalId: ctx.state.principal?.id, ip: ctx.ip });

/**
 * One rate limiter (used in the `authLimiter`, `globalLimiter` and `routeLimiter` slots).
 * Allowed requests carry `RateLimit` and `RateLimit-Policy` (of the limiter closest to
 * its limit when several count the request); refused ones get 429 `APP_API_RATE_LIMITED`.
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  const keyOf = options.keyOf ?? defaultKey;
  return async function rateLimit(ctx, next) {
    if (options.applies && !options.applies(ctx)) return next();
    let decision: Decision;
    try {
      decision = await checkLimit(await options.counter(), keyOf(ctx));
    } catch (error) {
      options.logFailure(error, `rate limiter ${options.name}`);
      if (options.onError === 'open') return next();
      throw sharedUnavailable(`rate limiter ${options.name}`, error);
    }
    if (!decision.allowed) {
      (ctx.state as { rateLimitedBy?: string }).rateLimitedBy = options.name.split(' ')[0]; // global, auth or route (metrics)
      const [message, errorOptions] = rateLimited(decision);
      if (ctx.boom) ctx.boom.tooManyRequests(message, errorOptions);
      throw tooManyRequests(message, errorOptions);
    }
    const shown = (ctx.state as { rateLimit?: LimitState }).rateLimit;
    if (!shown || decision.state.remaining < shown.remaining) {
      (ctx.state as { rateLimit?: LimitState }).rateLimit = decision.state;
      ctx.set(rateLimitHeaders(decision.state));
    }
    await next();
  };
}
