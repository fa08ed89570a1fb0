import { EventEmitter } from 'node:events';
import { parseCronItems, run, runOnce, type RunnerOptions, type TaskList, type WorkerEvents } from 'graphile-worker';
import { PRUNE_SCHEDULE, PRUNE_TASK } from '../shared/webhooks/retention.ts';
import type { Dispatcher } from 'undici';
import type { Config } from '../shared/config/index.ts';
import { connect, poolFigures, type Sql } from '../shared/db/connect.ts';
import { queueAccessProblem, RolePrivilegeError } from '../shared/db/role-privileges.ts';
import type { Logger } from '../shared/log/logger.ts';
import type { HostLookup } from '../shared/webhooks/address-rules.ts';
import { createMetrics, type Metrics } from '../shared/metrics/registry.ts';
import { registerQueueGauges } from '../shared/metrics/queue-gauges.ts';
import { registerPoolGauges } from '../shared/metrics/pool-gauges.ts';
import { createPinnedDispatcher } from './delivery/pinned-dispatcher.ts';
import { createDestinations, type Destinations } from './destinations/index.ts';
import type { Telemetry } from '../shared/telemetry/start.ts';
import { endpointStoresOnDemand } from '../shared/webhooks/endpoint-stores/on-demand.ts';
import type { EndpointStores } from '../shared/webhooks/endpoint-stores/open.ts';
import type { EndpointStore } from '../shared/webhooks/endpoint-stores/types.ts';
import { createWakeUps, type WakeUps } from './delivery/wake-ups.ts';
import { workerGraphileLogger } from './graphile-log.ts';
import { releasePools, startHeartbeat, type Heartbeat } from './heartbeat.ts';
import { supervise, type Generation, type Supervisor } from './supervisor.ts';
import { watchQueueStatistics, type QueueStatisticsWatch } from './queue-statistics.ts';
import { queuePools, type QueuePool } from './queue-pool.ts';
import { watchReadOnlyFetch } from './read-only-fetch.ts';
import { requireSupportedServer, serverVersionText } from '../shared/db/server-version.ts';

export interface WorkerDeps {
  config: Config;
  log: Logger;
  /** The process's tracing (shared/telemetry/start.ts): attempts are spans while it is on. */
  telemetry?: Telemetry;
}

/**
 * What tasks get: the process's config and logger, its database pool, its HTTP dispatcher, its
 * metrics, and the wake-ups of its job queue (nudging the current runner's pool).
 */
export interface WorkerResources extends WorkerDeps {
  sql: Sql;
  /** The configured endpoint stores, each opened on first use; `endpoints` is the one of the endpoint table. */
  stores: EndpointStores;
  endpoints: EndpointStore;
  dispatcher: Dispatcher;
  /** The broker senders, each made on first use (worker/destinations/). */
  destinations: Destinations;
  /** Resolver of delivery host names, when not the system's. */
  lookup?: HostLookup;
  metrics: Metrics;
  wakeUps: WakeUps;
}

/** The task list, or a function making it from the process's resources. */
export type TaskListSource = TaskList | ((resources: WorkerResources) => TaskList);

export interface WorkerOptions {
  /** Resolver for delivery host names (tests answer with addresses they choose). */
  lookup?: HostLookup;
  /** Certificate authorities trusted for deliveries instead of Node's (tests, a private CA). */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * Called once the process's metrics and health exist, before the first connection to the
   * database: what answers `/livez` and `/readyz` is up while the worker waits for a database
   * that is not there yet (up to `worker.outageLimit`).
   */
  opened?: (early: Pick<WorkerHandle, 'metrics' | 'health'>) => void | Promise<void>;
}

export interface WorkerHandle {
  /**
   * Graceful drain: stop claiming, let the jobs held finish and record their outcomes.
   * `force` (a second signal) abandons them; graphile-worker unlocks them for another worker.
   */
  stop(options?: { force?: boolean }): Promise<void>;
  /** The heartbeat of this process (tests run a beat and sweep with `tick`). */
  heartbeat: Heartbeat;
  /** The process's metrics: deliveries by outcome, durations, lag, the queue gauges. */
  metrics: Metrics;
  /**
   * Settles when the worker ends by itself: rejects with WorkerOutageError when the database
   * stayed away longer than `worker.outageLimit` (the supervisor restarts the runner after any
   * shorter outage); resolves after `stop()`.
   */
  ended: Promise<void>;
  /** Whether a runner is running now and its heartbeat is fresh (the worker's readiness). */
  health(): WorkerHealth;
  /**
   * Jobs the running runner's workers are performing now, which a drain finishes (those fetched
   * but not started go back to the queue); 0 while no runner runs.
   */
  jobsInHand(): number;
}

export interface WorkerHealth {
  running: boolean;
  /** Since when the database has been away (a runner is being restarted), or null. */
  outageSince: Date | null;
  /** When the heartbeat last succeeded, or null. */
  lastHeartbeat: Date | null;
  /** Running, with a heartbeat no older than three intervals. */
  ready: boolean;
}

/**
 * How the runner is tuned for many short jobs, derived from
 * `webhooks.concurrency` (c):
 * - a local queue of 2c jobs: the pool locks a batch in one query and hands jobs to its
 *   workers without a round trip each; unstarted jobs go back on a clean stop and are
 *   recovered by the sweep after a crash;
 * - completions batched over 2 ms (one DELETE for many jobs); a crash inside that window only
 *   re-runs jobs whose delivery is already recorded, which the task then skips;
 * - graphile-worker's own pool (`pgPool`, worker/queue-pool.ts): up to min(c, 32) + 2
 *   connections, opened on demand, each replaced after `db.maxLifetime`. With the local queue
 *   and batched completion no job holds a connection and a handful are in use at any c: the
 *   ceiling stays at 34 however many deliveries a worker runs at once;
 * - the service's own pool (`db.poolMax`): claims and outcomes are batched (one statement in
 *   flight for each), so a few connections carry any concurrency;
 * - the drain waits for attempts in flight up to `webhooks.timeout` before aborting.
 */
/** graphile-worker's own pool at most (see `runnerOptions`): its `pgPool`'s `max`. */
export const graphilePoolSize = (config: Config): number => Math.min(config.webhooks.concurrency, 32) + 2;

/** Jobs a local queue fetches at once (see `runnerOptions`). */
export const localQueueSize = (config: Config): number => Math.max(2, config.webhooks.concurrency * 2);

export function runnerOptions(
  config: Config,
  logger: Logger,
  events: WorkerEvents,
  taskList: TaskList,
  pgPool: QueuePool,
  hooks: { stopping?: () => boolean; fetchFailed?: (error: unknown) => void } = {},
): RunnerOptions {
  const concurrency = config.webhooks.concurrency;
  return {
    pgPool,
    concurrency,
    pollInterval: config.worker.pollInterval,
    noHandleSignals: true,
    logger: workerGraphileLogger(logger, hooks),
    events,
    taskList,
    parsedCronItems: cronItems(),
    gracefulShutdownAbortTimeout: config.webhooks.timeout + 5_000,
    preset: {
      worker: {
        localQueue: { size: localQueueSize(config) },
        completeJobBatchDelay: 2,
        failJobBatchDelay: 2,
      },
    },
  };
}

/**
 * The worker's schedule (graphile-worker cron: each item runs once per match across all workers,
 * no backfill after downtime): `app/prune` every hour, whatever the retention. With both
 * retentions off it removes nothing, but it still makes the weeks' partitions ahead, disables the
 * endpoints failing for `webhooks.disableAfter` and removes ended sessions.
 */
export function cronItems() {
  return parseCronItems([
    {
      task: PRUNE_TASK,
      identifier: PRUNE_TASK,
      match: PRUNE_SCHEDULE,
      options: { backfillPeriod: 0, maxAttempts: 1, jobKey: PRUNE_TASK },
    },
  ]);
}

/** The database pool and the HTTP dispatcher of a worker process. */
function openResources(deps: WorkerDeps, options: WorkerOptions): WorkerResources {
  const { config, log } = deps;
  if (!config.databaseUrl) throw new Error('no database configured: set DATABASE_URL');
  const sql = connect(config, log, { name: 'app-worker' });
  const metrics = createMetrics({ process: 'worker' });
  registerQueueGauges(metrics.registry, { sql, log, staleAfterMs: config.worker.staleAfter });
  registerPoolGauges(metrics.registry, poolFigures(sql), { sql });
  const dispatcher = createPinnedDispatcher({
    allowPrivate: config.webhooks.allowPrivate,
    connectTimeoutMs: config.webhooks.timeout,
    connections: config.webhooks.concurrency,
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  const stores = endpointStoresOnDemand(config, { sql, log });
  const destinations = createDestinations({ log, ...(options.ca === undefined ? {} : { ca: options.ca }) });
  return {
    ...deps,
    sql,
    stores,
    endpoints: stores.endpoints,
    dispatcher,
    destinations,
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    metrics,
    wakeUps: createWakeUps(),
  };
}

async function closeResources(resources: WorkerResources, force: boolean): Promise<void> {
  resources.wakeUps.stop();
  await (force ? resources.dispatcher.destroy() : resources.dispatcher.close()).catch(() => undefined);
  await resources.destinations.close();
  await resources.stores.close().catch(() => undefined);
  await resources.sql.end({ timeout: force ? 0 : 5 }).catch(() => undefined);
}

/**
 * Events of a runner generation: its pools are fed to the heartbeat (and listed, so that the
 * supervisor knows which pools died with it). Each fetch of a local queue (at most `fetchSize`
 * jobs) is reported to the job table's statistics watch. The process's wake-ups nudge the newest
 * pool.
 */
function poolEvents(heartbeat: Heartbeat, statistics: QueueStatisticsWatch, fetchSize: number, wakeUps: WakeUps) {
  return {
    /**
     * Events for one generation; its worker pool ids are pushed into `pools`, and `onFatal` runs
     * when graphile-worker declares the pool's state lost (it could not complete or fail jobs).
     */
    generation(pools: string[], onFatal: () => void = () => {}): WorkerEvents {
      const events = new EventEmitter() as WorkerEvents;
      events.on('pool:fatalError', onFatal);
      // a full fetch means a backlog: the job table's statistics are checked (queue-statistics.ts)
      events.on('localQueue:getJobs:complete', ({ jobs }) => statistics.fetched(jobs.length, fetchSize));
      events.on('pool:create', ({ workerPool }) => {
        pools.push(workerPool.id);
        heartbeat.add(workerPool.id);
        wakeUps.attach((count) => workerPool.nudge(count));
      });
      return events;
    },
  };
}

/**
 * Starts the worker: the graphile-worker runner with the given tasks under a supervisor that
 * starts it again after a database outage (worker/supervisor.ts), a heartbeat and the recovery
 * sweep (worker/heartbeat.ts). Signals are ours, not graphile-worker's (noHandleSignals), so
 * the process decides how to drain. Resolves once the first runner runs, or rejects when the
 * database does not answer within `worker.outageLimit` or is a PostgreSQL older than the minimum
 * (checked once the database first answers, before the first runner starts).
 */
export async function startWorker(
  deps: WorkerDeps,
  taskList: TaskListSource,
  options: WorkerOptions = {},
): Promise<WorkerHandle> {
  const resources = openResources(deps, options);
  const { config, log } = deps;
  const heartbeat = startHeartbeat(resources);
  const pools = poolEvents(heartbeat, watchQueueStatistics(resources), localQueueSize(config), resources.wakeUps);
  const queue = queuePools(config, log, graphilePoolSize(config));
  const list = typeof taskList === 'function' ? taskList(resources) : taskList;
  let stopRequested = false;
  let serverChecked = false;
  const allPools: string[] = [];
  let firstStart: (() => void) | undefined;
  const started = new Promise<void>((resolve) => {
    firstStart = resolve;
  });
  const supervisor: Supervisor = supervise({
    sql: resources.sql,
    log,
    outageLimitMs: config.worker.outageLimit,
    async start(): Promise<Generation> {
      const generationPools: string[] = [];
      // After a fatal error (the database gone mid-job) graphile-worker's graceful shutdown keeps
      // trying to hand its jobs back until its abort timeout; without a database that cannot
      // succeed, so the runner is stopped at once (its jobs are recovered when the database is back).
      let runner: Awaited<ReturnType<typeof run>> | undefined;
      let declareFatal: () => void = () => {};
      const fatal = new Promise<void>((resolve) => {
        declareFatal = resolve;
      });
      const onFatal = () => {
        declareFatal();
        void runner?.kill('the database went away').catch(() => undefined);
      };
      const readOnlyFetch = watchReadOnlyFetch({
        log,
        lastWrite: () => heartbeat.lastSuccessAt(),
        restart: () => {
          declareFatal();
          void runner?.kill('its job fetch stays refused as read-only').catch(() => undefined);
        },
      });
      const events = pools.generation(generationPools, onFatal);
      events.on('localQueue:getJobs:complete', () => readOnlyFetch.fetched());
      // graphile-worker's Runner does not say which jobs its workers hold (its pool's workers are
      // internal); its events do: `job:start` when a worker takes one up, `job:complete` once the
      // job has ended and its outcome is handed to be recorded, success or failure. A generation
      // whose pool failed fatally (no `job:complete` for the job in hand) is replaced, and its
      // count with it.
      let inHand = 0;
      events.on('job:start', () => {
        inHand += 1;
      });
      events.on('job:complete', () => {
        inHand -= 1;
      });
      // before the first runner: a server older than the minimum ends the worker (the supervisor gives up)
      if (!serverChecked) {
        const version = await requireSupportedServer(resources.sql);
        log.info({ serverVersionNum: version }, `database server: PostgreSQL ${serverVersionText(version)}`);
        serverChecked = true;
      }
      // a role that neither owns the job queue nor bypasses its row security would see no job
      const access = await queueAccessProblem(resources.sql);
      if (access !== undefined) throw new RolePrivilegeError(`the job runner cannot start: ${access}`);
      const pgPool = queue.open();
      try {
        runner = await run(
          runnerOptions(config, log, events, list, pgPool, {
            stopping: () => stopRequested,
            fetchFailed: (error) => readOnlyFetch.failed(error),
          }),
        );
      } catch (error) {
        void queue.end(pgPool);
        throw error;
      }
      // a runner that ends unasked (an outage) is replaced by one with a pool of its own; a stop
      // asked for ends every pool once the runner has stopped (`stop`)
      void runner.promise
        .catch(() => undefined)
        .then(() => {
          if (!stopRequested) void queue.end(pgPool);
        });
      allPools.push(...generationPools);
      firstStart?.();
      return { runner, pools: generationPools, fatal, jobsInHand: () => inHand };
    },
    onDown: (dead) => heartbeat.remove(dead),
    onUp: (dead) => releasePools(resources, dead),
    lastContact: () => heartbeat.lastSuccessAt(),
    watchEveryMs: Math.min(1_000, config.worker.heartbeat),
  });
  const ended = supervisor.done;
  const health = (): WorkerHealth => {
    const running = supervisor.current() !== undefined;
    const last = heartbeat.lastSuccessAt();
    const since = supervisor.outageSince();
    return {
      running,
      outageSince: since === undefined ? null : new Date(since),
      lastHeartbeat: last === undefined ? null : new Date(last),
      ready: running && last !== undefined && Date.now() - last <= 3 * config.worker.heartbeat,
    };
  };
  try {
    await options.opened?.({ metrics: resources.metrics, health });
    await Promise.race([started, ended]);
  } catch (error) {
    supervisor.stop();
    await heartbeat.stop();
    await closeResources(resources, true);
    await queue.endAll();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    heartbeat,
    metrics: resources.metrics,
    ended,
    health,
    jobsInHand: () => supervisor.current()?.jobsInHand?.() ?? 0,
    stop({ force = false } = {}) {
      stopRequested = true;
      supervisor.stop();
      const runner = supervisor.current()?.runner;
      if (force) {
        return (runner ? runner.kill('forced by a second signal') : Promise.resolve()).finally(async () => {
          await heartbeat.stop({ release: true });
          await closeResources(resources, true);
          await queue.endAll();
        });
      }
      stopping ??= (runner ? runner.stop('graceful shutdown') : Promise.resolve()).finally(async () => {
        await ended.catch(() => undefined);
        // Jobs prefetched but not started go back to the queue now, whatever graphile-worker
        // managed (see worker/graphile-log.ts): nothing of ours runs any more.
        await releasePools(resources, allPools).catch((error: unknown) =>
          log.warn(
            { err: error },
            'could not hand back the prefetched jobs; the recovery sweep of another worker will',
          ),
        );
        await heartbeat.stop({ forget: true });
        await closeResources(resources, false);
        // graphile-worker does not end a pool it was given
        await queue.endAll();
      });
      return stopping;
    },
  };
}

/**
 * `jobs --once`: performs every job that is due (graphile-worker's runOnce), with the heartbeat
 * and a recovery sweep first, then returns.
 */
export async function runWorkerOnce(
  deps: WorkerDeps,
  taskList: TaskListSource,
  options: WorkerOptions = {},
): Promise<void> {
  const resources = openResources(deps, options);
  const heartbeat = startHeartbeat(resources);
  const pools = poolEvents(heartbeat, watchQueueStatistics(resources), localQueueSize(deps.config), resources.wakeUps);
  const queue = queuePools(deps.config, deps.log, graphilePoolSize(deps.config));
  try {
    await heartbeat.tick();
    const list = typeof taskList === 'function' ? taskList(resources) : taskList;
    await runOnce(runnerOptions(deps.config, deps.log, pools.generation([]), list, queue.open()));
  } finally {
    await heartbeat.stop({ forget: true });
    await closeResources(resources, false);
    await queue.endAll();
  }
}
