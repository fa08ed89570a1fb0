/**
 * docs/receiving.md, "Receiving from a broker": its RabbitMQ and NATS JetStream consumers, run
 * exactly as the guide prints them, verify a real signed delivery of this service (published by
 * the real worker), drop a message whose body was tampered with or whose timestamp is 10 minutes
 * old, and handle a repeated `webhook-id` once.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { AckPolicy } from '@nats-io/jetstream';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase } from '../helpers/database.ts';
import { NATS, natsAdmin } from '../helpers/nats.ts';
import { eventually } from '../helpers/poll.ts';
import { ROOT } from '../helpers/processes.ts';
import { RABBITMQ, rabbitAdmin } from '../helpers/rabbitmq.ts';
import type { RegisteredEndpoint } from '../../shared/webhooks/endpoints/register.ts';
import { endpoint, harness, runOnce, send, type Harness } from '../worker/helpers.ts';
import { unique } from '../worker/destinations/attempts.ts';
import { snippet } from './guide.ts';

/** One attempt may take up to 10 s: the first publish opens the broker connection, on a machine the whole suite loads. */
const SLOW_MACHINE = { webhooks: { timeout: '10s' } };

const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Runs the guide's snippet `name` with `env`; its output so far. */
function run(name: string, env: Record<string, string>): () => string {
  const child = spawn(process.execPath, ['--input-type=module', '-e', snippet(name)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return () => output;
}

const printed = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { id: string; type: string; data: unknown });

/**
 * A real delivery of `order.created {order: 42}` to `ep` by the worker: acknowledged by the
 * broker (the delivery is done) and printed by the consumer; its id and body.
 */
async function deliveredAndPrinted(h: Harness, ep: RegisteredEndpoint, output: () => string) {
  const [id] = await send(h, ep, 'order.created', { order: 42 });
  await runOnce(h);
  const [row] = await h.sql<
    { status: string; body: string }[]
  >`select status, body from app_webhook_deliveries where id = ${id}`;
  assert.equal(row.status, 'done', 'the broker acknowledged the real delivery');
  await eventually(() => output().includes(id), 15_000, `the consumer printed the event; output: ${output()}`);
  assert.deepEqual(printed(output()), [{ id, type: 'order.created', data: { order: 42 } }]);
  return { id, body: row.body };
}

/** The Standard Webhooks headers of `body` as delivery `id`, signed with `secret` at `at`. */
const signed = (secret: string, id: string, at: Date, body: string) => ({
  'webhook-id': id,
  'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  'webhook-signature': new Webhook(secret).sign(id, at, body),
});

/**
 * The checks after the real delivery was printed: a repeat, a tampered body and a stale
 * timestamp published by `publish`, then a sentinel; once the sentinel is printed, the consumer
 * has handled every message before it, and only the delivery and the sentinel were printed.
 */
async function refusesForgeriesAndRepeats(
  secret: string,
  delivered: { id: string; body: string },
  publish: (body: string, headers: Record<string, string>) => Promise<void>,
  output: () => string,
) {
  const { id, body } = delivered;
  await publish(body, signed(secret, id, new Date(), body));
  await publish(body.replace('42', '43'), signed(secret, id, new Date(), body));
  await publish(body, signed(secret, id, new Date(Date.now() - 10 * 60_000), body));
  const sentinel = 'msg_01SENT1NE10000000000000000';
  const sentinelBody = body.replaceAll(id, sentinel);
  await publish(sentinelBody, signed(secret, sentinel, new Date(), sentinelBody));
  await eventually(() => output().includes(sentinel), 15_000, `the sentinel printed; output: ${output()}`);
  assert.deepEqual(
    printed(output()).map((event) => event.id),
    [id, sentinel],
    `the repeat was handled once, the forgeries not at all: ${output()}`,
  );
}

describe('docs/receiving.md: the RabbitMQ consumer', () => {
  it('verifies a real delivery, drops a tampered body and a stale timestamp, and handles a repeated webhook-id once', async () => {
    const db = await createTestDatabase();
    const h = harness(db, SLOW_MACHINE);
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('guide'));
    const broker = `amqp://guest:guest@${RABBITMQ.host}:${RABBITMQ.port}`;
    const ep = await endpoint(h, `${broker}/?routingKey=${queue}`);
    const output = run('amqp', { WEBHOOK_SECRET: ep.secret, AMQP_URL: broker, QUEUE: queue });
    await refusesForgeriesAndRepeats(
      ep.secret,
      await deliveredAndPrinted(h, ep, output),
      async (body, headers) => {
        admin.channel.sendToQueue(queue, Buffer.from(body), { headers, contentType: 'application/json' });
      },
      output,
    );
  });
});

describe('docs/receiving.md: the NATS JetStream consumer', () => {
  it('verifies a real delivery, drops a tampered body and a stale timestamp, and handles a repeated webhook-id once', async () => {
    const db = await createTestDatabase();
    const h = harness(db, SLOW_MACHINE);
    const admin = await natsAdmin();
    const stream = unique('GUIDE');
    const subject = `${unique('guide')}.orders`;
    await admin.stream(stream, subject);
    await admin.jsm.consumers.add(stream, { durable_name: 'receiver', ack_policy: AckPolicy.Explicit });
    const ep = await endpoint(h, `nats://${NATS.host}:${NATS.port}/${subject}`);
    const output = run('nats', {
      WEBHOOK_SECRET: ep.secret,
      NATS_SERVER: `${NATS.host}:${NATS.port}`,
      STREAM: stream,
      CONSUMER: 'receiver',
    });
    await refusesForgeriesAndRepeats(
      ep.secret,
      await deliveredAndPrinted(h, ep, output),
      async (body, headers) => {
        await admin.publish(subject, body, headers);
      },
      output,
    );
  });
});
