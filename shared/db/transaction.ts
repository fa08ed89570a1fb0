/**
 * Transactions and savepoints on the `postgres` driver that send nothing more once their
 * connection is lost.
 *
 * When a statement of `sql.begin`'s work fails because its connection closed (a reset, a server
 * restart, a proxy dropping it), the driver (3.4.9) rejects the transaction as the connection
 * closes, and then sends the work's `rollback` (or a savepoint's `rollback to`) to that closed
 * connection. The statement is kept, unsent, at the head of the connection's next session: that
 * session answers the query it reconnected for, then waits for the rollback's answer, which never
 * comes, and the connection takes no other query again. Each such cut took one connection out of
 * the pool for good; a process whose pool had lost them all waited on every query.
 *
 * Here the work's failure is looked at first: when it is a lost connection and the driver has
 * rejected the transaction (it does as the connection closes, before the work hears of it), the
 * work answers the driver nothing, so no rollback is sent: the server rolls back a transaction
 * whose session ended. A failure that only looks like a lost connection (an error of another
 * pool's, thrown through the work) while this connection stays open is rolled back as any other
 * after `LOST_CONNECTION_GRACE_MS`. Work that catches such an error itself and goes on sending
 * statements is not covered: it should not.
 *
 * Inside a request, an outermost transaction claims the request's commit when its work resolves,
 * right before the driver sends the commit (shared/db/commit-deadline.ts): once the request was
 * answered 503 by its timeout, the claim throws 503 `APP_REQUEST_TIMEOUT` and the driver rolls
 * back, so nothing the client was told had failed commits afterwards; a claim made before the
 * timeout makes the answer wait for the commit. A savepoint claims nothing (its transaction
 * commits), and nor does a transaction opened `read only`, which writes nothing: a request's
 * reads leave its timeout in force. So an API write that is not in a transaction would escape the
 * rule: the core runs each one in `transaction()`, a single statement too, which also keeps the
 * timeout's cancel able to stop it before its commit.
 *
 * Every transaction of the service goes through here; test/shared/db/transaction.test.ts keeps the
 * driver's `begin`, `savepoint` and `reserve` out of the rest of the processes' code.
 */
import type postgres from 'postgres';
import { claimRequestCommit } from './commit-deadline.ts';
import type { Queryable, Sql } from './connect.ts';
import { isConnectionLost } from './connection-errors.ts';

export type TransactionSql = postgres.TransactionSql<Record<string, never>>;

/**
 * How long a failure that looks like a lost connection waits for the driver to reject the
 * transaction before it is rolled back like any other: the driver rejects it in the same turn as
 * the close, so this is only a bound for a connection that did not close.
 */
export const LOST_CONNECTION_GRACE_MS = 1_000;

/**
 * What work answers the driver once its connection is lost: a promise that never settles, made
 * anew each time so that nothing keeps it (a shared one would hold every abandoned transaction's
 * continuation among its reactions for the life of the process).
 */
const nothing = (): Promise<never> => new Promise<never>(() => {});

/** Each transaction's (and its savepoints') promise that settles once the driver has settled the transaction. */
const settledOf = new WeakMap<object, Promise<void>>();

/** Whether `settled` settles within `ms`. */
async function settlesWithin(settled: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([settled.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `work` on `tx`; on a lost connection, once the transaction is settled, answers nothing. */
function guarded<T>(tx: TransactionSql, settled: Promise<void>, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  settledOf.set(tx, settled);
  return work(tx).catch(async (error: unknown) => {
    if (isConnectionLost(error) && (await settlesWithin(settled, LOST_CONNECTION_GRACE_MS))) return nothing();
    throw error;
  });
}

/** Whether a transaction opened in `mode` can write nothing (`read only`), so has no commit to claim. */
const readOnly = (mode: string) => /\bread\s+only\b/i.test(mode);

/**
 * `work` in a transaction of its own on `sql`: committed when it resolves, rolled back when it
 * rejects (and nothing more sent once the connection is lost); inside a request, its commit
 * claimed first (see the file comment). `mode` is what follows `begin`
 * (`'isolation level repeatable read read only'`).
 */
export function transaction<T>(sql: Sql, work: (tx: TransactionSql) => Promise<T>, mode = ''): Promise<T> {
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const claiming = !readOnly(mode);
  const result = sql.begin(mode, async (tx) => {
    const value = await guarded(tx, settled, work);
    if (claiming) claimRequestCommit();
    return value;
  }) as Promise<T>;
  result.then(settle, settle);
  return result;
}

/** `work` in a savepoint of the transaction `tx`, which `transaction` opened. */
export function savepoint<T>(tx: TransactionSql, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  const settled = settledOf.get(tx);
  if (!settled) throw new Error('savepoint: the transaction was not opened by transaction()');
  return tx.savepoint((inner) => guarded(inner, settled, work)) as Promise<T>;
}

/** Whether `sql` is an open transaction rather than a pool. */
export function isTransaction(sql: Queryable): sql is TransactionSql {
  return !('begin' in sql);
}

/** `work` in a transaction of its own on a pool, or in a savepoint of the caller's transaction. */
export function inTransaction<T>(sql: Queryable, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  return isTransaction(sql) ? savepoint(sql, work) : transaction(sql, work);
}
