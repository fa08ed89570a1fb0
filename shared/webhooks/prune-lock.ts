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
 * dies holds up none after it; and a prune whose connection dies while it runs (a failover, a
 * proxy's or the server's idle timeout, `pg_terminate_backend`) holds the lock no more, so another
 * may start: before each step the prune asks its lock's session whether it still holds the lock
 * (the driver reconnects a lost connection without it), and stops when it does not, leaving the
 * rest to the next prunes. The question also keeps the session from sitting idle through a
 * long prune.
 */
import type { Config } from '../config/index.ts';
import { connect } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';

/**
 * Session advisory lock key held while pruning (one-bigint form, beside those of the migrations,
 * the sweep, the statistics and the liveness locks: 0x61707000 to 0x61707003).
 */
export const PRUNE_LOCK = 0x61707004;

/** Whether the prune still holds its lock: false once its connection was lost, or cannot be asked. */
export type StillHeld = () => Promise<boolean>;

/**
 * Runs `work` holding the prune lock, and answers what it answers; answers `undefined` at once,
 * without running it, when another prune holds the lock. `work` is given {@link StillHeld}, to
 * ask before each step.
 */
export async function whileNoOtherPrune<T>(
  deps: { config: Pick<Config, 'databaseUrl' | 'db'>; log: Logger },
  work: (stillHeld: StillHeld) => Promise<T>,
): Promise<T | undefined> {
  const session = connect(deps.config, deps.log, { max: 1, name: 'app-prune-lock', keepOpen: true });
  const stillHeld: StillHeld = async () => {
    const rows = await session<{ held: boolean }[]>`
      select exists (
        select from pg_locks
         where pid = pg_backend_pid() and locktype = 'advisory' and granted
           and classid = 0 and objid = ${PRUNE_LOCK}::oid and objsubid = 1) as held`.catch(() => [{ held: false }]);
    return rows[0].held;
  };
  try {
    const [{ got }] = await session<{ got: boolean }[]>`select pg_try_advisory_lock(${PRUNE_LOCK}) as got`;
    if (!got) return undefined;
    try {
      return await work(stillHeld);
    } finally {
      await session`select pg_advisory_unlock(${PRUNE_LOCK})`.catch(() => undefined);
    }
  } finally {
    await session.end({ timeout: 5 });
  }
}
