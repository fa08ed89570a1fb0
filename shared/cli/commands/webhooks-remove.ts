import { remove } from '../../webhooks/remove.ts';
import { defineCommand } from '../command.ts';
import { webhookDeps } from './webhook-cli.ts';

/** `webhooks:remove <id>`: deletes the endpoint with its secrets and delivery records. */
export const webhooksRemoveCommand = defineCommand({
  command: 'webhooks:remove <id>',
  describe: 'Delete an endpoint with its secrets and delivery records',
  builder: (yargs) => yargs.positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' }),
  run: async (context, args) => {
    const result = await remove(webhookDeps(context), args.id as string);
    context.print(result, () => `removed ${result.id}`);
  },
});
