/**
 * A throwaway Redis for the tests: `redis-server` on a free loopback port, no persistence,
 * stopped when the file's tests end. When redis-server is not installed, `REDIS_SKIP` says so
 * and the Redis cases are skipped with that reason (never silently).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { after } from 'node:test';
import { freePort } from '../../helpers/ports.ts';

const installed = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** `false` when Redis can run here, else the reason to skip (for `{ skip: REDIS_SKIP }`). */
export const REDIS_SKIP: string | false = installed ? false : 'redis-server not installed';

export { freePort };

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (kill), e.g. to show the store going away. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty). */
  restart(): Promise<void>;
}

const running = new Set<ChildProcess>();
after(async () => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  await new Promise<void>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${text}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (/Ready to accept connections/.test(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}):\n${text}`));
    });
  });
  child.removeAllListeners('exit');
  return child;
}

/** Starts a Redis for this file. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child = await launch(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      running.delete(child);
    },
    async restart() {
      child = await launch(port);
    },
  };
}
