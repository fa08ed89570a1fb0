import { defineCommand } from '../command.ts';

/** `webhooks:install`: creates the webhook tables, their indexes and the queue schema; idempotent. */
export const webhooksInstallCommand = defineCommand({
  run: async (context) => {
    const { ensureWebhookTables } = await import('../../shared/webhooks/install.ts');
    const { warnIfSecretsUnencrypted } = await import('../../shared/webhooks/boot.ts');
    const { webhookDeps } = await import('../support/webhooks.ts');
    const deps = webhookDeps(context);
    warnIfSecretsUnencrypted(deps, { onlyInProduction: true });
    const result = await ensureWebhookTables(deps);
    // an endpoint table in another store is made there whatever the migrations had to do: say where
    const where = deps.endpoints?.serviceDatabase ? '' : ` in store ${result.store} (${deps.endpoints?.adapter})`;
    context.print(result, () =>
      result.applied.length === 0
        ? `webhook tables are installed (table ${result.table}${where}); nothing to do`
        : `webhook tables installed (table ${result.table}${where}; applied ${result.applied.join(', ')})`,
    );
  },
});
