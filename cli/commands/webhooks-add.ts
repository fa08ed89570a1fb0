import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';
import type { RegisterOptions } from '../../shared/webhooks/endpoints/register.ts';

/** `webhooks:add <url>`: registers an endpoint and prints its id and secret (shown this once). */
export const webhooksAddCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .positional('url', {
        type: 'string',
        demandOption: true,
        describe:
          'Where deliveries go: https://…, or a broker: amqps://user:pass@host/vhost?exchange=…&routingKey=…, tls://user:pass@host/<subject>, mqtts://user:pass@host/<topic>, rediss://user:pass@host/<db>?stream=… (plain http, amqp, nats, mqtt, redis only with webhooks.allowHttp; credentials sealed, shown as ***)',
      })
      .option('events', {
        type: 'string',
        demandOption: true,
        describe: "Comma-separated event names, families like 'order.*', or '*'",
      })
      .option('filter', {
        type: 'string',
        describe: "Subscription filter as JSON, MongoDB's query style over {type, timestamp, data}",
      })
      // declared, so that the command line's rules accept it (yargs reads it as filter: false)
      .option('no-filter', {
        type: 'boolean',
        describe: 'No filter: every event subscribed to is delivered (the default)',
      })
      .option('owner', {
        type: 'string',
        describe: 'Tenant the endpoint belongs to (absent: reached only by emits without owner)',
      })
      .option('description', { type: 'string', describe: 'Free text' })
      .option('header', {
        type: 'string',
        array: true,
        describe: "Header sent with every delivery, as 'Name: value' (repeatable)",
      })
      .option('rate-limit', {
        type: 'number',
        describe: 'Most deliveries per second to it, across every worker (default: none)',
      })
      .option('fifo', {
        type: 'boolean',
        describe: 'Deliver one at a time, in emit order (the next waits until the previous is done or dead)',
      })
      .option('signing', {
        type: 'string',
        choices: ['hmac-sha256', 'ed25519'],
        describe: 'hmac-sha256 (default, whsec_ secret) or ed25519 (v1a, signatures; prints the public key whpk_…)',
      }),
  run: async (context, args) => {
    const { registerEndpoint } = await import('../../shared/webhooks/endpoints/index.ts');
    const { warnIfSecretsUnencrypted } = await import('../../shared/webhooks/boot.ts');
    const { endpointText, parseEventList, parseHeaderList, changed, webhookDeps } = await import(
      '../support/webhooks.ts'
    );
    const { filterOf } = await import('../support/filter-option.ts');
    const deps = webhookDeps(context);
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: args.url as string,
      events: parseEventList(args.events) ?? [],
      ...(typeof args.filter === 'string' ? { filter: filterOf(args.filter) as RegisterOptions['filter'] } : {}),
      owner: args.owner,
      // an empty description is none, as for webhooks:update
      description: args.description || undefined,
      headers: parseHeaderList(args.header),
      signing: args.signing as 'hmac-sha256' | 'ed25519' | undefined,
      rateLimit: args['rate-limit'],
      ...(args.fifo === undefined ? {} : { ordering: args.fifo ? 'fifo' : 'none' }),
    });
    warnIfSecretsUnencrypted(deps, { onlyInProduction: true });
    const printed = changed(endpoint);
    context.print({ ...printed, secret: endpoint.secret }, () =>
      endpoint.signing === 'ed25519'
        ? `${endpointText(printed)}\npublic key:  ${endpoint.secret}\n\n` +
          'Give the public key to the receiver: it verifies the v1a, signatures with it (the private key never leaves the service).'
        : `${endpointText(printed)}\nsecret:      ${endpoint.secret}\n\n` +
          `Give the secret to the receiver now: it is shown again only by \`app webhooks:show ${endpoint.id} --reveal\`.`,
    );
  },
});
