/**
 * Keeps a graphile-worker runner running for the life of the process (docs/reliability.md "Worker: database
 * outages").
 *
 * When its database connections fail, graphile-worker's pool cannot complete or fail the jobs it
 * holds, treats that as fatal and shuts itself down; `runner.promise` then simply resolves. A
 * process that only watched for a rejection stayed up with no runner, its heartbeat vouching for
 * a pool that no longer existed, so nothing ever recovered its jobs. The supervisor treats any
 * end of the runner it did not ask for as an outage:
 *
 * 1. the dead generation's pools stop beating at once (`onDown`), so no heartbeat vouches for
 *    them and another worker's sweep may take their jobs;
 * 2. it waits for the database to answer (`select 1`, asked again after 250 ms doubling to 1 s), for at most
 *    `outageLimitMs` counted from the start of the outage;
 * 3. once it answers, it releases the dead pools' jobs and re-arms their deliveries (`onUp`: the
 *    recovery sweep of worker/heartbeat.ts) and starts a new runner in the same process;
 * 4. if the database stays away past `outageLimitMs`, `done` rejects with `WorkerOutageError`
 *    (the process exits non-zero; its heartbeat already stopped).
 *
 * A runner that cannot even start (database down at boot) is the same outage, except a server
 * older than the minimum (UnsupportedServerError, shared/db/server-version.ts): `done` rejects
 * with it at once, as waiting cannot change it. Restarts are spaced
 * by the same backoff, so a runner that dies at once with the database up does not spin. One
 * that cannot start because the database role lacks a privilege (42501: permission denied, or
 * the job queue's row security) is no outage: `done` rejects at once with a RolePrivilegeError
 * saying what the role needs (shared/db/role-privileges.ts), where it restarted forever.
 *
 * A runner holding no job survives an outage on its own (it only fails its polls), so the
 * supervisor also watches `lastContact` (the heartbeat's last successful beat): once that is
 * older than `outageLimitMs`, it stops the runner and gives up the same way.
 */
import type { Runner } from 'graphile-worker';
import type { Sql } from '../shared/db/connect.ts';
import { isPermissionDenied, privilegeFailure } from '../shared/db/role-privileges.ts';
import { isUnsupportedServer } from '../shared/db/server-version.ts';
import type { Logger } from '../shared/log/logger.ts';

/** One runner and the ids of the worker pools it made (their jobs' `locked_by`). */
export interface Generation {
  runner: Runner;
  pools: readonly string[];
  /**
   * Settles when graphile-worker declared the pool's state lost (the database went away with jobs
   * in hand; the runner is being killed). Its teardown can hang on connections that cannot
   * complete without the database, so FATAL_GRACE_MS later the runner counts as ended.
   */
  fatal?: Promise<void>;
  /** Jobs its workers are running now (taken up, outcome not yet recorded). */
  jobsInHand?: () => number;
}

/** How long a runner killed after a fatal error gets to end before it counts as ended anyway. */
export const FATAL_GRACE_MS = 5_000;

/** The database stayed unreachable longer than `worker.outageLimit`. */
export class WorkerOutageError extends Error {
  constructor(limitMs: number, cause: unknown) {
    super(
      `the database has not answered for ${Math.round(limitMs / 1000)} s (worker.outageLimit): stopping so that the platform restarts this worker`,
      { cause },
    );
    this.name = 'WorkerOutageError';
  }
}

export interface SupervisorOptions {
  sql: Sql;
  log: Logger;
  outageLimitMs: number;
  /** Starts a runner generation (throws when it cannot: the database is down). */
  start(): Promise<Generation>;
  /** The runner of `pools` ended unasked: stop vouching for them. */
  onDown(pools: readonly string[]): void;
  /** The database answers again: recover the jobs of the dead `pools` before a new runner starts. */
  onUp(pools: readonly string[]): Promise<void>;
  /** When the database last answered the running worker (ms since the epoch), if it did. */
  lastContact(): number | undefined;
  /** How often the watchdog compares `lastContact` with the limit (default 1 s). */
  watchEveryMs?: number;
}

export interface Supervisor {
  /** The running generation, or undefined while the database is away. */
  current(): Generation | undefined;
  /** Resolves once stopped on request; rejects with WorkerOutageError after too long an outage. */
  done: Promise<void>;
  /** Stops supervising: no more restarts, and a wait for the database ends at once. */
  stop(): void;
  /** When the current outage began (undefined while a runner runs). */
  outageSince(): number | undefined;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Waits until `select 1` answers (true), or `deadline` passes (false), or `signal` aborts (false).
 * It asks again after 250 ms, doubling to at most a second, as the driver reconnects
 * (`reconnectBackoff`): one cheap query a second during an outage, and deliveries resume within
 * about a second of the database's return however long it was away.
 */
export async function waitForDatabase(
  sql: Sql,
  deadline: number,
  signal: AbortSignal,
): Promise<{ up: boolean; error?: unknown }> {
  let delay = 250;
  let last: unknown;
  while (!signal.aborted) {
    try {
      await sql`select 1`;
      return { up: true };
    } catch (error) {
      last = error;
    }
    if (Date.now() + delay > deadline) return { up: false, error: last };
    await sleep(delay, signal);
    delay = Math.min(delay * 2, 1_000);
  }
  return { up: false, error: last };
}

export function supervise(options: SupervisorOptions): Supervisor {
  const { log } = options;
  const stopping = new AbortController();
  let current: Generation | undefined;
  let outageSince: number | undefined;

  const done = (async () => {
    let restartDelay = 0;
    for (;;) {
      let dead: readonly string[] = [];
      let failure: unknown;
      try {
        current = await options.start();
        outageSince = undefined;
        const startedAt = Date.now();
        const running = current;
        const watchdog = setInterval(() => {
          const contact = options.lastContact() ?? startedAt;
          if (Date.now() - Math.max(contact, startedAt) <= options.outageLimitMs) return;
          clearInterval(watchdog);
          outageSince = Math.max(contact, startedAt);
          log.error(
            { lastContact: new Date(outageSince) },
            'the database has not answered the running worker within worker.outageLimit; stopping its runner',
          );
          void running.runner.kill('the database stayed away too long').catch(() => undefined);
        }, options.watchEveryMs ?? 1_000);
        watchdog.unref();
        const ended = current.runner.promise.catch((error: unknown) => {
          failure = error;
        });
        const givenUp = current.fatal
          ? current.fatal.then(() => sleep(FATAL_GRACE_MS, stopping.signal))
          : new Promise<void>(() => {});
        await Promise.race([ended, givenUp]);
        clearInterval(watchdog);
        dead = current.pools;
        if (Date.now() - startedAt > 60_000) restartDelay = 0; // it ran a while: not a crash loop
      } catch (error) {
        // a privilege refused: no restart gives it, so the worker ends saying which
        if (isPermissionDenied(error)) throw privilegeFailure(error, 'the job runner cannot start');
        failure = error;
      }
      current = undefined;
      if (stopping.signal.aborted) return;
      // a server the service does not support stays so: starting again cannot help
      if (isUnsupportedServer(failure)) throw failure;

      options.onDown(dead);
      outageSince ??= Date.now();
      log.error(
        { err: failure, pools: dead },
        'the job runner stopped without being asked (database unreachable?); reconnecting',
      );
      if (restartDelay > 0) await sleep(restartDelay, stopping.signal);
      restartDelay = Math.min(Math.max(restartDelay * 2, 250), 5_000);
      const waited = await waitForDatabase(options.sql, outageSince + options.outageLimitMs, stopping.signal);
      if (stopping.signal.aborted) return;
      if (!waited.up) throw new WorkerOutageError(options.outageLimitMs, waited.error ?? failure);
      log.warn(
        { downMs: Date.now() - outageSince, pools: dead },
        'the database answers again: recovering the jobs in hand and starting a new runner',
      );
      try {
        await options.onUp(dead);
      } catch (error) {
        log.warn({ err: error }, 'could not recover the jobs of the stopped runner now; the recovery sweep will');
      }
    }
  })();
  done.catch(() => undefined); // the owner awaits it; never an unhandled rejection

  return {
    current: () => current,
    done,
    stop: () => stopping.abort(),
    outageSince: () => outageSince,
  };
}
