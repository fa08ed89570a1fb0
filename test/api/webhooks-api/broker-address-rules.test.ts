/**
 * Broker URLs pass the same address rules as HTTP receivers: without `webhooks.allowPrivate` a
 * broker on a loopback or private address is refused at registration, and the refusal does not
 * echo the URL's password.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { call, closeAll, startApi } from './helpers.ts';

const BROKER_URLS = [
  'mqtt://127.0.0.1:1883/orders',
  'mqtts://user:S3CRET@10.1.2.3/orders',
  'redis://127.0.0.1:6379/0?stream=orders',
  'rediss://user:S3CRET@192.168.1.20:6380/2?stream=orders',
];

describe('broker destinations and the address rules', () => {
  after(closeAll);

  it('a broker on a loopback or private address is refused at registration without webhooks.allowPrivate', async () => {
    const strict = await startApi({ webhooks: { allowPrivate: false } });
    const token = await strict.token('member', 'acme');
    for (const url of BROKER_URLS) {
      const refused = await call('POST', `${strict.api}/webhooks`, { token, body: { url, events: ['*'] } });
      assert.equal(refused.status, 422, `${url}: ${refused.text}`);
      assert.equal(refused.body.code, 'APP_WEBHOOK_ADDRESS_REFUSED', refused.text);
      assert.doesNotMatch(refused.text, /S3CRET/, 'the password is not echoed');
    }
  });
});
