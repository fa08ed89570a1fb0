import { OPERATOR } from '../../shared/access/actor.ts';
import type { EventRecord } from '../../shared/webhooks/events/index.ts';
import { defineCommand } from '../command.ts';
import { limitOf, limitOption, ownerOf, ownerOptions, rangeOf, timeOptions } from '../support/filters.ts';
import { isoOrDash, table } from '../support/text-forms.ts';

/** What the actions need, loaded when one runs (`--help` reads the options alone). */
const events = () => import('../../shared/webhooks/events/index.ts');
const shapes = () => import('../../shared/webhooks/public-shapes.ts');

const counts = (event: EventRecord) => {
  const d = event.deliveries;
  return `${d.pending}/${d.running}/${d.done}/${d.dead}`;
};

/** `events:list [--type] [--owner | --without-owner] [--since] [--until] [--limit]`: emitted events, newest first. */
export const eventsListCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .options({
        type: { type: 'string', describe: 'Only events of this exact type' },
        ...ownerOptions,
        ...timeOptions,
        limit: limitOption,
      })
      .conflicts('owner', 'without-owner'),
  run: async (context, args) => {
    const { listEvents } = await events();
    const { publicEvent } = await shapes();
    const owner = ownerOf(args);
    const { records } = await listEvents({ sql: context.sql(), config: context.config }, OPERATOR, {
      ...rangeOf(args),
      ...(args.type === undefined ? {} : { type: args.type }),
      ...(owner === undefined ? {} : { owner }),
      page: 1,
      perPage: limitOf(args.limit),
    });
    context.print(records.map(publicEvent), () =>
      records.length === 0
        ? 'no events'
        : table([
            ['ID', 'TYPE', 'OWNER', 'CREATED', 'PENDING/RUNNING/DONE/DEAD'],
            ...records.map((event) => [
              event.id,
              event.type,
              event.owner ?? '-',
              isoOrDash(event.createdAt),
              counts(event),
            ]),
          ]),
    );
  },
});

/** `events:show <id>`: one event with its payload and its deliveries by state. */
export const eventsShowCommand = defineCommand({
  builder: (yargs) => yargs.positional('id', { type: 'string', demandOption: true, describe: 'Event id (evt_…)' }),
  run: async (context, args) => {
    const { showEvent } = await events();
    const { publicEvent } = await shapes();
    const event = await showEvent({ sql: context.sql() }, OPERATOR, String(args.id));
    context.print(publicEvent(event), () =>
      [
        `id:         ${event.id}`,
        `type:       ${event.type}`,
        `owner:      ${event.owner ?? '(none)'}`,
        `created:    ${isoOrDash(event.createdAt)}`,
        `deliveries: pending ${event.deliveries.pending}, running ${event.deliveries.running}, done ${event.deliveries.done}, dead ${event.deliveries.dead}`,
        `filtered:   ${event.filteredOut === 0 ? 'none' : `${event.filteredOut} subscribed endpoint${event.filteredOut === 1 ? '' : 's'} left out by ${event.filteredOut === 1 ? 'its filter' : 'their filters'}`}`,
        `data:       ${JSON.stringify(event.data)}`,
      ].join('\n'),
    );
  },
});
