/**
 * The meeting point of a request's deadline and its transaction: exactly one of
 * "the request timed out" and "the work commits" happens first, and the other side learns it.
 *
 * - The work calls `claimCommit()` right before it commits: false means the deadline has passed
 *   (the client was already answered 503), so it must roll back; true means it may commit, and the
 *   deadline can no longer pass.
 * - The timeout calls `expire()`: true means the work will not commit (answer 503 now); false
 *   means the commit is under way, so the answer waits for it instead of claiming a failure that
 *   did not happen.
 *
 * So a request answered 503 by its timeout never commits afterwards, and a retry with the same
 * `Idempotency-Key` runs it once.
 */
export interface CommitDeadline {
  claimCommit(): boolean;
  expire(): boolean;
  /** The deadline passed (work not yet committing should stop early). */
  readonly expired: boolean;
}

export function commitDeadline(): CommitDeadline {
  let state: 'running' | 'committing' | 'expired' = 'running';
  return {
    claimCommit() {
      if (state === 'expired') return false;
      state = 'committing';
      return true;
    },
    expire() {
      if (state === 'committing') return false;
      state = 'expired';
      return true;
    },
    get expired() {
      return state === 'expired';
    },
  };
}
