/**
 * The MQTT destination (`mqtt://` / `mqtts://user:pass@host:port/<topic>`): one MQTT 5 publish at
 * QoS 1 per attempt, done when the broker's PUBACK says so.
 *
 * - The message is the body as given; every header an HTTP receiver would get travels as an MQTT
 *   user property of the same name (`webhook-id`, `webhook-timestamp`, `webhook-signature`, the
 *   endpoint's own headers), and `content-type` also as the MQTT content type.
 * - One connection per destination (pool.ts), to the checked address (dial.ts), TLS verifying
 *   the certificate for the URL's host name. mqtt.js's own reconnection is off: a connection
 *   that breaks is dropped, and the next attempt connects anew.
 * - A PUBACK or CONNACK with a reason code of 0x80 or more (not authorized, quota exceeded, bad
 *   user name or password …) is `rejected` with the code and its name; no PUBACK within the
 *   attempt's time is a `timeout`; anything the network does is a `connection-error`.
 */
import { randomUUID } from 'node:crypto';
import { connect, ReasonCodes, type IClientOptions, type MqttClient, type Packet } from 'mqtt';
import type { MqttDestination } from '../../shared/webhooks/destinations/parse.ts';
import {
  connectionKey,
  describeError,
  isOpeningTimeout,
  lossSignal,
  openingTimeout,
  TIMED_OUT,
  within,
} from './attempt.ts';
import { servernameOf, type DialTarget } from './dial.ts';
import { createConnectionPool } from './pool.ts';
import { IDLE_CLOSE_MS, type BrokerSender, type BrokerSenderOptions } from './types.ts';

/** A pooled client and a promise that rejects once its connection is gone. */
interface MqttConnection {
  client: MqttClient;
  lost: Promise<never>;
}

/** An MQTT 5 reason code in hex with its name (mqtt.js's table), e.g. `0x87 Not authorized`. */
export const reasonText = (code: number): string =>
  `0x${code.toString(16).padStart(2, '0')} ${(ReasonCodes as Record<number, string>)[code] ?? 'unknown reason'}`;

/** The reason code an mqtt.js error carries (CONNACK or PUBACK refusals), if any. */
const reasonCodeOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
};

/** The client options of a connection to `destination` at `dial`: built from parts, never a URL. */
function clientOptions(
  destination: MqttDestination,
  dial: DialTarget,
  options: BrokerSenderOptions,
  connectTimeoutMs: number,
): IClientOptions {
  const servername = servernameOf(dial);
  return {
    protocol: destination.tls ? 'mqtts' : 'mqtt',
    host: dial.address,
    port: dial.port,
    ...(destination.tls && servername !== undefined ? { servername } : {}),
    // Node's TLS takes a mixed list, which mqtt.js's type does not spell
    ...(destination.tls && options.ca !== undefined ? { ca: options.ca as IClientOptions['ca'] } : {}),
    protocolVersion: 5,
    clientId: `webhooks-${randomUUID()}`,
    clean: true,
    reconnectPeriod: 0,
    resubscribe: false,
    connectTimeout: Math.max(1, connectTimeoutMs),
    ...(destination.username === '' ? {} : { username: destination.username }),
    ...(destination.password === '' ? {} : { password: destination.password }),
  };
}

/**
 * Connects and waits for the CONNACK; rejects with the library's error (a refusal carries its
 * reason code), `openingTimeout` when no CONNACK came within `connectTimeout`, or when the
 * connection closes first. Once connected, `onLost` is told when the connection goes.
 */
function open(clientOpts: IClientOptions, onLost: (connection: MqttConnection) => void): Promise<MqttConnection> {
  const connectTimeoutMs = clientOpts.connectTimeout ?? 0;
  return new Promise((resolve, reject) => {
    const client = connect(clientOpts);
    let connected = false;
    let failure: unknown;
    const { lost, lose } = lossSignal();
    const connection: MqttConnection = { client, lost };
    // an 'error' without a listener would throw; every error also closes or fails an attempt
    client.on('error', (error) => {
      // mqtt.js says `connack timeout` when connectTimeout passes without a CONNACK
      failure ??=
        !connected && error.message === 'connack timeout' ? openingTimeout('CONNACK', connectTimeoutMs) : error;
      if (!connected) client.end(true);
    });
    client.on('disconnect', (packet) => {
      const code = packet.reasonCode ?? 0;
      failure ??= new Error(`the broker disconnected: ${reasonText(code)}`);
    });
    client.once('connect', () => {
      connected = true;
      resolve(connection);
    });
    client.once('close', () => {
      const error = failure instanceof Error ? failure : new Error('the connection closed');
      if (!connected) {
        reject(failure ?? new Error('the connection closed before the broker accepted it'));
        return;
      }
      lose(error);
      onLost(connection);
    });
  });
}

/** What a PUBACK said, for the attempt's record. */
const pubackDetail = (packet: Packet | undefined): string => {
  const code = (packet as { reasonCode?: number } | undefined)?.reasonCode ?? 0;
  return code === 0 ? 'PUBACK' : `PUBACK ${reasonText(code)}`;
};

/** The MQTT sender of a worker process. */
export function createSender(options: BrokerSenderOptions): BrokerSender<MqttDestination> {
  const pool = createConnectionPool<MqttConnection>({
    idleMs: options.idleMs ?? IDLE_CLOSE_MS,
    closeConnection: (connection) => connection.client.endAsync(true),
  });
  return {
    async send({ destination, dial, message, timeoutMs }) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const key = connectionKey(destination);
      let connection: MqttConnection | undefined;
      let abandoned = false;
      const publishing = (async () => {
        connection = await pool.get(key, () =>
          open(clientOptions(destination, dial, options, timeoutMs), (gone) => pool.discard(key, gone)),
        );
        // a connection that came after the attempt gave up: publishing now would be a late duplicate
        if (abandoned) return undefined;
        const contentType = message.headers['content-type'];
        const published = connection.client.publishAsync(destination.topic, message.body, {
          qos: 1,
          properties: {
            userProperties: message.headers,
            payloadFormatIndicator: true,
            ...(contentType === undefined ? {} : { contentType }),
          },
        });
        return Promise.race([published, connection.lost]);
      })();
      publishing.catch(() => undefined);
      try {
        const packet = await within(publishing, timeoutMs);
        if (packet === TIMED_OUT) {
          abandoned = true;
          if (connection !== undefined) pool.discard(key, connection);
          const awaited = connection === undefined ? 'CONNACK' : 'PUBACK';
          return { kind: 'timeout', error: `no ${awaited} within ${timeoutMs} ms`, durationMs: elapsed() };
        }
        return { kind: 'acknowledged', detail: pubackDetail(packet), durationMs: elapsed() };
      } catch (error) {
        if (isOpeningTimeout(error)) return { kind: 'timeout', error: error.message, durationMs: elapsed() };
        const code = reasonCodeOf(error);
        if (code !== undefined && code >= 0x80) {
          const packet = connection === undefined ? 'CONNACK' : 'PUBACK';
          return { kind: 'rejected', error: `${packet} ${reasonText(code)}`, durationMs: elapsed() };
        }
        if (connection !== undefined) pool.discard(key, connection);
        return { kind: 'connection-error', error: describeError(error, destination), durationMs: elapsed() };
      }
    },
    close: () => pool.close(),
  };
}
