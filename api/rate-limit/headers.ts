/**
 * The draft-7 rate-limit header fields (draft-ietf-httpapi-ratelimit-headers-07), both RFC 8941
 * structured fields:
 *
 *   RateLimit: limit=600, remaining=599, reset=60        (a Dictionary of Integers)
 *   RateLimit-Policy: 600;w=60                           (a List: the quota, its window in seconds)
 *
 * plus `Retry-After` (seconds) on a 429.
 */

/** What one limiter says about one request. */
export interface LimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  /** Window length in seconds. */
  window: number;
}

export function rateLimitHeaders(state: LimitState): Record<string, string> {
  return {
    RateLimit: `limit=${state.limit}, remaining=${state.remaining}, reset=${state.reset}`,
    'RateLimit-Policy': `${state.limit};w=${state.window}`,
  };
}
