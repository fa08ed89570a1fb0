/**
 * A `DATABASE_URL` the server refuses for good (a database or role it does not have, a wrong
 * password) fails every request and every retry alike. The log names it once, at error level and
 * as a configuration problem, so an operator sees what to fix without a line (or a stack) per
 * request; the repeats go at debug.
 */
import type { Logger } from '../log/logger.ts';
import { configurationProblem } from './connection-errors.ts';

/** The problems already named, per logger (a process's): each is logged at error level once. */
const named = new WeakMap<Logger, Set<string>>();

/**
 * When `error` is the server refusing `DATABASE_URL`'s session for a configuration reason, logs
 * it (at error level the first time this logger sees that problem, at debug after) and answers
 * true; otherwise logs nothing and answers false.
 */
export function logConfigurationProblem(log: Logger, error: unknown): boolean {
  const refusal = configurationProblem(error);
  if (!refusal) return false;
  const { problem, reason } = refusal;
  let seen = named.get(log);
  if (!seen) named.set(log, (seen = new Set()));
  if (seen.has(problem)) {
    log.debug({ reason }, `database configuration problem: ${problem}`);
  } else {
    seen.add(problem);
    log.error(
      { reason },
      `database configuration problem: ${problem}; the service answers 503 APP_DATABASE_UNAVAILABLE until it is fixed (logged once)`,
    );
  }
  return true;
}
