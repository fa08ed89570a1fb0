import type { AppError } from '../../shared/errors/app-error.ts';
import type { Decision } from './check.ts';
import { rateLimitHeaders } from './headers.ts';

export const RATE_LIMITED = { status: 429, code: 'APP_API_RATE_LIMITED' } as const;

type Options = NonNullable<ConstructorParameters<typeof AppError>[2]>;

/**
 * The message and options of the 429 (docs/http-api.md "Error codes"): code `APP_API_RATE_LIMITED`, `data`
 * `{limit, retryAfter, windowMs}`, headers `RateLimit`, `RateLimit-Policy`, `Retry-After`.
 * The middleware throws it with `ctx.boom.tooManyRequests` (Express-style `res.boom`).
 */
export function rateLimited(decision: Decision): [message: string, options: Options] {
  const { state, retryAfter, windowMs } = decision;
  return [
    `too many requests: at most ${state.limit} per ${state.window}s; retry in ${retryAfter}s`,
    {
      code: RATE_LIMITED.code,
      data: { limit: state.limit, retryAfter, windowMs },
      headers: { ...rateLimitHeaders(state), 'Retry-After': String(retryAfter) },
    },
  ];
}
