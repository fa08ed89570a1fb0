/**
 * A broker url's credentials at rest and in sight (shared/webhooks/destinations/credentials.ts):
 * sealed then opened gives the url as the client gave it; the stored text is a valid url with
 * nothing readable; every face's mask hides the user name too; `***` keeps stored credentials
 * only for the same scheme, host and port; and an attempt's error never quotes them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertNotMasked,
  givesMaskedCredentials,
  holdsCredentialsInClear,
  keepMaskedCredentials,
  maskUrl,
  openUrlCredentials,
  resealUrlCredentials,
  scrubCredentials,
  sealUrlCredentials,
  SEALED_PREFIX,
  urlCredentialsBox,
} from '../../../../shared/webhooks/destinations/credentials.ts';
import { parseBrokerUrl } from '../../../../shared/webhooks/destinations/parse.ts';
import { appError } from '../fixtures.ts';

const config = { secret: 'an application secret of at least thirty-two characters' };
const other = { secret: 'another application secret, also thirty-two characters long' };

/** Urls as `checkEndpointUrl` answers them (WHATWG serialisations), one of each form. */
const URLS = [
  'amqps://orders:s3cr%40t%3Aword@rabbit.example.com:5671/prod?exchange=events&routingKey=order.created',
  'amqp://guest:guest@127.0.0.1:5672/%2F?routingKey=orders',
  'tls://svc:pa55-w0rd@nats.example.com:4222/orders.created',
  'mqtts://device-7:p%C3%A4ss@mqtt.example.com:8883/site/a/orders',
  'rediss://:only-a-password@redis.example.com:6380/2?stream=orders&maxlen=1000',
  'redis://default-user@127.0.0.1:6379/0?stream=orders',
];

describe('sealed at rest: the stored url holds no readable credential and opens to the original', () => {
  for (const url of URLS) {
    it(`seal then open gives the url back: ${maskUrl(url)}`, () => {
      const stored = sealUrlCredentials(config, url);
      const given = new URL(url);
      assert.notEqual(stored, url);
      for (const part of [given.username, given.password].filter(Boolean)) {
        assert.ok(!stored.includes(part), `the stored url does not hold ${part}`);
        assert.ok(!stored.includes(decodeURIComponent(part)), `nor ${decodeURIComponent(part)}`);
      }
      const parsed = new URL(stored);
      assert.ok(parsed.username.startsWith(SEALED_PREFIX), 'recognisable as sealed');
      assert.equal(parsed.password, '');
      assert.equal(parsed.host, given.host, 'the host stays readable');
      assert.equal(`${parsed.pathname}${parsed.search}`, `${given.pathname}${given.search}`);
      const opened = openUrlCredentials(config, stored, 'ep_test');
      assert.equal(opened, url);
      assert.deepEqual(parseBrokerUrl(new URL(opened)), parseBrokerUrl(new URL(url)));
    });
  }

  it('a url without credentials (every HTTP receiver) is stored and opened as it is', () => {
    for (const url of ['https://hooks.example.com/in?a=1', 'nats://nats.example.com:4222/orders']) {
      assert.equal(sealUrlCredentials(config, url), url);
      assert.equal(openUrlCredentials(config, url), url);
    }
  });

  it('each seal is new (random IV): two endpoints with the same password do not store the same text', () => {
    assert.notEqual(sealUrlCredentials(config, URLS[0]), sealUrlCredentials(config, URLS[0]));
  });

  it('a user name that already looks sealed is sealed again, so a client cannot hand in a sealed value', () => {
    const stored = sealUrlCredentials(config, URLS[0]);
    const again = sealUrlCredentials(config, stored);
    assert.equal(openUrlCredentials(config, again), stored);
  });

  it('without an application secret the seal is the plain: form (as header values), and opens the same', () => {
    const stored = sealUrlCredentials({ secret: null }, URLS[2]);
    assert.match(new URL(stored).username, /^sealed\.plain%3A/);
    assert.equal(openUrlCredentials({ secret: null }, stored), URLS[2]);
  });

  it('credentials in clear (what the audit counts): sealed without an application secret, or never sealed', () => {
    for (const url of URLS) {
      assert.equal(holdsCredentialsInClear(sealUrlCredentials({ secret: null }, url)), true, `plain: ${maskUrl(url)}`);
      assert.equal(holdsCredentialsInClear(url), true, `never sealed: ${maskUrl(url)}`);
      assert.equal(holdsCredentialsInClear(sealUrlCredentials(config, url)), false, `sealed: ${maskUrl(url)}`);
      assert.equal(holdsCredentialsInClear(sealUrlCredentials(other, url)), false, 'sealed under another secret');
    }
    for (const url of ['https://hooks.example.com/in?to=a@b', 'nats://nats.example.com:4222/orders', 'not a url @']) {
      assert.equal(holdsCredentialsInClear(url), false, url);
    }
    assert.equal(holdsCredentialsInClear('amqp://sealed.%E0%A4%A@host/vh'), false, 'a damaged seal reads as nothing');
  });

  it('sealed under another application secret: 500 APP_WEBHOOK_SECRET_UNREADABLE naming the endpoint and the way out', () => {
    const stored = sealUrlCredentials(other, URLS[0]);
    assert.throws(
      () => openUrlCredentials(config, stored, 'ep_other'),
      appError('APP_WEBHOOK_SECRET_UNREADABLE', 500, (error) => {
        assert.match(error.message, /credentials in the url of webhook endpoint ep_other/);
        assert.match(error.message, /secrets:seal/);
        assert.ok(!error.message.includes('s3cr'), 'the message shows no credential');
      }),
    );
  });

  it('a re-seal opens under the new key and no longer under the old one', () => {
    const stored = sealUrlCredentials(other, URLS[1]);
    const oldBox = urlCredentialsBox(other);
    const newBox = urlCredentialsBox(config);
    const resealed = resealUrlCredentials(stored, (sealed) => newBox.seal(oldBox.open(sealed)));
    assert.ok(resealed !== null);
    assert.equal(openUrlCredentials(config, resealed), URLS[1]);
    assert.throws(() => openUrlCredentials(other, resealed), appError('APP_WEBHOOK_SECRET_UNREADABLE'));
    assert.equal(
      resealUrlCredentials('https://hooks.example.com/in', () => 'x'),
      null,
      'nothing sealed: no change',
    );
  });
});

describe('masked in sight: the user name and password as ***', () => {
  it('the mask hides the user name as well as the password, sealed or not', () => {
    assert.equal(
      maskUrl('amqps://orders:secret@rabbit.example.com:5671/prod?exchange=events'),
      'amqps://***@rabbit.example.com:5671/prod?exchange=events',
    );
    const stored = sealUrlCredentials(config, URLS[3]);
    assert.equal(maskUrl(stored), 'mqtts://***@mqtt.example.com:8883/site/a/orders');
    assert.equal(maskUrl('https://hooks.example.com/in'), 'https://hooks.example.com/in');
  });

  it("an attempt's error never quotes the credentials, as written or decoded, nor any url's userinfo", () => {
    const url = URLS[0];
    const error =
      'connect to amqps://orders:s3cr%40t%3Aword@rabbit.example.com failed: user orders, password s3cr@t:word refused';
    const scrubbed = scrubCredentials(error, url);
    assert.ok(!scrubbed.includes('s3cr'), scrubbed);
    assert.ok(!scrubbed.includes('orders,'), scrubbed);
    assert.match(scrubbed, /amqps:\/\/\*\*\*@rabbit\.example\.com/);
  });
});

describe('*** on update keeps the stored credentials for the same scheme, host and port', () => {
  const stored = sealUrlCredentials(config, URLS[0]);
  const masked = maskUrl(stored);

  it('the masked url given back keeps them; a changed path or query keeps them too', () => {
    assert.ok(givesMaskedCredentials(masked));
    assert.equal(openUrlCredentials(config, keepMaskedCredentials(masked, stored)), URLS[0]);
    const moved = masked.replace('routingKey=order.created', 'routingKey=order.paid');
    assert.equal(
      openUrlCredentials(config, keepMaskedCredentials(moved, stored)),
      URLS[0].replace('routingKey=order.created', 'routingKey=order.paid'),
    );
    const samePortWritten = masked.replace(':5671', '');
    assert.equal(
      new URL(openUrlCredentials(config, keepMaskedCredentials(samePortWritten, stored))).password,
      's3cr%40t%3Aword',
    );
  });

  it('another host, port or scheme with ***: 422 APP_WEBHOOK_URL_CREDENTIALS_REQUIRED (credentials never follow a url elsewhere)', () => {
    for (const changed of [
      masked.replace('rabbit.example.com', 'elsewhere.example.com'),
      masked.replace(':5671', ':5999'),
      masked.replace('amqps:', 'amqp:'),
    ]) {
      assert.throws(
        () => keepMaskedCredentials(changed, stored),
        appError('APP_WEBHOOK_URL_CREDENTIALS_REQUIRED', 422, (error) => {
          assert.equal(error.data?.field, 'url');
          assert.match(String(error.data?.value), /^amqps?:\/\/\*\*\*@/);
        }),
        changed,
      );
    }
  });

  it('*** where nothing is stored, and *** at registration: 422 APP_WEBHOOK_URL_CREDENTIALS_REQUIRED', () => {
    assert.throws(
      () => keepMaskedCredentials(masked, 'amqps://rabbit.example.com:5671/prod?exchange=events'),
      appError('APP_WEBHOOK_URL_CREDENTIALS_REQUIRED', 422),
    );
    assert.throws(() => assertNotMasked(masked), appError('APP_WEBHOOK_URL_CREDENTIALS_REQUIRED', 422));
    assert.doesNotThrow(() => assertNotMasked(URLS[0]));
  });
});
