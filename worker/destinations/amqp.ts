/**
 * RabbitMQ (AMQP 0-9-1) destinations, `amqp[s]://user:pass@host:port/vhost?exchange=&routingKey=`:
 * each message is published persistent, `mandatory`, on a confirm channel, and the broker's
 * publisher confirm is the acknowledgement.
 *
 * - One connection per destination key (address, user, password digest, vhost), pooled; one
 *   confirm channel per exchange on it, so a missing exchange (which makes the broker close the
 *   channel, 404 NOT_FOUND) fails only the endpoints naming that exchange; the channel is opened
 *   again on the next attempt.
 * - A message the exchange routes to no queue comes back (`basic.return`, because `mandatory`)
 *   before its confirm: that attempt is `rejected` "no queue bound for routing key …", since a
 *   confirm alone would report success for a message nobody will ever read.
 * - A refused login (403 ACCESS_REFUSED) or an unknown vhost (530 NOT_ALLOWED) is `rejected`; a
 *   negative confirm (`basic.nack`) is `rejected`; anything else at the connection level is a
 *   `connection-error` and the connection is dropped, so the next attempt connects again.
 * - The connection is made from the parsed parts to the checked address: the password never
 *   appears in a URL string, and error texts are scrubbed of it.
 */
import { connect, type ChannelModel, type ConfirmChannel, type Message, type Options } from 'amqplib';
import type { AmqpDestination } from '../../shared/webhooks/destinations/parse.ts';
import type { AttemptResult } from '../delivery/post.ts';
import { boundedAttempt, connectionKey, describeError } from './attempt.ts';
import { servernameOf, type DialTarget } from './dial.ts';
import { createConnectionPool } from './pool.ts';
import { IDLE_CLOSE_MS, type BrokerAttempt, type BrokerSender, type BrokerSenderOptions } from './types.ts';

/** A confirm channel for one exchange, and what the broker said on it. */
interface ExchangeChannel {
  channel: ConfirmChannel;
  /** Why messages came back unroutable, by message id (set before their confirm arrives). */
  returned: Map<string, string>;
  /** The broker's reason when it closed the channel (e.g. 404 NOT_FOUND no exchange). */
  closedBecause?: string;
}

/** One pooled connection and its channels, by exchange. */
interface AmqpConnection {
  model: ChannelModel;
  channels: Map<string, Promise<ExchangeChannel>>;
}

/** Replies of the broker that refuse the destination rather than fail the network. */
const REFUSALS = /ACCESS[-_]REFUSED|NOT[-_]ALLOWED|NOT[-_]FOUND/;

async function openConnection(
  destination: AmqpDestination,
  dial: DialTarget,
  options: BrokerSenderOptions,
  timeoutMs: number,
): Promise<AmqpConnection> {
  const servername = servernameOf(dial);
  const socketOptions = {
    noDelay: true,
    // bounds the opening handshake (a broker that accepts and never answers); cleared once open
    timeout: timeoutMs,
    clientProperties: { connection_name: 'app-webhooks' },
    ...(servername === undefined ? {} : { servername }),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  };
  const model = await connect(
    {
      protocol: destination.tls ? 'amqps' : 'amqp',
      hostname: dial.address,
      port: dial.port,
      username: destination.username,
      password: destination.password,
      vhost: destination.vhost,
    },
    socketOptions,
  );
  return { model, channels: new Map() };
}

function channelFor(connection: AmqpConnection, exchange: string): Promise<ExchangeChannel> {
  const existing = connection.channels.get(exchange);
  if (existing !== undefined) return existing;
  const opening = connection.model.createConfirmChannel().then((channel) => {
    const state: ExchangeChannel = { channel, returned: new Map() };
    channel.on('return', (message: Message) => {
      const id = message.properties.messageId;
      const fields = message.fields as Message['fields'] & { replyCode?: number; replyText?: string };
      if (typeof id === 'string')
        state.returned.set(
          id,
          `no queue bound for routing key ${JSON.stringify(fields.routingKey)} on ` +
            `${fields.exchange === '' ? 'the default exchange' : `exchange ${JSON.stringify(fields.exchange)}`}` +
            ` (${fields.replyCode ?? 312} ${fields.replyText ?? 'NO_ROUTE'})`,
        );
    });
    channel.on('error', (error: Error) => {
      state.closedBecause = error.message;
    });
    channel.on('close', () => {
      if (connection.channels.get(exchange) === opening) connection.channels.delete(exchange);
    });
    return state;
  });
  connection.channels.set(exchange, opening);
  opening.catch(() => {
    if (connection.channels.get(exchange) === opening) connection.channels.delete(exchange);
  });
  return opening;
}

/** The AMQP properties of `message`: persistent, its id, its content type, the other headers. */
function publishOptions(message: BrokerAttempt['message']): Options.Publish {
  const headers: Record<string, string> = {};
  let contentType: string | undefined;
  for (const [name, value] of Object.entries(message.headers)) {
    if (name.toLowerCase() === 'content-type') contentType = value;
    else headers[name] = value;
  }
  return {
    persistent: true,
    mandatory: true,
    messageId: message.id,
    ...(contentType === undefined ? {} : { contentType }),
    headers,
  };
}

/** How long closing a connection waits for the broker's close-ok before dropping the socket. */
const CLOSE_WITHIN_MS = 2_000;

/**
 * Closes `connection` politely, or drops its socket when the broker does not answer within
 * CLOSE_WITHIN_MS: amqplib waits for close-ok without a bound, and a broker that stopped
 * answering must not hold a worker's shutdown.
 */
async function closeWithin(connection: AmqpConnection): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      (connection.model.connection as { stream?: { destroy(): void } }).stream?.destroy();
      resolve();
    }, CLOSE_WITHIN_MS);
  });
  try {
    await Promise.race([connection.model.close().catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The RabbitMQ sender of a worker process. */
export function createSender(options: BrokerSenderOptions): BrokerSender<AmqpDestination> {
  const pool = createConnectionPool<AmqpConnection>({
    idleMs: options.idleMs ?? IDLE_CLOSE_MS,
    closeConnection: (connection) => closeWithin(connection),
  });

  const open = (key: string, destination: AmqpDestination, dial: DialTarget, timeoutMs: number) =>
    pool.get(key, async () => {
      const connection = await openConnection(destination, dial, options, timeoutMs);
      const drop = () => pool.discard(key, connection);
      connection.model.on('error', (error: Error) => {
        options.log.warn(
          { destination: 'amqp', host: destination.host, error: describeError(error, destination) },
          'broker connection failed',
        );
      });
      connection.model.on('close', drop);
      return connection;
    });

  return {
    send({ destination, dial, message, timeoutMs }) {
      const key = connectionKey(destination, dial.address, destination.vhost);
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let connection: AmqpConnection | undefined;
      let timedOut = false;

      const attempt = async (): Promise<AttemptResult> => {
        try {
          connection = await open(key, destination, dial, timeoutMs);
        } catch (error) {
          const text = describeError(error, destination);
          // the broker closes the handshake at connection.open without a reason amqplib keeps
          if (/Expected ConnectionOpenOk; got <ConnectionClose/.test(text))
            return {
              kind: 'rejected',
              error: `the broker refused to open virtual host ${JSON.stringify(destination.vhost)} (it does not exist, or the user may not use it)`,
              durationMs: elapsed(),
            };
          return REFUSALS.test(text)
            ? { kind: 'rejected', error: text, durationMs: elapsed() }
            : { kind: 'connection-error', error: text, durationMs: elapsed() };
        }
        if (timedOut) return { kind: 'timeout', error: 'late', durationMs: elapsed() };
        let state: ExchangeChannel;
        try {
          state = await channelFor(connection, destination.exchange);
        } catch (error) {
          pool.discard(key, connection);
          return { kind: 'connection-error', error: describeError(error, destination), durationMs: elapsed() };
        }
        // the time may also run out while the channel opens: a publish after the attempt was
        // recorded as timed out would reach the broker unrecorded
        if (timedOut) return { kind: 'timeout', error: 'late', durationMs: elapsed() };
        const { exchange, routingKey } = destination;
        return new Promise<AttemptResult>((resolve) => {
          try {
            state.channel.publish(
              exchange,
              routingKey,
              Buffer.from(message.body, 'utf8'),
              publishOptions(message),
              (error: unknown) => {
                const returned = state.returned.get(message.id);
                state.returned.delete(message.id);
                if (error === null || error === undefined) {
                  if (returned !== undefined) resolve({ kind: 'rejected', error: returned, durationMs: elapsed() });
                  else
                    resolve({
                      kind: 'acknowledged',
                      detail: `confirmed by ${exchange === '' ? 'the default exchange' : `exchange ${exchange}`}`,
                      durationMs: elapsed(),
                    });
                } else if (state.closedBecause !== undefined) {
                  resolve({
                    kind: 'rejected',
                    error: describeError(state.closedBecause, destination),
                    durationMs: elapsed(),
                  });
                } else if (error instanceof Error && /nack/i.test(error.message)) {
                  resolve({
                    kind: 'rejected',
                    error: 'the broker refused the message (basic.nack)',
                    durationMs: elapsed(),
                  });
                } else {
                  resolve({
                    kind: 'connection-error',
                    error: describeError(error, destination),
                    durationMs: elapsed(),
                  });
                }
              },
            );
          } catch (error) {
            // the channel closed between taking it and publishing: the next attempt opens another
            resolve({ kind: 'connection-error', error: describeError(error, destination), durationMs: elapsed() });
          }
        });
      };

      return boundedAttempt(timeoutMs, 'publisher confirm', attempt, () => {
        timedOut = true;
        // a connection that let an attempt run out of time is not trusted with the next one
        if (connection !== undefined) pool.discard(key, connection);
      });
    },
    close: () => pool.close(),
  };
}
