/**
 * One prune at a time per database. Two can otherwise run at once: the worker's hourly `app/prune`
 * beside an operator's `app prune`, or the hourly runs of two workers. Their steps of a partition's
 * rewrite (migrations/026) are each one transaction, but a step that hands its caller a new table
 * to vacuum (VACUUM runs outside a transaction) lets the other prune take the next steps, up to
 * the swap that renames that table, before the first vacuums it: that prune then failed on a table
 * no longer there.
 *
 * A prune takes a session advisory lock for its whole run, on a connection of its own (a pool's
 * connection may differ from one statement to the next, and a reserved one the driver may hand on
 * closed). The second prune does not wait: it answers at once that another holds the lock, and
 * leaves the work to it and to the next hour. The lock goes with its connection, so a prune that
 * dies holds up none after it.
 */
import type { Config } from '../config/index.ts';
import { connect } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';

/**
 * Session advisory lock key held while pruning (one-bigint form, beside those of the migrations,
 * the sweep, the statistics and the liveness locks: 0x61707000 to 0x61707003).
 */
export const PRUNE_LOCK = 0x61707004;

/**
 * Runs `work` holding the prune lock, and answers what it answers; answers `undefined` at once,
 * without running it, when another prune holds the lock.
 */
export async function whileNoOtherPrune<T>(
  deps: { config: Pick<Config, 'databaseUrl' | 'db'>; log: Logger },
  work: () => Promise<T>,
): Promise<T | undefined> {
  const session = connect(deps.config, deps.log, { max: 1, name: 'app-prune-lock', keepOpen: true });
  try {
    const [{ got }] = await session<{ got: boolean }[]>`select pg_try_advisory_lock(${PRUNE_LOCK}) as got`;
    if (!got) return undefined;
    try {
      return await work();
    } finally {
      await session`select pg_advisory_unlock(${PRUNE_LOCK})`.catch(() => undefined);
    }
  } finally {
    await session.end({ timeout: 5 });
  }
}
