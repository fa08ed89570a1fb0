/**
 * The Redis Streams destination (`redis://` / `rediss://user:pass@host:port/<db>?stream=<key>`,
 * optional `maxlen=`): one `XADD` per attempt, done when Redis answers the new entry's id.
 *
 * - The entry's fields are every header an HTTP receiver would get, under its own name
 *   (`content-type`, `webhook-id`, `webhook-timestamp`, `webhook-signature`, the endpoint's own
 *   headers), then `body`: the body as given. A reader that makes an object of the fields gets
 *   `body` from the last pair, whatever the headers are named.
 * - With `maxlen`, `XADD key MAXLEN ~ n *` trims the stream to about that many entries.
 * - One connection per destination and database (pool.ts), to the checked address (dial.ts), TLS
 *   verifying the certificate for the URL's host name. ioredis neither queues commands while
 *   disconnected nor reconnects: a connection that breaks is dropped, and the next attempt
 *   connects anew.
 * - An error reply (WRONGTYPE when the key is not a stream, NOAUTH / WRONGPASS when the login is
 *   refused, a database number out of range) is `rejected` with Redis's text; no answer within
 *   the attempt's time is a `timeout`; anything the network does is a `connection-error`.
 */
import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import type { RedisDestination } from '../../shared/webhooks/destinations/parse.ts';
import {
  connectionKey,
  describeError,
  isOpeningTimeout,
  lossSignal,
  openingTimeout,
  TIMED_OUT,
  within,
} from './attempt.ts';
import { DEFAULT_EXCERPT_BYTES } from '../delivery/post.ts';
import { servernameOf, type DialTarget } from './dial.ts';
import { createConnectionPool } from './pool.ts';
import { IDLE_CLOSE_MS, type BrokerSender, type BrokerSenderOptions } from './types.ts';

/** The name of the field that holds the body; the other fields are the headers. */
export const BODY_FIELD = 'body';

/** A pooled client and a promise that rejects once its connection is gone. */
interface RedisConnection {
  redis: Redis;
  lost: Promise<never>;
  /** An answer came: the bytes read so far were answers (see `open`). */
  answered(): void;
}

/**
 * Most bytes a connection may read beyond its last complete answer, as an HTTP answer is read
 * up to 64 kB: an XADD answers an entry id, and a server that announces a huge reply and streams
 * it (the client would keep it all in memory, gigabytes within an attempt's time) is cut.
 */
export const MAX_UNANSWERED_BYTES = DEFAULT_EXCERPT_BYTES;

/** The client options of a connection to `destination` at `dial`: built from parts, never a URL. */
function clientOptions(
  destination: RedisDestination,
  dial: DialTarget,
  options: BrokerSenderOptions,
  connectTimeoutMs: number,
): RedisOptions & { connectTimeout: number } {
  const servername = servernameOf(dial);
  return {
    host: dial.address,
    port: dial.port,
    ...(destination.username === '' ? {} : { username: destination.username }),
    ...(destination.password === '' ? {} : { password: destination.password }),
    ...(destination.tls
      ? {
          tls: {
            ...(servername === undefined ? {} : { servername }),
            ...(options.ca === undefined ? {} : { ca: options.ca }),
          },
        }
      : {}),
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    reconnectOnError: () => false,
    autoResubscribe: false,
    connectTimeout: Math.max(1, connectTimeoutMs),
    connectionName: 'webhooks-delivery',
  };
}

/**
 * Connects, logs in and selects database `db`, within `connectTimeout`; rejects with the
 * library's error (an error reply when the login or the database is refused), or
 * `openingTimeout` when that took too long. Once connected, `onLost` is told when
 * the connection goes.
 */
async function open(
  clientOpts: RedisOptions & { connectTimeout: number },
  db: number,
  onLost: (connection: RedisConnection) => void,
): Promise<RedisConnection> {
  const redis = new Redis(clientOpts);
  const connectTimeoutMs = clientOpts.connectTimeout;
  let failure: unknown;
  const { lost, lose } = lossSignal();
  let unanswered = 0;
  const connection: RedisConnection = {
    redis,
    lost,
    answered: () => {
      unanswered = 0;
    },
  };
  redis.once('connect', () => {
    const stream = redis.stream;
    stream.on('data', function watch(chunk: Buffer) {
      unanswered += chunk.length;
      if (unanswered > MAX_UNANSWERED_BYTES) {
        stream.off('data', watch); // cut once; the chunks already on their way change nothing
        const overrun = new Error(`the server sent over ${MAX_UNANSWERED_BYTES} bytes without completing an answer`);
        failure ??= overrun;
        lose(overrun); // the attempts waiting on an answer fail with this reason
        redis.disconnect();
      }
    });
  });
  // an 'error' without a listener would be reported by ioredis; every error also fails an attempt
  redis.on('error', (error) => {
    failure ??= error;
  });
  const ready = (async (): Promise<undefined> => {
    await redis.connect();
    // selected here rather than by ioredis's `db` option, whose refusal would only be logged
    // and leave the connection on database 0
    if (db !== 0) await redis.select(db);
    return undefined;
  })();
  ready.catch(() => undefined);
  let outcome: undefined | typeof TIMED_OUT;
  try {
    // ioredis's connectTimeout ends at the TCP connection; a server that accepts and then says
    // nothing would hold the opening (and every attempt waiting on it) for ever
    outcome = await within(ready, connectTimeoutMs);
  } catch (error) {
    redis.disconnect();
    throw failure instanceof Error ? failure : error;
  }
  if (outcome === TIMED_OUT) {
    redis.disconnect();
    throw openingTimeout('connection', connectTimeoutMs);
  }
  redis.once('end', () => {
    lose(failure instanceof Error ? failure : new Error('the connection closed'));
    onLost(connection);
  });
  return connection;
}

/** The XADD arguments of one message: the key, the trim, `*`, then the fields. */
export function xaddArguments(destination: RedisDestination, headers: Record<string, string>, body: string): string[] {
  const trim = destination.maxlen === undefined ? [] : ['MAXLEN', '~', String(destination.maxlen)];
  const fields = Object.entries(headers).flat();
  return [destination.stream, ...trim, '*', ...fields, BODY_FIELD, body];
}

/** The Redis Streams sender of a worker process. */
export function createSender(options: BrokerSenderOptions): BrokerSender<RedisDestination> {
  const pool = createConnectionPool<RedisConnection>({
    idleMs: options.idleMs ?? IDLE_CLOSE_MS,
    closeConnection: (connection) => connection.redis.disconnect(),
  });
  return {
    async send({ destination, dial, message, timeoutMs }) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const key = connectionKey(destination, destination.db);
      let connection: RedisConnection | undefined;
      let abandoned = false;
      const adding = (async () => {
        connection = await pool.get(key, () =>
          open(clientOptions(destination, dial, options, timeoutMs), destination.db, (gone) => pool.discard(key, gone)),
        );
        // a connection that came after the attempt gave up: adding now would be a late duplicate
        if (abandoned) return undefined;
        const [stream, ...rest] = xaddArguments(destination, message.headers, message.body);
        return Promise.race([connection.redis.xadd(stream, ...(rest as ['*', string])), connection.lost]);
      })();
      adding.catch(() => undefined);
      try {
        const id = await within(adding, timeoutMs);
        if (id === TIMED_OUT) {
          abandoned = true;
          if (connection !== undefined) pool.discard(key, connection);
          const awaited = connection === undefined ? 'connection' : 'XADD answer';
          return { kind: 'timeout', error: `no ${awaited} within ${timeoutMs} ms`, durationMs: elapsed() };
        }
        connection?.answered();
        return { kind: 'acknowledged', detail: `entry ${String(id)}`, durationMs: elapsed() };
      } catch (error) {
        if (isOpeningTimeout(error)) return { kind: 'timeout', error: error.message, durationMs: elapsed() };
        if (error instanceof ReplyError) {
          connection?.answered();
          return { kind: 'rejected', error: describeError(error, destination), durationMs: elapsed() };
        }
        if (connection !== undefined) pool.discard(key, connection);
        return { kind: 'connection-error', error: describeError(error, destination), durationMs: elapsed() };
      }
    },
    close: () => pool.close(),
  };
}
