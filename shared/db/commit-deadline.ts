/**
 * The meeting point of a request's deadline and its writes: exactly one of "the request timed
 * out" and "the request's write commits" happens first, and the other side learns it.
 *
 * - A write claims its commit right before it commits: refused means the deadline has passed (the
 *   client was already answered 503), so it must roll back; granted means it may commit, and the
 *   deadline can no longer pass: the request has now done something, so its answer is the real one.
 * - The timeout calls `expire()`: true means nothing of the request will commit (answer 503 now);
 *   false means a commit was claimed, so the answer waits for the request's own instead of
 *   claiming a failure that did not happen.
 *
 * So a request answered 503 by its timeout never commits afterwards, and a retry with the same
 * `Idempotency-Key` runs it once.
 *
 * The deadline travels with the request's async scope: api/middleware/timeout.ts runs the request
 * in `withDeadline`, and the places every write passes claim it there, so no function of the core
 * is handed it. Those places are `transaction()` (shared/db/transaction.ts), which claims the
 * commit of every outermost transaction that may write, and the endpoint store guard
 * (shared/webhooks/endpoint-stores/guard.ts), which claims before an adapter's write. Outside a
 * request (the worker, the CLI, a test calling the core) there is no deadline and a claim does
 * nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { unavailable } from '../errors/app-error.ts';

export interface CommitDeadline {
  claimCommit(): boolean;
  expire(): boolean;
  /** The deadline passed (work not yet committing should stop early). */
  readonly expired: boolean;
  /**
   * The deadline passed after a commit was claimed: the client waits for the real answer, so work
   * made of several commits (rounds) should stop at its next round and answer what it did.
   */
  readonly overdue: boolean;
}

export function commitDeadline(): CommitDeadline {
  let state: 'running' | 'committing' | 'expired' = 'running';
  let overdue = false;
  return {
    claimCommit() {
      if (state === 'expired') return false;
      state = 'committing';
      return true;
    },
    expire() {
      if (state === 'committing') {
        overdue = true;
        return false;
      }
      state = 'expired';
      return true;
    },
    get expired() {
      return state === 'expired';
    },
    get overdue() {
      return overdue;
    },
  };
}

const scope = new AsyncLocalStorage<CommitDeadline>();

/** `work` as the work of a request whose deadline is `deadline`: its writes claim their commit there. */
export function withDeadline<T>(deadline: CommitDeadline, work: () => T): T {
  return scope.run(deadline, work);
}

/**
 * 503 `APP_REQUEST_TIMEOUT`, saying what of the request it stops: the answer of the timeout
 * itself (api/middleware/timeout.ts), and, never answered (the client already has its 503), a
 * statement or a write of its work after it.
 */
export const requestTimedOut = (message: string) => unavailable(message, { code: 'APP_REQUEST_TIMEOUT' });

/**
 * Claims the commit of the running request's write, right before it commits (or, for a store
 * that commits as it writes, right before the write): throws 503 `APP_REQUEST_TIMEOUT` when the
 * request's deadline has passed, so the write is rolled back or never made. Outside a request it
 * does nothing.
 */
export function claimRequestCommit(): void {
  const deadline = scope.getStore();
  if (deadline !== undefined && !deadline.claimCommit())
    throw requestTimedOut('the request timed out before its write could commit; nothing was written');
}

/**
 * Whether the running request is past its deadline though a write of it has committed (see
 * `CommitDeadline.overdue`): work in rounds stops at the next one. False outside a request.
 */
export function requestOverdue(): boolean {
  return scope.getStore()?.overdue ?? false;
}

/**
 * `work` whose writes do not claim the request's commit: a row that prepares the request's own
 * write and is taken back when that write fails (the gate row of an endpoint being registered),
 * so the request can still time out while its real write waits. The statements of `work` are
 * still the request's, cancelled with it (shared/db/request-statements.ts).
 */
export function unclaimed<T>(work: () => T): T {
  return scope.exit(work);
}
