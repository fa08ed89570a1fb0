/**
 * Waiting in tests for something that happens on its own time (a row a worker writes, a
 * notification, a clock passing a point): the condition is asked again and again until it
 * holds, with a deadline that only fails a run that is really stuck. A test that waits this way
 * takes as long as the thing takes, on a fast machine or a loaded one, where a fixed sleep is
 * either too short (a flaky failure) or too long (time wasted every run).
 */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Asks `check` every `intervalMs` (default 20) until it answers a truthy value, and resolves
 * with that value; rejects after `timeoutMs` (default 10 s), naming `what` was awaited and the
 * last value answered. A `check` that throws ends the wait with its error.
 */
export async function eventually<T>(
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
  what = 'the condition',
  intervalMs = 20,
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const last = await check();
    if (last) return last as NonNullable<T>;
    if (performance.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await sleep(intervalMs);
  }
}
