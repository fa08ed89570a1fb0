import { ensureWebhookTables } from '../../shared/webhooks/install.ts';
import { warnIfSecretsUnencrypted } from '../../shared/webhooks/boot.ts';
import { defineCommand } from '../command.ts';
import { webhookDeps } from './webhook-cli.ts';

/** `webhooks:install`: creates the webhook tables, their indexes and the queue schema; idempotent. */
export const webhooksInstallCommand = defineCommand({
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
