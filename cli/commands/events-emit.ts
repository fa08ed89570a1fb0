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
    const { publicNewDelivery } = await import('../../shared/webhooks/public-shapes.ts');
    const { deliveryLines, parseJsonData, webhookDeps } = await import('../support/webhooks.ts');
    const data = parseJsonData(args.data);
    const { deliveries, duplicate } = await emitEvent(webhookDeps(context), OPERATOR, {
      type: args.event,
      data,
      owner: args.owner,
      eventId: args['event-id'],
    });
    context.print(deliveries.map(publicNewDelivery), () =>
      duplicate
        ? `event id ${args['event-id']} was emitted already; nothing queued. Its deliveries:\n${deliveryLines(deliveries)}`
        : deliveries.length === 0
          ? `no enabled endpoint ${args.owner === undefined ? 'without owner' : `of owner ${args.owner}`} subscribes to ${args.event}; nothing queued`
          : `queued ${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'}:\n${deliveryLines(deliveries)}`,
    );
  },
});
