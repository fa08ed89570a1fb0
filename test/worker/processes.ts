/**
 * The worker as a real process (`node worker/main.ts`, the Procfile's `worker`), for the drain
 * and kill -9 tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves once `pattern` appears in the output. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/**
 * Starts `node worker/main.ts` on `databaseUrl` with the loopback allowed and `env` laid over
 * (e.g. `APP_WORKER__HEARTBEAT=200ms`). Killed when the file's tests end, if still running.
 */
export function spawnWorker(databaseUrl: string, env: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, ['worker/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      APP_WEBHOOKS__ALLOW_HTTP: 'true',
      APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in the worker's output:\n${text}`));
        }, timeoutMs);
        const check = () => {
          if (!pattern.test(text)) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        check();
      });
    },
  };
}
