/**
 * PostgreSQL errors that say "not now" rather than "not this": the server is reachable and the
 * request is sound, but the server cannot do the work at the moment. A server in recovery or a
 * standby after a failover refuses writes, a full disk or exhausted memory refuses whatever needs
 * them, and a lock or statement timeout, a deadlock or a serialization failure ends one request
 * among others. None of them is a bug of the service, so none is a 500: the API answers 503 with
 * `Retry-After`, GraphQL fields carry the code, the CLI exits 4 (try again later), and the log
 * says what the server said, at error level where an operator has to act.
 * (An unreachable server is a connection error: shared/db/connection-errors.ts.)
 */

export interface PgRefusal {
  /** The stable code clients see. */
  code: 'APP_DATABASE_UNAVAILABLE' | 'APP_DATABASE_READ_ONLY' | 'APP_DATABASE_BUSY';
  /** What clients are told (the server's own words go to the log only). */
  detail: string;
  /** Seconds a client is told to wait. */
  retryAfter: string;
  /** An operator has to act (logged at error level); otherwise it passes by itself (a warning). */
  operatorMustAct: boolean;
}

const READ_ONLY: PgRefusal = {
  code: 'APP_DATABASE_READ_ONLY',
  detail: 'the database accepts no writes right now (a standby, a failover or maintenance); try again shortly',
  retryAfter: '2',
  operatorMustAct: true,
};

const OUT_OF_RESOURCES: PgRefusal = {
  code: 'APP_DATABASE_UNAVAILABLE',
  detail: 'the database is out of resources right now; try again later',
  retryAfter: '10',
  operatorMustAct: true,
};

const BUSY: PgRefusal = {
  code: 'APP_DATABASE_BUSY',
  detail:
    'the database gave up on this request while it served others (a lock or time limit, or a conflict); try again',
  retryAfter: '1',
  operatorMustAct: false,
};

/** SQLSTATE to refusal (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
const REFUSALS: Record<string, PgRefusal> = {
  '25006': READ_ONLY, // read_only_sql_transaction: a standby, a promoted replica not yet writable, default_transaction_read_only
  '53000': OUT_OF_RESOURCES, // insufficient_resources
  '53100': OUT_OF_RESOURCES, // disk_full
  '53200': OUT_OF_RESOURCES, // out_of_memory
  '53400': OUT_OF_RESOURCES, // configuration_limit_exceeded (max_locks_per_transaction and the like)
  '58030': OUT_OF_RESOURCES, // io_error
  '40001': BUSY, // serialization_failure
  '40P01': BUSY, // deadlock_detected
  '55P03': BUSY, // lock_not_available: lock_timeout
  '57014': BUSY, // query_canceled: statement_timeout, or a cancel (the service cancels only statements of requests already answered 503)
};

interface ServerError {
  name?: unknown;
  code?: unknown;
}

/** The refusal `error` is, when the PostgreSQL server raised one of the kind above, else undefined (never for an AppError). */
export function pgRefusal(error: unknown): PgRefusal | undefined {
  const pg = error as ServerError | undefined;
  // `PostgresError` from the service's driver, `DatabaseError` from graphile-worker's (`pg`)
  if (typeof pg?.code !== 'string' || (pg.name !== 'PostgresError' && pg.name !== 'DatabaseError')) return undefined;
  return Object.hasOwn(REFUSALS, pg.code) ? REFUSALS[pg.code] : undefined;
}
