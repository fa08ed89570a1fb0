/**
 * The worker and web processes survive one known crash of the `postgres` driver when a TCP
 * connection is cut mid-write (shared/db/driver-crash-guard.ts). node:test fails the running test
 * on any uncaught exception, so a test that cuts connections puts the same filter in front of the
 * runner's own handlers: that exact error is logged and survived, every other one still reaches
 * node:test and fails the test.
 */
import { isDriverNullSocketWrite } from '../../shared/db/driver-crash-guard.ts';
import type { Logger } from '../../shared/log/logger.ts';

let installed = false;

export function surviveDriverCrashAsProcessesDo(log: Logger): void {
  if (installed) return;
  installed = true;
  const runners = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  process.on('uncaughtException', (error, origin) => {
    if (isDriverNullSocketWrite(error)) {
      log.warn({ err: error }, 'postgres driver null-socket write survived, as the processes do');
      return;
    }
    for (const listener of runners) listener(error, origin);
  });
}
