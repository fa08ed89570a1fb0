import { UsageError } from '../failure.ts';
import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/**
 * `webhooks:filter-test --filter <JSON> (--event <JSON> | --event-id <evt_…>)`: whether a filter
 * lets an event through, by the same core function as the REST route and the emit; for a miss,
 * the condition that failed first. The database is read for the catalog (`--event` is checked as
 * an emit checks its event) or the retained event (`--event-id`).
 */
export const webhooksFilterTestCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .option('filter', {
        type: 'string',
        demandOption: true,
        describe: "The filter as JSON (MongoDB's query style over {type, timestamp, data}); 'null' for none",
      })
      .option('event', {
        type: 'string',
        describe:
          'The event as JSON: {"type": …, "timestamp"?: …, "data"?: …}, checked as an emit checks it (timestamp: ISO 8601, now when absent)',
      })
      .option('event-id', { type: 'string', describe: 'A retained event (evt_…) to try it on instead' })
      .conflicts('event', 'event-id'),
  run: async (context, args) => {
    const { testFilter } = await import('../../shared/webhooks/filters/try.ts');
    const { parseJsonData } = await import('../../shared/webhooks/text-input.ts');
    const { filterOf } = await import('../support/filter-option.ts');
    if (args.event === undefined && args['event-id'] === undefined)
      throw new UsageError('give the event to try the filter on: --event <JSON> or --event-id <evt_…>');
    const filter = filterOf(args.filter);
    const input =
      args['event-id'] === undefined
        ? { filter, event: parseJsonData(args.event, '--event') }
        : { filter, eventId: args['event-id'] };
    // the database is opened once a given event's type, data and timestamp are well formed
    const result = await testFilter(
      {
        config: context.config,
        get sql() {
          return context.sql();
        },
      },
      OPERATOR,
      input,
    );
    const { failed } = result;
    context.print({ matches: result.matches, failed }, () =>
      failed === null
        ? 'matches: yes (the filter lets this event through)'
        : `matches: no\nfailed:  ${failed.operator}${failed.path === null ? '' : ` on ${failed.path}`} (at ${failed.at})`,
    );
  },
});
