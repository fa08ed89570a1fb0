/**
 * Retry delays of failed deliveries (`webhooks.backoff` and `webhooks.maxAttempts`; README
 * "Configuration"). Exponential from `base` by `factor`, capped at `max`, then jittered
 * uniformly within ±`jitter` of the delay and capped at `max` again, so no delay ever exceeds
 * `max` (at the cap the jitter can only shorten it) and none is negative.
 */
import { AppError } from '../../shared/errors/app-error.ts';

/** `webhooks.backoff`. Durations in milliseconds; `jitter` a fraction (0.2 = ±20 %). */
export interface BackoffConfig {
  base: number;
  factor: number;
  max: number;
  jitter: number;
}

/** The defaults: base 10 s, factor 3, max 6 h, jitter 0.2. */
export const DEFAULT_BACKOFF: Readonly<BackoffConfig> = Object.freeze({
  base: 10_000,
  factor: 3,
  max: 6 * 60 * 60 * 1000,
  jitter: 0.2,
});

/** `webhooks.maxAttempts`: attempts of one delivery before it goes to the dead letter queue. */
export const DEFAULT_MAX_ATTEMPTS = 8;

/**
 * Milliseconds to wait after failed attempt number `attempt` (1-based) before the next one:
 * `min(max, base * factor^(attempt - 1))`, jittered uniformly within ±`jitter` of itself using
 * `random` (a function answering [0, 1)), then kept within [0, max] and rounded to whole ms.
 */
export function retryDelayMs(attempt: number, config: BackoffConfig, random: () => number = Math.random): number {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new AppError(500, `retry attempt must be an integer from 1, got ${attempt}`, {
      code: 'APP_WEBHOOK_BACKOFF_INVALID',
      data: { attempt },
    });
  }
  const { base, factor, max, jitter } = config;
  const delay = Math.min(max, base * factor ** (attempt - 1));
  const jittered = delay * (1 + jitter * (2 * random() - 1));
  return Math.round(Math.min(max, Math.max(0, jittered)));
}
