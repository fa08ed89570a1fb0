/**
 * How the CLI fails: one line on stderr (or, with `--json`, one JSON document
 * `{error: {code, message}}` on stdout) and an exit code that says what kind of failure it was,
 * so scripts can tell "not there" from "try again later".
 */
import { ConfigError } from '../shared/config/config-error.ts';
import { configurationProblem, isConnectionError } from '../shared/db/connection-errors.ts';
import { isAppError } from '../shared/errors/app-error.ts';
import { pgErrorToAppError } from '../shared/errors/pg-errors.ts';
import { pgRefusal } from '../shared/errors/pg-refusals.ts';

/** Exit codes of the `app` CLI (README, Command-line tool). */
export const EXIT = {
  ok: 0,
  /** The command failed: refused input, a conflict, an invalid configuration, a PostgreSQL older than the minimum. */
  failure: 1,
  /** The command line itself is wrong: unknown command or option, missing or invalid argument. */
  usage: 2,
  /** The record named does not exist. */
  notFound: 3,
  /** The database (or a store it needs) cannot be reached, or refuses the work for now (read-only, out of resources, a lock or time limit). */
  unavailable: 4,
} as const;

/**
 * The signals that stop a run (cli/process-ends.ts). The process ends killed by the signal
 * itself, so a shell reports 128 + its number (130, 143) and a script's own Ctrl-C handling sees
 * the child die of it; `--json` reports that exit code.
 */
export const INTERRUPTING_SIGNALS = { SIGINT: 2, SIGTERM: 15 } as const;
export type InterruptingSignal = keyof typeof INTERRUPTING_SIGNALS;

/** A run stopped by `signal`: its database statements in flight were cancelled (cli/command.ts). */
export const interruptedFailure = (signal: InterruptingSignal): Failure => ({
  exit: 128 + INTERRUPTING_SIGNALS[signal],
  code: 'APP_CLI_INTERRUPTED',
  message: `interrupted by ${signal}; its database statements in flight, if any, were cancelled`,
});

/** A command line the CLI cannot run; `usage` is the help of the command concerned. */
export class UsageError extends Error {
  readonly usage: string;
  constructor(message: string, usage = '') {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
  }
}

export interface Failure {
  exit: number;
  code: string;
  message: string;
}

/** Where the database is, for messages: host and port of `databaseUrl`, never its credentials. */
export function databaseHost(databaseUrl: string | null | undefined): string {
  if (!databaseUrl) return 'no DATABASE_URL';
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  } catch {
    return 'an unparsable DATABASE_URL';
  }
}

/**
 * True when `error` says the database cannot be reached. An AppError says itself what failed (a
 * store that does not answer wraps the socket error it met, which is not the database's).
 */
export const isDatabaseUnreachable = (error: unknown): boolean => !isAppError(error) && isConnectionError(error);

/**
 * What a thrown error means for the CLI: its exit code, a stable code and the message. `named`
 * says where `databaseUrl` came from, for the message (`DATABASE_URL`, or another source:
 * cli/context.ts).
 */
export function failureOf(error: unknown, databaseUrl?: string | null, named = 'DATABASE_URL'): Failure {
  const message = error instanceof Error ? error.message : String(error);
  // one line, whoever wrote the message (yargs writes some on several)
  if (error instanceof UsageError)
    return { exit: EXIT.usage, code: 'APP_CLI_USAGE', message: message.trim().replace(/\s*\n\s*/g, ' ') };
  if (error instanceof ConfigError)
    return { exit: EXIT.failure, code: 'APP_CONFIG_INVALID', message: message.replace(/\n\s*/g, ' ') };
  if (isDatabaseUnreachable(error)) {
    const refused = configurationProblem(error);
    const reason = refused ? `${refused.problem} (${refused.reason})` : message.split('\n')[0];
    return {
      exit: EXIT.unavailable,
      code: 'APP_DATABASE_UNAVAILABLE',
      message: `cannot reach the database at ${databaseHost(databaseUrl)} (${named}): ${reason}`,
    };
  }
  const refusal = pgRefusal(error);
  if (refusal) {
    // an operator reads this: the server's own words, not the API's gentler detail
    const sqlstate = (error as { code: string }).code;
    return {
      exit: EXIT.unavailable,
      code: refusal.code,
      message: `the database at ${databaseHost(databaseUrl)} refused for now (SQLSTATE ${sqlstate}): ${message.split('\n')[0]}`,
    };
  }
  // a PostgreSQL error of a known class, as the web process answers it (a table missing: run app migrate)
  const known = isAppError(error) ? error : pgErrorToAppError(error);
  if (known) {
    const exit = known.status === 404 ? EXIT.notFound : known.status === 503 ? EXIT.unavailable : EXIT.failure;
    // a store that does not answer, or has no table: why, as its driver said it (a refused connection, an unknown database)
    const cause =
      (known.code === 'APP_STORE_UNAVAILABLE' || known.code === 'APP_STORE_NOT_INSTALLED') &&
      known.cause instanceof Error
        ? known.cause.message
        : '';
    const line = known.message.split('\n')[0];
    return { exit, code: known.code ?? 'APP_CLI_FAILED', message: cause ? `${line}: ${cause.split('\n')[0]}` : line };
  }
  return { exit: EXIT.failure, code: 'APP_CLI_FAILED', message: message.split('\n')[0] };
}
