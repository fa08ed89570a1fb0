/**
 * The local RabbitMQ (127.0.0.1:5672, guest/guest) as the tests use it: declare queues and
 * exchanges of their own, read what arrived, and remove them when the file's tests end.
 */
import { after } from 'node:test';
import { connect, type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { eventually } from './poll.ts';

export const RABBITMQ = { host: '127.0.0.1', port: 5672, username: 'guest', password: 'guest' };

export interface RabbitAdmin {
  channel: Channel;
  /** A queue of the test's own (auto-deleted at the end). */
  queue(name: string): Promise<string>;
  /** A direct exchange of the test's own, with `queue` bound under `routingKey` when given. */
  exchange(name: string, binding?: { queue: string; routingKey: string }): Promise<string>;
  /** The next `count` messages of `queue`, waiting for them (deadline `timeoutMs`). */
  take(queue: string, count?: number, timeoutMs?: number): Promise<GetMessage[]>;
}

let model: ChannelModel | undefined;
const made: { queues: string[]; exchanges: string[] } = { queues: [], exchanges: [] };

after(async () => {
  if (model === undefined) return;
  const channel = await model.createChannel();
  for (const queue of made.queues) await channel.deleteQueue(queue).catch(() => undefined);
  for (const exchange of made.exchanges) await channel.deleteExchange(exchange).catch(() => undefined);
  await model.close().catch(() => undefined);
  model = undefined;
});

/** The admin connection of this test file (opened on first use). */
export async function rabbitAdmin(): Promise<RabbitAdmin> {
  model ??= await connect({
    protocol: 'amqp',
    hostname: RABBITMQ.host,
    port: RABBITMQ.port,
    username: 'guest',
    password: 'guest',
  });
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  return {
    channel,
    async queue(name) {
      await channel.assertQueue(name, { durable: false });
      made.queues.push(name);
      return name;
    },
    async exchange(name, binding) {
      await channel.assertExchange(name, 'direct', { durable: false });
      made.exchanges.push(name);
      if (binding !== undefined) await channel.bindQueue(binding.queue, name, binding.routingKey);
      return name;
    },
    async take(queue, count = 1, timeoutMs = 10_000) {
      const messages: GetMessage[] = [];
      await eventually(
        async () => {
          const message = await channel.get(queue, { noAck: true });
          if (message !== false) messages.push(message);
          return messages.length >= count;
        },
        timeoutMs,
        `${count} message(s) in queue ${queue}`,
      );
      return messages;
    },
  };
}
