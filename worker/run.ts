import type { TaskList } from 'graphile-worker';
import { configForProcess } from '../shared/config/for-process.ts';
import type { Config, ConfigSources } from '../shared/config/index.ts';
import { connect } from '../shared/db/connect.ts';
import { schemaCheck } from '../shared/db/migrate.ts';
import { configurationProblem, isConnectionError } from '../shared/db/connection-errors.ts';
import { installDriverCrashGuard } from '../shared/db/driver-crash-guard.ts';
import { isUnsupportedServer } from '../shared/db/server-version.ts';
import { isAppError } from '../shared/errors/app-error.ts';
import type { Logger } from '../shared/log/logger.ts';
import { warnIfSecretsUnencrypted } from '../shared/webhooks/boot.ts';
import { ensureWebhookTables } from '../shared/webhooks/install.ts';
import { startTelemetry } from '../shared/telemetry/start.ts';
import { endpointStoresOnDemand } from '../shared/webhooks/endpoint-stores/on-demand.ts';
import { startMetricsServer, type MetricsServer } from './metrics-server.ts';
import { startWorker, type WorkerDeps, type WorkerHandle, type WorkerOptions } from './runner.ts';
import { WorkerOutageError } from './supervisor.ts';
import { tasks } from './tasks/index.ts';
import { listenFailureText } from '../shared/log/listen-failure.ts';

/** A worker running in the foreground until a signal drains it. */
export interface ServedWorker {
  handle: WorkerHandle;
  /** Settles with the exit code once the worker has stopped: 0 drained, 1 forced or failed. */
  stopped: Promise<number>;
  /** The port of the metrics listener (`worker.metricsPort`), when there is one. */
  metricsPort?: number;
}

/** `the 1 job in hand`, `the 3 jobs in hand`: what a drain finishes or a forced stop abandons. */
const jobsText = (jobs: number) => `the ${jobs} job${jobs === 1 ? '' : 's'} in hand`;

/**
 * Starts the worker with every task of tasks/index.ts (plus `extraTasks`) and drains it on
 * SIGINT/SIGTERM: it stops claiming jobs, finishes those it holds and records their outcomes
 * (exit code 0); a second signal forces the stop (exit code 1). Used by `runWorker` and by the
 * CLI's `jobs`.
 */
export async function serveWorker(
  deps: WorkerDeps,
  options: WorkerOptions & { extraTasks?: TaskList } = {},
): Promise<ServedWorker> {
  const { config, log } = deps;
  let metricsServer: MetricsServer | undefined;
  // the listener (metrics, /livez, /readyz) is up before the first connection to the database:
  // a worker waiting for one that is not there yet is alive, not ready
  const opened = async (early: Pick<WorkerHandle, 'metrics' | 'health'>) => {
    if (config.worker.metricsPort === null) return;
    metricsServer = await startMetricsServer({
      registry: early.metrics.registry,
      token: config.metrics.token,
      port: config.worker.metricsPort,
      host: config.host,
      health: early.health,
    });
    log.info(
      { port: metricsServer.port, behindToken: config.metrics.token !== null },
      'worker metrics listening (GET /metrics)',
    );
  };
  let started: WorkerHandle;
  try {
    started = await startWorker(deps, (resources) => ({ ...tasks(resources), ...options.extraTasks }), {
      ...options,
      opened,
    });
  } catch (error) {
    await metricsServer?.close();
    throw error;
  }
  // the metrics listener closes with the worker, however it is stopped
  const handle: WorkerHandle = {
    ...started,
    stop: async (stopOptions) => {
      try {
        await started.stop(stopOptions);
      } finally {
        await metricsServer?.close();
      }
    },
  };
  let signals = 0;
  let settle: (code: number) => void = () => {};
  const stopped = new Promise<number>((resolve) => {
    settle = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    const jobs = handle.jobsInHand();
    if (signals > 1) {
      log.warn({ signal, jobs }, `second signal: abandoning ${jobsText(jobs)}`);
      void handle.stop({ force: true }).finally(() => settle(1));
      return;
    }
    log.info(
      { signal, jobs },
      `draining: no new jobs; ${jobs === 0 ? 'no job in hand' : `finishing ${jobsText(jobs)}`}`,
    );
    void handle.stop().then(
      () => {
        log.info('worker stopped');
        settle(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'worker stopped with an error');
        settle(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // said once a signal drains the worker: one sent on seeing this line is never the default kill
  log.info({ concurrency: config.webhooks.concurrency, queue: config.webhooks.queue }, 'worker started');
  // The supervisor restarts the runner after a shorter outage; past worker.outageLimit it gives up.
  handle.ended.catch((error: unknown) => {
    if (signals > 0) return;
    if (isUnsupportedServer(error)) log.fatal(`worker stopping: ${error.message}`);
    else log.fatal({ err: error }, 'worker stopping: the database stayed away too long');
    void handle.stop({ force: true }).finally(() => settle(1));
  });
  void stopped.then(() => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  });
  return { handle, stopped, ...(metricsServer ? { metricsPort: metricsServer.port } : {}) };
}

/**
 * `webhooks.install`: the worker makes sure the tables exist before it claims a job. An endpoint
 * store elsewhere that cannot be reached does not stop the start (its table is installed after
 * the service's own tables, which are in place by then): the worker reads the store only to
 * deliver, a delivery exists only for an endpoint the store already holds, and a delivery taken
 * up while the store is down waits until it answers (its run fails and is taken up again).
 */
async function installTables(config: Config, log: Logger): Promise<void> {
  const sql = connect(config, log, { max: 1, name: 'app-worker-install' });
  const stores = endpointStoresOnDemand(config, { sql, log });
  try {
    await ensureWebhookTables({ config, sql, log, endpoints: stores.endpoints });
  } catch (error) {
    if (!isAppError(error) || error.code !== 'APP_STORE_UNAVAILABLE') throw error;
    log.warn(
      { store: stores.endpoints.name, reason: error.message },
      'endpoint store not reachable at start; deliveries wait until it answers',
    );
  } finally {
    await stores.close();
    await sql.end({ timeout: 5 });
  }
}

/**
 * `step`, waiting for a database that cannot be reached yet as the worker waits for one that goes
 * away (asked again after 250 ms, doubling to a second; a warning line the first time, ending in
 * `until`): a worker started before its database (a machine's boot, a database restarted) comes
 * up once it answers. Past `worker.outageLimit` it gives up (WorkerOutageError), and the process
 * exits 1, at once when the server refuses `DATABASE_URL` for good (a database or role it does not
 * have).
 */
async function onceReachable<T>(config: Config, log: Logger, step: () => Promise<T>, until: string): Promise<T> {
  const since = Date.now();
  for (let delay = 250, warned = false; ; delay = Math.min(delay * 2, 1000)) {
    try {
      const done = await step();
      if (warned) log.info('database answered');
      return done;
    } catch (error) {
      const away = isConnectionError(error) && configurationProblem(error) === undefined;
      if (!away) throw error;
      if (Date.now() - since >= config.worker.outageLimit)
        throw new WorkerOutageError(config.worker.outageLimit, error);
      if (!warned) {
        log.warn(
          { reason: (error as Error).message, outageLimit: config.worker.outageLimit },
          `database not reachable; the worker starts once it answers${until}`,
        );
        warned = true;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** `installTables` once the database answers. */
const installTablesOnceReachable = (config: Config, log: Logger): Promise<void> =>
  onceReachable(config, log, () => installTables(config, log), ' and its tables are installed');

/** How often a worker waiting for its database to be migrated asks again. */
export const SCHEMA_POLL_MS = 2_000;

/** What of the schema this code needs is missing (shared/db/migrate.ts `schemaCheck`), or undefined. */
async function schemaProblem(config: Config, log: Logger): Promise<string | undefined> {
  const sql = connect(config, log, { max: 1, name: 'app-worker-schema' });
  try {
    return await schemaCheck(sql)();
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * The worker starts on a database as this code needs it. One behind (its release's `app migrate`
 * not run, or not yet) is waited for, said once in one line and asked again every
 * SCHEMA_POLL_MS, as the web process answers 503 with the reason until then: started, the worker
 * would fail every heartbeat and every job. A database not reachable is waited for as at the
 * install.
 */
async function schemaCurrentOnceReachable(config: Config, log: Logger): Promise<void> {
  for (let warned = false; ; ) {
    const problem = await onceReachable(config, log, () => schemaProblem(config, log), '');
    if (problem === undefined) {
      if (warned) log.info('database migrated: the worker starts');
      return;
    }
    if (!warned) {
      log.warn({ reason: problem }, `the worker waits for its database: ${problem}; it starts once it is current`);
      warned = true;
    }
    await new Promise((resolve) => setTimeout(resolve, SCHEMA_POLL_MS));
  }
}

/**
 * Runs the worker process: on SIGINT/SIGTERM it stops claiming jobs, finishes those it holds,
 * records their outcomes, flushes its last spans (when it traces) and exits 0; a second signal
 * forces the stop (exit 1).
 */
export async function runWorker(
  options: { sources?: ConfigSources; extraTasks?: TaskList } = {},
): Promise<WorkerHandle> {
  const { config, log } = configForProcess('worker', options.sources);
  installDriverCrashGuard(log);

  warnIfSecretsUnencrypted({ config, log });
  const telemetry = await startTelemetry({ config, log }, 'worker');
  let served: ServedWorker;
  try {
    // the install applies the migrations itself; without it, they are the release step's
    if (config.webhooks.install) await installTablesOnceReachable(config, log);
    else await schemaCurrentOnceReachable(config, log);
    served = await serveWorker({ config, log, telemetry }, { extraTasks: options.extraTasks });
  } catch (error) {
    // a server too old is said in its one line, without a stack: nothing in the worker failed
    if (isUnsupportedServer(error)) log.fatal(`worker could not start: ${error.message}`);
    else
      log.fatal(
        { err: error },
        listenFailureText(error, {
          what: 'worker',
          host: config.host,
          port: config.worker.metricsPort ?? 0,
          portVariable: 'APP_WORKER__METRICS_PORT',
        }),
      );
    await telemetry.shutdown();
    process.exit(1);
  }
  // the spans of the last attempts are flushed once the worker has stopped
  void served.stopped.then(async (code) => {
    await telemetry.shutdown();
    process.exit(code);
  });
  return served.handle;
}
