/**
 * The MQTT sender against real Mosquitto brokers: the shared local one (anyone may connect) and
 * one of the test's own that checks passwords and topic rights. Every test publishes to a topic
 * of its own and reads it back with a subscriber of its own.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { MqttDestination } from '../../../shared/webhooks/destinations/parse.ts';
import { createSender } from '../../../worker/destinations/mqtt.ts';
import type { BrokerAttempt, BrokerSender } from '../../../worker/destinations/types.ts';
import { mqttSubscriber } from '../../helpers/broker-consumers.ts';
import { eventually } from '../../helpers/poll.ts';
import { TLS_CERT } from '../../fixtures/tls.ts';
import { freePort } from '../../helpers/ports.ts';
import { startTlsFront } from '../../helpers/tls-front.ts';
import { startMosquitto } from '../../helpers/private-brokers.ts';
import { closedAfter, proxy, senderOptions, testMessage } from './senders.ts';

const MOSQUITTO = 1883;
const sender = (idleMs?: number): BrokerSender<MqttDestination> => closedAfter(createSender(senderOptions(idleMs)));

const topicOf = () => `webhooks-test/${randomUUID()}`;

function attempt(
  port: number,
  topic: string,
  extra: Partial<MqttDestination> = {},
  timeoutMs = 2_000,
): BrokerAttempt<MqttDestination> {
  return {
    destination: { kind: 'mqtt', host: '127.0.0.1', port, tls: false, username: '', password: '', topic, ...extra },
    dial: { address: '127.0.0.1', family: 4, host: '127.0.0.1', port },
    message: testMessage(),
    timeoutMs,
  };
}

describe('MQTT sender', () => {
  it('a PUBACK acknowledges the attempt; the subscriber gets the body, every header as a user property and the content type', async () => {
    const topic = topicOf();
    const { messages } = await mqttSubscriber(MOSQUITTO, topic);
    const sent = attempt(MOSQUITTO, topic);
    const result = await sender().send(sent);
    assert.equal(result.kind, 'acknowledged', JSON.stringify(result));
    assert.match(result.kind === 'acknowledged' ? result.detail : '', /^PUBACK/);
    const [message] = await eventually(() => (messages.length > 0 ? messages : undefined), 5_000, 'the message');
    assert.equal(message.body, sent.message.body);
    assert.deepEqual(message.headers, sent.message.headers);
    assert.equal(message.contentType, 'application/json');
  });

  it('attempts to one destination share one connection, and an idle connection is closed', async () => {
    const front = await proxy(MOSQUITTO);
    const topic = topicOf();
    const mqtt = sender(300);
    const results = await Promise.all([1, 2, 3].map(() => mqtt.send(attempt(front.port, topic))));
    assert.deepEqual(
      results.map((r) => r.kind),
      ['acknowledged', 'acknowledged', 'acknowledged'],
    );
    assert.equal((await mqtt.send(attempt(front.port, topic))).kind, 'acknowledged');
    assert.equal(front.accepted, 1, 'one connection for four attempts');
    await eventually(() => front.open === 0, 10_000, 'the idle connection closed');
    assert.equal((await mqtt.send(attempt(front.port, topic))).kind, 'acknowledged');
    assert.equal(front.accepted, 2, 'a new connection after the idle one was closed');
  });

  it('a wrong password is rejected with the CONNACK reason (Mosquitto answers 0x87, others 0x86), and the password is in no error text', async () => {
    const broker = await startMosquitto({ webhooks: 'right-password' });
    const result = await sender().send(
      attempt(broker.port, 'allowed/a', { username: 'webhooks', password: 'wrong-S3CRET' }),
    );
    assert.equal(result.kind, 'rejected', JSON.stringify(result));
    assert.match(
      result.kind === 'rejected' ? result.error : '',
      /^CONNACK (0x86 Bad User Name or Password|0x87 Not authorized)$/,
    );
    assert.doesNotMatch(JSON.stringify(result), /S3CRET/);
  });

  it('a topic the broker does not let the user publish to is rejected with the PUBACK reason (0x87 Not authorized)', async () => {
    const broker = await startMosquitto({ webhooks: 'pw' });
    const login = { username: 'webhooks', password: 'pw' };
    const mqtt = sender();
    const denied = await mqtt.send(attempt(broker.port, `denied/${randomUUID()}`, login));
    assert.deepEqual(denied.kind === 'rejected' && denied.error, 'PUBACK 0x87 Not authorized', JSON.stringify(denied));
    assert.equal((await mqtt.send(attempt(broker.port, `allowed/${randomUUID()}`, login))).kind, 'acknowledged');
  });

  it('a closed port is a connection error', async () => {
    const port = await freePort();
    const result = await sender().send(attempt(port, topicOf()));
    assert.equal(result.kind, 'connection-error', JSON.stringify(result));
    assert.match(result.kind === 'connection-error' ? result.error : '', /ECONNREFUSED/);
  });

  it('a PUBACK that never comes is a timeout within the bound; once the broker answers again the next attempt reconnects and is acknowledged', async () => {
    const front = await proxy(MOSQUITTO);
    const topic = topicOf();
    const mqtt = sender();
    assert.equal((await mqtt.send(attempt(front.port, topic))).kind, 'acknowledged');
    front.stall();
    const stalled = await mqtt.send(attempt(front.port, topic, {}, 500));
    assert.equal(stalled.kind, 'timeout', JSON.stringify(stalled));
    assert.equal(stalled.kind === 'timeout' && stalled.error, 'no PUBACK within 500 ms');
    assert.ok('durationMs' in stalled && stalled.durationMs < 2_000, `bounded: ${JSON.stringify(stalled)}`);
    const connecting = await mqtt.send(attempt(front.port, topic, {}, 500));
    assert.equal(connecting.kind === 'timeout' && connecting.error, 'no CONNACK within 500 ms');
    front.flow();
    await eventually(
      async () => (await mqtt.send(attempt(front.port, topic, {}, 1_000))).kind === 'acknowledged',
      10_000,
      'an acknowledged attempt after the stall',
    );
  });

  it('a dropped connection (a broker restart) is discarded: the next attempts connect anew', async () => {
    const front = await proxy(MOSQUITTO);
    const topic = topicOf();
    const mqtt = sender();
    assert.equal((await mqtt.send(attempt(front.port, topic))).kind, 'acknowledged');
    await front.cut(); // a broker restart, as the client sees it: every connection dropped
    await front.restore();
    const kinds: string[] = [];
    await eventually(
      async () => {
        const result = await mqtt.send(attempt(front.port, topic));
        kinds.push(result.kind);
        return result.kind === 'acknowledged';
      },
      10_000,
      'an acknowledged attempt after the cut',
    );
    assert.ok(kinds.length <= 2, `at most one failed attempt: ${kinds.join(', ')}`);
    assert.equal(front.accepted, 2);
  });
});

describe('MQTT sender over TLS (mqtts)', () => {
  it('connects to the checked address and verifies the certificate for the URL host name (servername)', async () => {
    const front = closedAfter(await startTlsFront(MOSQUITTO));
    const topic = topicOf();
    const { messages } = await mqttSubscriber(MOSQUITTO, topic);
    const overTls = (): BrokerAttempt<MqttDestination> => ({
      ...attempt(front.port, topic, { host: 'hooks.example.test', tls: true }),
      dial: { address: '127.0.0.1', family: 4, host: 'hooks.example.test', port: front.port },
    });
    const trusting = closedAfter(createSender({ ...senderOptions(), ca: TLS_CERT }));
    const sent = overTls();
    const result = await trusting.send(sent);
    assert.equal(result.kind, 'acknowledged', JSON.stringify(result));
    assert.deepEqual(front.names, ['hooks.example.test'], 'SNI carries the host name, not the address');
    const [message] = await eventually(() => (messages.length > 0 ? messages : undefined), 5_000, 'the message');
    assert.equal(message.body, sent.message.body);
    const untrusted = await sender().send(overTls());
    assert.notEqual(untrusted.kind, 'acknowledged', 'a certificate the sender does not trust is refused');
    assert.match('error' in untrusted ? untrusted.error : '', /self.signed|certificate/i, JSON.stringify(untrusted));
  });
});
