import { rotateSecret } from '../../shared/webhooks/endpoints/index.ts';
import { ALL_TENANTS } from '../../shared/webhooks/tenant-scope.ts';
import { warnIfSecretsUnencrypted } from '../../shared/webhooks/boot.ts';
import { defineCommand } from '../command.ts';
import { parseGrace, webhookDeps } from './webhook-cli.ts';

/** `webhooks:rotate <id> [--grace 24h]`: a new signing secret; the old one stops at once or after the grace. */
export const webhooksRotateCommand = defineCommand({
  builder: (yargs) => yargs
    .positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' })
    .option('grace', { type: 'string', describe: 'How long the old secret keeps signing too, e.g. 24h (default: none)' }),
  run: async (context, args) => {
    const deps = webhookDeps(context);
    const result = await rotateSecret(deps, ALL_TENANTS, args.id as string, { grace: parseGrace(args.grace) });
    warnIfSecretsUnencrypted(deps);
    context.print({ externalId: args.id, ...result }, () =>
      `secret: ${result.secret}\n` +
      (result.graceEndsAt === null
        ? 'the previous secret no longer signs'
        : `the previous secret also signs until ${result.graceEndsAt.toISOString()}`));
  },
});
