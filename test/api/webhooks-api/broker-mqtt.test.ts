/**
 * MQTT destinations from end to end, with the web process, the real worker and real Mosquitto
 * brokers: an endpoint registered over the API at `mqtt://…/<topic>` gets each event as an
 * MQTT 5 message that a subscriber of ours verifies with standardwebhooks; a FIFO endpoint's
 * events arrive in order; each fault (wrong credentials, a topic the broker refuses, the broker
 * unreachable, a PUBACK that never comes) makes failed attempts with the reason, and the
 * delivery is done once the fault is fixed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { mqttSubscriber } from '../../helpers/broker-consumers.ts';
import { eventually } from '../../helpers/poll.ts';
import { freePort } from '../../helpers/ports.ts';
import { startMosquitto } from '../../helpers/private-brokers.ts';
import { startTcpProxy } from '../../helpers/tcp-proxy.ts';
import { attemptsOf, deliveryIs, emitOrder, startBrokerApp, tenantEndpoint, verified } from './broker-flow.ts';
import { closeAll } from './helpers.ts';

const MOSQUITTO = 1883;
const app = await startBrokerApp();
const topicOf = () => `webhooks-e2e/${randomUUID()}`;

describe('MQTT destinations, end to end', () => {
  after(closeAll);

  it('an endpoint at mqtt://host:port/<topic> gets each event as a message whose user properties standardwebhooks verifies; the delivery is done with the PUBACK recorded', async () => {
    const topic = topicOf();
    const { messages } = await mqttSubscriber(MOSQUITTO, topic);
    const { token, endpoint } = await tenantEndpoint(app, `mqtt://127.0.0.1:${MOSQUITTO}/${topic}`, {
      headers: { 'x-tenant': 'acme' },
    });
    const id = await emitOrder(app, token, { order: 42 });
    const [message] = await eventually(() => (messages.length > 0 ? messages : undefined), 15_000, 'the message');
    assert.equal(message.headers['webhook-id'], id);
    assert.equal(message.headers['x-tenant'], 'acme', "the endpoint's own headers travel too");
    assert.match(message.contentType ?? '', /^application\/json/);
    const event = verified(endpoint.secret, message.body, message.headers) as { type: string; data: unknown };
    assert.equal(event.type, 'order.created');
    assert.deepEqual(event.data, { order: 42 });
    await deliveryIs(app, id, 'done');
    const [attempt] = await attemptsOf(app, id, 1);
    assert.equal(attempt.outcome, 'done');
    assert.match(attempt.excerpt ?? '', /^PUBACK/);
  });

  it('a FIFO endpoint gets its events in emit order', async () => {
    const topic = topicOf();
    const { messages } = await mqttSubscriber(MOSQUITTO, topic);
    const { token } = await tenantEndpoint(app, `mqtt://127.0.0.1:${MOSQUITTO}/${topic}`, { ordering: 'fifo' });
    const ids: string[] = [];
    for (let n = 1; n <= 10; n++) ids.push(await emitOrder(app, token, { n }));
    for (const id of ids) await deliveryIs(app, id, 'done');
    const order = messages.map((message) => (JSON.parse(message.body) as { data: { n: number } }).data.n);
    assert.deepEqual(order, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('wrong credentials: failed attempts with the CONNACK reason and no password, then done once the password is right', async () => {
    const broker = await startMosquitto({ webhooks: 'old-password', reader: 'reader-pw' });
    const topic = `allowed/${randomUUID()}`;
    const { messages } = await mqttSubscriber(broker.port, topic, { username: 'reader', password: 'reader-pw' });
    const { token } = await tenantEndpoint(app, `mqtt://webhooks:N3W-pass@127.0.0.1:${broker.port}/${topic}`);
    const id = await emitOrder(app, token, { order: 1 });
    const failed = await attemptsOf(app, id, 2);
    for (const attempt of failed) {
      assert.match(attempt.error ?? '', /^broker refused: CONNACK 0x8[67] /);
      assert.doesNotMatch(attempt.error ?? '', /N3W-pass/);
    }
    await broker.setPassword('webhooks', 'N3W-pass');
    await deliveryIs(app, id, 'done');
    await eventually(() => messages.length === 1, 10_000, 'the message');
  });

  it('a topic the broker does not let the user publish to: failed attempts with the PUBACK reason, then done once it is allowed', async () => {
    const broker = await startMosquitto({ webhooks: 'pw' });
    const topic = `elsewhere/${randomUUID()}`;
    const { token } = await tenantEndpoint(app, `mqtt://webhooks:pw@127.0.0.1:${broker.port}/${topic}`);
    const id = await emitOrder(app, token, { order: 2 });
    const failed = await attemptsOf(app, id, 2);
    for (const attempt of failed) assert.equal(attempt.error, 'broker refused: PUBACK 0x87 Not authorized');
    await broker.allowTopic(topic);
    await deliveryIs(app, id, 'done');
  });

  it('the broker unreachable (a closed port): connection errors, then done once it listens', async () => {
    const port = await freePort();
    const { token } = await tenantEndpoint(app, `mqtt://127.0.0.1:${port}/${topicOf()}`);
    const id = await emitOrder(app, token, { order: 3 });
    const failed = await attemptsOf(app, id, 2);
    for (const attempt of failed) assert.match(attempt.error ?? '', /^connection error: .*ECONNREFUSED/);
    const front = await startTcpProxy(`tcp://127.0.0.1:${MOSQUITTO}`, port);
    after(() => front.close());
    await deliveryIs(app, id, 'done');
  });

  it('a PUBACK that never comes: timeouts after webhooks.timeout, then done once the broker answers', async () => {
    const front = await startTcpProxy(`tcp://127.0.0.1:${MOSQUITTO}`);
    after(() => front.close());
    front.stall();
    const { token } = await tenantEndpoint(app, `mqtt://127.0.0.1:${front.port}/${topicOf()}`);
    const id = await emitOrder(app, token, { order: 4 });
    const failed = await attemptsOf(app, id, 2);
    for (const attempt of failed) {
      assert.match(attempt.error ?? '', /^timeout: no (CONNACK|PUBACK) within \d+ ms$/);
      assert.ok(attempt.duration_ms < 3_000, `bounded by webhooks.timeout: ${attempt.duration_ms} ms`);
    }
    front.flow();
    await deliveryIs(app, id, 'done');
  });
});
