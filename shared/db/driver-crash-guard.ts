/**
 * A guard against two known crashes of the `postgres` driver (3.4.9, the latest release), both
 * when a connection closes at the wrong moment:
 *
 * - When a connection closes while a small write is scheduled, its `nextWrite` runs from
 *   `setImmediate` on a socket already set to null and throws `TypeError: Cannot read properties
 *   of null (reading 'write')`, uncatchable by the caller, which takes the whole process down
 *   (issues porsager/postgres#1066, porsager/postgres#1154 and porsager/postgres#1208; fixes
 *   proposed in pull requests porsager/postgres#1168, porsager/postgres#1176 and
 *   porsager/postgres#1209, unreleased). A TCP connection cut between the service and PostgreSQL
 *   triggers it. By then the driver has already rejected the affected queries with
 *   `CONNECTION_CLOSED` and reconnects on the next query, so skipping the lost write is safe for
 *   the pool. The write lost is a statement sent on a connection held after its close: a
 *   transaction's, which then rejects as a whole with nothing stored
 *   (test/shared/db/driver-errors.test.ts), or a reserved connection's (the migrations' lock,
 *   migrate.ts), whose later statement may resolve without having run or never settle
 *   (test/shared/db/driver-socket-edges.test.ts).
 * - A new connection first asks the server for its array types (the driver's own query, its
 *   `fetch_types`), and the driver keeps no hold of that query's outcome: when the connection
 *   closes under it (a reset while the pools connect again after a blip), the rejection is
 *   unhandled, which Node turns into an uncaught exception. Nothing of the service waits on that
 *   query: the query the connection was opened for is rejected with the same error (a request
 *   answers 503), and the connection asks for the types again when it next connects
 *   (test/api/listing-blip.test.ts).
 *
 * `installDriverCrashGuard` recognises exactly those errors (the first by its message and the
 * driver's `nextWrite` frame, the second by the driver's own query text on an error of the
 * connection) and logs them; any other uncaught exception still ends the process with exit code 1
 * after a fatal log line, as Node would. Installed once per process by the entry points (web,
 * worker, CLI); remove it when the driver ships the fixes.
 */
import { isConnectionError } from './connection-errors.ts';
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

/** Whether `error` is the driver's query for the server's array types, lost with its connection (see the file comment). */
export function isDriverTypesQueryLost(error: unknown): boolean {
  const query = (error as { query?: unknown } | null | undefined)?.query;
  return (
    typeof query === 'string' &&
    /\bb\.typarray\b/.test(query) &&
    /\bpg_catalog\.pg_type\b/.test(query) &&
    isConnectionError(error)
  );
}

/** What the log says of `error` when it is one of the driver's crashes survived (see the file comment), else undefined. */
export function survivedDriverCrash(error: unknown): string | undefined {
  if (isDriverNullSocketWrite(error))
    return 'database connection closed during a write (postgres driver defect, survived); the query was refused and the driver reconnects';
  if (isDriverTypesQueryLost(error))
    return "database connection closed while the driver asked for the server's array types (postgres driver defect, survived); its query was refused and the driver reconnects";
  return undefined;
}

/** Installs the guard (once per process). */
export function installDriverCrashGuard(log: Logger): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (error) => {
    const survived = survivedDriverCrash(error);
    if (survived) {
      log.warn({ err: error }, survived);
      return;
    }
    log.fatal({ err: error }, 'uncaught exception');
    process.exit(1);
  });
}
