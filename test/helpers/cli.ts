/**
 * The `app` CLI run inside the test process: cli/app.ts over buffers for stdout and stderr, an
 * empty stdin that is not a terminal, and exactly the environment given. It does what a spawned
 * `node cli/main.ts` does without starting Node for every command; test/cli/run.test.ts keeps
 * spawning the real process for exit codes and the separation of stdout and stderr.
 */
import { Readable, Writable } from 'node:stream';
import { runApp } from '../../cli/app.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function buffer(onWrite?: (text: string) => void): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      onWrite?.(chunks.join(''));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * Runs `app <args>` with `env` as its whole environment (and `stdin` as its standard input, a
 * terminal with `terminal`); `onStdout` is called with everything printed so far after each
 * write (to act while a long-running command such as `listen` runs).
 */
export async function runAppInProcess(
  args: string[],
  env: Record<string, string | undefined>,
  options: { stdin?: string; terminal?: boolean; onStdout?: (text: string) => void } = {},
): Promise<CliRun> {
  const stdout = buffer(options.onStdout);
  const stderr = buffer();
  const stdin: Readable & { isTTY?: boolean } = Readable.from(
    options.stdin === undefined ? [] : [Buffer.from(options.stdin)],
  );
  if (options.terminal) stdin.isTTY = true;
  const code = await runApp(args, { stdout: stdout.stream, stderr: stderr.stream, stdin, env: { ...env } });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * The environment of an operator's commands against the database `databaseUrl`, receivers on
 * this machine allowed, with `extra` laid over.
 */
export const cliEnvironment = (databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  NODE_ENV: 'test',
  DATABASE_URL: databaseUrl,
  APP_WEBHOOKS__ALLOW_HTTP: 'true',
  APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
  ...extra,
});
