/**
 * One run of the `app` command: parse and run `argv` with `io`, and answer the exit code. On
 * failure: one line on stderr (with `--json`, one JSON document `{error: {code, message}}` on
 * stdout), the command's usage first for a usage error, and an exit code from failure.ts. A run
 * stopped by a signal (`io.interrupted`) says so, whatever its cancelled statements threw.
 */
import type { CliIo } from './io.ts';
import { jsonRequested } from './json-option.js';
import { runCli } from './run.ts';
import { type Failure, failureOf, type InterruptingSignal, interruptedFailure, UsageError } from './failure.ts';
import { terminalText } from './support/text-forms.ts';

/** Says `failure` as the run of `argv` says failures: the JSON document with `--json`, else the `app:` line after `usage`. */
export function reportFailure(argv: readonly string[], io: CliIo, failure: Failure, usage = ''): void {
  if (jsonRequested(argv)) {
    io.stdout.write(`${JSON.stringify({ error: { code: failure.code, message: failure.message } })}\n`);
  } else {
    io.stderr.write(`${usage}app: ${terminalText(failure.message)}\n`);
  }
}

export async function runApp(argv: string[], io: CliIo): Promise<number> {
  try {
    await runCli(argv, io);
    return io.exitCode ?? 0;
  } catch (error) {
    if (io.interrupted?.aborted) {
      const failure = interruptedFailure(io.interrupted.reason as InterruptingSignal);
      io.exitCode = failure.exit;
      reportFailure(argv, io, failure);
      return failure.exit;
    }
    const failure = io.database
      ? failureOf(error, io.database.url, io.database.named)
      : failureOf(error, io.env.DATABASE_URL ?? io.env.APP_DATABASE_URL);
    const usage = error instanceof UsageError && error.usage ? `${error.usage}\n\n` : '';
    // the exit code is known before the report is written, to a reader that may have gone
    io.exitCode = failure.exit;
    reportFailure(argv, io, failure, usage);
    return failure.exit;
  }
}
