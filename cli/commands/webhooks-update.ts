import type { EndpointPatch } from '../../shared/webhooks/endpoints/index.ts';
import { defineCommand } from '../command.ts';
import { UsageError } from '../failure.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/** `webhooks:update <id>`: changes the url, events, filter, owner, description or headers of an endpoint. */
export const webhooksUpdateCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' })
      .option('url', {
        type: 'string',
        describe:
          'New url (checked like at registration); a broker url with *** for its credentials keeps the stored ones (same scheme, host and port)',
      })
      .option('events', { type: 'string', describe: 'New comma-separated event patterns (replace the old ones)' })
      .option('filter', { type: 'string', describe: 'New subscription filter as JSON (replaces the old one)' })
      // declared, so that the command line's rules accept it (yargs reads it as filter: false)
      .option('no-filter', { type: 'boolean', describe: 'Remove the filter' })
      .option('owner', { type: 'string', describe: 'New owner' })
      .option('clear-owner', { type: 'boolean', describe: 'Remove the owner' })
      .option('description', {
        type: 'string',
        describe: 'New description (an empty one removes it, as --clear-description does)',
      })
      .option('clear-description', { type: 'boolean', describe: 'Remove the description' })
      .option('header', {
        type: 'string',
        array: true,
        describe: "Header as 'Name: value' (repeatable); replaces all the endpoint's headers",
      })
      .option('clear-headers', { type: 'boolean', describe: 'Remove every header' })
      .option('rate-limit', { type: 'number', describe: 'Most deliveries per second to it, across every worker' })
      .option('clear-rate-limit', { type: 'boolean', describe: 'Remove the rate limit' })
      .option('fifo', {
        type: 'boolean',
        describe: 'Deliver one at a time, in emit order; --no-fifo: in parallel again',
      })
      .conflicts('owner', 'clear-owner')
      .conflicts('description', 'clear-description')
      .conflicts('header', 'clear-headers'),
  run: async (context, args) => {
    const { updateEndpoint } = await import('../../shared/webhooks/endpoints/index.ts');
    const { endpointText, parseEventList, parseHeaderList, changed, webhookDeps } = await import(
      '../support/webhooks.ts'
    );
    const { filterOf } = await import('../support/filter-option.ts');
    const patch: EndpointPatch = {};
    if (args.url !== undefined) patch.url = args.url;
    if (args.events !== undefined) patch.events = parseEventList(args.events);
    // --no-filter reads as false
    const filter = args.filter as string | false | undefined;
    if (filter === false) patch.filter = null;
    else if (filter !== undefined) patch.filter = filterOf(filter) as EndpointPatch['filter'];
    if (args.owner !== undefined) patch.owner = args.owner;
    if (args['clear-owner']) patch.owner = null;
    // an empty description is none: stored as '' it would be a description that shows nothing
    if (args.description !== undefined) patch.description = args.description === '' ? null : args.description;
    if (args['clear-description']) patch.description = null;
    if (args.header !== undefined) patch.headers = parseHeaderList(args.header) ?? {};
    if (args['clear-headers']) patch.headers = null;
    if (args['rate-limit'] !== undefined) patch.rateLimit = args['rate-limit'];
    if (args['clear-rate-limit']) patch.rateLimit = null;
    if (args.fifo !== undefined) patch.ordering = args.fifo ? 'fifo' : 'none';
    // a command line that names nothing to change is a wrong command line (exit 2)
    if (Object.keys(patch).length === 0) {
      throw new UsageError(
        'nothing to update: give --url, --events, --filter/--no-filter, --owner, --description, --header, --rate-limit, --fifo/--no-fifo or a --clear-… option',
      );
    }
    const endpoint = await updateEndpoint(webhookDeps(context), OPERATOR, args.id as string, patch);
    const printed = changed(endpoint);
    context.print(printed, () => endpointText(printed));
  },
});
