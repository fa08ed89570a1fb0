/**
 * The web process as the benchmarks run it: `node api/main.ts` as the Procfile runs it
 * (NODE_ENV=production, its default configuration), on a free port of 127.0.0.1 and the
 * database `databaseUrl` names.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BENCH_SECRET, note } from './common.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface WebProcess {
  child: ChildProcess;
  port: number;
  /** What it has written so far (stdout and stderr, interleaved): its JSON log lines, Node's own notices. */
  output(): string;
  /** SIGTERM, then waits for the exit; says so (and the warnings and errors it logged) on stderr. */
  stop(): Promise<void>;
}

/**
 * Starts the web process on `databaseUrl` (`env` added to its environment, `nodeArgs` before
 * the script) and waits until it says it is ready. Unless `env` says otherwise, the global limiter
 * counts every request but refuses none (as bench:api).
 */
export async function startWebProcess(
  databaseUrl: string,
  options: { env?: Record<string, string>; nodeArgs?: readonly string[] } = {},
): Promise<WebProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), 'api/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      APP_SECRET: BENCH_SECRET,
      PORT: '0',
      APP_HOST: '127.0.0.1',
      APP_RATE_LIMIT__MAX: '1000000000',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    let found: number | undefined;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      found ??= Number(/"port":(\d+)[^\n]*web process listening/.exec(output)?.[1] ?? NaN) || undefined;
      if (found !== undefined && output.includes('web process ready')) resolve(found);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => reject(new Error(`the web process exited before it was ready:\n${output}`)));
  });
  return {
    child,
    port,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) note(`the web process exited with ${code}:\n${output.slice(-2000)}`);
      const errors = output.split('\n').filter((l) => /"level":(40|50|60)/.test(l));
      if (errors.length > 0)
        note(`web process logged ${errors.length} warnings or errors, the first:\n${errors.slice(0, 3).join('\n')}`);
    },
  };
}
