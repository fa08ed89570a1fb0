import { emit } from '../../shared/webhooks/events/emit.ts';
import { defineCommand } from '../command.ts';
import { deliveryLines, parseJsonData, webhookDeps } from './webhook-cli.ts';

/** `events:emit <event> --data <JSON> [--owner <owner>]`: the programmatic emit from the command line. */
export const eventsEmitCommand = defineCommand({
  builder: (yargs) => yargs
    .positional('event', { type: 'string', demandOption: true, describe: 'Event name, e.g. order.created' })
    .option('data', { type: 'string', describe: 'Payload as JSON (default {})' })
    .option('owner', { type: 'string', describe: 'Tenant; without it only endpoints without owner are reached' }),
  run: async (context, args) => {
    const data = parseJsonData(args.data);
    const deliveries = await emit(webhookDeps(context), args.event as string, data, { owner: args.owner });
    context.print(deliveries, () =>
      deliveries.length === 0
        ? `no enabled endpoint ${args.owner === undefined ? 'without owner' : `of owner ${args.owner}`} subscribes to ${args.event}; nothing queued`
        : `queued ${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'}:\n${deliveryLines(deliveries)}`);
  },
});
