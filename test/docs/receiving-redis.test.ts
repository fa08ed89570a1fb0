/**
 * docs/receiving.md, "Redis Streams (redis, rediss)": the guide's consumer, run as printed against
 * the local redis-server, handles a real signed delivery of this service (made by the real
 * worker), refuses an entry with its body tampered with, and handles a repeated `webhook-id`
 * once. The stream is the test's own and deleted after.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/poll.ts';
import { endpoint, harness, runOnce, send } from '../worker/helpers.ts';
import { runSnippet } from './guide-snippet.ts';

const REDIS = 6379;
const DB = 13;

describe('docs/receiving.md: the Redis Streams consumer', () => {
  it('handles a real signed delivery, refuses a tampered body, and handles a repeated webhook-id once', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const stream = `webhooks-docs:${randomUUID()}`;
    const admin = new Redis({ host: '127.0.0.1', port: REDIS, db: DB, lazyConnect: true });
    await admin.connect();
    after(async () => {
      await admin.del(stream);
      admin.disconnect();
    });
    const ep = await endpoint(h, `redis://127.0.0.1:${REDIS}/${DB}?stream=${stream}`);
    const consumer = runSnippet('redis', {
      WEBHOOK_SECRET: ep.secret,
      REDIS_URL: `redis://127.0.0.1:${REDIS}/${DB}`,
      REDIS_STREAM: stream,
    });
    await eventually(() => consumer.output().includes('reading'), 15_000, 'the consumer reading');

    const [id] = await send(h, ep, 'order.created', { order: 42 });
    await runOnce(h);
    await eventually(() => consumer.printed().length === 1, 10_000, `the event printed: ${consumer.output()}`);
    assert.deepEqual(consumer.printed(), [{ id, type: 'order.created', data: { order: 42 } }]);

    const [row] = await db.sql<{ body: string }[]>`select body from app_webhook_deliveries where id = ${id}`;
    const add = (msgId: string, body: string, signedBody = body) =>
      admin.xadd(
        stream,
        '*',
        'webhook-id',
        msgId,
        'webhook-timestamp',
        String(Math.floor(Date.now() / 1000)),
        'webhook-signature',
        new Webhook(ep.secret).sign(msgId, new Date(), signedBody),
        'body',
        body,
      );
    await add(id, row.body.replace('42', '43'), row.body);
    await add(id, row.body);
    // a new delivery after those: once it is printed, the consumer has handled both before it
    const sentinel = 'msg_01SENT1NE10000000000000000';
    await add(sentinel, row.body.replaceAll(id, sentinel));
    await eventually(() => consumer.printed().length === 2, 10_000, `the sentinel printed: ${consumer.output()}`);
    const ids = consumer.printed().map((event) => (event as { id: string }).id);
    assert.deepEqual(ids, [id, sentinel], 'the repeated webhook-id was handled once');
    assert.equal(consumer.output().split('invalid signature').length - 1, 1, 'the tampered body was refused');
  });
});
