import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/**
 * `webhooks:recover <id> --since <time> [--until <time>]`: every dead delivery of the endpoint
 * created in the range is sent again (same webhook-id, a new series of attempts), as
 * `POST /api/v1/webhooks/:id/recover` does; at most 1000 per run, and it says when more remain.
 */
export const webhooksRecoverCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' })
      .option('since', {
        type: 'string',
        demandOption: true,
        describe: 'Replay dead deliveries created at or after this ISO 8601 time',
      })
      .option('until', { type: 'string', describe: 'and before this one (default: now)' }),
  run: async (context, args) => {
    const { recoverDeliveries } = await import('../../shared/webhooks/deliveries/index.ts');
    const { webhookDeps } = await import('../support/webhooks.ts');
    const { givenTimes } = await import('../support/filters.ts');
    const result = await recoverDeliveries(webhookDeps(context), OPERATOR, String(args.id), givenTimes(args));
    context.print(
      result,
      () =>
        `queued ${result.recovered} dead ${result.recovered === 1 ? 'delivery' : 'deliveries'} of ${result.endpointId} again` +
        (result.more ? '; more remain: run it again' : ''),
    );
  },
});
