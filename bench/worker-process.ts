/**
 * The delivery worker as the benchmarks run it: `bench/worker.ts` (the real worker plus a no-op
 * task) in a process of its own, as the Procfile runs it (NODE_ENV=production, its default
 * configuration but the loopback allowed), on the benchmark's database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BENCH_SECRET, note, type BenchDatabase } from './common.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  /** What it has written so far (stdout and stderr, interleaved): its JSON log lines. */
  output(): string;
  /** SIGTERM, then waits for the exit; throws when it exits other than 0. */
  stop(): Promise<void>;
}

/**
 * Starts the worker on `db` (`env` added to its environment) and waits until it says it started;
 * `onSpawn` hears its process id at once (it may deliver before it says so).
 */
export async function startWorkerProcess(
  db: BenchDatabase,
  env: Record<string, string> = {},
  onSpawn?: (pid: number) => void,
): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean), 'bench/worker.ts'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        DATABASE_URL: db.url,
        APP_SECRET: BENCH_SECRET,
        APP_WEBHOOKS__ALLOW_HTTP: 'true',
        APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (child.pid !== undefined) onSpawn?.(child.pid);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker started')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => reject(new Error(`the worker exited before starting:\n${output}`)));
  });
  return {
    child,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`the worker exited with ${code}:\n${output.slice(-2000)}`);
      if (/"level":(50|60)/.test(output))
        note(
          `worker logged errors:\n${output
            .split('\n')
            .filter((l) => /"level":(50|60)/.test(l))
            .slice(0, 5)
            .join('\n')}`,
        );
    },
  };
}
