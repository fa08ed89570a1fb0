import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/** `events:emit <event> --data <JSON> [--owner <owner>]`: the programmatic emit from the command line. */
export const eventsEmitCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .positional('event', { type: 'string', demandOption: true, describe: 'Event name, e.g. order.created' })
      .option('data', { type: 'string', describe: 'Payload as JSON (default {})' })
      .option('owner', { type: 'string', describe: 'Tenant; without it only endpoints without owner are reached' })
      .option('event-id', {
        type: 'string',
        describe:
          'Your own id of the event: repeated within webhooks.dedupeWindow, the original is answered and nothing queued',
      }),
  run: async (context, args) => {
    const { emitEvent } = await import('../../shared/webhooks/events/index.ts');
    const { publicEmitted } = await import('../../shared/webhooks/public-shapes.ts');
    const { emittedText, parseJsonData, webhookDeps } = await import('../support/webhooks.ts');
    const data = parseJsonData(args.data);
    const result = await emitEvent(webhookDeps(context), OPERATOR, {
      type: args.event,
      data,
      owner: args.owner,
      eventId: args['event-id'],
    });
    context.print(publicEmitted(result), () => emittedText(result, args['event-id']));
  },
});
