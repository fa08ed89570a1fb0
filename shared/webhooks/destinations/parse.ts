/**
 * A broker destination read off its URL: where to connect, who to be, and where the message
 * goes. Used at registration (a URL that names no exchange, subject, topic or stream is refused
 * there, with the reason) and by the worker before every attempt. Credentials come as written in
 * the URL, so the worker parses the URL with its credentials opened (credentials.ts).
 *
 * - `amqp[s]://user:pass@host:port/vhost?exchange=<name>&routingKey=<key>`: an empty or absent
 *   `exchange` is the default exchange, and then `routingKey` names the queue.
 * - `nats://` / `tls://user:pass@host:port/<subject>`: a JetStream publish to the subject.
 * - `mqtt[s]://user:pass@host:port/<topic>`: an MQTT 5 publish at QoS 1; the topic may hold `/`.
 * - `redis[s]://user:pass@host:port/<db>?stream=<key>[&maxlen=<n>]`: `XADD` to the stream.
 */
import { isIP } from 'node:net';
import { AppError } from '../../errors/app-error.ts';
import { schemeOf } from './kinds.ts';
import { hasControlCharacter } from '../../security/control-characters.ts';

/** Where and as whom to connect; the same for every broker. */
export interface BrokerConnection {
  /** The host as written, normalised as an https URL's host would be (lowercase, IPv4 forms). */
  host: string;
  port: number;
  tls: boolean;
  /** Decoded user name and password; empty when the URL has none. */
  username: string;
  password: string;
}

export type AmqpDestination = BrokerConnection & {
  kind: 'amqp';
  vhost: string;
  /** '' is the default exchange. */
  exchange: string;
  routingKey: string;
};
export type NatsDestination = BrokerConnection & { kind: 'nats'; subject: string };
export type MqttDestination = BrokerConnection & { kind: 'mqtt'; topic: string };
export type RedisDestination = BrokerConnection & {
  kind: 'redis';
  db: number;
  stream: string;
  /** `XADD … MAXLEN ~ n`; absent: the stream is not trimmed. */
  maxlen?: number;
};
export type BrokerDestination = AmqpDestination | NatsDestination | MqttDestination | RedisDestination;

/** Longest subject, topic, stream key, exchange or routing key accepted. */
export const MAX_NAME_LENGTH = 255;

const invalid = (reason: string, value: string) =>
  new AppError(422, `webhook url is not acceptable: ${reason}`, {
    code: 'APP_WEBHOOK_URL_INVALID',
    data: { field: 'url', value, reason },
  });

/**
 * The host of a broker URL normalised as WHATWG normalises an https host: a broker scheme is not
 * "special" to the URL parser, so `amqp://127.1` would otherwise keep `127.1` as a name.
 */
export function brokerHost(url: URL): string {
  let host: string;
  try {
    host = new URL(`https://${url.host}`).hostname;
  } catch {
    // a host an https URL may not have (`a%00b`, a forbidden code point): refused like any bad url
    throw invalid('its host is not a valid host name or address', url.href);
  }
  return host.startsWith('[') && host.endsWith(']') && isIP(host.slice(1, -1)) === 6 ? host.slice(1, -1) : host;
}

function decode(text: string, what: string, value: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalid(`${what} is not valid percent-encoding`, value);
  }
}

function name(text: string, what: string, value: string, forbidden: RegExp, rule: string): string {
  if (text === '') throw invalid(`${what} is missing`, value);
  if (text.length > MAX_NAME_LENGTH) throw invalid(`${what} is longer than ${MAX_NAME_LENGTH} characters`, value);
  if (hasControlCharacter(text)) throw invalid(`${what} must not contain control characters`, value);
  if (forbidden.test(text)) throw invalid(`${what} ${rule}`, value);
  return text;
}

function onlyParams(url: URL, allowed: readonly string[], value: string): void {
  for (const key of url.searchParams.keys()) {
    if (!allowed.includes(key)) {
      const known = allowed.length === 0 ? 'none are' : `${allowed.join(', ')} are`;
      throw invalid(`unknown query parameter ${key} (${known} accepted)`, value);
    }
  }
  for (const key of allowed) {
    if (url.searchParams.getAll(key).length > 1) throw invalid(`query parameter ${key} is given twice`, value);
  }
  if (url.hash !== '') throw invalid('a broker url has no fragment', value);
}

/**
 * The broker destination `url` names, or null for an HTTP receiver (or a scheme no destination
 * has: `checkWebhookUrl` refuses those). `display` is what error data shows of the URL (its
 * credentials masked). Throws AppError 422 `APP_WEBHOOK_URL_INVALID` naming what is wrong.
 */
export function parseBrokerUrl(url: URL, display = url.href): BrokerDestination | null {
  const scheme = schemeOf(url.protocol);
  if (scheme === undefined || scheme.kind === 'http') return null;
  const connection: BrokerConnection = {
    host: brokerHost(url),
    port: url.port === '' ? scheme.defaultPort : Number(url.port),
    tls: scheme.tls,
    username: decode(url.username, 'the user name', display),
    password: decode(url.password, 'the password', display),
  };
  const path = url.pathname.startsWith('/') ? url.pathname.slice(1) : url.pathname;
  switch (scheme.kind) {
    case 'amqp': {
      onlyParams(url, ['exchange', 'routingKey'], display);
      const exchange = url.searchParams.get('exchange') ?? '';
      const routingKey = url.searchParams.get('routingKey') ?? '';
      if (exchange === '' && routingKey === '')
        throw invalid('routingKey is missing: with the default exchange it names the queue', display);
      if (exchange.length > MAX_NAME_LENGTH || routingKey.length > MAX_NAME_LENGTH)
        throw invalid(`exchange and routingKey are at most ${MAX_NAME_LENGTH} characters`, display);
      if (path.includes('/')) throw invalid('the path names one virtual host', display);
      return {
        kind: 'amqp',
        ...connection,
        vhost: path === '' ? '/' : decode(path, 'the vhost', display),
        exchange,
        routingKey,
      };
    }
    case 'nats': {
      onlyParams(url, [], display);
      const subject = name(
        decode(path, 'the subject', display),
        'the subject',
        display,
        /[\s*>]|^\.|\.$|\.\./,
        'must be one subject without wildcards (*, >), spaces or empty tokens',
      );
      return { kind: 'nats', ...connection, subject };
    }
    case 'mqtt': {
      onlyParams(url, [], display);
      const topic = name(
        decode(path, 'the topic', display),
        'the topic',
        display,
        /[+#]/,
        'must not contain the wildcards + or #',
      );
      return { kind: 'mqtt', ...connection, topic };
    }
    case 'redis': {
      onlyParams(url, ['stream', 'maxlen'], display);
      if (!/^\d{0,2}$/.test(path)) throw invalid('the path names a database number', display);
      const stream = name(url.searchParams.get('stream') ?? '', 'the stream (stream=)', display, /(?!)/, '');
      const rawMaxlen = url.searchParams.get('maxlen');
      const maxlen = rawMaxlen === null ? undefined : Number(rawMaxlen);
      if (maxlen !== undefined && !(Number.isSafeInteger(maxlen) && maxlen > 0 && /^\d+$/.test(rawMaxlen ?? '')))
        throw invalid('maxlen must be a positive whole number', display);
      return {
        kind: 'redis',
        ...connection,
        db: path === '' ? 0 : Number(path),
        stream,
        ...(maxlen === undefined ? {} : { maxlen }),
      };
    }
  }
}
