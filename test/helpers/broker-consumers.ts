/**
 * Consumers of our own for the broker destinations' tests: what a receiving service would run,
 * keeping every message with the headers it came with, closed when the test file ends.
 */
import { after } from 'node:test';
import { connectAsync } from 'mqtt';
import { Redis } from 'ioredis';

const open: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const close of open.splice(0).reverse()) await close().catch(() => undefined);
});

/** One message as a consumer got it: the body, and the headers (user properties, stream fields). */
export interface Consumed {
  body: string;
  headers: Record<string, string>;
  /** The broker's own content type, where it has one. */
  contentType?: string;
}

/** A subscriber of `topic` (QoS 1) on the Mosquitto at `port`; `messages` fills as they come. */
export async function mqttSubscriber(
  port: number,
  topic: string,
  login: { username?: string; password?: string } = {},
): Promise<{ messages: Consumed[] }> {
  const client = await connectAsync({ host: '127.0.0.1', port, protocolVersion: 5, reconnectPeriod: 0, ...login });
  open.push(() => client.endAsync(true));
  const messages: Consumed[] = [];
  client.on('message', (_topic, payload, packet) => {
    const properties = packet.properties ?? {};
    messages.push({
      body: payload.toString('utf8'),
      headers: Object.fromEntries(
        Object.entries(properties.userProperties ?? {}).map(([name, value]) => [name, String(value)]),
      ),
      ...(properties.contentType === undefined ? {} : { contentType: properties.contentType }),
    });
  });
  await client.subscribeAsync(topic, { qos: 1 });
  return { messages };
}

/** The entries of `stream` in database `db` of the redis-server at `port`, as consumed messages. */
export async function streamEntries(port: number, db: number, stream: string): Promise<Consumed[]> {
  const client = new Redis({ host: '127.0.0.1', port, db, lazyConnect: true });
  await client.connect();
  try {
    const entries = await client.xrange(stream, '-', '+');
    return entries.map(([, fields]) => {
      const headers: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) headers[fields[i]] = fields[i + 1];
      const { body, ...rest } = headers;
      return { body, headers: rest };
    });
  } finally {
    client.disconnect();
  }
}
