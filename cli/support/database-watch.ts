/**
 * A connection held open to tell a long-running command (`app listen`) the moment it loses its
 * database: the server ending the session (a restart, `pg_terminate_backend`) closes it at once,
 * and a heartbeat that gets no answer within `heartbeatMs` (the network gone, where no close ever
 * comes) counts as lost too. A lost connection is reopened at once, then with a backoff from
 * BACKOFF_FIRST_MS doubling to at most BACKOFF_MAX_MS, until `reconnectWithinMs` after the loss;
 * past that, `failed` rejects with an error saying so, caused by the last connection error
 * (cli/failure.ts renders it as the database unreachable, exit 4). The connection is named `name` in `pg_stat_activity`.
 * With `notices`, it also LISTENs on a channel, so the command hears of changes as they are made.
 */
import pg from 'pg';
import type { Config } from '../../shared/config/index.ts';
import { formatDuration } from '../../shared/config/units.ts';
import { driverUrls } from '../../shared/db/driver-urls.ts';

export const BACKOFF_FIRST_MS = 250;
export const BACKOFF_MAX_MS = 5_000;
/** How often the connection is asked to answer, and how long it may take to (by default). */
const HEARTBEAT_MS = 10_000;
/** The longest one connection attempt may take (less when the bound is nearer). */
const CONNECT_TIMEOUT_MS = 5_000;

export interface DatabaseWatch {
  /** Rejects with the last connection error once the connection was lost and not back within the bound. */
  failed: Promise<never>;
  /** Closes the connection and stops reconnecting; never throws. */
  stop(): Promise<void>;
}

/** The wait before reconnection attempt `retries` + 1 (the first is made at once). */
export const watchBackoff = (retries: number): number => Math.min(BACKOFF_FIRST_MS * 2 ** retries, BACKOFF_MAX_MS);

/** Opens the watched connection (throws when it cannot be opened) and watches it until `stop()`. */
export async function watchDatabase(options: {
  config: Pick<Config, 'databaseUrl' | 'db'>;
  name: string;
  reconnectWithinMs: number;
  /** How often the connection must answer, within as long (default HEARTBEAT_MS). */
  heartbeatMs?: number;
  /** The connection was lost (`error`: why); reconnection starts. */
  onLost(error: Error): void;
  /** The connection is back, `downMs` after it was lost; what it returns is awaited before the next loss is watched. */
  onBack(downMs: number): Promise<void> | void;
  /** A channel the connection LISTENs on (again after each reconnection), and what a notice on it calls. */
  notices?: { channel: string; onNotice(): void };
}): Promise<DatabaseWatch> {
  if (!options.config.databaseUrl) throw new Error('no database configured: set DATABASE_URL');
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const connectionString = driverUrls(options.config.databaseUrl, options.config.db.sslMode).pg;
  let current: pg.Client | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let stopped = false;
  let wake: (() => void) | undefined;
  let giveUp!: (error: unknown) => void;
  const failed = new Promise<never>((_resolve, reject) => (giveUp = reject));
  // whoever stops the watch need not have awaited `failed`
  failed.catch(() => undefined);

  /** Ends `client` without waiting on its socket (which may be dead). */
  const discard = (client: pg.Client) => {
    void client.end().catch(() => undefined);
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  };

  const open = async (timeoutMs: number): Promise<pg.Client> => {
    const client = new pg.Client({
      connectionString,
      application_name: options.name,
      connectionTimeoutMillis: Math.max(1, Math.min(CONNECT_TIMEOUT_MS, timeoutMs)),
    });
    // a failure after connect() settled is a loss (ignored unless this is the client watched)
    client.on('error', (error) => lost(client, error));
    client.on('end', () => lost(client, new Error('Connection terminated unexpectedly')));
    try {
      await client.connect();
    } catch (error) {
      discard(client);
      throw error;
    }
    return client;
  };

  const watch = (client: pg.Client) => {
    current = client;
    if (options.notices) {
      const { channel, onNotice } = options.notices;
      client.on('notification', (notice) => {
        if (notice.channel === channel) onNotice();
      });
      client.query(`listen ${client.escapeIdentifier(channel)}`).catch((error: Error) => lost(client, error));
    }
    heartbeat = setInterval(() => {
      client
        .query({ text: 'select 1', query_timeout: heartbeatMs } as pg.QueryConfig)
        .catch((error: Error) =>
          lost(
            client,
            error.message === 'Query read timeout'
              ? new Error(`no answer within ${formatDuration(heartbeatMs)}`)
              : error,
          ),
        );
    }, heartbeatMs);
    heartbeat.unref();
  };

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const reconnect = async (lostAt: number) => {
    const deadline = lostAt + options.reconnectWithinMs;
    for (let retries = 0; !stopped; retries++) {
      let client: pg.Client;
      try {
        client = await open(deadline - Date.now());
      } catch (error) {
        const left = deadline - Date.now();
        if (left <= 0) {
          const reason = error instanceof Error ? error.message : String(error);
          return giveUp(
            new Error(
              `the connection was lost and not back within ${formatDuration(options.reconnectWithinMs)}: ${reason}`,
              { cause: error },
            ),
          );
        }
        await pause(Math.min(watchBackoff(retries), left));
        continue;
      }
      if (stopped) return discard(client);
      watch(client);
      return options.onBack(Date.now() - lostAt);
    }
  };

  function lost(client: pg.Client, error: Error) {
    if (client !== current || stopped) return;
    current = undefined;
    clearInterval(heartbeat);
    discard(client);
    options.onLost(error);
    void reconnect(Date.now()).catch(giveUp);
  }

  watch(await open(CONNECT_TIMEOUT_MS));
  return {
    failed,
    async stop() {
      stopped = true;
      clearInterval(heartbeat);
      wake?.();
      const client = current;
      current = undefined;
      if (client) await client.end().catch(() => undefined);
    },
  };
}
