import { defineCommand } from '../command.ts';

const day = (date: Date | null) => (date === null ? 'kept forever' : `created before ${date.toISOString()}`);

/** `prune [--dry-run]`: what the worker's hourly `app/prune` does, now; says what it removed. */
export const pruneCommand = defineCommand({
  builder: (yargs) =>
    yargs.option('dry-run', {
      type: 'boolean',
      default: false,
      describe: 'Count what would be removed, remove nothing',
    }),
  run: async (context, args) => {
    const { prune } = await import('../../shared/webhooks/retention.ts');
    const result = await prune(
      { config: context.config, sql: context.sql(), log: context.log },
      { dryRun: args['dry-run'] },
    );
    context.print(result, () =>
      [
        `${result.dryRun ? 'would remove' : 'removed'}: ${result.done} done and ${result.dead} dead deliveries (${result.attempts} attempts), ${result.events} events`,
        `  done deliveries ${day(result.cutoffs.done)}; dead ${day(result.cutoffs.dead)}; events ${day(result.cutoffs.events)} with no delivery left`,
        ...(result.remaining ? ['  more is left: the next prunes (hourly, or `app prune` again) take it up'] : []),
      ].join('\n'),
    );
  },
});
