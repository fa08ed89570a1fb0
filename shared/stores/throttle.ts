import type { Logger } from '../log/logger.ts';
import type { FailureLog } from './types.ts';

/** Rate-limit and shared-store failures are logged at most once every ten seconds. */
export const FAILURE_LOG_INTERVAL_MS = 10_000;

/**
 * A failure logger that writes at most one line per `intervalMs` (default ten seconds) and
 * says, in the next line it writes, how many failures it kept quiet about meanwhile. A store
 * that is down fails every request; without this the log would carry one line per request.
 */
export function throttledFailureLog(
  log: Logger,
  options: { intervalMs?: number; now?: () => number } = {},
): FailureLog {
  const intervalMs = options.intervalMs ?? FAILURE_LOG_INTERVAL_MS;
  const now = options.now ?? Date.now;
  let last = -Infinity;
  let suppressed = 0;
  return function logFailure(error, what) {
    const at = now();
    if (at - last < intervalMs) {
      suppressed += 1;
      return;
    }
    last = at;
    log.error(
      { err: error, suppressed },
      `shared store failed: ${what}${suppressed ? ` (${suppressed} more since the last line)` : ''}`,
    );
    suppressed = 0;
  };
}
