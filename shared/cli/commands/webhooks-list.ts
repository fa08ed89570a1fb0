import { list, status, type ListOptions } from '../../webhooks/read.ts';
import { defineCommand } from '../command.ts';
import { endpointLine, isoOrDash, webhookDeps } from './webhook-cli.ts';

const ownerOptions = {
  owner: { type: 'string', describe: "Only this owner's endpoints" },
  'without-owner': { type: 'boolean', describe: 'Only endpoints without owner' },
} as const;

const filterOf = (args: { owner?: string; 'without-owner'?: boolean }): ListOptions =>
  args['without-owner'] ? { owner: null } : args.owner !== undefined ? { owner: args.owner } : {};

/** `webhooks:list`: endpoints, all or one owner's. */
export const webhooksListCommand = defineCommand({
  command: 'webhooks:list',
  describe: 'List webhook endpoints (all, or one owner\'s)',
  builder: (yargs) => yargs.options(ownerOptions).conflicts('owner', 'without-owner'),
  run: async (context, args) => {
    const endpoints = await list(webhookDeps(context), filterOf(args));
    context.print(endpoints, () => (endpoints.length === 0 ? 'no webhook endpoints' : endpoints.map(endpointLine).join('\n')));
  },
});

/** `webhooks:status`: endpoints with their delivery counts by state. */
export const webhooksStatusCommand = defineCommand({
  command: 'webhooks:status',
  describe: 'List endpoints with their delivery counts (pending, running, done, dead)',
  builder: (yargs) => yargs.options(ownerOptions).conflicts('owner', 'without-owner'),
  run: async (context, args) => {
    const rows = await status(webhookDeps(context), filterOf(args));
    context.print(rows, () => {
      if (rows.length === 0) return 'no webhook endpoints';
      const header = 'id                              state     pending running done  dead  last delivery             owner  url';
      return [header, ...rows.map((row) => [
        row.id.padEnd(30),
        (row.enabled ? 'enabled' : 'disabled').padEnd(8),
        String(row.deliveries.pending).padStart(7),
        String(row.deliveries.running).padStart(7),
        String(row.deliveries.done).padStart(5),
        String(row.deliveries.dead).padStart(5),
        isoOrDash(row.lastDeliveryAt).padEnd(24),
        row.owner ?? '-',
        row.url,
      ].join('  '))].join('\n');
    });
  },
});
