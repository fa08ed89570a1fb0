import type { TaskList } from 'graphile-worker';
import { ConfigError, resolveConfig, type ConfigSources } from '../shared/config/index.ts';
import { createLogger } from '../shared/log/logger.ts';
import { startWorker, type WorkerHandle } from './runner.ts';
import { tasks } from './tasks/index.ts';

/**
 * Runs the worker process: on SIGINT/SIGTERM it stops claiming jobs, finishes those it holds,
 * records their outcomes and exits 0; a second signal forces the stop (exit 1).
 */
export async function runWorker(options: { sources?: ConfigSources; extraTasks?: TaskList } = {}): Promise<WorkerHandle> {
  let resolved;
  try {
    resolved = resolveConfig(options.sources);
  } catch (error) {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const { config, warnings } = resolved;
  const log = createLogger(config, { name: 'worker' });
  for (const warning of warnings) log.warn(warning);

  let handle: WorkerHandle;
  try {
    handle = await startWorker({ config, log }, { ...tasks({ config, log }), ...options.extraTasks });
  } catch (error) {
    log.fatal({ err: error }, 'worker could not start');
    process.exit(1);
  }
  log.info({ concurrency: config.webhooks.concurrency }, 'worker started');
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      log.warn({ signal }, 'second signal: abandoning the jobs in hand');
      void handle.stop({ force: true }).finally(() => process.exit(1));
      return;
    }
    log.info({ signal }, 'draining: no new jobs; finishing the jobs in hand');
    void handle.stop().then(
      () => {
        log.info('worker stopped');
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'worker stopped with an error');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return handle;
}
