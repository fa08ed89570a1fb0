import type { Config } from '../config/index.ts';
import { connect, type Sql } from '../db/connect.ts';
import { counterFrom, windowSeconds } from './counter.ts';
import { postgresLimiter, purgeCounters } from './postgres-counter.ts';
import { withTimeout } from './timeout.ts';
import type { FailureLog, Json, KeyValueStore, SharedStore, StoreDeps } from './types.ts';

/** How often each process deletes expired entries and ended counter windows. */
export const PURGE_INTERVAL_MS = 5 * 60_000;

/**
 * Entries in `app_shared_entries` (migrations/004_shared_store.sql). `add` is one
 * `insert … on conflict … do update … where expired`, so of many concurrent adds from any
 * number of processes exactly one stores. Expiry follows the caller's clock (`now`).
 */
export function postgresEntries(
  sql: Sql,
  options: { now?: () => number; timeoutMs?: number } = {},
): KeyValueStore & { purge(): Promise<number> } {
  const now = options.now ?? Date.now;
  const timed = <T>(promise: Promise<T>, what: string) =>
    withTimeout(promise, options.timeoutMs ?? 0, `postgres ${what}`);
  const at = (offsetMs = 0) => new Date(now() + offsetMs);
  return {
    async get(key) {
      const [row] = await timed(
        sql<{ value: string }[]>`
        select value from app_shared_entries where key = ${key} and expires_at > ${at()}`,
        'get',
      );
      return row ? (JSON.parse(row.value) as Json) : undefined;
    },
    async set(key, value, ttlMs) {
      await timed(
        sql`
        insert into app_shared_entries (key, value, expires_at) values (${key}, ${JSON.stringify(value)}, ${at(ttlMs)})
        on conflict (key) do update set value = excluded.value, expires_at = excluded.expires_at`,
        'set',
      );
    },
    async add(key, value, ttlMs) {
      const rows = await timed(
        sql`
        insert into app_shared_entries as e (key, value, expires_at) values (${key}, ${JSON.stringify(value)}, ${at(ttlMs)})
        on conflict (key) do update set value = excluded.value, expires_at = excluded.expires_at
        where e.expires_at <= ${at()}
        returning key`,
        'add',
      );
      return rows.length === 1;
    },
    async delete(key) {
      await timed(sql`delete from app_shared_entries where key = ${key}`, 'delete');
    },
    /** Deletes expired entries; returns how many. */
    async purge() {
      const result = await sql`delete from app_shared_entries where expires_at <= ${at()}`;
      return result.count;
    },
  };
}

export interface PostgresStoreOptions extends StoreDeps {
  /** Pool of the shared store (default: its own pool on `shared.url`, else `databaseUrl`). */
  sql?: Sql;
  config: Pick<Config, 'databaseUrl' | 'db' | 'shared'>;
  logFailure: FailureLog;
}

/**
 * The PostgreSQL backend: the service's own database (or the one `shared.url` names, migrated
 * with `app migrate`), no extra service. Its own pool, so limiter queries never wait behind
 * the application's. Expired entries and ended windows are purged every five minutes.
 */
export function postgresStore(
  options: PostgresStoreOptions,
): SharedStore & { purge(): Promise<{ entries: number; counters: number }> } {
  const { config, log, logFailure } = options;
  const timeoutMs = config.shared.timeout;
  const own = options.sql
    ? undefined
    : connect({ databaseUrl: config.shared.url ?? config.databaseUrl, db: config.db }, log, { name: 'app-web-shared' });
  const sql = (options.sql ?? own) as Sql;
  const entries = postgresEntries(sql, { now: options.now, timeoutMs });
  let purger: NodeJS.Timeout | undefined;
  const purge = async () => ({ entries: await entries.purge(), counters: await purgeCounters(sql) });
  return {
    backend: 'postgres',
    name: 'shared',
    adapter: 'postgresql',
    where: 'postgres',
    entries,
    logFailure,
    counter: (counter) =>
      counterFrom(
        postgresLimiter(sql, {
          keyPrefix: counter.name,
          points: counter.points,
          duration: windowSeconds(counter.windowMs),
        }),
        {
          ...counter,
          timeoutMs,
        },
      ),
    async ping() {
      await sql`select 1`;
    },
    purge,
    async start() {
      purger ??= setInterval(() => {
        purge().catch((error: unknown) => logFailure(error, 'purging expired entries'));
      }, PURGE_INTERVAL_MS).unref();
    },
    async stop() {
      clearInterval(purger);
      purger = undefined;
      await own?.end({ timeout: 5 });
    },
  };
}
