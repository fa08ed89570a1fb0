import { run, type Runner, type TaskList } from 'graphile-worker';
import type { Config } from '../shared/config/index.ts';
import { graphileLogger } from '../shared/db/graphile-logger.ts';
import type { Logger } from '../shared/log/logger.ts';

export interface WorkerDeps {
  config: Config;
  log: Logger;
}

export interface WorkerHandle {
  runner: Runner;
  /**
   * Graceful drain: stop claiming, let the jobs held finish and record their outcomes.
   * `force` (a second signal) abandons them; graphile-worker unlocks them for another worker.
   */
  stop(options?: { force?: boolean }): Promise<void>;
}

/**
 * Starts the graphile-worker runner with the given tasks. Signals are ours, not
 * graphile-worker's (noHandleSignals), so the process decides how to drain.
 */
export async function startWorker(deps: WorkerDeps, taskList: TaskList): Promise<WorkerHandle> {
  const { config, log } = deps;
  if (!config.databaseUrl) throw new Error('no database configured: set DATABASE_URL');
  const runner = await run({
    connectionString: config.databaseUrl,
    concurrency: config.webhooks.concurrency,
    pollInterval: config.worker.pollInterval,
    noHandleSignals: true,
    logger: graphileLogger(log),
    taskList,
  });
  let stopping: Promise<void> | undefined;
  return {
    runner,
    stop({ force = false } = {}) {
      if (force) return runner.kill('forced by a second signal');
      stopping ??= runner.stop('graceful shutdown');
      return stopping;
    },
  };
}
