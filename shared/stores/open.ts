import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import { memoryStore, type MemoryWatch } from './memory.ts';
import { postgresStore } from './postgres.ts';
import { lazyRedisStore } from './lazy-redis.ts';
import { throttledFailureLog } from './throttle.ts';
import type { SharedStore } from './types.ts';

export interface OpenOptions {
  config: Pick<Config, 'databaseUrl' | 'db' | 'shared'>;
  log: Logger;
  /** The clock entries expire by (default `Date.now`; tests move it). */
  now?: () => number;
  /** Pool for the postgres backend (default: its own). */
  sql?: Sql;
  /** The metrics of the `none` backend's bound (its bytes, its evictions). */
  watch?: MemoryWatch;
}

/**
 * The shared backend `config.shared.backend` names: `postgres`, `redis` (needs `shared.url`),
 * or `none`, which keeps entries and counters in this process (entries within
 * `shared.maxMemoryBytes`, evictions logged). Nothing connects until
 * `start()`; failures of the store are logged through one throttle (one line per ten seconds).
 */
export function openSharedStore(options: OpenOptions): SharedStore {
  const { config, log, now } = options;
  const logFailure = throttledFailureLog(log);
  switch (config.shared.backend) {
    case 'postgres':
      return postgresStore({ config, log, now, sql: options.sql, logFailure });
    case 'redis':
      if (!config.shared.url)
        throw new Error('shared.backend is "redis" but shared.url is not set (APP_SHARED__URL=redis://…)');
      return lazyRedisStore({ url: config.shared.url, timeoutMs: config.shared.timeout, log, now, logFailure });
    default:
      return memoryStore({ now, logFailure, log, maxBytes: config.shared.maxMemoryBytes, watch: options.watch });
  }
}
