import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/** `webhooks:send <id> <event> --data <JSON>`: one event to one endpoint, subscribed or not, through the queue. */
export const webhooksSendCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' })
      .positional('event', { type: 'string', demandOption: true, describe: 'Event name, e.g. order.created' })
      .option('data', { type: 'string', describe: 'Payload as JSON (default {})' }),
  run: async (context, args) => {
    const { sendToEndpoint } = await import('../../shared/webhooks/events/index.ts');
    const { publicNewDelivery } = await import('../../shared/webhooks/public-shapes.ts');
    const { deliveryLines, parseJsonData, webhookDeps } = await import('../support/webhooks.ts');
    const data = parseJsonData(args.data);
    const delivery = await sendToEndpoint(
      webhookDeps(context),
      OPERATOR,
      args.id as string,
      args.event as string,
      data,
    );
    context.print(publicNewDelivery(delivery), () => `queued ${deliveryLines([delivery])}`);
  },
});
