import type { Argv } from 'yargs';
import { blankArgument } from './command-line.ts';
import type { CliContext } from './context.ts';
import { type Builder, declared } from './declared.ts';
import { currentIo, type CliIo } from './io.ts';

export interface GlobalArgs {
  json: boolean;
}

/**
 * What a command module defines: its options and its action. Its name and description live in
 * commands/index.ts. The module imports at its top only what its options need; its action imports
 * the rest when it runs (`await import(…)`), so the command's `--help` loads none of the core,
 * the database driver or the logger (test/cli/start-up.test.ts).
 */
export interface CommandAction {
  builder(yargs: Argv<GlobalArgs>): Argv<GlobalArgs>;
  /** `io` is the run's (cli/io.ts); a nested subcommand, called by yargs without it, finds it itself. */
  handler(args: GlobalArgs, io?: CliIo): Promise<void>;
}

/**
 * Declares a command's options (`builder`) and action `(context, args)`. The context (config,
 * database, printer) is made for the action and closed after it, whatever happens; it is loaded
 * only when the action runs, so `--help` never loads the config or the database driver.
 * `command`/`describe` are for subcommands declared inside a builder (`jobs show <id>`).
 */
export function defineCommand<A extends object>(spec: {
  command?: string;
  describe?: string;
  builder?: (yargs: Argv<GlobalArgs>) => Argv<A>;
  /** False for `audit`, which must read the database even when the production guard refuses the config. */
  productionGuard?: boolean;
  run: (context: CliContext, args: A & GlobalArgs) => Promise<void>;
}): CommandAction & { command: string; describe: string } {
  const builder = (spec.builder ?? ((yargs: Argv<GlobalArgs>) => yargs)) as unknown as CommandAction['builder'];
  return {
    command: spec.command ?? '',
    describe: spec.describe ?? '',
    builder,
    handler: async (args, io = currentIo()) => {
      // before the context: a blank id is the command line's fault, whatever the database holds
      const blank = blankArgument(declared(builder as Builder).positionals, args as unknown as Record<string, unknown>);
      if (blank !== undefined) throw new (await import('./failure.ts')).UsageError(blank);
      const { createCliContext } = await import('./context.ts');
      const { context, close } = await createCliContext({
        json: Boolean(args.json),
        io,
        productionGuard: spec.productionGuard ?? true,
      });
      const { cancelOnAbort } = await import('../shared/db/request-statements.ts');
      let failure: unknown;
      try {
        // a signal stopping the run cancels its statements on the server: killed, the command
        // would leave one running there (a write waiting on a lock would still be made later)
        const run = () => spec.run(context, args as unknown as A & GlobalArgs);
        await (io.interrupted ? cancelOnAbort(io.interrupted, run) : run());
      } catch (error) {
        failure = error;
        throw error;
      } finally {
        await close(failure);
      }
    },
  };
}
