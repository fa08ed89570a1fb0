import type { PruneResult } from '../../shared/webhooks/retention.ts';
import { defineCommand } from '../command.ts';

/**
 * Which of `what` a prune removes: those created before the cut-off and meeting `condition`, or,
 * with no cut-off (a null retention), none: they are kept forever.
 */
const removedOf = (what: string, cutoff: Date | null, condition = '') =>
  cutoff === null ? `${what} kept forever` : `${what} created before ${cutoff.toISOString()}${condition}`;

/** The result's timings in whole milliseconds: its steps are database statements, whose fractions of a millisecond say nothing. */
const wholeMilliseconds = (timings: PruneResult['timings']): PruneResult['timings'] => ({
  partitions: Math.round(timings.partitions),
  rows: Math.round(timings.rows),
  events: Math.round(timings.events),
  longestStep: Math.round(timings.longestStep),
});

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
    const { cutoffs } = result;
    context.print({ ...result, timings: wholeMilliseconds(result.timings) }, () =>
      result.skipped
        ? 'another prune is running: nothing removed by this one (the next prunes, hourly or `app prune` again, take up what it leaves)'
        : [
            `${result.dryRun ? 'would remove' : 'removed'}: ${result.done} done and ${result.dead} dead deliveries (${result.attempts} attempts), ${result.events} events`,
            `  ${removedOf('done deliveries', cutoffs.done)}; ${removedOf('dead', cutoffs.dead)}; ${removedOf('events', cutoffs.events, ' with no delivery left')}`,
            ...(result.remaining ? ['  more is left: the next prunes (hourly, or `app prune` again) take it up'] : []),
          ].join('\n'),
    );
  },
});
