/**
 * Installing the webhook tables (`app webhooks:install`, `webhooks.install`). The tables are
 * those of migrations/ (endpoints, secrets, events, deliveries, attempts) plus graphile-worker's
 * schema, so installing is running the migrations, which is idempotent and safe from several
 * processes at once (advisory lock).
 */
import { AppError } from '../errors/app-error.ts';
import { migrate, type MigrationResult } from '../db/migrate.ts';
import type { WebhookDeps } from './deps.ts';

/**
 * Creates the endpoint table and its index, the other webhook tables and the queue schema when
 * missing (runs `migrate`). Afterwards checks that the configured `webhooks.table` exists: the
 * migrations create `app_webhooks`; another name must be the same table renamed
 * (`alter table app_webhooks rename to <name>`; foreign keys follow a rename), else this throws
 * 500 `APP_WEBHOOK_TABLE_MISSING` saying so.
 */
export async function ensureWebhookTables(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'log'>,
): Promise<MigrationResult & { table: string }> {
  const result = await migrate(deps);
  const table = deps.config.webhooks.table;
  // Quoted as the driver quotes `sql(table)` in every query, so both name the same relation.
  const quoted = table
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
  const [row] = await deps.sql<{ found: boolean }[]>`select to_regclass(${quoted}) is not null as found`;
  if (!row.found) {
    throw new AppError(
      500,
      `webhook endpoint table ${table} (config webhooks.table) does not exist: the migrations create app_webhooks; ` +
        `rename it (alter table app_webhooks rename to ${table}) or set webhooks.table back to app_webhooks`,
      { code: 'APP_WEBHOOK_TABLE_MISSING', expose: true, data: { table } },
    );
  }
  return { ...result, table };
}
