import { ensureWebhookTables } from '../../webhooks/install.ts';
import { warnIfSecretsUnencrypted } from '../../webhooks/boot.ts';
import { defineCommand } from '../command.ts';
import { webhookDeps } from './webhook-cli.ts';

/** `webhooks:install`: creates the webhook tables, their indexes and the queue schema; idempotent. */
export const webhooksInstallCommand = defineCommand({
  command: 'webhooks:install',
  describe: 'Create the webhook tables and their indexes, and the job queue schema (idempotent)',
  run: async (context) => {
    const deps = webhookDeps(context);
    warnIfSecretsUnencrypted(deps);
    const result = await ensureWebhookTables(deps);
    context.print(result, () =>
      result.applied.length === 0
        ? `webhook tables are installed (table ${result.table}); nothing to do`
        : `webhook tables installed (table ${result.table}; applied ${result.applied.join(', ')})`);
  },
});
