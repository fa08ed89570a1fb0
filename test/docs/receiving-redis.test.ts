/**
 * docs/receiving.md, "Redis Streams (redis, rediss)": the guide's consumer, run as printed against
 * the local redis-server, handles a real signed delivery of this service (made by the real
 * worker), refuses an entry with its body tampered with, and handles a repeated `webhook-id`
 * once; and, started again after a crash, handles the entry it had read and not acknowledged.
 * The streams are the tests' own and deleted after.
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

/** A test database, an endpoint to a stream of the test's own (deleted after), and a client of it. */
async function streamEndpoint() {
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
  return { db, h, stream, admin, ep };
}

describe('docs/receiving.md: the Redis Streams consumer', () => {
  it('handles a real signed delivery, refuses a tampered body, and handles a repeated webhook-id once', async () => {
    const { db, h, stream, admin, ep } = await streamEndpoint();
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

  it('started again after a crash, handles the entry it had read and never acknowledged', async () => {
    const { h, stream, admin, ep } = await streamEndpoint();
    const [id] = await send(h, ep, 'order.created', { order: 9 });
    await runOnce(h);
    // the consumer's group and name as the guide sets them; it read the entry, then crashed
    await admin.xgroup('CREATE', stream, 'orders-consumers', '0');
    const read = await admin.xreadgroup('GROUP', 'orders-consumers', 'consumer-1', 'COUNT', 10, 'STREAMS', stream, '>');
    assert.equal((read as Array<[string, unknown[]]>)[0][1].length, 1, 'the entry was read before the crash');

    const consumer = runSnippet('redis', {
      WEBHOOK_SECRET: ep.secret,
      REDIS_URL: `redis://127.0.0.1:${REDIS}/${DB}`,
      REDIS_STREAM: stream,
    });
    await eventually(() => consumer.printed().length === 1, 15_000, `the pending entry printed: ${consumer.output()}`);
    assert.deepEqual(consumer.printed(), [{ id, type: 'order.created', data: { order: 9 } }]);
    await eventually(
      async () => ((await admin.xpending(stream, 'orders-consumers')) as [number])[0] === 0,
      10_000,
      'the entry acknowledged',
    );
  });
});
