/**
 * The guard every endpoint store is opened behind (open.ts). A call that fails because the store
 * cannot be reached (a refused, reset or timed-out connection, a closed pool, a server refusing
 * the session, or no answer within the time limit) fails with 503 `APP_STORE_UNAVAILABLE` and
 * `Retry-After`, naming the store: the client is told to come back rather than getting a 500,
 * and no request waits on a hung store longer than the limit. A store that answers but has no
 * endpoint table (a deploy that did not run `app webhooks:install`) fails with 503
 * `APP_STORE_NOT_INSTALLED`, saying so, rather than a 500 that names nothing. A store that
 * answers but cannot be used as configured (a disk store whose path is a file) fails with 503
 * `APP_STORE_UNAVAILABLE` saying why in words. Anything else a
 * store throws (a taken id on insert, a refused value, a bug) passes through unchanged.
 *
 * A store on the service's own PostgreSQL pool is that database: its outage is the database's,
 * answered as 503 `APP_DATABASE_UNAVAILABLE` like every other query of the service (api/problem.ts),
 * so the guard leaves its errors alone, and the pool's own connect timeout and the request
 * timeout bound its calls instead of the guard's limit.
 *
 * The guard is also where a request's write reaches any other store: before an adapter's
 * `insert`, `update` or `delete` (the methods of types.ts that change the endpoint table; the
 * others read it, or, `install`, make it) it claims the request's commit
 * (shared/db/commit-deadline.ts). A write after the request was answered 503 by its timeout is
 * refused with 503 `APP_REQUEST_TIMEOUT` and never reaches the store, which commits as it writes
 * and could not take it back; a write claimed in time is answered for real, however late, within
 * the guard's time limit. A store on the service's pool writes in `transaction()`, which claims
 * at its commit (shared/db/transaction.ts).
 */
import { claimRequestCommit } from '../../db/commit-deadline.ts';
import { isConnectionError } from '../../db/connection-errors.ts';
import { isAppError, unavailable, type AppError } from '../../errors/app-error.ts';
import type { Logger } from '../../log/logger.ts';
import type { EndpointStore } from './types.ts';

/** Seconds a client is told to wait when an endpoint store does not answer. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** Longest wait for one call of an endpoint store before it counts as not answering. */
export const STORE_TIME_LIMIT_MS = 5000;

/** A store failure is logged at most once per store every ten seconds (it fails every request while down). */
const FAILURE_LOG_INTERVAL_MS = 10_000;

/** A call that did not settle within the guard's time limit. */
export class StoreTimeLimitError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
    this.name = 'StoreTimeLimitError';
  }
}

/**
 * Codes other drivers give an error that means "cannot reach the store" (the `postgres` driver's
 * and Node's socket codes are shared/db/connection-errors.ts's).
 */
const UNREACHABLE_CODES = new Set([
  // mysql2: the connection lost or a query's own timeout; the server full, shutting down, or refusing the session
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_ACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
  'ER_HOST_IS_BLOCKED',
  'ER_HOST_NOT_PRIVILEGED',
  // mssql (tedious): socket, timeout, a closed or not yet open pool, a refused login, no instance
  'ESOCKET',
  'ETIMEOUT',
  'ECONNCLOSED',
  'ENOTOPEN',
  'ELOGIN',
  'EINSTLOOKUP',
  // the disk store: its file system failing or gone (a network mount), or its lock held too long
  'EIO',
  'ENOTCONN',
  'ESTALE',
  'ELOCKED',
]);

/**
 * The error of a store that answers but has no endpoint table. The disk adapter throws it itself;
 * the SQL drivers' own errors for a missing table are recognised by `isStoreNotInstalled`.
 */
export class StoreNotInstalledError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreNotInstalledError';
  }
}

/**
 * The error of a store that cannot be used as configured (the disk adapter's path is not a
 * directory): `reason` says why in words a client may read; the message, for the log, may name
 * paths.
 */
export class StoreUnusableError extends Error {
  readonly reason: string;
  constructor(message: string, reason: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnusableError';
    this.reason = reason;
  }
}

/** Codes of a statement naming a table the store does not have: mysql2's, PostgreSQL's (postgres.js). */
const NOT_INSTALLED_CODES = new Set(['ER_NO_SUCH_TABLE', '42P01']);

/** SQL Server's error number for "Invalid object name" (tedious gives it as `number`). */
const MSSQL_INVALID_OBJECT = 208;

/** Error names (mongodb, mongoose, mssql) that mean the same whatever their code. */
const UNREACHABLE_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoClientClosedError',
  'MongoPoolClosedError',
  'MongoPoolClearedError',
  'MongoPoolClearedOnNetworkError',
  'MongoWaitQueueTimeoutError',
  'MongoOperationTimeoutError',
  'ConnectionError',
  StoreTimeLimitError.name,
]);

/** Messages of errors drivers throw without a code for a pool or connection that is closed or never came. */
const UNREACHABLE_MESSAGES = [
  /^Pool is closed\.?$/, // mysql2
  /connection is in closed state/, // mysql2
  /buffering timed out after \d+ms/, // mongoose, while it has no connection
];

interface ErrorLike {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
}

/** `error` and what it wraps (`cause`: Drizzle, mongodb; `originalError`: mssql), at most five deep. */
function* chain(error: unknown): Generator<ErrorLike> {
  let e = error as ErrorLike | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    yield e;
    e = (e.cause ?? e.originalError) as ErrorLike | undefined;
  }
}

/** True when `error` (or what it wraps) says the store cannot be reached, rather than that it refused the call. */
export function isStoreUnreachable(error: unknown): boolean {
  if (isConnectionError(error)) return true;
  for (const e of chain(error)) {
    if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return true;
    if (typeof e.name === 'string' && UNREACHABLE_NAMES.has(e.name)) return true;
    if (typeof e.message === 'string' && UNREACHABLE_MESSAGES.some((pattern) => pattern.test(e.message as string)))
      return true;
  }
  return false;
}

/** True when `error` (or what it wraps) says the store has no endpoint table: it was never installed. */
export function isStoreNotInstalled(error: unknown): boolean {
  for (const e of chain(error)) {
    if (e instanceof StoreNotInstalledError) return true;
    if (typeof e.code === 'string' && NOT_INSTALLED_CODES.has(e.code)) return true;
    if ((e as { number?: unknown }).number === MSSQL_INVALID_OBJECT) return true;
  }
  return false;
}

/** Why the store cannot be used, when `error` (or what it wraps) is a {@link StoreUnusableError}. */
export function unusableReason(error: unknown): string | undefined {
  for (const e of chain(error)) if (e instanceof StoreUnusableError) return e.reason;
  return undefined;
}

/**
 * 503 `APP_STORE_NOT_INSTALLED`: the endpoint store `store` answers but holds no endpoint table
 * (`app webhooks:install` creates it). The driver's own words stay in the cause, for the log and
 * the CLI: they may quote the statement.
 */
export function storeNotInstalled(store: Pick<EndpointStore, 'name' | 'adapter'>, cause?: unknown): AppError {
  return unavailable(
    `endpoint store "${store.name}" (${store.adapter}) has no endpoint table: run \`app webhooks:install\``,
    { code: 'APP_STORE_NOT_INSTALLED', data: { store: store.name, adapter: store.adapter }, expose: true, cause },
  );
}

/**
 * 503 `APP_STORE_UNAVAILABLE` with `Retry-After`: the endpoint store `store` did not answer, or,
 * given a `reason`, cannot be used as configured (the reason is also `data.reason`).
 */
export function storeUnavailable(
  store: Pick<EndpointStore, 'name' | 'adapter'>,
  cause?: unknown,
  reason?: string,
): AppError {
  const label = `endpoint store "${store.name}" (${store.adapter})`;
  return unavailable(reason === undefined ? `${label} did not answer` : `${label} cannot be used: ${reason}`, {
    code: 'APP_STORE_UNAVAILABLE',
    headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
    data: {
      store: store.name,
      adapter: store.adapter,
      ...(reason === undefined ? {} : { reason }),
      retryAfter: STORE_RETRY_AFTER_SECONDS,
    },
    expose: true,
    cause,
  });
}

/** Where a 503 of the guard keeps the call it stopped waiting for (see `lateCall`). */
const LATE_CALL = Symbol('late store call');

/**
 * The call behind a 503 `APP_STORE_UNAVAILABLE` that the guard answered because the call did
 * not settle within the time limit, or undefined for any other error. Such a call goes on and
 * may still complete (a write waiting behind a lock in the store lands once the lock is
 * released), after its caller was told it failed; the core follows it (endpoints/store.ts), so
 * that the store and the gate rows in PostgreSQL agree again.
 */
export function lateCall(error: unknown): Promise<unknown> | undefined {
  return error !== null && typeof error === 'object'
    ? ((error as { [LATE_CALL]?: Promise<unknown> })[LATE_CALL] ?? undefined)
    : undefined;
}

/**
 * `promise`, or a rejection with StoreTimeLimitError after `ms` (0 or Infinity: no limit). The
 * call itself goes on; only the wait for it ends.
 */
export function withinTimeLimit<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return promise;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeLimitError(what, ms)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

export interface GuardOptions {
  /** Longest wait for one call (default five seconds; 0: none). */
  timeoutMs?: number;
  /**
   * The store is on the service's own PostgreSQL pool: its errors pass through (the database's
   * outage is `APP_DATABASE_UNAVAILABLE`) and its calls have no time limit of the guard's.
   */
  servicePool?: boolean;
  /** Where a store that does not answer is logged (at most one line per store every ten seconds). */
  log?: Logger;
  /** The clock of that throttle (default `Date.now`). */
  now?: () => number;
}

/** Logs one line per `FAILURE_LOG_INTERVAL_MS`, saying in the next how many it kept quiet about. */
function throttledLog(
  store: EndpointStore,
  options: GuardOptions,
): (error: unknown, what: string, failure?: string) => void {
  const now = options.now ?? Date.now;
  let last = -Infinity;
  let suppressed = 0;
  return (error, what, failure = 'did not answer') => {
    if (!options.log) return;
    const at = now();
    if (at - last < FAILURE_LOG_INTERVAL_MS) {
      suppressed += 1;
      return;
    }
    last = at;
    options.log.error(
      { err: error, store: store.name, adapter: store.adapter, suppressed },
      `endpoint store "${store.name}" (${store.adapter}) ${failure}: ${what}${suppressed ? ` (${suppressed} more since the last line)` : ''}`,
    );
    suppressed = 0;
  };
}

/**
 * `store` behind the guard: every call but `close` within the time limit, and a failure to
 * reach the store turned into 503 `APP_STORE_UNAVAILABLE` (see the top of this file).
 */
export function guardStore(store: EndpointStore, options: GuardOptions = {}): EndpointStore {
  if (options.servicePool) return passThrough(store);
  const limit = options.timeoutMs ?? STORE_TIME_LIMIT_MS;
  const logFailure = throttledLog(store, options);
  /** A write: the request's commit claimed first (see the top of this file). */
  async function write<T>(what: string, run: () => Promise<T>): Promise<T> {
    claimRequestCommit();
    return call(what, run);
  }
  async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    let running: Promise<T> | undefined;
    try {
      running = run();
      return await withinTimeLimit(running, limit, `endpoint store "${store.name}" (${what})`);
    } catch (error) {
      if (isAppError(error)) throw error;
      const unusable = unusableReason(error);
      if (unusable !== undefined) {
        logFailure(error, what, `cannot be used: ${unusable}`);
        throw storeUnavailable(store, error, unusable);
      }
      if (isStoreNotInstalled(error)) {
        logFailure(error, what, 'has no endpoint table (run `app webhooks:install`)');
        throw storeNotInstalled(store, error);
      }
      if (!isStoreUnreachable(error)) throw error;
      logFailure(error, what);
      const failure = storeUnavailable(store, error);
      if (error instanceof StoreTimeLimitError && running !== undefined)
        Object.defineProperty(failure, LATE_CALL, { value: running });
      throw failure;
    }
  }
  return {
    name: store.name,
    adapter: store.adapter,
    serviceDatabase: store.serviceDatabase,
    install: () => call('install', () => store.install()),
    ping: () => call('ping', () => store.ping()),
    close: () => store.close(),
    get: (id) => call('get', () => store.get(id)),
    getMany: (ids) => call('getMany', () => store.getMany(ids)),
    list: (query) => call('list', () => store.list(query)),
    subscribers: (owner) => call('subscribers', () => store.subscribers(owner)),
    insert: (endpoint) => write('insert', () => store.insert(endpoint)),
    update: (endpoint, expectedVersion) => write('update', () => store.update(endpoint, expectedVersion)),
    delete: (id) => write('delete', () => store.delete(id)),
  };
}

/** The store's own calls, under an object of the guard's shape (so no caller reaches past it to the adapter). */
function passThrough(store: EndpointStore): EndpointStore {
  return {
    name: store.name,
    adapter: store.adapter,
    serviceDatabase: store.serviceDatabase,
    install: () => store.install(),
    ping: () => store.ping(),
    close: () => store.close(),
    get: (id) => store.get(id),
    getMany: (ids) => store.getMany(ids),
    list: (query) => store.list(query),
    subscribers: (owner) => store.subscribers(owner),
    insert: (endpoint) => store.insert(endpoint),
    update: (endpoint, expectedVersion) => store.update(endpoint, expectedVersion),
    delete: (id) => store.delete(id),
  };
}
