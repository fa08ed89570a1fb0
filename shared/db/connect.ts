import postgres from 'postgres';
import type { Config } from '../config/index.ts';
import type { Logger } from '../log/logger.ts';
import { driverSocket } from './driver-socket.ts';
import { driverUrls } from './driver-urls.ts';
import { rememberStatements } from './request-statements.ts';

export type Sql = postgres.Sql<Record<string, never>>;
/** A pool or an open transaction: what small query functions take. */
export type Queryable = Sql | postgres.TransactionSql<Record<string, never>>;

/**
 * Seconds the driver waits before reconnecting after `retries` failed connections: 50 ms
 * doubling to at most 1 s. The driver's own default grows to 20 s, so after an outage a process
 * went on failing requests (and readiness stayed 503) for up to that long while the database was
 * already back.
 */
export const reconnectBackoff = (retries: number): number => Math.min(0.05 * 2 ** retries, 1);

/**
 * The lifetime of one connection, in seconds: between three quarters of `maxLifetimeMs` and all of
 * it, drawn for each connection, so that a pool's connections, opened together, are not all
 * replaced in the same moment; 0 (never) stays 0.
 */
export const connectionLifetime = (maxLifetimeMs: number) => (): number =>
  (maxLifetimeMs / 1000) * (maxLifetimeMs === 0 ? 0 : 0.75 + Math.random() * 0.25);

/**
 * What a pool of `connect()` tells of itself: its size (`max`), and the connections it holds open
 * (or is opening) now. The driver (postgres 3.4.9) keeps which of them are busy to itself; it opens
 * another connection only when every open one is busy, and closes one idle for a minute, so `open`
 * is the most the pool needed at once lately.
 */
export interface PoolFigures {
  readonly max: number;
  readonly open: number;
}

const poolFiguresOf = new WeakMap<Sql, PoolFigures>();

/** The figures of a pool `connect()` made (undefined for another: a transaction, a test's own client). */
export const poolFigures = (sql: Sql): PoolFigures | undefined => poolFiguresOf.get(sql);

/**
 * The `postgres` client for the service's own queries. Connects lazily (a database that is
 * down at boot does not stop the process), keeps `db.poolMax` connections, gives up a
 * connection attempt after 5 s, reconnects within a second of the database's return, and does
 * not print notices to stdout. Each connection is replaced within `db.maxLifetime` (once its
 * statement ends): after a failover that moved the database's name, one opened on the old primary
 * refuses writes (a read-only session) until then. `keepOpen` turns off both the closing of idle
 * connections and that replacement. Its sockets come from
 * `driverSocket`, which lets a connection closed with a write still buffered connect again at
 * once instead of timing out every attempt, and fails no query given to a connection as its
 * socket fails (the driver answered it from the next session without running it). Once `end()`
 * is done the pool opens no connection. Inside a request, the statements it (and its
 * transactions) send are remembered, to be cancelled on the server if the request times out
 * (request-statements.ts).
 */
export function connect(
  config: Pick<Config, 'databaseUrl' | 'db'>,
  log?: Logger,
  options: { max?: number; name?: string; keepOpen?: boolean } = {},
): Sql {
  if (!config.databaseUrl) {
    throw new Error(
      'no database configured: set DATABASE_URL (npm start and npm test start an embedded PostgreSQL for you)',
    );
  }
  // set once end() is done: a connection the driver had scheduled to open again before then
  // (its reconnect after a failed attempt outlives end's timeout) opens none, so an ended pool
  // keeps no process waiting for a database
  let ended = false;
  const figures = { max: options.max ?? config.db.poolMax, open: 0 };
  const socketOf = driverSocket(log, () => ended);
  const sql = postgres(driverUrls(config.databaseUrl, config.db.sslMode).postgres, {
    max: figures.max,
    // keepOpen: a connection that must not be closed behind the caller's back (a session lock's)
    idle_timeout: options.keepOpen ? 0 : 60,
    // seconds; 0 (keepOpen) is never. A function is drawn for each connection (the driver's own
    // default is one), which its types do not say
    ...({ max_lifetime: options.keepOpen ? 0 : connectionLifetime(config.db.maxLifetime) } as object),
    connect_timeout: 5,
    backoff: reconnectBackoff,
    onnotice: (notice) => log?.debug({ notice: notice.message }, 'postgres notice'),
    connection: { application_name: options.name ?? 'app' },
    transform: { undefined: null },
    // not in the driver's types, read by its connections (see driver-socket.ts)
    ...({
      socket: (driverOptions: Parameters<typeof socketOf>[0]) => {
        const socket = socketOf(driverOptions);
        figures.open += 1;
        socket.once('close', () => {
          figures.open -= 1;
        });
        return socket;
      },
    } as object),
  }) as unknown as Sql;
  const end = sql.end;
  sql.end = async (options) => {
    try {
      await end(options);
    } finally {
      ended = true;
    }
  };
  const pool = rememberStatements(sql);
  poolFiguresOf.set(pool, figures);
  return pool;
}
