/**
 * The local RabbitMQ (127.0.0.1:5672, guest/guest, or BENCH_AMQP_URL's host, port and
 * credentials) as a benchmark destination: endpoint `i` publishes through the default exchange
 * to a durable queue of its own, which a consumer of ours drains (no acknowledgements, a large
 * prefetch: the consumer is not what is measured). RabbitMQ confirms a persistent message to a
 * durable queue once it is on disk, and it writes to disk in batches (every few hundred ms);
 * BENCH_AMQP_DURABLE=0 declares transient queues instead, whose confirms need no disk write.
 */
import { connect } from 'amqplib';
import type { BenchDestination, OpenBenchDestination } from './types.ts';

export const openBenchDestination: OpenBenchDestination = async (run) => {
  const base = new URL(process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  const model = await connect({
    protocol: 'amqp',
    hostname: base.hostname,
    port: Number(base.port || 5672),
    username: decodeURIComponent(base.username || 'guest'),
    password: decodeURIComponent(base.password || 'guest'),
  });
  const channel = await model.createChannel();
  await channel.prefetch(5_000);
  const queues = new Set<string>();
  const queueOf = (index: number) => `bench_${run}_${index}`;
  const destination: BenchDestination = {
    url(index) {
      queues.add(queueOf(index));
      return `amqp://${base.username || 'guest'}:${base.password || 'guest'}@${base.host}/?routingKey=${queueOf(index)}`;
    },
    async start(onMessage) {
      for (const queue of queues) {
        await channel.assertQueue(queue, { durable: process.env.BENCH_AMQP_DURABLE !== '0' });
        await channel.consume(
          queue,
          (message) => {
            if (message !== null) onMessage(message.content.toString('utf8'));
          },
          { noAck: true },
        );
      }
    },
    async close() {
      for (const queue of queues) await channel.deleteQueue(queue).catch(() => undefined);
      await model.close().catch(() => undefined);
    },
  };
  return destination;
};
