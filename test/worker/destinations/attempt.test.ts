import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBrokerUrl } from '../../../shared/webhooks/destinations/parse.ts';
import {
  boundedAttempt,
  connectionKey,
  describeError,
  isOpeningTimeout,
  openingTimeout,
  scrub,
  TIMED_OUT,
  within,
} from '../../../worker/destinations/attempt.ts';

const connection = { host: 'broker.example', port: 1883, tls: true, username: 'webhooks', password: 'p@ss w/rd' };

describe('broker attempts', () => {
  it('the pool key holds no password, and a changed password or scope makes another key', () => {
    const key = connectionKey(connection, 3);
    assert.doesNotMatch(key, /p@ss/);
    assert.notEqual(connectionKey({ ...connection, password: 'other' }, 3), key);
    assert.notEqual(connectionKey(connection, 4), key);
    assert.equal(connectionKey({ ...connection }, 3), key);
  });

  it('an error text never shows the password, as written or percent-encoded', () => {
    assert.equal(scrub('auth p@ss w/rd failed; url p%40ss%20w%2Frd', connection), 'auth *** failed; url ***');
    const error = Object.assign(new Error('login p@ss w/rd refused'), { code: 'EAUTH' });
    assert.equal(describeError(error, connection), 'EAUTH: login *** refused');
    assert.equal(scrub('nothing to hide', { password: '' }), 'nothing to hide');
  });

  it('within answers TIMED_OUT when the promise is late, its value or rejection otherwise', async () => {
    assert.equal(await within(new Promise(() => undefined), 10), TIMED_OUT);
    assert.equal(await within(Promise.resolve(7), 1_000), 7);
    await assert.rejects(within(Promise.reject(new Error('no')), 1_000), /no/);
  });

  it('an opening that took too long is told apart from other errors', () => {
    const late = openingTimeout('CONNACK', 500);
    assert.equal(late.message, 'no CONNACK within 500 ms');
    assert.ok(isOpeningTimeout(late));
    assert.ok(!isOpeningTimeout(new Error('no CONNACK within 500 ms')));
  });
});

describe('broker attempts: what an amqp destination adds', () => {
  const destination = parseBrokerUrl(new URL('amqp://hooks:p%40ss%2Fw0rd@broker.example:5672/orders?routingKey=q'))!;

  it('the pool key tells destinations apart by password, address and vhost without holding the password', () => {
    const key = connectionKey(destination, '192.0.2.7', 'orders');
    assert.ok(!key.includes('p@ss/w0rd') && !key.includes('p%40ss%2Fw0rd'));
    const other = parseBrokerUrl(new URL('amqp://hooks:other@broker.example:5672/orders?routingKey=q'))!;
    assert.notEqual(connectionKey(other, '192.0.2.7', 'orders'), key);
    assert.notEqual(connectionKey(destination, '192.0.2.7', 'billing'), key, 'the vhost is part of the key');
    assert.notEqual(connectionKey(destination, '192.0.2.8', 'orders'), key, 'the checked address is part of the key');
    assert.equal(connectionKey(destination, '192.0.2.7', 'orders'), key);
  });

  it('error texts lose the password in every written form, and any URL credentials', () => {
    const error = Object.assign(new Error('login p@ss/w0rd refused for amqp://hooks:p%40ss%2Fw0rd@broker.example'), {
      code: 'EAUTH',
    });
    assert.equal(describeError(error, destination), 'EAUTH: login *** refused for amqp://hooks:***@broker.example');
    assert.equal(describeError(new Error('see nats://u:secret@host'), { password: '' }), 'see nats://u:***@host');
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
