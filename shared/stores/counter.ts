import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { withTimeout } from './timeout.ts';
import type { Counter, CounterOptions } from './types.ts';

/** rate-limiter-flexible counts in seconds: windows are whole seconds, at least one. */
export const windowSeconds = (windowMs: number): number => Math.max(1, Math.ceil(windowMs / 1000));

/** The subset of a rate-limiter-flexible limiter a counter uses (any `RateLimiter*` fits, so does a custom store). */
export type ConsumingLimiter = Pick<RateLimiterAbstract, 'consume'>;

/** A refusal (a `RateLimiterRes`, possibly from another copy of the library), not a failure. */
const isLimiterAnswer = (value: unknown): value is RateLimiterRes =>
  !(value instanceof Error) && typeof (value as RateLimiterRes | undefined)?.msBeforeNext === 'number';

/**
 * A {@link Counter} over a rate-limiter-flexible limiter. Its `consume` resolves within the
 * limit, rejects with a `RateLimiterRes` over it, and rejects with an Error when its store
 * fails; the last becomes a rejection of `hit` (after `timeoutMs` at most).
 */
export function counterFrom(limiter: ConsumingLimiter, options: CounterOptions & { timeoutMs?: number }): Counter {
  const windowMs = windowSeconds(options.windowMs) * 1000;
  const state = (res: RateLimiterRes, allowed: boolean) => ({
    allowed,
    remaining: allowed ? Math.max(0, res.remainingPoints) : 0,
    resetMs: res.msBeforeNext >= 0 ? res.msBeforeNext : windowMs,
  });
  return {
    points: options.points,
    windowMs,
    async hit(key) {
      try {
        const res = await withTimeout(limiter.consume(key), options.timeoutMs ?? 0, `counter ${options.name}`);
        return state(res, true);
      } catch (outcome) {
        if (isLimiterAnswer(outcome)) return state(outcome, false);
        throw outcome;
      }
    },
  };
}
