/**
 * Crash recovery. graphile-worker leaves the jobs of a SIGKILLed worker locked
 * for four hours. Instead every worker pool of ours writes a heartbeat row
 * (`app_worker_heartbeats`, migrations/003) every `worker.heartbeat`, and every live worker
 * sweeps, on start and after each heartbeat:
 *
 * 1. Pools presumed dead. Each worker process holds a session advisory lock with a random key
 *    (its liveness lock, `openLiveness`) for its whole life on a connection of its own, taken
 *    before it writes any heartbeat row, and its rows record that key (migrations/032).
 *    PostgreSQL releases the lock the moment that connection closes, which for a process killed
 *    on a reachable machine is at once; so a pool whose row names a key no backend holds any
 *    more is dead now, whatever the age of its row. Otherwise (no key: a row of an older
 *    version, or written while the lock could not be taken; no row: a pool killed before its
 *    first beat; a key still held: a lost machine whose TCP connection lingers on the server)
 *    the old rule: any pool holding a job locked longer than `worker.staleAfter` without a
 *    heartbeat fresher than `worker.staleAfter`. Their jobs are unlocked with
 *    `graphile_worker.force_unlock_workers`.
 * 2. Dormant delivery jobs: `app/webhook` jobs neither locked nor runnable (attempts used up:
 *    those just unlocked, and those graphile-worker failed because the task threw, e.g. the
 *    database went away mid-run, or because a forced stop abandoned them). A job that still
 *    holds its delivery's key while the delivery is pending or running is replaced by a new job
 *    under that key, same payload and priority: due at once after a crash, after
 *    `webhooks.backoff.base` when the task failed (so a persistent fault cannot spin). A new row,
 *    not the old one armed again, so that a run presumed dead while alive, whose completion
 *    deletes its own job by id, cannot take the delivery's next job with it. Every other one is a
 *    remnant (a job superseded by its scheduled retry, or one whose delivery is finished or gone)
 *    and is deleted (`complete_jobs`).
 *
 * 3. Run rows of quick claims (migrations/029): a long one shows its delivery `running`, one whose
 *    delivery is finished, gone or parked is deleted (`sweepRuns`).
 * 4. Endpoints with deliveries parked while a slot is free (see `wakeStranded`).
 *
 * Delivery is at least once: a delivery in flight at the crash is sent again (same
 * `webhook-id`, which the receiver dedupes on); nothing is lost. The same holds when a live
 * process loses its liveness connection (a database restart, a network blip): until it takes
 * its lock again, before its next beat writes anything, other workers may presume it dead and
 * run its deliveries a second time; the second run of a delivery already recorded finds it
 * finished and records nothing ("raced" in worker/delivery/deliver.ts). One sweep runs at a
 * time (a transaction-level advisory lock), so concurrent workers do not trip over each other.
 */
import { randomInt } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../shared/config/index.ts';
import { connect, type Sql } from '../shared/db/connect.ts';
import type { Logger } from '../shared/log/logger.ts';
import { DELIVERY_TASK, deliveryJobSpec } from '../shared/webhooks/deliveries/job.ts';
import { gatesToWake, wakeEndpoints } from '../shared/webhooks/deliveries/flow.ts';
import { sweepRuns } from '../shared/webhooks/deliveries/store.ts';
import { isConnectionError } from '../shared/db/connection-errors.ts';
import { transaction } from '../shared/db/transaction.ts';

/** A failed beat in the log: an unreachable database by its reason alone (every beat of an outage fails alike), anything else with its stack. */
const failure = (error: unknown) => (isConnectionError(error) ? { reason: (error as Error).message } : { err: error });

/** Transaction advisory lock held by a sweep ('app' + 1). */
const SWEEP_LOCK = 0x61707001;

/**
 * Class of the worker processes' liveness locks ('app' + 3), taken in the two-int4 form
 * (LIVENESS_LOCK, key): apart from the one-bigint locks of the sweep, of the statistics
 * (worker/queue-statistics.ts), of the migrations (shared/db/migrate.ts) and of the prune
 * (shared/webhooks/prune-lock.ts).
 */
export const LIVENESS_LOCK = 0x61707003;

/** A key for one process: 31 random bits (positive, so it reads the same as the oid pg_locks shows). */
const randomKey = (): number => randomInt(1, 2 ** 31);

/** The liveness lock of one worker process (see the file comment). */
export interface Liveness {
  /**
   * Makes sure this process holds its lock, taking it again (same key) when its connection was
   * lost meanwhile: the key to record in the heartbeat rows, or null when another session holds
   * it (the process's previous connection, not yet gone on the server), in which case the rows
   * follow the `staleAfter` rule until the lock is back. Rejects when the database cannot be reached.
   */
  hold(): Promise<number | null>;
  /** Releases the lock: ends its connection. */
  close(): Promise<void>;
  /**
   * Ends its connection and opens another (the lock is taken again at the next `hold`): for a
   * lock held where the heartbeat's database does not see it.
   */
  reopen(): Promise<void>;
}

/**
 * The liveness lock on a client of its own with one connection, kept open however idle or old
 * (so it is neither one of the `db.poolMax` connections queries wait for, nor recycled by the
 * driver, which would release the lock): one connection more per worker process. After a loss
 * the driver opens a new connection on the next query, and `hold` finds the lock missing on it
 * and takes it again.
 */
export function openLiveness(config: Pick<Config, 'databaseUrl' | 'db'>, log: Logger): Liveness {
  const open = () => connect(config, log, { max: 1, name: 'app-worker-liveness', keepOpen: true });
  let sql = open();
  let key = randomKey();
  let taken = false;
  let holding: Promise<number | null> | undefined;
  const mine = async () => {
    const [row] = await sql<{ held: boolean }[]>`
      select exists (
        select 1 from pg_locks
         where pid = pg_backend_pid() and locktype = 'advisory' and granted
           and classid = ${LIVENESS_LOCK}::int::oid and objid = ${key}::int::oid and objsubid = 2) as held`;
    return row.held;
  };
  const take = async () => {
    const [row] = await sql<{ got: boolean }[]>`select pg_try_advisory_lock(${LIVENESS_LOCK}::int, ${key}::int) as got`;
    return row.got;
  };
  const hold = async (): Promise<number | null> => {
    if (await mine()) return key;
    if (!taken) {
      // the first time: a key some other process happened to pick is traded for another
      for (let tries = 0; tries < 5; tries += 1, key = randomKey()) {
        if (await take()) {
          taken = true;
          return key;
        }
      }
      log.warn('could not take a liveness lock; this worker is presumed dead only after worker.staleAfter');
      return null;
    }
    if (await take()) {
      log.info({ key }, 'liveness lock taken again after its connection was lost');
      return key;
    }
    log.warn({ key }, 'liveness lock still held by a previous connection; taking it again at the next beat');
    return null;
  };
  return {
    hold() {
      holding ??= hold().finally(() => {
        holding = undefined;
      });
      return holding;
    },
    async close() {
      await sql.end({ timeout: 5 }).catch(() => undefined);
    },
    async reopen() {
      const old = sql;
      sql = open();
      await old.end({ timeout: 1 }).catch(() => undefined);
    },
  };
}

export interface HeartbeatDeps {
  config: Config;
  sql: Sql;
  log: Logger;
}

/** What the heartbeat of a worker process takes: the liveness lock is opened from `config` unless given. */
export interface StartHeartbeatDeps extends HeartbeatDeps {
  liveness?: Liveness;
}

/** What one sweep did. */
export interface SweepResult {
  /** Pools presumed dead whose jobs were unlocked. */
  stalePools: string[];
  /** Delivery jobs armed again. */
  rearmed: number;
  /** Remnant jobs deleted. */
  removed: number;
  /** False when another worker was sweeping at the time. */
  swept: boolean;
  /** Parked deliveries woken because their endpoint had a slot free (a wake lost to a crash). */
  woken: number;
}

/**
 * Endpoints with deliveries parked while a slot is free (shared/webhooks/deliveries/flow.ts: a
 * process that died between a release and the wake it owed, or a claim that parked while the
 * last slot was being given back): their parked deliveries are woken.
 */
async function wakeStranded(deps: HeartbeatDeps): Promise<number> {
  let woken = 0;
  for (const endpointId of await gatesToWake(deps.sql, deps.config)) {
    woken += await wakeEndpoints(deps.sql, deps.config, [endpointId]);
  }
  // most often a release whose own wake was still on its way (the sweep got there first): info, not a warning
  if (woken > 0) deps.log.info({ woken }, 'woke deliveries parked for endpoints with a slot free');
  return woken;
}

/**
 * Records that pools `poolIds` of this process are alive (inserting their rows the first time),
 * with the key of the process's liveness lock (null: the `staleAfter` rule alone). The key is
 * recorded only when this database sees it held: a lock held on another server (the liveness
 * connection reached a reader after a failover moved the database's name) would make every sweep
 * here presume the process dead. Answers whether the key was recorded (false without one).
 */
export async function beat(sql: Sql, poolIds: readonly string[], key: number | null = null): Promise<boolean> {
  if (poolIds.length === 0) return false;
  const rows = await sql<{ liveness_key: number | null }[]>`
    with seen as (
      select case when exists (
        select 1 from pg_locks as l
         where l.locktype = 'advisory' and l.granted
           and l.database = (select oid from pg_database where datname = current_database())
           and l.classid = ${LIVENESS_LOCK}::int::oid and l.objid = ${key}::int::oid and l.objsubid = 2
      ) then ${key}::int end as key
    )
    insert into app_worker_heartbeats (pool_id, host, pid, liveness_key)
    select unnest(${poolIds as string[]}::text[]), ${hostname()}, ${process.pid}, (select key from seen)
    on conflict (pool_id) do update set seen_at = now(), liveness_key = excluded.liveness_key
    returning liveness_key`;
  return key !== null && rows[0]?.liveness_key === key;
}

/** Deletes the heartbeat rows of pools that stopped cleanly. */
export async function forget(sql: Sql, poolIds: readonly string[]): Promise<void> {
  if (poolIds.length === 0) return;
  await sql`delete from app_worker_heartbeats where pool_id = any(${poolIds as string[]}::text[])`;
}

/** One recovery sweep (see the file comment). */
export async function sweep(deps: HeartbeatDeps): Promise<SweepResult> {
  const { config, log } = deps;
  const staleMs = config.worker.staleAfter;
  const retryMs = config.webhooks.backoff.base;
  const result = await transaction(deps.sql, async (tx) => {
    const [{ locked }] = await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(${SWEEP_LOCK}) as locked`;
    if (!locked) return { stalePools: [], rearmed: 0, removed: 0, swept: false, woken: 0 };
    // a row whose process's liveness lock no backend of this database holds: that process is gone
    const lockGone = tx`
      h.liveness_key is not null and not exists (
        select 1 from pg_locks as l
         where l.locktype = 'advisory' and l.granted
           and l.database = (select oid from pg_database where datname = current_database())
           and l.classid = ${LIVENESS_LOCK}::int::oid and l.objid = h.liveness_key::oid and l.objsubid = 2)`;
    const stale = await tx<{ pool: string }[]>`
      select distinct j.locked_by as pool
        from graphile_worker.jobs as j
       where j.locked_by is not null
         and (
           (j.locked_at < now() - ${staleMs}::int * interval '1 millisecond'
            and not exists (
              select 1 from app_worker_heartbeats as h
               where h.pool_id = j.locked_by and h.seen_at >= now() - ${staleMs}::int * interval '1 millisecond'))
           or exists (select 1 from app_worker_heartbeats as h where h.pool_id = j.locked_by and ${lockGone}))`;
    const stalePools = stale.map((row) => row.pool);
    if (stalePools.length > 0) await tx`select graphile_worker.force_unlock_workers(${stalePools}::text[])`;
    await tx`
      delete from app_worker_heartbeats as h
       where h.seen_at < now() - ${staleMs}::int * interval '1 millisecond' or (${lockGone})`;

    const dormant = await tx<{ id: string; rearm: boolean; failed: boolean }[]>`
      select j.id::text as id,
             (j.key is not null and d.status in ('pending', 'running')) as rearm,
             (j.last_error is not null) as failed
        from graphile_worker.jobs as j
        left join app_webhook_deliveries as d on d.id = j.key
       where j.task_identifier = ${DELIVERY_TASK} and j.locked_at is null and j.attempts >= j.max_attempts`;
    const now = dormant.filter((job) => job.rearm && !job.failed).map((job) => job.id);
    const later = dormant.filter((job) => job.rearm && job.failed).map((job) => job.id);
    const remnants = dormant.filter((job) => !job.rearm).map((job) => job.id);
    if (now.length + later.length > 0) {
      // Each is replaced by a new job under its key, not armed again in place: a run presumed
      // dead may be alive (starved past staleAfter). Were the same row armed again, the next job
      // that run queues under the key (a retry, a wait for its rateLimit start) would be written
      // into it, and graphile-worker's completion of the run, a delete by the run's job id, would
      // take it away: the delivery left pending with no job. A key cleared meanwhile (that run
      // queued its next job first) leaves nothing to replace.
      await tx`
        select count(*) from graphile_worker.add_jobs(array(
          select ${deliveryJobSpec(tx, {
            id: tx`g.key`,
            payload: tx`g.payload`,
            runAt: tx`case when g.id = any(${later}::bigint[]) then now() + ${retryMs}::int * interval '1 millisecond' else now() end`,
            priority: tx`g.priority`,
          })}
            from graphile_worker.complete_jobs(${[...now, ...later]}::bigint[]) as g
           where g.key is not null))`;
    }
    if (remnants.length > 0) await tx`select from graphile_worker.complete_jobs(${remnants}::bigint[])`;
    // Wakes idle workers at once instead of at their next poll. This is graphile-worker's own
    // internal channel and message (what its add_job trigger sends), checked against
    // graphile-worker 0.18.0: an upgrade that changes it only costs up to worker.pollInterval.
    if (now.length + later.length > 0) await tx`select pg_notify('jobs:insert', '{"r":0,"count":1}')`;
    await sweepRuns(tx);
    return { stalePools, rearmed: now.length + later.length, removed: remnants.length, swept: true, woken: 0 };
  });
  if (result.swept) result.woken = await wakeStranded(deps);
  if (result.stalePools.length > 0 || result.rearmed > 0) {
    log.warn(
      { stalePools: result.stalePools, rearmed: result.rearmed, removed: result.removed },
      'recovered the jobs of workers presumed dead (liveness lock released, or no heartbeat) and of failed runs',
    );
  }
  return result;
}

/**
 * Releases the jobs of pools this process knows are dead (their runner stopped): unlocks them,
 * deletes the pools' heartbeat rows and sweeps, so the deliveries they held are armed again at
 * once instead of after `staleAfter`.
 */
export async function releasePools(deps: HeartbeatDeps, poolIds: readonly string[]): Promise<void> {
  if (poolIds.length > 0) {
    await deps.sql`select graphile_worker.force_unlock_workers(${poolIds as string[]}::text[])`;
    await forget(deps.sql, poolIds);
  }
  await sweep(deps);
}

/** The heartbeat of one worker process: `add` pools as they start, `remove` them when their runner ends, `stop` at the end. */
export interface Heartbeat {
  /** Starts beating for pool `poolId` (a graphile-worker pool id, its jobs' `locked_by`). */
  add(poolId: string): void;
  /** Stops beating for pools whose runner ended: nothing vouches for them any more. */
  remove(poolIds: readonly string[]): void;
  /** When a beat last succeeded (ms since the epoch), or undefined before the first one. */
  lastSuccessAt(): number | undefined;
  /**
   * Stops beating. `forget` deletes the rows of this process's pools (a clean stop);
   * `release` (a forced stop) also unlocks whatever jobs they still hold and sweeps, so the
   * deliveries abandoned in flight are armed again at once instead of after `staleAfter`.
   * Then the liveness lock is released (its connection ended), whichever way.
   */
  stop(options?: { forget?: boolean; release?: boolean }): Promise<void>;
  /** Runs one beat and sweep now (tests; the interval does it otherwise). */
  tick(): Promise<void>;
}

/**
 * Beats for this process's pools every `worker.heartbeat` and sweeps after each beat; sweeps
 * once at start too (a restarted worker recovers at once what is already stale). Failures are
 * logged and retried at the next tick: a worker never dies of its heartbeat.
 */
export function startHeartbeat(deps: StartHeartbeatDeps): Heartbeat {
  const liveness = deps.liveness ?? openLiveness(deps.config, deps.log);
  /**
   * A beat: the liveness lock first, so that no row names a key not yet held. A key the database
   * does not see held is left out of the rows, and its connection opened again: it reached
   * another server than the heartbeat's (a reader, after a failover moved the database's name).
   */
  const beatHeld = async (poolIds: readonly string[]) => {
    if (poolIds.length === 0) return;
    const key = await liveness.hold();
    if ((await beat(deps.sql, poolIds, key)) || key === null) return;
    deps.log.warn(
      { key },
      "the liveness lock is held where the heartbeat's database does not see it (another server: a failover moved the database's name?); its connection is opened again",
    );
    await liveness.reopen();
  };
  const pools = new Set<string>();
  /** The first beats of pools just added, which `stop` waits for (a short run stops right after them). */
  const firstBeats = new Set<Promise<void>>();
  let running: Promise<void> | undefined;
  let stopped = false;
  let lastSuccess: number | undefined;
  const tick = () => {
    running ??= (async () => {
      try {
        await beatHeld([...pools]);
        if (pools.size > 0) lastSuccess = Date.now(); // a beat for no pool vouches for nothing
        await sweep(deps);
      } catch (error) {
        if (!stopped)
          deps.log.warn(failure(error), 'worker heartbeat or recovery sweep failed; trying again at the next beat');
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  const timer = setInterval(() => void tick(), deps.config.worker.heartbeat);
  timer.unref();
  void tick();
  return {
    add(poolId) {
      pools.add(poolId);
      const first = beatHeld([poolId]).then(
        () => void (lastSuccess = Date.now()),
        (error: unknown) => {
          if (!stopped) deps.log.warn({ ...failure(error), pool: poolId }, 'first heartbeat failed');
        },
      );
      firstBeats.add(first);
      void first.then(() => firstBeats.delete(first));
    },
    remove(poolIds) {
      for (const poolId of poolIds) pools.delete(poolId);
    },
    lastSuccessAt: () => lastSuccess,
    async stop({ forget: clean = false, release = false } = {}) {
      stopped = true;
      clearInterval(timer);
      // a beat still in flight ends before its row is forgotten and its connections close, so
      // it neither fails on a closed connection nor writes a row after the stop
      await Promise.all([running, ...firstBeats]);
      try {
        if (release && pools.size > 0) {
          try {
            await releasePools(deps, [...pools]);
          } catch (error) {
            deps.log.warn(
              { err: error },
              'could not release the jobs of this worker; the recovery sweep of another worker will',
            );
          }
        } else if (clean) await forget(deps.sql, [...pools]).catch(() => undefined);
      } finally {
        await liveness.close();
      }
    },
    tick,
  };
}
