/**
 * A runner whose job fetch stays refused as read-only (SQLSTATE 25006) after the database takes
 * the worker's own writes again is restarted.
 *
 * graphile-worker (0.18.0) registers its task names with an INSERT before its first fetch and
 * keeps that promise for the life of the runner, a rejected one included: a runner started while
 * the database's name still pointed at a reader (a failover: the supervisor restarts the runner
 * after the outage it causes, and a restarted process starts one) fails every fetch afterwards
 * without asking the database again, however fresh its connections. Only a new runner
 * registers again. A refusal alone is not enough to restart (the whole database may be read-only
 * for a while, and a new runner would fail the same way): the heartbeat, a write on the worker's
 * own pool, must have gone through since the refusals began.
 */
import type { Logger } from '../shared/log/logger.ts';

const READ_ONLY = '25006';

export interface ReadOnlyFetchWatch {
  /** graphile-worker could not fetch jobs, with this error. */
  failed(error: unknown): void;
  /** graphile-worker fetched (jobs or none). */
  fetched(): void;
}

export function watchReadOnlyFetch(options: {
  log: Logger;
  /** When the worker's own last write went through (the heartbeat's last beat), if it did. */
  lastWrite(): number | undefined;
  /** Ends the runner, which the supervisor replaces. Called once. */
  restart(): void;
}): ReadOnlyFetchWatch {
  let refusedSince: number | undefined;
  let restarted = false;
  return {
    failed(error) {
      if ((error as { code?: unknown } | undefined)?.code !== READ_ONLY || restarted) return;
      refusedSince ??= Date.now();
      const wrote = options.lastWrite();
      if (wrote === undefined || wrote <= refusedSince) return;
      restarted = true;
      options.log.warn(
        { refusedSince: new Date(refusedSince) },
        "the job fetch is still refused as read-only while the database takes the worker's writes: restarting the job runner",
      );
      options.restart();
    },
    fetched() {
      refusedSince = undefined;
    },
  };
}
