/**
 * The worker as a real process (`node worker/main.ts`, the Procfile's `worker`), for the drain
 * and kill -9 tests.
 */
import { after } from 'node:test';
import { spawnNode, type Spawned } from '../helpers/processes.ts';

export type WorkerProcess = Spawned;

/**
 * Starts `node worker/main.ts` on `databaseUrl` with the loopback allowed and `env` laid over
 * (e.g. `APP_WORKER__HEARTBEAT=200ms`). Killed when the file's tests end, if still running.
 */
export function spawnWorker(databaseUrl: string, env: Record<string, string> = {}): WorkerProcess {
  const worker = spawnNode('worker/main.ts', {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    APP_WEBHOOKS__ALLOW_HTTP: 'true',
    APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
    ...env,
  });
  after(() => {
    if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  });
  return worker;
}
