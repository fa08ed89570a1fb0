/**
 * The RabbitMQ sender against the local broker: a publish confirmed is `acknowledged` and the
 * consumer gets the body, the Standard Webhooks headers (verified by `standardwebhooks`) and the
 * delivery id as message id; unroutable messages, missing exchanges and refused logins are
 * `rejected` with the broker's reason; a closed port is a `connection-error`; a broker that stops
 * answering is a `timeout` within the bound; connections are pooled, reused and closed when idle,
 * and a broken one is replaced on the next attempt. No error text holds the password.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createSender } from '../../../worker/destinations/amqp.ts';
import type { AmqpDestination } from '../../../shared/webhooks/destinations/parse.ts';
import { freePort } from '../../helpers/ports.ts';
import { RABBITMQ, rabbitAdmin } from '../../helpers/rabbitmq.ts';
import { TLS_CERT } from '../../fixtures/tls.ts';
import { startTlsFront } from '../../helpers/tls-front.ts';
import type { TcpProxy } from '../../helpers/tcp-proxy.ts';
import { attemptTo, capturedLog, SECRET, unique } from './attempts.ts';
import {
  closesWhileStalled,
  proxyTo,
  reconnectsAfterADrop,
  sharesOneConnectionClosedWhenIdle,
  timesOutThenRecovers,
} from './faults.ts';

const { log, lines } = capturedLog();
const sender = createSender({ log });
after(async () => {
  await sender.close();
});

const BROKER = `amqp://guest:guest@${RABBITMQ.host}:${RABBITMQ.port}`;
const toQueue = (queue: string, base = BROKER) => `${base}/?routingKey=${queue}`;

const proxy = () => proxyTo(`amqp://${RABBITMQ.host}:${RABBITMQ.port}`);
const through = (p: TcpProxy) => `amqp://guest:guest@${new URL(p.url).host}`;

describe('amqp sender', () => {
  it('a confirmed publish is acknowledged; the consumer gets the body, the headers and the id, and standardwebhooks verifies it', async () => {
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('q'));
    const attempt = await attemptTo<AmqpDestination>(toQueue(queue), { headers: { 'x-tenant': 'acme' } });
    const result = await sender.send(attempt);
    assert.equal(result.kind, 'acknowledged', JSON.stringify(result));
    const [message] = await admin.take(queue);
    assert.equal(message.content.toString('utf8'), attempt.message.body);
    assert.equal(message.properties.messageId, attempt.message.id);
    assert.equal(message.properties.contentType, 'application/json; charset=utf-8');
    assert.equal(message.properties.deliveryMode, 2, 'persistent');
    const headers = message.properties.headers as Record<string, unknown>;
    assert.equal(headers['x-tenant'], 'acme', "the endpoint's own headers travel too");
    assert.equal(headers['webhook-id'], attempt.message.id);
    const verified = new Webhook(SECRET).verify(message.content.toString('utf8'), headers as Record<string, string>);
    assert.deepEqual((verified as { data: unknown }).data, { n: 1 });
  });

  it('publishes to a named exchange under the routing key', async () => {
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('q'));
    const exchange = await admin.exchange(unique('x'), { queue, routingKey: 'orders.created' });
    const result = await sender.send(await attemptTo(`${BROKER}/?exchange=${exchange}&routingKey=orders.created`));
    assert.equal(result.kind, 'acknowledged', JSON.stringify(result));
    assert.equal((await admin.take(queue)).length, 1);
  });

  it('a message no queue is bound for is rejected: "no queue bound for routing key …"', async () => {
    const admin = await rabbitAdmin();
    const exchange = await admin.exchange(unique('x'));
    const result = await sender.send(await attemptTo(`${BROKER}/?exchange=${exchange}&routingKey=nobody`));
    assert.equal(result.kind, 'rejected');
    assert.match(result.kind === 'rejected' ? result.error : '', /no queue bound for routing key "nobody"/);
  });

  it('a missing exchange is rejected with 404 NOT_FOUND, and once it exists the next attempt is acknowledged', async () => {
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('q'));
    const exchange = unique('x');
    const url = `${BROKER}/?exchange=${exchange}&routingKey=k`;
    const first = await sender.send(await attemptTo(url));
    assert.equal(first.kind, 'rejected');
    assert.match(first.kind === 'rejected' ? first.error : '', /NOT_FOUND - no exchange/);
    // the same connection still serves other exchanges
    assert.equal((await sender.send(await attemptTo(toQueue(queue)))).kind, 'acknowledged');
    await admin.exchange(exchange, { queue, routingKey: 'k' });
    const second = await sender.send(await attemptTo(url));
    assert.equal(second.kind, 'acknowledged', JSON.stringify(second));
    assert.equal((await admin.take(queue, 2)).length, 2);
  });

  it('a refused login is rejected with ACCESS_REFUSED, and the password is in no error text or log line', async () => {
    const password = 'Wrong-Pa55word-that-must-not-leak';
    const result = await sender.send(
      await attemptTo(`amqp://guest:${password}@${RABBITMQ.host}:${RABBITMQ.port}/?routingKey=q`),
    );
    assert.equal(result.kind, 'rejected', JSON.stringify(result));
    assert.match(result.kind === 'rejected' ? result.error : '', /ACCESS.REFUSED/);
    assert.ok(!JSON.stringify(result).includes(password));
    assert.ok(!JSON.stringify(lines).includes(password));
  });

  it('an unknown vhost is rejected', async () => {
    const result = await sender.send(await attemptTo(`${BROKER}/${unique('nohost')}?routingKey=q`));
    assert.equal(result.kind, 'rejected', JSON.stringify(result));
    assert.match(result.kind === 'rejected' ? result.error : '', /virtual host/);
  });

  it('a closed port is a connection error', async () => {
    const port = await freePort();
    const result = await sender.send(await attemptTo(`amqp://guest:secret-pw@127.0.0.1:${port}/?routingKey=q`));
    assert.equal(result.kind, 'connection-error');
    assert.match(result.kind === 'connection-error' ? result.error : '', /ECONNREFUSED/);
  });

  it('connections are pooled: many deliveries share one, and it is closed when idle', async () => {
    const queue = await (await rabbitAdmin()).queue(unique('q'));
    const p = await proxy();
    const idle = createSender({ log, idleMs: 300 });
    try {
      await sharesOneConnectionClosedWhenIdle(idle, p, toQueue(queue, through(p)));
    } finally {
      await idle.close();
    }
  });

  it('a broker that stops answering is a timeout within the bound; once it answers again the next attempt is acknowledged', async () => {
    const queue = await (await rabbitAdmin()).queue(unique('q'));
    const p = await proxy();
    await timesOutThenRecovers(sender, p, toQueue(queue, through(p)));
  });

  it('a connection the broker drops (a restart) costs a failed attempt, then a new connection is made', async () => {
    const queue = await (await rabbitAdmin()).queue(unique('q'));
    const p = await proxy();
    await reconnectsAfterADrop(sender, p, toQueue(queue, through(p)));
  });

  it('a sender whose broker stopped answering still closes, within a few seconds', async () => {
    const queue = await (await rabbitAdmin()).queue(unique('q'));
    const p = await proxy();
    await closesWhileStalled(createSender({ log }), p, toQueue(queue, through(p)));
  });

  it('amqps connects to the checked address and verifies the certificate for the URL host name (servername)', async () => {
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('q'));
    // TLS in front of the local broker, with a certificate for hooks.example.test only
    const front = await startTlsFront(RABBITMQ.port, RABBITMQ.host);
    const { port, names } = front;
    const trusting = createSender({ log, ca: TLS_CERT });
    try {
      const url = `amqps://guest:guest@hooks.example.test:${port}/?routingKey=${queue}`;
      const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
      const result = await trusting.send(await attemptTo(url, { lookup }));
      assert.equal(result.kind, 'acknowledged', JSON.stringify(result));
      assert.deepEqual(names, ['hooks.example.test'], 'SNI carries the host name, not the address');
      const untrusted = await sender.send(await attemptTo(url, { lookup }));
      assert.equal(untrusted.kind, 'connection-error', 'a certificate the sender does not trust is refused');
      assert.match(untrusted.kind === 'connection-error' ? untrusted.error : '', /self.signed|certificate/i);
    } finally {
      await trusting.close();
      await front.close();
    }
  });
});
