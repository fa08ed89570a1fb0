/**
 * Endpoints whose url names a broker, through the core (register, update, list, show) on a real
 * PostgreSQL and on a disk store: the address rules apply to the broker's host as to an HTTP
 * receiver's (every resolved address, `webhooks.allowPrivate`), plain schemes need
 * `webhooks.allowHttp`, the credentials are sealed before any store sees them and never come
 * back in an answer or a log line, and `***` on update keeps them for the same server only.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { openUrlCredentials } from '../../../../shared/webhooks/destinations/credentials.ts';
import { openStore } from '../../../../shared/webhooks/endpoint-stores/disk.ts';
import {
  disableEndpoint,
  enableEndpoint,
  listEndpoints,
  registerEndpoint,
  showEndpoint,
  updateEndpoint,
} from '../../../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { appError, captureLogger, depsOf, scriptedLookup } from '../fixtures.ts';

const db = await createTestDatabase();
const SECRET = 'broker url test application secret, 32+ characters';
const USER = 'orders-publisher';
const PASSWORD = 'pw-7Hq2-zzK9';
const lookup = scriptedLookup({
  'rabbit.example.com': ['93.184.215.14'],
  'rabbit2.example.com': ['93.184.215.15'],
  'internal-rabbit.example.com': ['93.184.215.14', '10.1.2.3'],
});
const flags = (webhooks: { allowHttp: boolean; allowPrivate: boolean }) => ({ secret: SECRET, webhooks });
const strict = flags({ allowHttp: false, allowPrivate: false });
const captured = captureLogger(db.configWith(strict));
const strictDeps = () => depsOf(db, strict, { lookup, log: captured.log });

const BROKER_URL = `amqps://${USER}:${PASSWORD}@rabbit.example.com:5671/prod?exchange=events&routingKey=order.created`;
const MASKED = 'amqps://***@rabbit.example.com:5671/prod?exchange=events&routingKey=order.created';

const storedUrl = async (id: string) =>
  (await db.sql<{ url: string }[]>`select url from app_webhooks where id = ${id}`)[0].url;
const holdsNoCredential = (text: string, what: string) => {
  assert.ok(!text.includes(PASSWORD), `${what} holds the password`);
  assert.ok(!text.includes(USER), `${what} holds the user name`);
};

describe('a broker url: registered, shown and stored', () => {
  it('answers, lists and shows the url masked; the row holds it sealed; no log line quotes it', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, { url: BROKER_URL, events: ['order.*'] });
    assert.equal(endpoint.url, MASKED);
    holdsNoCredential(JSON.stringify(endpoint), 'the answer');
    const listed = (await listEndpoints(strictDeps(), OPERATOR)).records.find((e) => e.id === endpoint.id);
    assert.equal(listed?.url, MASKED);
    const shown = await showEndpoint(strictDeps(), OPERATOR, endpoint.id);
    assert.equal(shown.url, MASKED);
    const [row] = await db.sql`select * from app_webhooks where id = ${endpoint.id}`;
    holdsNoCredential(JSON.stringify(row), 'the stored row');
    assert.match(row.url, /^amqps:\/\/sealed\.enc%3Av1%3A[^@]+@rabbit\.example\.com:5671\/prod\?exchange=events/);
    assert.equal(openUrlCredentials(db.configWith(strict), row.url, endpoint.id), BROKER_URL, 'the worker opens it');
    assert.ok(captured.text().includes(endpoint.id), 'the registration was logged');
    holdsNoCredential(captured.text(), 'the log');
  });

  it('a disk store holds only the sealed form: no change to the adapter, sealed in the core', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'app-broker-urls-'));
    after(() => rm(directory, { recursive: true, force: true }));
    const store = await openStore({ name: 'disk', options: { adapter: 'disk', path: directory }, table: 'endpoints' });
    after(() => store.close());
    await store.install();
    const deps = { ...strictDeps(), endpoints: store };
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: BROKER_URL, events: ['*'] });
    assert.equal(endpoint.url, MASKED);
    const files = await readdir(directory, { recursive: true, withFileTypes: true });
    const texts = await Promise.all(
      files.filter((file) => file.isFile()).map((file) => readFile(join(file.parentPath, file.name), 'utf8')),
    );
    assert.ok(texts.join('').includes(endpoint.id), 'the record is in the files');
    holdsNoCredential(texts.join('\n'), 'the disk store');
    const record = await store.get(endpoint.id);
    assert.equal(openUrlCredentials(db.configWith(strict), record?.url ?? '', endpoint.id), BROKER_URL);
  });
});

describe('a broker url passes the address rules of an HTTP receiver', () => {
  it('on a private IP literal: refused without allowPrivate (the broker host, normalised), accepted with it', async () => {
    for (const url of [
      `amqps://${USER}:${PASSWORD}@10.0.0.5:5671/?routingKey=q`,
      `tls://${USER}:${PASSWORD}@127.1:4222/orders`,
      'mqtts://[::1]:8883/orders',
    ]) {
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, { url, events: ['*'] }),
        appError('APP_WEBHOOK_ADDRESS_REFUSED', 422, (error) => {
          assert.equal(error.data?.setting, 'webhooks.allowPrivate');
          holdsNoCredential(JSON.stringify(error), 'the refusal');
          holdsNoCredential(error.message, 'the refusal message');
        }),
        url,
      );
    }
    const allowed = depsOf(db, flags({ allowHttp: false, allowPrivate: true }), { lookup });
    const endpoint = await registerEndpoint(allowed, OPERATOR, {
      url: `amqps://${USER}:${PASSWORD}@10.0.0.5:5671/?routingKey=q`,
      events: ['*'],
    });
    assert.equal(endpoint.url, 'amqps://***@10.0.0.5:5671/?routingKey=q');
  });

  it('on a name resolving to a private address (one of several): refused without allowPrivate, accepted with it', async () => {
    const url = `rediss://${USER}:${PASSWORD}@internal-rabbit.example.com:6380/0?stream=orders`;
    await assert.rejects(
      registerEndpoint(strictDeps(), OPERATOR, { url, events: ['*'] }),
      appError('APP_WEBHOOK_ADDRESS_REFUSED', 422, (error) => {
        assert.equal(error.data?.address, '10.1.2.3');
        assert.equal(error.data?.host, 'internal-rabbit.example.com');
        holdsNoCredential(JSON.stringify(error), 'the refusal');
      }),
    );
    assert.ok(lookup.calls.includes('internal-rabbit.example.com'), 'the broker host was resolved');
    // a broker scheme is not "special" to WHATWG: the host is resolved as an https host would be
    await assert.rejects(
      registerEndpoint(strictDeps(), OPERATOR, {
        url: url.replace('internal-rabbit', 'INTERNAL-Rabbit'),
        events: ['*'],
      }),
      appError('APP_WEBHOOK_ADDRESS_REFUSED', 422),
    );
    const allowed = depsOf(db, flags({ allowHttp: false, allowPrivate: true }), { lookup });
    const endpoint = await registerEndpoint(allowed, OPERATOR, { url, events: ['*'] });
    assert.equal(endpoint.url, 'rediss://***@internal-rabbit.example.com:6380/0?stream=orders');
  });

  it('a plain scheme (amqp, nats, mqtt, redis): refused without allowHttp, naming the setting; accepted with it', async () => {
    for (const url of [
      `amqp://${USER}:${PASSWORD}@rabbit.example.com/?routingKey=q`,
      'nats://rabbit.example.com/orders',
      'mqtt://rabbit.example.com/orders',
      'redis://rabbit.example.com/0?stream=s',
    ]) {
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, { url, events: ['*'] }),
        appError('APP_WEBHOOK_URL_INVALID', 422, (error) => {
          assert.equal(error.data?.setting, 'webhooks.allowHttp');
          assert.match(error.message, /APP_WEBHOOKS__ALLOW_HTTP/);
          holdsNoCredential(JSON.stringify(error), 'the refusal');
        }),
        url,
      );
    }
    const allowed = depsOf(db, flags({ allowHttp: true, allowPrivate: false }), { lookup });
    const endpoint = await registerEndpoint(allowed, OPERATOR, {
      url: `amqp://${USER}:${PASSWORD}@rabbit.example.com/?routingKey=q`,
      events: ['*'],
    });
    assert.equal(endpoint.url, 'amqp://***@rabbit.example.com/?routingKey=q');
  });
});

describe('updating a broker url', () => {
  it('*** given back keeps the stored credentials; other settings change as usual', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, { url: BROKER_URL, events: ['*'] });
    const moved = MASKED.replace('routingKey=order.created', 'routingKey=order.paid');
    const changed = await updateEndpoint(strictDeps(), OPERATOR, endpoint.id, {
      url: moved,
      rateLimit: 5,
      ordering: 'fifo',
    });
    assert.equal(changed.url, moved);
    assert.equal(changed.rateLimit, 5);
    assert.equal(changed.ordering, 'fifo');
    assert.equal(
      openUrlCredentials(db.configWith(strict), await storedUrl(endpoint.id), endpoint.id),
      BROKER_URL.replace('routingKey=order.created', 'routingKey=order.paid'),
    );
  });

  it('*** with another host: 422 APP_WEBHOOK_URL_CREDENTIALS_REQUIRED, nothing changed; new credentials are sealed anew', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, { url: BROKER_URL, events: ['*'] });
    const before = await storedUrl(endpoint.id);
    await assert.rejects(
      updateEndpoint(strictDeps(), OPERATOR, endpoint.id, { url: MASKED.replace('rabbit.', 'rabbit2.') }),
      appError('APP_WEBHOOK_URL_CREDENTIALS_REQUIRED', 422),
    );
    assert.equal(await storedUrl(endpoint.id), before);
    const elsewhere = BROKER_URL.replace('rabbit.', 'rabbit2.').replace(PASSWORD, 'another-password');
    const changed = await updateEndpoint(strictDeps(), OPERATOR, endpoint.id, { url: elsewhere });
    assert.equal(changed.url, MASKED.replace('rabbit.', 'rabbit2.'));
    const stored = await storedUrl(endpoint.id);
    assert.ok(!stored.includes('another-password'));
    assert.equal(openUrlCredentials(db.configWith(strict), stored, endpoint.id), elsewhere);
    holdsNoCredential(captured.text(), 'the log');
  });

  it('disabling and enabling announce app.endpoint.disabled and app.endpoint.enabled with the url masked', async () => {
    const owner = 'ops-watch';
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, { url: BROKER_URL, events: ['order.*'], owner });
    // an operator's endpoint of the same tenant, subscribed to the service's own events
    const watcher = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'https://rabbit.example.com/watch',
      events: ['app.endpoint.*'],
      owner,
    });
    await disableEndpoint(strictDeps(), OPERATOR, endpoint.id, { reason: 'maintenance' });
    await enableEndpoint(strictDeps(), OPERATOR, endpoint.id);
    const payloads = (
      await db.sql<{ payload: string }[]>`
        select payload::text from app_events where payload -> 'data' ->> 'endpointId' = ${endpoint.id}
                                                 or payload ->> 'endpointId' = ${endpoint.id}`
    ).map((row) => row.payload);
    assert.equal(payloads.length, 2, payloads.join('\n'));
    for (const payload of payloads) {
      assert.match(payload, /"url": "amqps:\/\/\*\*\*@rabbit\.example\.com:5671\/prod\?exchange=events/);
      holdsNoCredential(payload, 'the operational event');
    }
    const bodies = await db.sql<
      { body: string }[]
    >`select body from app_webhook_deliveries where endpoint_id = ${watcher.id}`;
    assert.equal(bodies.length, 2, 'the watcher got both events');
    for (const { body } of bodies) holdsNoCredential(body, 'a delivery body');
  });

  it('*** at registration: 422 APP_WEBHOOK_URL_CREDENTIALS_REQUIRED (there is nothing to keep)', async () => {
    await assert.rejects(
      registerEndpoint(strictDeps(), OPERATOR, { url: MASKED, events: ['*'] }),
      appError('APP_WEBHOOK_URL_CREDENTIALS_REQUIRED', 422),
    );
  });
});
