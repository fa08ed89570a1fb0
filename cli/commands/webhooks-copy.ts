import { defineCommand } from '../command.ts';
import { UsageError } from '../failure.ts';

/**
 * `webhooks:copy --from <store> [--dry-run]`: copies every endpoint of the named store into the
 * endpoint store (`webhooks.store`), as stored (shared/webhooks/endpoints/copy.ts); run again, it
 * brings over only what changed since.
 */
export const webhooksCopyCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .option('from', {
        type: 'string',
        demandOption: true,
        describe: 'The store (a name in stores) that holds the endpoints now, e.g. default',
      })
      .option('dry-run', { type: 'boolean', default: false, describe: 'Count what would be copied, copy nothing' }),
  run: async (context, args) => {
    const stores = context.stores();
    const from = stores.all.get(args.from);
    if (from === undefined)
      throw new UsageError(`--from ${args.from}: no such store (stores: ${[...stores.all.keys()].join(', ')})`);
    if (from === stores.endpoints)
      throw new UsageError(
        `--from ${args.from} is the endpoint store itself (webhooks.store); name the store the endpoints are copied from`,
      );
    const { copyEndpoints } = await import('../../shared/webhooks/endpoints/copy.ts');
    const { webhookDeps } = await import('../support/webhooks.ts');
    const result = await copyEndpoints(webhookDeps(context), from, { dryRun: args['dry-run'] });
    context.print(
      result,
      () =>
        `${result.dryRun ? 'would copy' : 'copied'} ${result.copied} and ${result.dryRun ? 'would replace' : 'replaced'} ${result.updated} (an earlier version) of the ${result.total} endpoint(s) of store ${result.from} into store ${result.to}; ${result.unchanged} already there`,
    );
  },
});
