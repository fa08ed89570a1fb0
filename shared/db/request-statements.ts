/**
 * The statements of one request, cancelled on PostgreSQL when the request is given up.
 *
 * A request answered 503 by its timeout (api/middleware/timeout.ts) stops its own work, but a
 * statement it had sent goes on running on the server: one waiting on a lock or reading slowly
 * keeps its pooled connection, and its locks, until it ends by itself. Under a slow database the
 * statements of timed-out requests piled up and took every connection of the pool, so every
 * other request timed out too.
 *
 * `cancelOnAbort(signal, work)` runs `work` in a scope; each statement the pools of `connect()`
 * (and their transactions and savepoints) create inside it is remembered. When `signal` aborts,
 * each of them the driver has handed to a connection is cancelled with the driver's cancel, which
 * asks the server to cancel the statement its backend is running (a cancel request, as psql's
 * Ctrl-C). A statement still waiting for a connection is cancelled the moment it gets one. The
 * cancelled statement fails with `57014` (query_canceled) in the work that sent it; a transaction
 * rolls back, and the connection goes back to the pool with its session intact. A `statement_timeout`
 * set on the role or the database is left as it is.
 *
 * After the abort, until its work has ended, the request sends no new statement: one its work
 * creates then (work that reached the database only after the time ran out, slowed down before
 * it) is refused with a 503 before it is sent, where it would have waited on the same lock with
 * nobody left to cancel it. The driver's own statements (a transaction's rollback) are not the
 * work's and are sent; a commit is not sent once the request has timed out, since a transaction
 * claims the request's commit before it (shared/db/commit-deadline.ts, transaction.ts). What a
 * request must still do after its timeout (its `Idempotency-Key` given back) runs
 * `outsideRequest`, and so does a read several requests share (the per-process caches,
 * shared/db/single-flight.ts): it belongs to none of them, and one request's timeout does not
 * fail it for the others.
 *
 * The cancel protocol names a backend, not a statement: a cancel that reaches the server after
 * the statement ended, while the backend already runs the next statement, cancels that one. The
 * driver sends one only for a statement it still sees running, so the window is the time to open
 * the cancel's own connection; inside a transaction the next statement is the same request's,
 * which is rolling back anyway.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { requestTimedOut, unclaimed } from './commit-deadline.ts';
import type { Queryable } from './connect.ts';

/**
 * What this module reads of the driver's query (postgres 3.4.9, src/query.js), which its types
 * do not declare: `executed` once the query was handed to its pool or transaction, `state` once a
 * connection took it, `canceller` the driver's cancel, whose promise `cancel()` drops (a cancel
 * that cannot connect would be an unhandled rejection, which ends the process).
 */
interface DriverQuery {
  executed: boolean;
  state: unknown;
  canceller: ((query: DriverQuery) => Promise<void>) | null;
  cancel(): void;
}

/** The statements a request created while it was running, until it ends or aborts. */
interface RequestStatements {
  state: 'running' | 'aborted' | 'ended';
  created: Set<DriverQuery>;
}

const scope = new AsyncLocalStorage<RequestStatements>();

const isQuery = (value: unknown): value is DriverQuery =>
  typeof value === 'object' && value !== null && typeof (value as DriverQuery).cancel === 'function';

/** A statement of a request that already timed out, refused before it is sent (its client has its 503). */
const statementRefused = () => requestTimedOut('the request timed out: no statement is sent for it any more');

/** Remembers `value` in the running request's statements when it is a query; refuses it once the request timed out. */
function remember<T>(value: T): T {
  const statements = scope.getStore();
  if (statements === undefined || statements.state === 'ended' || !isQuery(value)) return value;
  if (statements.state === 'aborted') throw statementRefused();
  statements.created.add(value);
  return value;
}

/** The first pause before a cancel is asked again, and the longest. */
const CANCEL_AGAIN_MS = 50;
const CANCEL_AGAIN_MAX_MS = 1_000;

/**
 * Asks the server to cancel `query` (a query a connection has taken), and asks again while it
 * runs: a cancel that reaches the backend before it has read the statement (sent a moment
 * before) is ignored by PostgreSQL, and the statement would then wait on its lock after all. The
 * driver sends a cancel only while it sees the statement running (for one queued behind another
 * on its connection, once it starts). A cancel that cannot connect is the statement left to end
 * by itself.
 */
function cancelStatement(query: DriverQuery): void {
  const canceller = query.canceller;
  if (typeof canceller !== 'function') return;
  query.canceller = null;
  let settled = false;
  // the query was handed on already: waiting on it sends nothing
  const done = () => {
    settled = true;
  };
  (query as unknown as Promise<unknown>).then(done, done);
  const ask = (pause: number) => {
    if (settled) return;
    canceller(query).catch(() => {});
    setTimeout(ask, pause, Math.min(pause * 2, CANCEL_AGAIN_MAX_MS)).unref();
  };
  ask(CANCEL_AGAIN_MS);
}

/**
 * Cancels `query` as soon as a connection takes it: the driver sets `state` as it sends the
 * query, and its cancel of a query no connection holds yet would take it out of the pool's queue
 * only, stranding the connection that was opening for it or the transaction it was queued in.
 */
function cancelWhenSent(query: DriverQuery): void {
  let state = query.state;
  Object.defineProperty(query, 'state', {
    configurable: true,
    enumerable: true,
    get: () => state,
    set(value: unknown) {
      state = value;
      // after the driver's execute has marked the query running or queued behind another
      if (value) queueMicrotask(() => cancelStatement(query));
    },
  });
}

/** Cancels each statement of `statements` the driver has handed on (see the file comment). */
function cancelAll(statements: RequestStatements): void {
  statements.state = 'aborted';
  for (const query of statements.created) {
    // not handed on: a fragment of another statement, or one never awaited
    if (!query.executed) continue;
    if (query.state) cancelStatement(query);
    else cancelWhenSent(query);
  }
  statements.created.clear();
}

/**
 * `work` with the statements it creates cancelled on PostgreSQL when `signal` aborts, and those
 * it creates afterwards refused (see the file comment).
 */
export async function cancelOnAbort<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  const statements: RequestStatements = { state: signal.aborted ? 'aborted' : 'running', created: new Set() };
  const onAbort = () => cancelAll(statements);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await scope.run(statements, work);
  } finally {
    signal.removeEventListener('abort', onAbort);
    statements.state = 'ended';
    statements.created.clear();
  }
}

/**
 * `work` belonging to no request: its statements are neither cancelled nor refused when the
 * request that started it times out, and its writes claim none of the request's commit
 * (shared/db/commit-deadline.ts).
 */
export function outsideRequest<T>(work: () => T): T {
  return scope.exit(() => unclaimed(work));
}

/**
 * `sql` (a pool, a transaction, a savepoint or a reserved connection) remembering the statements
 * it creates in the running request, as do the transactions, savepoints and connections it
 * opens. Outside a request it adds nothing.
 */
export function rememberStatements<S extends Queryable>(sql: S): S {
  // `begin` and `savepoint` take the work last: it receives the transaction or savepoint wrapped
  const opening =
    (open: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      const work = args.at(-1);
      if (typeof work === 'function') args[args.length - 1] = (inner: Queryable) => work(rememberStatements(inner));
      return open(...args);
    };
  return new Proxy(sql, {
    apply: (target, self, args) => remember(Reflect.apply(target, self, args)),
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      switch (property) {
        case 'unsafe':
        case 'file':
          return (...args: unknown[]) => remember((value as (...a: unknown[]) => unknown)(...args));
        case 'begin':
        case 'savepoint':
          return opening(value as (...a: unknown[]) => unknown);
        case 'reserve':
          return async () => rememberStatements(await (value as () => Promise<Queryable>)());
        default:
          return value;
      }
    },
  });
}
