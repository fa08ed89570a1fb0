/**
 * The `app` command line: yargs with strict parsing, `--help` and an example on every command,
 * `--version`, `--json` for one JSON document on stdout, shell completion. Only the module of the
 * command being run is loaded; the others are listed from commands/index.ts by name alone.
 */
import { readFileSync } from 'node:fs';
import yargs, { type Argv } from 'yargs';
import type { CommandAction, GlobalArgs } from './command.ts';
import { commandLineRules } from './command-line.ts';
import { COMMANDS, commandName, type CommandEntry } from './commands/index.ts';
import { type Builder, declared } from './declared.ts';
import { UsageError } from './failure.ts';
import { withIo, type CliIo } from './io.ts';

const version = (): string =>
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The first word of the command line that is not an option: the command's name, if any. */
const firstWord = (argv: readonly string[]) => argv.find((word) => !word.startsWith('-'));

/**
 * yargs' "Unknown argument: x" when `x`, the first word, names no command, said as what it is: an
 * unknown command, with the commands of its family when it names one (`app webhooks`), or with
 * the command yargs suggests for a misspelt one (its bare "Did you mean webhooks:list?" would
 * not say what was wrong). Undefined when the message is about something else.
 */
function unknownCommand(name: string, message: string): string | undefined {
  const suggested = /^Did you mean (.+)\?$/.exec(message)?.[1];
  if (suggested !== undefined) return `unknown command ${name}: did you mean ${suggested}?`;
  const unknown = /^Unknown arguments?: (.*)$/.exec(message)?.[1].split(', ') ?? [];
  if (!unknown.includes(name)) return undefined;
  const family = COMMANDS.map(commandName).filter((command) => command.startsWith(`${name}:`));
  return family.length > 0
    ? `unknown command ${name}: the ${name} commands are ${family.join(', ')}`
    : `unknown command ${name} (app --help lists the commands)`;
}

/** A usage error of `command` (the instance its builder declared options on), with its usage. */
function usageError(command: Argv<GlobalArgs>, entry: CommandEntry, message: string): UsageError {
  // yargs sets the command's usage line after its builder: set here, so the usage starts as it does elsewhere
  command.usage(`$0 ${entry.command}`, entry.describe);
  let usage = '';
  command.showHelp((text: string) => {
    usage = text;
  });
  return new UsageError(message, usage);
}

/**
 * Parses `argv` (without the node and script paths) and runs the command it names with `io`.
 * yargs never exits the process and never prints itself: its help, version and completion text
 * goes to `io.stdout`. Before yargs reads the command's options, the line is checked against the
 * rules yargs does not keep (command-line.ts).
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
      const reason = selected === undefined && name !== undefined ? unknownCommand(name, message) : undefined;
      throw new UsageError(reason ?? message, usage);
    });
  for (const entry of COMMANDS) {
    const chosen = entry === selected && action !== undefined;
    cli.command({
      command: entry.command,
      describe: entry.describe,
      builder: (command: Argv<GlobalArgs>) => {
        if (!chosen) return command;
        for (const [line, what] of entry.examples) command.example(line, what);
        // `--json`, declared above for every command, keeps the rules of a boolean too
        const { options } = declared(action.builder as Builder);
        const rules = commandLineRules({ options: [...options, ['json', { type: 'boolean' }]] });
        const built = action.builder(command);
        for (const name of rules.singleValued) built.nargs(name, 1);
        const problem = rules.problem(argv);
        if (problem !== undefined) throw usageError(built, entry, problem);
        return built;
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
