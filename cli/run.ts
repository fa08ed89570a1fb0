/**
 * The `app` command line: yargs with strict parsing, `--help` and an example on every command,
 * `--version`, `--json` for one JSON document on stdout, shell completion. Only the module of the
 * command being run is loaded; the others are listed from commands/index.ts by name alone.
 */
import { readFileSync } from 'node:fs';
import yargs, { type Argv } from 'yargs';
import type { CommandAction, GlobalArgs } from './command.ts';
import { COMMANDS, commandName } from './commands/index.ts';
import { UsageError } from './failure.ts';
import { withIo, type CliIo } from './io.ts';

const version = (): string =>
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The first word of the command line that is not an option: the command's name, if any. */
const firstWord = (argv: readonly string[]) => argv.find((word) => !word.startsWith('-'));

/**
 * Parses `argv` (without the node and script paths) and runs the command it names with `io`.
 * yargs never exits the process and never prints itself: its help, version and completion text
 * goes to `io.stdout`.
 */
export async function runCli(argv: string[], io: CliIo): Promise<void> {
  const name = firstWord(argv);
  const selected = COMMANDS.find((entry) => commandName(entry) === name);
  const action: CommandAction | undefined = selected ? await selected.load() : undefined;

  const cli: Argv<GlobalArgs> = yargs(argv)
    .scriptName('app')
    .usage('$0 <command> [options]')
    .option('json', { type: 'boolean', default: false, describe: 'Print exactly one JSON document on stdout' })
    .strict()
    .demandCommand(1, 'name a command (see --help)')
    .recommendCommands()
    .completion('completion', 'Print a shell completion script (bash, zsh): app completion >> ~/.bashrc')
    .help()
    .alias('h', 'help')
    .version(version())
    .alias('v', 'version')
    .exitProcess(false)
    .wrap(Math.min(110, io.stdout.columns || 100))
    .epilogue('Exit codes: 0 done, 1 failed, 2 wrong usage, 3 not found, 4 database unavailable.')
    .fail((message, error, instance) => {
      if (error) throw error;
      let usage = '';
      instance.showHelp((text: string) => {
        usage = text;
      });
      throw new UsageError(message, usage);
    });
  for (const entry of COMMANDS) {
    const chosen = entry === selected && action !== undefined;
    cli.command({
      command: entry.command,
      describe: entry.describe,
      builder: (command: Argv<GlobalArgs>) => {
        if (!chosen) return command;
        for (const [line, what] of entry.examples) command.example(line, what);
        return action.builder(command);
      },
      handler: chosen ? (args: GlobalArgs) => action.handler(args, io) : () => {},
    });
  }
  await withIo(io, () =>
    cli.parseAsync(argv, (_error: unknown, _argv: unknown, output: string) => {
      if (output) io.stdout.write(`${output}\n`);
    }),
  );
}
