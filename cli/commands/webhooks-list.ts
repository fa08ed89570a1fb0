import { endpointStatuses, listEndpoints, type EndpointQuery } from '../../shared/webhooks/endpoints/index.ts';
import { ALL_TENANTS } from '../../shared/webhooks/tenant-scope.ts';
import { publicCounts } from '../../shared/webhooks/public-shapes.ts';
import { defineCommand } from '../command.ts';
import { endpointTable, shown, webhookDeps } from './webhook-cli.ts';
import { isoOrDash, table } from './text-forms.ts';

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
    const { records: endpoints } = await listEndpoints(webhookDeps(context), ALL_TENANTS, filterOf(args));
    const printed = endpoints.map((endpoint) => shown(endpoint));
    context.print(printed, () => (endpoints.length === 0 ? 'no webhook endpoints' : endpointTable(endpoints)));
  },
});

/** `webhooks:status`: endpoints with their delivery counts by state. */
export const webhooksStatusCommand = defineCommand({
  builder: (yargs) => yargs.options(ownerOptions).conflicts('owner', 'without-owner'),
  run: async (context, args) => {
    const rows = await endpointStatuses(webhookDeps(context), ALL_TENANTS, filterOf(args));
    const printedRows = rows.map((row) => ({ ...shown(row), deliveryCounts: publicCounts(row.deliveries), lastDeliveryAt: row.lastDeliveryAt }));
    context.print(printedRows, () => rows.length === 0 ? 'no webhook endpoints' : table([
      ['ID', 'STATE', 'PENDING', 'RUNNING', 'DONE', 'DEAD', 'LAST DELIVERY', 'OWNER', 'URL'],
      ...rows.map((row) => [
        row.id, row.enabled ? 'enabled' : 'disabled',
        String(row.deliveries.pending), String(row.deliveries.running), String(row.deliveries.done), String(row.deliveries.dead),
        isoOrDash(row.lastDeliveryAt), row.owner ?? '-', row.url,
      ]),
    ]));
  },
});
