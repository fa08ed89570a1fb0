/**
 * The delivery benchmark's MQTT destination: each endpoint publishes to a topic of its own under
 * `bench/<run>/` on the local Mosquitto (BENCH_MQTT_PORT, default 1883), and one subscriber of
 * `bench/<run>/#` reports every message. The subscription is at QoS 0 so the broker sends on at
 * once instead of holding QoS 1 messages for the subscriber's acknowledgements; the worker's
 * publishes are QoS 1 all the same, each one waiting for its PUBACK.
 */
import { connectAsync, type MqttClient } from 'mqtt';
import type { OpenBenchDestination } from './types.ts';

const port = Number(process.env.BENCH_MQTT_PORT ?? 1883);

export const openBenchDestination: OpenBenchDestination = async (run) => {
  const base = `bench/${run}`;
  let client: MqttClient | undefined;
  return {
    url: (index) => `mqtt://127.0.0.1:${port}/${base}/${index}`,
    async start(onMessage) {
      client = await connectAsync({ host: '127.0.0.1', port, protocolVersion: 5, reconnectPeriod: 0 });
      client.on('message', (_topic, payload) => onMessage(payload.toString('utf8')));
      await client.subscribeAsync(`${base}/#`, { qos: 0 });
    },
    async close() {
      await client?.endAsync();
    },
  };
};
