import { OPERATOR } from '../../shared/access/actor.ts';
import type { EndpointQuery } from '../../shared/webhooks/endpoints/index.ts';
import { defineCommand } from '../command.ts';
import { isoOrDash, table } from '../support/text-forms.ts';

/**
 * What the actions need, loaded when one runs (`--help` reads the options alone). The listing's
 * own module rather than the endpoints' index, which brings registration and with it ajv: about
 * 100 modules fewer for a listing.
 */
const endpoints = () => import('../../shared/webhooks/endpoints/list.ts');
const helpers = () => import('../support/webhooks.ts');

const ownerOptions = {
  owner: { type: 'string', describe: "Only this owner's endpoints" },
  'without-owner': { type: 'boolean', describe: 'Only endpoints without owner' },
} as const;

const filterOf = (args: { owner?: string; 'without-owner'?: boolean }): EndpointQuery =>
  args['without-owner'] ? { owner: null } : args.owner !== undefined ? { owner: args.owner } : {};

/** `webhooks:list`: endpoints, all or one owner's. */
export const webhooksListCommand = defineCommand({
  builder: (yargs) => yargs.options(ownerOptions).conflicts('owner', 'without-owner'),
  run: async (context, args) => {
    const { listEndpoints } = await endpoints();
    const { endpointTable, shown, webhookDeps } = await helpers();
    const { records } = await listEndpoints(webhookDeps(context), OPERATOR, filterOf(args));
    const printed = records.map((endpoint) => shown(endpoint));
    context.print(printed, () => (records.length === 0 ? 'no webhook endpoints' : endpointTable(records)));
  },
});

/** `webhooks:status`: endpoints with their delivery counts by state. */
export const webhooksStatusCommand = defineCommand({
  builder: (yargs) => yargs.options(ownerOptions).conflicts('owner', 'without-owner'),
  run: async (context, args) => {
    const { endpointStatuses } = await endpoints();
    const { shown, webhookDeps } = await helpers();
    const { publicCounts } = await import('../../shared/webhooks/public-shapes.ts');
    const rows = await endpointStatuses(webhookDeps(context), OPERATOR, filterOf(args));
    const printedRows = rows.map((row) => ({
      ...shown(row),
      deliveryCounts: publicCounts(row.deliveries),
      lastDeliveryAt: row.lastDeliveryAt,
    }));
    context.print(printedRows, () =>
      rows.length === 0
        ? 'no webhook endpoints'
        : table([
            ['ID', 'STATE', 'PENDING', 'RUNNING', 'DONE', 'DEAD', 'LAST DELIVERY', 'OWNER', 'URL'],
            ...rows.map((row) => [
              row.id,
              row.enabled ? 'enabled' : 'disabled',
              String(row.deliveries.pending),
              String(row.deliveries.running),
              String(row.deliveries.done),
              String(row.deliveries.dead),
              isoOrDash(row.lastDeliveryAt),
              row.owner ?? '-',
              row.url,
            ]),
          ]),
    );
  },
});
