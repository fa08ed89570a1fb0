import { defineCommand } from '../command.ts';
import { UsageError } from '../failure.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/**
 * `webhooks:rotate <id> [--grace 24h]`: a new signing secret (an ed25519 endpoint: a new key
 * pair, printed as its public key); the old one stops at once or after the grace.
 */
export const webhooksRotateCommand = defineCommand({
  builder: (yargs) =>
    yargs.positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' }).option('grace', {
      type: 'string',
      describe: 'How long the old secret (or key) keeps signing too, e.g. 24h; at most 365d (default: none)',
    }),
  run: async (context, args) => {
    const { rotateSecret, showEndpoint } = await import('../../shared/webhooks/endpoints/index.ts');
    const { warnIfSecretsUnencrypted } = await import('../../shared/webhooks/boot.ts');
    const { parseGrace, receiverKeyWords, webhookDeps } = await import('../support/webhooks.ts');
    const deps = webhookDeps(context);
    // a negative duration is a wrong command line (exit 2), written `--grace -1h` or `--grace=-1h`
    // alike; other text that is not a duration, or one longer than a year, is refused as invalid
    // input (exit 1), as `tokens:create --expires` refuses it
    if (args.grace !== undefined && /^\s*-/.test(args.grace))
      throw new UsageError(
        `--grace ${args.grace.trim()}: a negative duration is not accepted (no grace: leave --grace out)`,
      );
    const grace = parseGrace(args.grace);
    // its scheme, which never changes, names what is printed; an unknown id fails here, before any change
    const { signing } = await showEndpoint(deps, OPERATOR, args.id as string);
    const result = await rotateSecret(deps, OPERATOR, args.id as string, { grace });
    warnIfSecretsUnencrypted(deps, { onlyInProduction: true });
    const words = receiverKeyWords(signing);
    context.print(
      { externalId: args.id, signing, ...result },
      () =>
        `${words.key}: ${result.secret}\n` +
        (result.graceEndsAt === null
          ? `${words.previous} no longer signs`
          : `${words.previous} also signs until ${result.graceEndsAt.toISOString()}`),
    );
  },
});
