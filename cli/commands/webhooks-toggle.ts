import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/** What the actions need, loaded when one runs (`--help` reads the options alone). */
const endpoints = () => import('../../shared/webhooks/endpoints/index.ts');
const helpers = () => import('../support/webhooks.ts');

/** `webhooks:disable <id>`: no new deliveries are written for the endpoint. */
export const webhooksDisableCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' })
      .option('reason', { type: 'string', describe: 'Why, kept with the endpoint (an empty one is as if not given)' }),
  run: async (context, args) => {
    const { disableEndpoint } = await endpoints();
    const { endpointText, changed, webhookDeps } = await helpers();
    const endpoint = await disableEndpoint(webhookDeps(context), OPERATOR, args.id as string, {
      reason: args.reason || undefined,
    });
    const printed = changed(endpoint);
    context.print(printed, () => endpointText(printed));
  },
});

/** `webhooks:enable <id>`: the endpoint receives emits again. */
export const webhooksEnableCommand = defineCommand({
  builder: (yargs) => yargs.positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' }),
  run: async (context, args) => {
    const { enableEndpoint } = await endpoints();
    const { endpointText, changed, webhookDeps } = await helpers();
    const endpoint = await enableEndpoint(webhookDeps(context), OPERATOR, args.id as string);
    const printed = changed(endpoint);
    context.print(printed, () => endpointText(printed));
  },
});
