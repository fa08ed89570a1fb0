/**
 * The worker and web processes survive known crashes of the `postgres` driver when a TCP
 * connection is cut (shared/db/driver-crash-guard.ts): an uncaught exception, and an unhandled
 * rejection, which Node turns into one. node:test fails the running test on either, so a test that
 * cuts connections puts the same filter in front of the runner's own handlers: those exact errors
 * are logged and survived, every other one still reaches node:test and fails the test.
 */
import { survivedDriverCrash } from '../../shared/db/driver-crash-guard.ts';
import type { Logger } from '../../shared/log/logger.ts';

let installed = false;

export function surviveDriverCrashAsProcessesDo(log: Logger): void {
  if (installed) return;
  installed = true;
  for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
    const runners = process.listeners(event as 'uncaughtException') as ((error: unknown, origin: unknown) => void)[];
    process.removeAllListeners(event);
    process.on(event as 'uncaughtException', (error: unknown, origin: unknown) => {
      const survived = survivedDriverCrash(error);
      if (survived) {
        log.warn({ err: error }, `${survived}, as the processes do`);
        return;
      }
      for (const listener of runners) listener(error, origin);
    });
  }
}
