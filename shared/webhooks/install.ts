/**
 * Installing the webhook tables (`app webhooks:install`, `webhooks.install`). The tables are
 * those of migrations/ (endpoints, secrets, events, deliveries, attempts) plus graphile-worker's
 * schema, so installing is running the migrations, which is idempotent and safe from several
 * processes at once (advisory lock).
 */
import { AppError } from '../errors/app-error.ts';
import { migrate, type MigrationResult } from '../db/migrate.ts';
import type { WebhookDeps } from './deps.ts';
import type { EndpointStore } from './endpoint-stores/types.ts';

/** Whether `store` is the endpoint table in the service's own database (made by the migrations). */
const isServiceDatabase = (store: EndpointStore) => store.adapter === 'postgresql' && store.serviceDatabase === true;

/**
 * Creates the endpoint table and its index, the other webhook tables and the queue schema when
 * missing (runs `migrate`); with an endpoint store elsewhere (`webhooks.store`), creates the
 * endpoint table (collection, file) there with the store's own `install`. Afterwards checks that the configured `webhooks.table` exists: the
 * migrations create `app_webhooks`; another name must be the same table renamed
 * (`alter table app_webhooks rename to <name>`; foreign keys follow a rename), else this throws
 * 500 `APP_WEBHOOK_TABLE_MISSING` saying so.
 */
export async function ensureWebhookTables(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'log' | 'endpoints'>,
): Promise<MigrationResult & { table: string; store: string }> {
  const result = await migrate(deps);
  if (deps.endpoints !== undefined && !isServiceDatabase(deps.endpoints)) {
    // the endpoint table lives in another store: made there, the rest here
    await deps.endpoints.install();
    return { ...result, table: deps.config.webhooks.table, store: deps.endpoints.name };
  }
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
  return { ...result, table, store: deps.endpoints?.name ?? 'default' };
}
