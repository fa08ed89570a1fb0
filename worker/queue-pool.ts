/**
 * graphile-worker's own `pg` pool (its job fetch, completions and LISTEN), made here rather than
 * by graphile-worker from a connection string, for what graphile-worker does not set:
 *
 * - `db.maxLifetime`: pg's pool keeps a connection that keeps being used forever, so after a
 *   failover that moved the database's name one opened on the old primary (a read-only session)
 *   failed every job fetch until the process was restarted; now each is replaced after the
 *   lifetime (one in use once it is handed back). Its LISTEN connection is held, not handed back,
 *   so it lives on; it only listens;
 * - a name (`app-worker-queue`) in `pg_stat_activity`.
 *
 * graphile-worker does not end a pool it was given, so its owner ends it once the runner has
 * stopped (`endQueuePool`). Connection errors are listened for on the pool and on each client:
 * graphile-worker then adds no handlers of its own (and warns that it would have to).
 */
import pg from 'pg';
import type { Config } from '../shared/config/index.ts';
import { driverUrls } from '../shared/db/driver-urls.ts';
import type { Logger } from '../shared/log/logger.ts';

export type QueuePool = pg.Pool;

/** The name of graphile-worker's connections in `pg_stat_activity`. */
export const QUEUE_POOL_NAME = 'app-worker-queue';

/** How long `endQueuePool` waits for connections still handed out (a runner killed mid-statement). */
const END_WAIT_MS = 2_000;

function openQueuePool(config: Pick<Config, 'databaseUrl' | 'db'>, log: Logger, max: number): QueuePool {
  if (!config.databaseUrl) throw new Error('no database configured: set DATABASE_URL');
  const pool = new pg.Pool({
    connectionString: driverUrls(config.databaseUrl, config.db.sslMode).pg,
    max,
    maxLifetimeSeconds: config.db.maxLifetime / 1000,
    application_name: QUEUE_POOL_NAME,
  });
  // an idle connection that fails (the database restarting) would otherwise be an uncaught exception
  const failed = (error: Error) => log.debug({ err: error }, 'graphile-worker connection closed with an error');
  pool.on('error', failed);
  pool.on('connect', (client) => client.on('error', failed));
  return pool;
}

const ends = new WeakMap<QueuePool, Promise<void>>();

/**
 * Ends `pool` (once, however often asked): its idle connections at once, those still handed out
 * as they come back, waiting for at most END_WAIT_MS (one held by a runner whose teardown hangs
 * on a dead socket never comes back).
 */
function endQueuePool(pool: QueuePool): Promise<void> {
  let ending = ends.get(pool);
  if (ending === undefined) {
    let timer: NodeJS.Timeout | undefined;
    ending = Promise.race([
      pool.end().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, END_WAIT_MS);
        timer.unref();
      }),
    ]).finally(() => clearTimeout(timer));
    ends.set(pool, ending);
  }
  return ending;
}

/**
 * The queue pools of one worker process: one for each runner, so that a runner started again
 * after an outage gets fresh connections rather than those of the runner that died. `end` ends
 * one once its runner has stopped; `endAll` ends every one still open, when the process stops.
 */
export function queuePools(config: Pick<Config, 'databaseUrl' | 'db'>, log: Logger, max: number) {
  const open = new Set<QueuePool>();
  const end = (pool: QueuePool): Promise<void> => {
    open.delete(pool);
    return endQueuePool(pool);
  };
  return {
    open(): QueuePool {
      const pool = openQueuePool(config, log, max);
      open.add(pool);
      return pool;
    },
    end,
    async endAll(): Promise<void> {
      await Promise.all([...open].map(end));
    },
  };
}
