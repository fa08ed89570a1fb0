import type { Argv, CommandModule } from 'yargs';
import { createCliContext, type CliContext } from './context.ts';

export interface GlobalArgs {
  json: boolean;
}

/**
 * Declares a command: yargs options plus an action `(context, args)`. The context (config,
 * database, printer) is made for the action and closed after it, whatever happens.
 */
export function defineCommand<A extends object>(spec: {
  command: string;
  describe: string;
  builder?: (yargs: Argv<GlobalArgs>) => Argv<A>;
  /** False for `audit`, which must read the database even when the production guard refuses the config. */
  productionGuard?: boolean;
  run: (context: CliContext, args: A & GlobalArgs) => Promise<void>;
}): CommandModule<GlobalArgs, A & GlobalArgs> {
  return {
    command: spec.command,
    describe: spec.describe,
    builder: (spec.builder ?? ((yargs: Argv<GlobalArgs>) => yargs)) as CommandModule<GlobalArgs, A & GlobalArgs>['builder'],
    handler: async (args) => {
      const { context, close } = createCliContext({ json: Boolean(args.json), productionGuard: spec.productionGuard ?? true });
      try {
        await spec.run(context, args as unknown as A & GlobalArgs);
      } finally {
        await close();
      }
    },
  };
}
