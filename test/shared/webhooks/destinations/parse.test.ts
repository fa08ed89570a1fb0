import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkWebhookUrl } from '../../../../shared/webhooks/address-rules.ts';
import { parseBrokerUrl } from '../../../../shared/webhooks/destinations/parse.ts';

const open = { allowHttp: true, allowPrivate: true };
const parse = (raw: string) => parseBrokerUrl(checkWebhookUrl(raw, open));
const refusal = (raw: string, options = open) => {
  try {
    checkWebhookUrl(raw, options);
  } catch (error) {
    return error as { code: string; message: string; data: Record<string, unknown> };
  }
  assert.fail(`${raw} was accepted`);
};

describe('parseBrokerUrl', () => {
  it('reads an amqp destination: credentials, vhost, exchange and routing key', () => {
    assert.deepEqual(parse('amqp://guest:gu%40est@rabbit.example:5673/orders?exchange=events&routingKey=a.b'), {
      kind: 'amqp',
      host: 'rabbit.example',
      port: 5673,
      tls: false,
      username: 'guest',
      password: 'gu@est',
      vhost: 'orders',
      exchange: 'events',
      routingKey: 'a.b',
    });
  });

  it('gives amqps its port and the default vhost, and the default exchange a queue name', () => {
    const destination = parse('amqps://rabbit.example?routingKey=inbox');
    assert.equal(destination?.kind, 'amqp');
    assert.deepEqual(
      destination && { port: destination.port, tls: destination.tls, vhost: (destination as { vhost: string }).vhost },
      { port: 5671, tls: true, vhost: '/' },
    );
  });

  it('reads nats, mqtt and redis destinations', () => {
    assert.deepEqual(parse('nats://n.example/orders.created'), {
      kind: 'nats',
      host: 'n.example',
      port: 4222,
      tls: false,
      username: '',
      password: '',
      subject: 'orders.created',
    });
    assert.equal((parse('mqtts://m.example/shop/orders/created') as { topic: string }).topic, 'shop/orders/created');
    assert.deepEqual(parse('rediss://:pw@r.example:6380/2?stream=hooks&maxlen=1000'), {
      kind: 'redis',
      host: 'r.example',
      port: 6380,
      tls: true,
      username: '',
      password: 'pw',
      db: 2,
      stream: 'hooks',
      maxlen: 1000,
    });
  });

  it('normalises a broker host as an https host is (127.1 is 127.0.0.1)', () => {
    assert.equal(parse('redis://127.1?stream=s')?.host, '127.0.0.1');
    const refused = refusal('redis://127.1?stream=s', { allowHttp: true, allowPrivate: false });
    assert.equal(refused.code, 'APP_WEBHOOK_ADDRESS_REFUSED');
  });

  it('is null for an http receiver', () => {
    assert.equal(parse('https://example.com/hook'), null);
  });

  const invalid: Array<[string, string]> = [
    ['amqp://h.example/', 'routingKey is missing'],
    ['amqp://h.example/a/b?routingKey=q', 'one virtual host'],
    ['amqp://h.example/?routingKey=q&queue=x', 'unknown query parameter queue'],
    ['nats://h.example/', 'the subject is missing'],
    ['nats://h.example/orders.*', 'without wildcards'],
    ['nats://h.example/orders..created', 'empty tokens'],
    ['mqtt://h.example/shop/%23', 'wildcards'],
    ['mqtt://h.example/', 'the topic is missing'],
    ['redis://h.example/0', 'the stream (stream=) is missing'],
    ['redis://h.example/x?stream=s', 'database number'],
    ['redis://h.example/?stream=s&maxlen=-1', 'maxlen'],
    ['redis://h.example/?stream=s&stream=t', 'given twice'],
    ['rediss://a%00b/0?stream=s', 'not a valid host name or address'],
    ['nats://a%25b/orders', 'not a valid host name or address'],
  ];
  for (const [raw, reason] of invalid) {
    it(`refuses ${raw} (${reason})`, () => {
      const error = refusal(raw);
      assert.equal(error.code, 'APP_WEBHOOK_URL_INVALID');
      assert.match(error.message, new RegExp(reason.replace(/[()*.]/g, '\\$&')));
    });
  }
});

describe('checkWebhookUrl with broker schemes', () => {
  it('accepts plain broker schemes only where plain http is allowed, and says which setting lifts it', () => {
    const error = refusal('amqp://h.example/?routingKey=q', { allowHttp: false, allowPrivate: true });
    assert.equal(error.code, 'APP_WEBHOOK_URL_INVALID');
    assert.equal(error.data.setting, 'webhooks.allowHttp');
    assert.equal(
      checkWebhookUrl('amqps://h.example/?routingKey=q', { allowHttp: false, allowPrivate: true }).protocol,
      'amqps:',
    );
  });

  it('refuses credentials for an http receiver but accepts them for a broker, never echoing the password', () => {
    const error = refusal('https://user:hunter2@example.com/');
    assert.match(error.message, /credentials are not allowed/);
    assert.ok(!JSON.stringify(error.data).includes('hunter2'));
    assert.equal(checkWebhookUrl('amqp://user:hunter2@h.example/?routingKey=q', open).password, 'hunter2');
    const broken = refusal('amqp://user:hunter2@h.example/');
    assert.ok(!JSON.stringify(broken.data).includes('hunter2'), JSON.stringify(broken.data));
  });

  it('refuses schemes no destination has', () => {
    assert.match(refusal('ftp://h.example/').message, /scheme ftp is not allowed/);
  });
});
