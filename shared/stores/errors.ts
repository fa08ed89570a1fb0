import { unavailable, type AppError } from '../errors/app-error.ts';

/** Seconds a client is told to wait when the shared store does not answer. */
export const SHARED_RETRY_AFTER_SECONDS = 5;

/**
 * 503 `APP_STORE_SHARED_UNAVAILABLE` with `Retry-After`: the shared store did not
 * answer for an idempotent request (always) or for a rate-limited one (`shared.onError: closed`).
 */
export function sharedUnavailable(what: string, cause?: unknown): AppError {
  return unavailable(`the shared store did not answer (${what}); try again shortly`, {
    code: 'APP_STORE_SHARED_UNAVAILABLE',
    headers: { 'Retry-After': String(SHARED_RETRY_AFTER_SECONDS) },
    data: { retryAfter: SHARED_RETRY_AFTER_SECONDS },
    expose: true,
    cause,
  });
}
