/**
 * One run of the `app` command: parse and run `argv` with `io`, and answer the exit code. On
 * failure: one line on stderr (with `--json`, one JSON document `{error: {code, message}}` on
 * stdout), the command's usage first for a usage error, and an exit code from failure.ts.
 */
import type { CliIo } from './io.ts';
import { runCli } from './run.ts';
import { failureOf, UsageError } from './failure.ts';
import { terminalText } from './support/text-forms.ts';

export async function runApp(argv: string[], io: CliIo): Promise<number> {
  try {
    await runCli(argv, io);
    return io.exitCode ?? 0;
  } catch (error) {
    const failure = io.database
      ? failureOf(error, io.database.url, io.database.named)
      : failureOf(error, io.env.DATABASE_URL ?? io.env.APP_DATABASE_URL);
    if (argv.includes('--json')) {
      io.stdout.write(`${JSON.stringify({ error: { code: failure.code, message: failure.message } })}\n`);
    } else {
      const usage = error instanceof UsageError && error.usage ? `${error.usage}\n\n` : '';
      io.stderr.write(`${usage}app: ${terminalText(failure.message)}\n`);
    }
    return failure.exit;
  }
}
