/**
 * The local NATS server with JetStream (127.0.0.1:4222, or BENCH_NATS_URL's host and port) as
 * a benchmark destination: endpoint `i` publishes to subject `bench_<run>.<i>`, one file-backed
 * stream of the run captures them all, and an ordered consumer of ours reads the stream.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { BenchDestination, OpenBenchDestination } from './types.ts';

export const openBenchDestination: OpenBenchDestination = async (run) => {
  const base = new URL(process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222');
  const nc = await connect({ servers: `${base.hostname}:${base.port || 4222}` });
  const jsm = await jetstreamManager(nc);
  const stream = `bench_${run}`;
  await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
  let stopped = false;
  let stop: (() => void) | undefined;
  const destination: BenchDestination = {
    url: (index) => `nats://${base.host}/${stream}.${index}`,
    async start(onMessage) {
      const consumer = await jetstream(nc).consumers.get(stream);
      const messages = await consumer.consume({ max_messages: 5_000 });
      stop = () => void messages.stop();
      void (async () => {
        for await (const message of messages) {
          if (stopped) break;
          onMessage(message.string());
        }
      })();
    },
    async close() {
      stopped = true;
      stop?.();
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    },
  };
  return destination;
};
