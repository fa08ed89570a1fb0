/**
 * Errors that mean "the database cannot be reached right now" (as opposed to a query it refused):
 * socket-level codes from Node, the `postgres` driver's own connection codes, and the SQLSTATEs
 * of a server that refuses connections (57P03 cannot connect now, 53300 too many connections,
 * 57P01 admin shutdown, class 08 connection exceptions).
 */
const CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED',
  '57P01', '57P02', '57P03', '53300',
]);

/** True when `error` (or one of its causes) says the database is unreachable. */
export function isConnectionError(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && (CODES.has(e.code) || e.code.startsWith('08'))) return true;
  }
  return false;
}
