import { defineCommand } from '../command.ts';
import { UsageError } from '../failure.ts';

/**
 * `secrets:seal [--from-secret-env VAR] [--dry-run]`: encrypts the signing secrets, header values
 * and broker url credentials stored before APP_SECRET was set, and moves those sealed under a
 * previous application secret (listed in APP_PREVIOUS_SECRETS, or read from the environment
 * variable VAR, never from the command line) under the current one.
 */
export const secretsSealCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .option('from-secret-env', { type: 'string', describe: 'Environment variable holding the previous APP_SECRET' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'Count what would change, change nothing' }),
  run: async (context, args) => {
    const variable = args['from-secret-env'];
    // given empty (`--from-secret-env=`): what is missing is the variable's name, not its value
    if (variable !== undefined && variable.trim() === '')
      throw new UsageError(
        '--from-secret-env needs the name of the environment variable holding the previous APP_SECRET, e.g. --from-secret-env OLD_APP_SECRET',
      );
    const fromSecret = variable === undefined ? undefined : context.io.env[variable];
    if (variable !== undefined && !fromSecret)
      throw new UsageError(`--from-secret-env ${variable}: that environment variable is not set`);
    const { resealSecrets } = await import('../../shared/webhooks/reseal.ts');
    const { webhookDeps } = await import('../support/webhooks.ts');
    const result = await resealSecrets(webhookDeps(context), {
      ...(fromSecret ? { fromSecret } : {}),
      dryRun: args['dry-run'],
    });
    // every value now opens with APP_SECRET alone: the rotation's last step may follow
    const canRemovePrevious =
      !result.dryRun && result.unreadable.length === 0 && context.config.previousSecrets.length > 0;
    context.print(result, () =>
      [
        `${result.dryRun ? 'would seal' : 'sealed'} ${result.resealed} signing secret(s) and the header values of ${result.headers} and the url credentials of ${result.urls} endpoint(s) under the current APP_SECRET; ${result.current} secret(s) already were`,
        `${result.dryRun ? 'would move' : 'moved'} ${result.moved} value(s) (signing secrets, header values, url credentials alike) from a previous secret to the current one${canRemovePrevious ? '; APP_PREVIOUS_SECRETS can be removed now' : ''}`,
        ...(result.unreadable.length === 0
          ? []
          : [
              `${result.unreadable.length} could not be opened with APP_SECRET, APP_PREVIOUS_SECRETS or the --from-secret-env secret; rotate their endpoints: ${[...new Set(result.unreadable.map((row) => row.endpointId))].join(', ')}`,
            ]),
      ].join('\n'),
    );
    if (result.unreadable.length > 0) context.exit(1);
  },
});
