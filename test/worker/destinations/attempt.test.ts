import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
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
