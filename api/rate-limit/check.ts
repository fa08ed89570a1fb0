import type { Counter } from '../../shared/stores/types.ts';
import type { LimitState } from './headers.ts';

export interface Decision {
  allowed: boolean;
  state: LimitState;
  /** Seconds to wait before trying again (refusals; at least 1). */
  retryAfter: number;
  windowMs: number;
}

/** Counts one request of `key` on `counter` and says whether it is within the limit. Rejects when the store does not answer. */
export async function checkLimit(counter: Counter, key: string): Promise<Decision> {
  const hit = await counter.hit(key);
  const reset = Math.max(0, Math.ceil(hit.resetMs / 1000));
  return {
    allowed: hit.allowed,
    state: { limit: counter.points, remaining: hit.remaining, reset, window: Math.round(counter.windowMs / 1000) },
    retryAfter: Math.max(1, reset),
    windowMs: counter.windowMs,
  };
}

/** Counter key: the user id when authenticated, else the client ip. */
export function limitKey(caller: { principalId?: string | null; ip: string }): string {
  return caller.principalId ? `user:${caller.principalId}` : `ip:${caller.ip}`;
}
