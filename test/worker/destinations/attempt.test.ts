import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBrokerUrl } from '../../../shared/webhooks/destinations/parse.ts';
import { boundedAttempt, connectionKey, scrubbedError } from '../../../worker/destinations/attempt.ts';

const destination = parseBrokerUrl(new URL('amqp://hooks:p%40ss%2Fw0rd@broker.example:5672/orders?routingKey=q'))!;
const dial = { address: '192.0.2.7', family: 4 as const, host: 'broker.example', port: 5672 };

describe('broker attempt helpers', () => {
  it('the pool key tells destinations apart by password without holding it', () => {
    const key = connectionKey(destination, dial, 'orders');
    assert.ok(!key.includes('p@ss/w0rd') && !key.includes('p%40ss%2Fw0rd'));
    const other = parseBrokerUrl(new URL('amqp://hooks:other@broker.example:5672/orders?routingKey=q'))!;
    assert.notEqual(connectionKey(other, dial, 'orders'), key);
    assert.notEqual(connectionKey(destination, dial, 'billing'), key, 'the vhost is part of the key');
    assert.equal(connectionKey(destination, dial, 'orders'), key);
  });

  it('error texts lose the password in every written form, and any URL credentials', () => {
    const error = Object.assign(new Error('login p@ss/w0rd refused for amqp://hooks:p%40ss%2Fw0rd@broker.example'), {
      code: 'EAUTH',
    });
    const text = scrubbedError(error, destination);
    assert.equal(text, 'EAUTH: login *** refused for amqp://hooks:***@broker.example');
    assert.equal(scrubbedError(new Error('see nats://u:secret@host'), { password: '' }), 'see nats://u:***@host');
  });

  it('an attempt that outlives its bound is a timeout, and the late one is told', async () => {
    let told = false;
    const result = await boundedAttempt(
      30,
      'PubAck',
      () => new Promise(() => undefined),
      () => {
        told = true;
      },
    );
    assert.equal(result.kind, 'timeout');
    assert.equal(result.kind === 'timeout' ? result.error : '', 'no PubAck within 30 ms');
    assert.equal(told, true);
  });
});
