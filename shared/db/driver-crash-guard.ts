/**
 * A guard against one known crash of the `postgres` driver (3.4.9, the latest release): when a
 * connection closes while a small write is scheduled, its `nextWrite` runs from `setImmediate`
 * on a socket already set to null and throws `TypeError: Cannot read properties of null (reading
 * 'write')`, uncatchable by the caller, which takes the whole process down (issues
 * porsager/postgres#1066, porsager/postgres#1154 and porsager/postgres#1208; fixes proposed in
 * pull requests porsager/postgres#1168, porsager/postgres#1176 and porsager/postgres#1209,
 * unreleased).
 * A TCP connection cut between the service and PostgreSQL triggers it. By then the driver has
 * already rejected the affected queries with `CONNECTION_CLOSED` and reconnects on the next
 * query, so skipping the lost write is safe for the pool. The write lost is a statement sent on a
 * connection held after its close: a transaction's, which then rejects as a whole with nothing
 * stored (test/shared/db/driver-errors.test.ts), or a reserved connection's (a listing's generic
 * plan, generic-plan.ts; the migrations' lock, migrate.ts), whose later statement may resolve
 * without having run or never settle (test/shared/db/driver-socket-edges.test.ts).
 *
 * `installDriverCrashGuard` recognises exactly that error (its message and the driver's
 * `nextWrite` frame) and logs it; any other uncaught exception still ends the process with exit
 * code 1 after a fatal log line, as Node would. Installed once per process by the entry points
 * (web, worker, CLI); remove it when the driver ships the fix.
 */
import type { Logger } from '../log/logger.ts';

let installed = false;

/** Whether `error` is the driver's null-socket write (see the file comment). */
export function isDriverNullSocketWrite(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const stack = error.stack ?? '';
  return (
    /reading 'write'|evaluating 'socket\.write'/.test(error.message) &&
    /nextWrite \(.*postgres[\\/]src[\\/]connection\.js/.test(stack)
  );
}

/** Installs the guard (once per process). */
export function installDriverCrashGuard(log: Logger): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (error) => {
    if (isDriverNullSocketWrite(error)) {
      log.warn(
        { err: error },
        'database connection closed during a write (postgres driver defect, survived); the query was refused and the driver reconnects',
      );
      return;
    }
    log.fatal({ err: error }, 'uncaught exception');
    process.exit(1);
  });
}
