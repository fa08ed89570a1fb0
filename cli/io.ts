/**
 * Where a run of the CLI reads and writes: the process's own streams and environment for the
 * `app` command, or buffers for a run inside another process (the tests run commands this way,
 * without starting Node for each). A command asks for its exit code here; it never sets
 * `process.exitCode` itself.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdout: Writable & { columns?: number };
  stderr: Writable;
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** The exit code a command asked for (a failed audit, a worker that stopped badly); 0 when none. */
  exitCode?: number;
  /**
   * The database the run's command uses and where it came from (`DATABASE_URL`, the `APP_CONFIG`
   * file, the running `npm start`), once its context is made: a failure names it.
   */
  database?: { url: string; named: string };
  /**
   * Aborts, its reason the signal's name, when SIGINT or SIGTERM stops the run
   * (cli/process-ends.ts): the command's database statements in flight are cancelled on the server.
   */
  interrupted?: AbortSignal;
}

/** The process's own streams and environment. */
export const processIo = (): CliIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});

/** Whether `io` writes to the process's own stderr (then the logger may pretty-print in development). */
export const ownStderr = (io: CliIo) => io.stderr === process.stderr;

const running = new AsyncLocalStorage<CliIo>();

/** Runs `body` as the run of `io` (what `runCli` does), so that nested subcommands find it. */
export const withIo = <T>(io: CliIo, body: () => T): T => running.run(io, body);

/** The io of the run in progress (a subcommand declared inside another's builder is given no io by yargs). */
export function currentIo(): CliIo {
  const io = running.getStore();
  if (io === undefined) throw new Error('no CLI run in progress (cli/run.ts runCli)');
  return io;
}
