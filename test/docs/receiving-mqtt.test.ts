/**
 * docs/receiving.md, "MQTT (mqtt, mqtts)": the guide's consumer, run as printed against the local
 * Mosquitto, handles a real signed delivery of this service (made by the real worker), refuses
 * the same message with its body tampered with, and handles a repeated `webhook-id` once; and,
 * as it promises, a delivery made while it was away waits in its persistent session for it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { connectAsync } from 'mqtt';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/poll.ts';
import { endpoint, harness, runOnce, send } from '../worker/helpers.ts';
import { runSnippet } from './guide-snippet.ts';

const MOSQUITTO = 1883;

describe('docs/receiving.md: the MQTT consumer', () => {
  it('handles a real signed delivery, refuses a tampered body, and handles a repeated webhook-id once', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const topic = `webhooks-docs/${randomUUID()}`;
    const ep = await endpoint(h, `mqtt://127.0.0.1:${MOSQUITTO}/${topic}`);
    const consumer = runSnippet('mqtt', {
      WEBHOOK_SECRET: ep.secret,
      MQTT_URL: `mqtt://127.0.0.1:${MOSQUITTO}`,
      MQTT_TOPIC: topic,
      MQTT_CLIENT_ID: `docs-${randomUUID()}`,
    });
    await eventually(() => consumer.output().includes('subscribed'), 15_000, 'the consumer subscribed');

    const [id] = await send(h, ep, 'order.created', { order: 42 });
    await runOnce(h);
    await eventually(() => consumer.printed().length === 1, 10_000, `the event printed: ${consumer.output()}`);
    assert.deepEqual(consumer.printed(), [{ id, type: 'order.created', data: { order: 42 } }]);

    const [row] = await db.sql<{ body: string }[]>`select body from app_webhook_deliveries where id = ${id}`;
    const publisher = await connectAsync({ host: '127.0.0.1', port: MOSQUITTO, protocolVersion: 5 });
    try {
      const publish = (msgId: string, body: string, signedBody = body) =>
        publisher.publishAsync(topic, body, {
          qos: 1,
          properties: {
            userProperties: {
              'webhook-id': msgId,
              'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
              'webhook-signature': new Webhook(ep.secret).sign(msgId, new Date(), signedBody),
            },
          },
        });
      await publish(id, row.body.replace('42', '43'), row.body);
      await publish(id, row.body);
      // a new delivery after those: once it is printed, the consumer has handled both before it
      const sentinel = 'msg_01SENT1NE10000000000000000';
      await publish(sentinel, row.body.replaceAll(id, sentinel));
      await eventually(() => consumer.printed().length === 2, 10_000, `the sentinel printed: ${consumer.output()}`);
    } finally {
      await publisher.endAsync();
    }
    const ids = consumer.printed().map((event) => (event as { id: string }).id);
    assert.deepEqual(ids, [id, 'msg_01SENT1NE10000000000000000'], 'the repeated webhook-id was handled once');
    assert.equal(consumer.output().split('invalid signature').length - 1, 1, 'the tampered body was refused');
  });

  it('a delivery made while the consumer is away is handled when it comes back (its persistent session)', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const topic = `webhooks-docs/${randomUUID()}`;
    const ep = await endpoint(h, `mqtt://127.0.0.1:${MOSQUITTO}/${topic}`);
    const env = {
      WEBHOOK_SECRET: ep.secret,
      MQTT_URL: `mqtt://127.0.0.1:${MOSQUITTO}`,
      MQTT_TOPIC: topic,
      MQTT_CLIENT_ID: `docs-${randomUUID()}`,
    };
    const first = runSnippet('mqtt', env);
    await eventually(() => first.output().includes('subscribed'), 15_000, 'the consumer subscribed');
    await first.stop();

    const [id] = await send(h, ep, 'order.created', { order: 7 });
    await runOnce(h);
    const [row] = await db.sql<{ status: string }[]>`select status from app_webhook_deliveries where id = ${id}`;
    assert.equal(row.status, 'done', 'the broker took the delivery while the consumer was away');

    const back = runSnippet('mqtt', env);
    await eventually(() => back.printed().length === 1, 10_000, `the waiting delivery printed: ${back.output()}`);
    assert.deepEqual(back.printed(), [{ id, type: 'order.created', data: { order: 7 } }]);
  });
});
