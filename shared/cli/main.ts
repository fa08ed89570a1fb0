#!/usr/bin/env node
/**
 * The `app` command-line tool (package.json `bin`): operators manage the database, endpoints
 * and deliveries. Strict parsing, `--help` everywhere, `--json` for one JSON document on
 * stdout, and on failure one line on stderr and exit code 1.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { ConfigError } from '../config/index.ts';
import { commands } from './commands/index.ts';

export async function runCli(argv: string[]): Promise<void> {
  const cli = yargs(argv)
    .scriptName('app')
    .usage('$0 <command> [options]')
    .option('json', { type: 'boolean', default: false, describe: 'Print exactly one JSON document on stdout' })
    .strict()
    .demandCommand(1, 'name a command (see --help)')
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version(false)
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((message, error) => {
      throw error ?? new UsageError(message);
    });
  for (const command of commands) cli.command(command as never);
  await cli.parseAsync();
}

class UsageError extends Error {}

function oneLine(error: unknown): string {
  if (error instanceof ConfigError) return error.message.replace(/\n\s*/g, ' ');
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0];
}

if (import.meta.main) {
  try {
    await runCli(hideBin(process.argv));
    process.exitCode ??= 0;
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : `app: ${oneLine(error)}`;
    process.stderr.write(`${message}\n`);
    process.exitCode = 1;
  }
}
