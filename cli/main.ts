#!/usr/bin/env node
/**
 * The `app` command-line tool (package.json `bin`): operators manage the database, endpoints
 * and deliveries. On failure: one line on stderr (with `--json`, one JSON document
 * `{error: {code, message}}` on stdout) and an exit code from cli/failure.ts.
 *
 * Node's compile cache is turned on before anything else loads, so a command's modules are
 * parsed (and type-stripped) once per version rather than at every run.
 */
import { enableCompileCache } from 'node:module';

enableCompileCache?.();

const { runCli } = await import('./run.ts');
const { failureOf, UsageError } = await import('./failure.ts');

const argv = process.argv.slice(2);
try {
  await runCli(argv);
  process.exitCode ??= 0;
} catch (error) {
  const databaseUrl = process.env.DATABASE_URL ?? process.env.APP_DATABASE_URL;
  const failure = failureOf(error, databaseUrl);
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: { code: failure.code, message: failure.message } })}\n`);
  } else {
    const usage = error instanceof UsageError && error.usage ? `${error.usage}\n\n` : '';
    process.stderr.write(`${usage}app: ${failure.message}\n`);
  }
  process.exitCode = failure.exit;
}
