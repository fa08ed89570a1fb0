import { sendToEndpoint } from '../../shared/webhooks/events/index.ts';
import { OPERATOR } from '../../shared/access/actor.ts';
import { publicNewDelivery } from '../../shared/webhooks/public-shapes.ts';
import { defineCommand } from '../command.ts';
import { deliveryLines, parseJsonData, webhookDeps } from './webhook-cli.ts';

/** `webhooks:send <id> <event> --data <JSON>`: one event to one endpoint, subscribed or not, through the queue. */
export const webhooksSendCommand = defineCommand({
  builder: (yargs) => yargs
    .positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' })
    .positional('event', { type: 'string', demandOption: true, describe: 'Event name, e.g. order.created' })
    .option('data', { type: 'string', describe: 'Payload as JSON (default {})' }),
  run: async (context, args) => {
    const data = parseJsonData(args.data);
    const delivery = await sendToEndpoint(webhookDeps(context), OPERATOR, args.id as string, args.event as string, data);
    context.print(publicNewDelivery(delivery), () => `queued ${deliveryLines([delivery])}`);
  },
});
