import postgres from 'postgres';
import type { Config } from '../config/index.ts';
import type { Logger } from '../log/logger.ts';

export type Sql = postgres.Sql<Record<string, never>>;

/**
 * The `postgres` client for the service's own queries. Connects lazily (a database that is
 * down at boot does not stop the process), keeps `db.poolMax` connections, and does not
 * print notices to stdout.
 */
export function connect(config: Pick<Config, 'databaseUrl' | 'db'>, log?: Logger, options: { max?: number; name?: string } = {}): Sql {
  if (!config.databaseUrl) {
    throw new Error('no database configured: set DATABASE_URL (npm start and npm test start an embedded PostgreSQL for you)');
  }
  return postgres(config.databaseUrl, {
    max: options.max ?? config.db.poolMax,
    idle_timeout: 60,
    connect_timeout: 10,
    onnotice: (notice) => log?.debug({ notice: notice.message }, 'postgres notice'),
    connection: { application_name: options.name ?? 'app' },
    transform: { undefined: null },
  }) as unknown as Sql;
}
