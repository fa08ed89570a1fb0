import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sealUrlCredentials } from '../../../shared/webhooks/destinations/credentials.ts';
import { sealHeaders } from '../../../shared/webhooks/endpoints/header-box.ts';
import { secretBoxFor } from '../../../shared/webhooks/endpoints/secrets.ts';
import { createOpener } from '../../../worker/delivery/opener.ts';

const SECRET = 'an application secret of the test, long enough';

/**
 * Whether each call of `open` opened anew: an opening makes a new object, a kept value is the
 * same object again (1: opened now, 0: kept).
 */
function openings<K, V>(open: (key: K) => V) {
  const last = new Map<K, V>();
  return (key: K): number => {
    const value = open(key);
    const fresh = last.get(key) !== value;
    last.set(key, value);
    return fresh ? 1 : 0;
  };
}

describe('createOpener', () => {
  it('answers what opening the sealed values answers: signing secret, header values, url credentials', () => {
    const config = { secret: SECRET };
    const opener = createOpener(config);
    const sealed = secretBoxFor(config).seal('whsec_c2lnbmluZw==');
    const headers = sealHeaders(config, { authorization: 'Bearer receiver-token', 'x-tenant': 'acme' });
    const url = sealUrlCredentials(config, 'amqp://user:pa%20ss@broker.example:5672/vhost');

    for (let round = 0; round < 2; round += 1) {
      assert.equal(opener.secret(sealed, 'ep_1'), 'whsec_c2lnbmluZw==');
      assert.deepEqual(opener.headers(headers, 'ep_1'), { authorization: 'Bearer receiver-token', 'x-tenant': 'acme' });
      assert.equal(opener.url(url, 'ep_1'), 'amqp://user:pa%20ss@broker.example:5672/vhost');
    }
    assert.notEqual(
      url,
      'amqp://user:pa%20ss@broker.example:5672/vhost',
      'the stored url holds its credentials sealed',
    );
    assert.equal(opener.url('https://receiver.example/hook', 'ep_1'), 'https://receiver.example/hook');
    assert.deepEqual(opener.headers({}, 'ep_1'), {});
    assert.deepEqual(opener.headers(null, 'ep_1'), {});
  });

  it('opens an endpoint’s header values once per process, however many attempts use them', () => {
    const sealed = sealHeaders({ secret: SECRET }, { authorization: 'Bearer one' });
    const opener = createOpener({ secret: SECRET });
    const opened = openings((stored: Record<string, string>) => opener.headers(stored, 'ep_1'));
    let total = 0;
    for (let attempt = 0; attempt < 50; attempt += 1) total += opened(sealed);
    assert.equal(total, 1);
  });

  it('keeps at most maxEntries of a kind, letting the least recently used go first', () => {
    const one = sealHeaders({ secret: SECRET }, { authorization: 'Bearer one' });
    const two = sealHeaders({ secret: SECRET }, { authorization: 'Bearer two' });
    const three = sealHeaders({ secret: SECRET }, { authorization: 'Bearer three' });
    const opener = createOpener({ secret: SECRET }, { maxEntries: 2 });
    const opened = openings((stored: Record<string, string>) => opener.headers(stored, 'ep_1'));
    assert.deepEqual([opened(one), opened(two), opened(one), opened(three)], [1, 1, 0, 1]);
    assert.equal(opened(one), 0, 'used last but one: kept');
    assert.equal(opened(two), 1, 'the least recently used went when the third came');
  });

  it('opens values sealed under a previous application secret (previousSecrets), each kind with its own key', () => {
    const OLD = 'the application secret before the rotation, 40 chars';
    const before = { secret: OLD };
    const opener = createOpener({ secret: SECRET, previousSecrets: [OLD] });
    assert.equal(opener.secret(secretBoxFor(before).seal('whsec_b2xk'), 'ep_1'), 'whsec_b2xk');
    assert.deepEqual(opener.headers(sealHeaders(before, { authorization: 'Bearer old' }), 'ep_1'), {
      authorization: 'Bearer old',
    });
    const url = 'amqp://user:pw@broker.example:5672/vhost';
    assert.equal(opener.url(sealUrlCredentials(before, url), 'ep_1'), url);
  });

  it('keeps no failure: a value sealed under another application secret throws at every attempt', () => {
    const foreign = secretBoxFor({ secret: 'another application secret entirely' }).seal('whsec_b3RoZXI=');
    const opener = createOpener({ secret: SECRET });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      assert.throws(
        () => opener.secret(foreign, 'ep_9'),
        (error: { code?: string; message: string }) =>
          error.code === 'APP_WEBHOOK_SECRET_UNREADABLE' && error.message.includes('ep_9'),
      );
    }
  });
});
