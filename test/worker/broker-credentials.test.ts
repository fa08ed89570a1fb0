/**
 * The worker and a broker url's sealed credentials (worker/delivery/deliver.ts): it opens them
 * right before an attempt and nowhere else; a seal it cannot open (another application secret)
 * is a delivery not sent, with APP_WEBHOOK_SECRET_UNREADABLE and the remedy; and what it stores
 * of an attempt (its error), its log lines and the operational events never hold the
 * credentials. End to end through the local RabbitMQ.
 */
import { OPERATOR } from '../../shared/access/actor.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import amqp from 'amqplib';
import { captureLogger } from '../shared/webhooks/fixtures.ts';
import { showDelivery } from '../../shared/webhooks/deliveries/index.ts';
import { sealUrlCredentials } from '../../shared/webhooks/destinations/credentials.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { attemptRows, deliveryRow, endpoint, harness, jobRows, runOnce, send } from './helpers.ts';

const db = await createTestDatabase();
const RABBIT = 'amqp://guest:guest@127.0.0.1:5672';

/** A harness whose log lines are kept (`text()`). */
function loggedHarness(secret: string) {
  const base = harness(db, { secret, webhooks: { allowHttp: true, allowPrivate: true } });
  const captured = captureLogger(base.config);
  return { h: { ...base, log: captured.log }, text: captured.text };
}

describe('a broker url in the worker', () => {
  it('sealed under another application secret: not sent, dead with APP_WEBHOOK_SECRET_UNREADABLE naming the remedy, no credential anywhere', async () => {
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const before = loggedHarness('the application secret the url was sealed under');
    const afterChange = loggedHarness('the application secret the worker has now, changed');
    const url = `amqp://publisher:${password}@127.0.0.1:5672/%2F?routingKey=never-sent`;
    const ep = await endpoint(afterChange.h, url);
    // the signing secret opens; the url's credentials were sealed under the previous secret
    await db.sql`update app_webhooks set url = ${sealUrlCredentials(before.h.config, url)} where id = ${ep.id}`;
    const [id] = await send(afterChange.h, ep);
    await runOnce(afterChange.h);
    const details = await showDelivery({ sql: db.sql, config: afterChange.h.config }, OPERATOR, id);
    assert.equal(details.status, 'dead');
    assert.equal(details.attemptsMade.length, 0, 'no attempt was made');
    assert.match(
      details.lastError ?? '',
      /^APP_WEBHOOK_SECRET_UNREADABLE: the credentials in the url of webhook endpoint ep_\w+ cannot be read/,
    );
    assert.match(details.lastError ?? '', /secrets:seal/, 'the error names the remedy');
    assert.equal(details.endpoint?.url, 'amqp://***@127.0.0.1:5672/%2F?routingKey=never-sent');
    assert.equal((await jobRows(afterChange.h, id)).length, 0, 'no failed job left to loop on');
    const everything = [JSON.stringify(details), afterChange.text(), before.text()].join('\n');
    assert.ok(!everything.includes(password) && !everything.includes('publisher'));
  });

  it("an attempt that fails stores its error without the url's credentials", async () => {
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const { h, text } = loggedHarness('one application secret for this test, 32 chars+');
    const ep = await endpoint(h, `mqtt://watcher:${password}@127.0.0.1:1/orders`);
    const [id] = await send(h, ep);
    await runOnce(h);
    const row = await deliveryRow(h, id);
    const attempts = await attemptRows(h, id);
    assert.equal(row?.attempts, 1, 'one attempt was made');
    assert.match(row?.last_error ?? '', /ECONNREFUSED/, 'the attempt failed: nothing listens on port 1');
    const stored = [row?.last_error, ...attempts.map((attempt) => attempt.error)].join('\n');
    assert.ok(!stored.includes(password) && !stored.includes('watcher'), stored);
    assert.ok(!text().includes(password));
  });

  it('end to end: the worker opens the credentials and the message reaches a queue of the local RabbitMQ', async () => {
    const queue = `broker-credentials-${randomBytes(6).toString('hex')}`;
    const connection = await amqp.connect(RABBIT);
    after(() => connection.close());
    const channel = await connection.createChannel();
    await channel.assertQueue(queue, { autoDelete: false, durable: false });
    after(() => channel.deleteQueue(queue).catch(() => undefined));
    const { h } = loggedHarness('one application secret for the end to end check');
    const ep = await endpoint(h, `amqp://guest:guest@127.0.0.1:5672/%2F?routingKey=${queue}`);
    const [id] = await send(h, ep, 'order.created', { n: 42 });
    await runOnce(h);
    assert.equal((await deliveryRow(h, id))?.status, 'done');
    const message = await channel.get(queue, { noAck: true });
    assert.ok(message !== false, 'a message is in the queue');
    assert.equal(JSON.parse(message.content.toString('utf8')).data.n, 42);
  });
});
