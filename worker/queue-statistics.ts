/**
 * Honest planner statistics for graphile-worker's job table (docs/architecture.md "Choices we made").
 *
 * The job table is a queue: it is often empty, sometimes holds a backlog, and autovacuum analyzes
 * it whenever it happens to pass by. A plan made from statistics of an empty or small table
 * (or of a table never analyzed) turns graphile-worker's job fetch into a read and a sort of
 * every available job, and its lock step into a join that scans the whole table once per job
 * fetched: measured on this machine, 15 ms a fetch of 64 jobs with 20,000 waiting, against
 * 1.5 ms with the table analyzed, and it grows with the backlog, so a backlog drains slowest
 * exactly when it is largest. Autovacuum comes round only every minute or more.
 *
 * So the worker watches for it: when a fetch comes back full (a backlog), it counts the jobs
 * available now (at most `COUNT_CAP`, through the queue's own index) and compares them with the
 * number PostgreSQL's planner expects the table to hold (its density from the last analyze
 * times the table's pages now, as the planner computes it). When there are at least
 * `MIN_BACKLOG` available and more than twice what the planner expects (or the table was never
 * analyzed), it analyzes the table, under a transaction advisory lock so that one worker does it
 * at a time. A check runs at most every `CHECK_EVERY_MS` per process. A database role that does
 * not own the table cannot analyze it: the worker says so once (a warning) and goes on.
 */
import type { Sql } from '../shared/db/connect.ts';
import type { Logger } from '../shared/log/logger.ts';
import { transaction } from '../shared/db/transaction.ts';

/** Transaction advisory lock held while one worker analyzes ('app' + 2). */
const ANALYZE_LOCK = 0x61707002;
/** Fewer available jobs than this: any plan is cheap, never analyze. */
export const MIN_BACKLOG = 1_000;
/** The count stops here (a check costs at most this many index entries). */
const COUNT_CAP = 100_000;
/** At most one check this often per process. */
const CHECK_EVERY_MS = 5_000;

/** What one check found. */
export interface QueueStatistics {
  /** Jobs available to run now (at most `COUNT_CAP`). */
  available: number;
  /** Rows the planner expects the job table to hold, or null when it was never analyzed. */
  planned: number | null;
  /** Whether the table was analyzed (false also when another worker was analyzing it). */
  analyzed: boolean;
  /** Whether the statistics were stale and this database role may not analyze the table (it does not own it). */
  forbidden?: boolean;
}

/** Whether statistics that let the planner expect `planned` rows mislead it about `available` jobs. */
export const statisticsStale = (available: number, planned: number | null): boolean =>
  available >= MIN_BACKLOG && (planned === null || available > 2 * planned);

/** Compares the available jobs with the planner's expectation, and analyzes the table when they differ (see the file comment). */
export async function checkQueueStatistics(sql: Sql): Promise<QueueStatistics> {
  const [{ owner, ...row }] = await sql<{ available: number; planned: number | null; owner: boolean }[]>`
    select (select count(*)::int from (
              select 1 from graphile_worker._private_jobs as j
               where j.is_available and j.run_at <= now() limit ${COUNT_CAP}) as a) as available,
           case when c.reltuples < 0 or c.relpages = 0 then null
                else c.reltuples / c.relpages * (pg_relation_size(c.oid) / current_setting('block_size')::int) end::float8 as planned,
           pg_has_role(c.relowner, 'USAGE') as owner
      from pg_class c where c.oid = 'graphile_worker._private_jobs'::regclass`;
  if (!statisticsStale(row.available, row.planned)) return { ...row, analyzed: false };
  // PostgreSQL would only warn that it skipped the table
  if (!owner) return { ...row, analyzed: false, forbidden: true };
  const analyzed = await transaction(sql, async (tx) => {
    const [{ locked }] = await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(${ANALYZE_LOCK}) as locked`;
    if (locked) await tx`analyze graphile_worker._private_jobs`;
    return locked;
  });
  return { ...row, analyzed };
}

/** The worker's watch: `fetched` after each fetch of graphile-worker's local queue. */
export interface QueueStatisticsWatch {
  /** A local queue fetched `count` jobs of at most `size`: a full fetch means a backlog, which is checked. */
  fetched(count: number, size: number): void;
  /** Settles when the check under way (if any) is over. */
  idle(): Promise<void>;
}

/**
 * One watch per worker process (failures are logged and tried again at the next full fetch).
 * Tests give their own clock (`now`) and `check`.
 */
export function watchQueueStatistics(
  deps: { sql: Sql; log: Logger },
  options: { now?: () => number; check?: (sql: Sql) => Promise<QueueStatistics> } = {},
): QueueStatisticsWatch {
  const now = options.now ?? Date.now;
  const check = options.check ?? checkQueueStatistics;
  let lastCheck = -Infinity;
  let running: Promise<void> | undefined;
  let toldForbidden = false;
  return {
    fetched(count, size) {
      if (count < size || running !== undefined || now() - lastCheck < CHECK_EVERY_MS) return;
      lastCheck = now();
      running = check(deps.sql)
        .then((result) => {
          if (result.analyzed) {
            deps.log.info(
              { available: result.available, planned: result.planned },
              'analyzed the job table: its statistics expected far fewer jobs than are waiting',
            );
          } else if (result.forbidden && !toldForbidden) {
            toldForbidden = true;
            deps.log.warn(
              { available: result.available, planned: result.planned },
              "the job table's statistics expect far fewer jobs than are waiting, and this database role cannot analyze it (it does not own graphile_worker._private_jobs): fetches stay slow until its owner or autovacuum analyzes it",
            );
          }
        })
        .catch((error: unknown) =>
          deps.log.warn(
            { err: error },
            "could not check the job table's statistics; trying again at a later full fetch",
          ),
        )
        .finally(() => {
          running = undefined;
        });
    },
    idle: () => running ?? Promise.resolve(),
  };
}
