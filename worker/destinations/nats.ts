/**
 * NATS JetStream destinations, `nats://` / `tls://user:pass@host:port/<subject>`: each message is
 * a JetStream publish, and the stream's PubAck is the acknowledgement.
 *
 * - One connection per destination key (address, user, password digest), pooled, made to the
 *   checked address only: no reconnection and no servers learnt from the cluster (those
 *   addresses were never checked); a connection that closes is dropped and the next attempt
 *   connects again.
 * - `Nats-Msg-Id` is the delivery id, so a retry of a message the stream already stored (its
 *   PubAck lost) is de-duplicated by the stream within its duplicate window and acknowledged.
 * - A subject no stream captures has no responders: `rejected` with that reason, as is a refused
 *   login (authorization violation), a permission violation or a JetStream API error (a full
 *   stream, …); no PubAck within the attempt's time is a `timeout`.
 * - A message larger than the server takes (its `max_payload`, body and headers together) is
 *   refused by the client before anything is sent: `rejected` with both sizes, and the connection
 *   is kept (nothing went wrong with it).
 * - TLS (`tls://`) verifies the certificate for the URL's host name while connecting to the
 *   checked address (`servername`).
 */
import { jetstream, JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import {
  AuthorizationError,
  connect,
  headers as natsHeaders,
  InvalidArgumentError,
  PermissionViolationError,
  RequestError,
  TimeoutError,
  type NatsConnection,
  type NodeConnectionOptions,
} from '@nats-io/transport-node';
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { NatsDestination } from '../../shared/webhooks/destinations/parse.ts';
import type { AttemptResult } from '../delivery/post.ts';
import { boundedAttempt, connectionKey, describeError } from './attempt.ts';
import { servernameOf, type DialTarget } from './dial.ts';
import { createConnectionPool } from './pool.ts';
import { IDLE_CLOSE_MS, type BrokerSender, type BrokerSenderOptions } from './types.ts';

interface NatsLink {
  nc: NatsConnection;
  js: JetStreamClient;
}

/** Most bytes a server may send before its connection is made (a NATS greeting is a few kB). */
export const MAX_GREETING_BYTES = 1_048_576;

/**
 * The sockets the client opens while a connection is being made, so that the opening can be cut:
 * the client waits for the server's greeting without a bound of its own, and reads a greeting
 * that never ends without a bound on its size (a server that says nothing, or streams bytes
 * without a line end, held its socket, and a core, for as long as the worker ran).
 */
const opening = new AsyncLocalStorage<Set<Socket>>();
subscribe('net.client.socket', (message) => {
  opening.getStore()?.add((message as { socket: Socket }).socket);
});

/**
 * `connect` with its opening bounded: cut (its sockets destroyed) when it has not connected
 * within `timeoutMs`, or when the server sends more than {@link MAX_GREETING_BYTES} first.
 */
async function boundedConnect(connectionOptions: NodeConnectionOptions, timeoutMs: number): Promise<NatsConnection> {
  const sockets = new Set<Socket>();
  const cut = (reason: string) => {
    for (const socket of sockets) socket.destroy(new Error(reason));
  };
  // read off the sockets' own count: a listener of ours would set them flowing before the client listens
  const watch = setInterval(() => {
    let read = 0;
    for (const socket of sockets) read += socket.bytesRead;
    if (read > MAX_GREETING_BYTES) cut(`the server sent over ${MAX_GREETING_BYTES} bytes before connecting`);
  }, 10);
  const timer = setTimeout(() => cut(`not connected within ${timeoutMs} ms`), timeoutMs);
  try {
    return await opening.run(sockets, () => connect(connectionOptions));
  } finally {
    clearInterval(watch);
    clearTimeout(timer);
  }
}

/** Every error reachable from `error` through `cause`. */
function* causes(error: unknown): Generator<unknown> {
  for (let link = error, depth = 0; link !== undefined && link !== null && depth < 8; depth += 1) {
    yield link;
    link = link instanceof Error ? link.cause : undefined;
  }
}

const isNoResponders = (error: unknown) =>
  [...causes(error)].some(
    (link) => (link instanceof RequestError && link.isNoResponders()) || (link as Error)?.name === 'NoResponders',
  );

function connectionOptions(
  destination: NatsDestination,
  dial: DialTarget,
  options: BrokerSenderOptions,
  timeoutMs: number,
): NodeConnectionOptions {
  const servername = servernameOf(dial);
  const address = dial.family === 6 ? `[${dial.address}]` : dial.address;
  return {
    servers: `${address}:${dial.port}`,
    name: 'app-webhooks',
    timeout: timeoutMs,
    reconnect: false,
    ignoreClusterUpdates: true,
    noRandomize: true,
    ...(destination.username === '' && destination.password === ''
      ? {}
      : { user: destination.username, pass: destination.password }),
    tls: destination.tls
      ? {
          ...(servername === undefined ? {} : { servername }),
          ...(options.ca === undefined ? {} : { ca: options.ca }),
        }
      : null,
  } as NodeConnectionOptions;
}

/** The NATS JetStream sender of a worker process. */
export function createSender(options: BrokerSenderOptions): BrokerSender<NatsDestination> {
  const pool = createConnectionPool<NatsLink>({
    idleMs: options.idleMs ?? IDLE_CLOSE_MS,
    closeConnection: (link) => link.nc.close(),
  });

  const open = (key: string, destination: NatsDestination, dial: DialTarget, timeoutMs: number) =>
    pool.get(key, async () => {
      const nc = await boundedConnect(connectionOptions(destination, dial, options, timeoutMs), timeoutMs);
      const link: NatsLink = { nc, js: jetstream(nc) };
      void nc.closed().then((error) => {
        if (error)
          options.log.warn(
            { destination: 'nats', host: destination.host, error: describeError(error, destination) },
            'broker connection failed',
          );
        pool.discard(key, link);
      });
      return link;
    });

  return {
    send({ destination, dial, message, timeoutMs }) {
      const key = connectionKey(destination, dial.address);
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let link: NatsLink | undefined;

      const attempt = async (): Promise<AttemptResult> => {
        try {
          link = await open(key, destination, dial, timeoutMs);
        } catch (error) {
          const text = describeError(error, destination);
          if ([...causes(error)].some((link) => link instanceof AuthorizationError))
            return { kind: 'rejected', error: text, durationMs: elapsed() };
          if ([...causes(error)].some((link) => link instanceof TimeoutError))
            return { kind: 'timeout', error: `connecting: ${text}`, durationMs: elapsed() };
          return { kind: 'connection-error', error: text, durationMs: elapsed() };
        }
        const h = natsHeaders();
        for (const [name, value] of Object.entries(message.headers)) h.set(name, value);
        try {
          const ack = await link.js.publish(destination.subject, message.body, {
            msgID: message.id,
            headers: h,
            timeout: Math.max(1, timeoutMs - elapsed()),
          });
          return {
            kind: 'acknowledged',
            detail: `stream ${ack.stream} seq ${ack.seq}${ack.duplicate ? ' (duplicate)' : ''}`,
            durationMs: elapsed(),
          };
        } catch (error) {
          if (isNoResponders(error))
            return {
              kind: 'rejected',
              error: `no stream captures subject ${destination.subject} (no responders)`,
              durationMs: elapsed(),
            };
          const text = describeError(error, destination);
          if (error instanceof InvalidArgumentError) {
            const limit = link.nc.info?.max_payload;
            return {
              kind: 'rejected',
              error:
                limit === undefined
                  ? text
                  : `the message (${Buffer.byteLength(message.body)} bytes of body, with its headers) is over the server's max_payload of ${limit} bytes`,
              durationMs: elapsed(),
            };
          }
          if (error instanceof JetStreamApiError)
            return {
              kind: 'rejected',
              error: `${text} (JetStream ${error.status}/${error.code})`,
              durationMs: elapsed(),
            };
          if ([...causes(error)].some((link) => link instanceof PermissionViolationError))
            return { kind: 'rejected', error: text, durationMs: elapsed() };
          pool.discard(key, link);
          if ([...causes(error)].some((link) => link instanceof TimeoutError))
            return { kind: 'timeout', error: `no PubAck within ${timeoutMs} ms`, durationMs: elapsed() };
          return { kind: 'connection-error', error: text, durationMs: elapsed() };
        }
      };

      return boundedAttempt(timeoutMs, 'PubAck', attempt, () => {
        if (link !== undefined) pool.discard(key, link);
      });
    },
    close: () => pool.close(),
  };
}
