/**
 * Errors that mean "the database cannot be reached right now" (as opposed to a query it refused):
 * socket-level codes from Node, the `postgres` driver's own connection codes, the SQLSTATEs of a
 * server that refuses connections (57P03 cannot connect now, 53300 too many connections, 57P01
 * admin shutdown, class 08 connection exceptions), and the server refusing to start a session
 * (STARTUP_REFUSALS).
 */
const CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/**
 * SQLSTATEs that mean "no session" only when the server raises them while starting one, and the
 * configuration problem each names (undefined: not a configuration problem). Statements raise
 * the same codes for their own reasons (55000 for `currval` before `nextval`, 3D000 for
 * `alter database` of a missing one), so these count only at start-up (`isStartupRefusal`).
 */
const STARTUP_REFUSALS: Record<string, string | undefined> = {
  // the database does not accept connections (`allow_connections false`, as a managed PostgreSQL's maintenance sets)
  '55000': undefined,
  '3D000': 'DATABASE_URL names a database that does not exist',
  '28000':
    "DATABASE_URL's user may not log in to the database (no such role, a role without LOGIN, or no pg_hba.conf entry for it)",
  '28P01': "the database refused DATABASE_URL's password",
};

interface ErrorLike {
  code?: unknown;
  severity?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** `error` and its causes, at most five deep. */
function* causes(error: unknown): Generator<ErrorLike> {
  for (
    let e = error as ErrorLike | undefined, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = e.cause as ErrorLike | undefined, depth++
  )
    yield e;
}

/**
 * True when the server refused to start a session. The `postgres` driver reports the server's
 * unlocalised severity (`severity`; `severity_local` is translated): a refused start-up is FATAL,
 * the backend ending (PostgreSQL 18 names routine CheckMyDatabase for 55000, InitPostgres for
 * 3D000, InitializeSessionUserId or ClientAuthentication for 28000, auth_failed for 28P01), while
 * a statement's error is ERROR. The severity is the test rather than the routine: routines are
 * internal names that change between versions.
 */
function isStartupRefusal(e: ErrorLike): boolean {
  return typeof e.code === 'string' && Object.hasOwn(STARTUP_REFUSALS, e.code) && e.severity === 'FATAL';
}

/**
 * What `pg` (graphile-worker's driver) says, without a code, of a connection that broke under it
 * or of a client left unusable by that.
 */
const PG_CONNECTION_LOST = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable$/,
];

/** True when `error` (or one of its causes) says the database is unreachable. */
export function isConnectionError(error: unknown): boolean {
  for (const e of causes(error)) {
    if (typeof e.code === 'string' && (CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (isStartupRefusal(e)) return true;
    if (
      e.code === undefined &&
      typeof e.message === 'string' &&
      PG_CONNECTION_LOST.some((pattern) => pattern.test(e.message as string))
    )
      return true;
  }
  return false;
}

/** A session the server refused for a reason no wait will cure. */
export interface ConfigurationProblem {
  /** What `DATABASE_URL` gets wrong, for the log and the CLI. */
  problem: string;
  /** The server's own words (`database "x" does not exist`). */
  reason: string;
}

/**
 * What the configuration gets wrong when `error` (or one of its causes) is the server refusing
 * a session for a reason no wait will cure (a database or role it does not have, a wrong
 * password), else undefined. Such an error is still a connection error: the service answers 503
 * and recovers by itself once the configuration or the server is fixed.
 */
export function configurationProblem(error: unknown): ConfigurationProblem | undefined {
  for (const e of causes(error)) {
    const problem = isStartupRefusal(e) ? STARTUP_REFUSALS[e.code as string] : undefined;
    if (problem) return { problem, reason: String(e.message) };
  }
  return undefined;
}

/**
 * True when `error` ended its connection, not only its statement: a connection error that is not
 * an ERROR the server raised for a statement (which leaves the session open).
 */
export function isConnectionLost(error: unknown): boolean {
  return isConnectionError(error) && (error as ErrorLike | undefined)?.severity !== 'ERROR';
}
