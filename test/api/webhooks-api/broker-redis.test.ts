/**
 * Redis Streams destinations from end to end, with the web process, the real worker and real
 * redis-servers: an endpoint registered over the API at `redis://…/<db>?stream=<key>` gets each
 * event as a stream entry that a reader of ours verifies with standardwebhooks; a FIFO
 * endpoint's entries are in emit order; each fault (wrong credentials, a key that is not a
 * stream, the server unreachable, an answer that never comes) makes failed attempts with the
 * reason, and the delivery is done once the fault is fixed. Keys are the test's own and deleted
 * after.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { streamEntries } from '../../helpers/broker-consumers.ts';
import { freePort } from '../../helpers/ports.ts';
import { startRedisServer } from '../../helpers/private-brokers.ts';
import { startTcpProxy } from '../../helpers/tcp-proxy.ts';
import { attemptsOf, deliveryIs, emitOrder, startBrokerApp, tenantEndpoint, verified } from './broker-flow.ts';
import { closeAll } from './helpers.ts';

const REDIS = 6379;
const DB = 14;
const app = await startBrokerApp();
const prefix = `webhooks-e2e:${randomUUID()}:`;
const admin = new Redis({ host: '127.0.0.1', port: REDIS, db: DB, lazyConnect: true });
await admin.connect();
after(async () => {
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
});
const streamOf = () => `${prefix}${randomUUID()}`;

describe('Redis Streams destinations, end to end', () => {
  after(closeAll);

  it('an endpoint at redis://host:port/<db>?stream=<key> gets each event as an entry whose fields standardwebhooks verifies; the delivery is done with the entry id recorded', async () => {
    const stream = streamOf();
    const { token, endpoint } = await tenantEndpoint(app, `redis://127.0.0.1:${REDIS}/${DB}?stream=${stream}`, {
      headers: { 'x-tenant': 'acme' },
    });
    const id = await emitOrder(app, token, { order: 42 });
    await deliveryIs(app, id, 'done');
    const [entry] = await streamEntries(REDIS, DB, stream);
    assert.equal(entry.headers['webhook-id'], id);
    assert.equal(entry.headers['x-tenant'], 'acme', "the endpoint's own headers travel too");
    assert.match(entry.headers['content-type'], /^application\/json/);
    const event = verified(endpoint.secret, entry.body, entry.headers) as { type: string; data: unknown };
    assert.equal(event.type, 'order.created');
    assert.deepEqual(event.data, { order: 42 });
    const [attempt] = await attemptsOf(app, id, 1);
    const [[entryId]] = await admin.xrange(stream, '-', '+');
    assert.equal(attempt.excerpt, `entry ${entryId}`);
  });

  it('a FIFO endpoint gets its events in emit order', async () => {
    const stream = streamOf();
    const { token } = await tenantEndpoint(app, `redis://127.0.0.1:${REDIS}/${DB}?stream=${stream}`, {
      ordering: 'fifo',
    });
    const ids: string[] = [];
    for (let n = 1; n <= 10; n++) ids.push(await emitOrder(app, token, { n }));
    for (const id of ids) await deliveryIs(app, id, 'done');
    const entries = await streamEntries(REDIS, DB, stream);
    const order = entries.map((entry) => (JSON.parse(entry.body) as { data: { n: number } }).data.n);
    assert.deepEqual(order, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('wrong credentials: failed attempts with WRONGPASS and no password, then done once the password is right', async () => {
    const server = await startRedisServer('old-password');
    const { token } = await tenantEndpoint(app, `redis://default:N3W-pass@127.0.0.1:${server.port}/0?stream=orders`);
    const id = await emitOrder(app, token, { order: 1 });
    const failed = await attemptsOf(app, id, 2);
    for (const attempt of failed) {
      assert.match(attempt.error ?? '', /^broker refused: WRONGPASS /);
      assert.doesNotMatch(attempt.error ?? '', /N3W-pass/);
    }
    const own = new Redis({ host: '127.0.0.1', port: server.port, password: 'old-password', lazyConnect: true });
    await own.connect();
    try {
      await own.config('SET', 'requirepass', 'N3W-pass');
    } finally {
      own.disconnect();
    }
    await deliveryIs(app, id, 'done');
  });

  it('a key that is not a stream: failed attempts with WRONGTYPE, then done once the key is deleted', async () => {
    const stream = streamOf();
    await admin.set(stream, 'not a stream');
    const { token } = await tenantEndpoint(app, `redis://127.0.0.1:${REDIS}/${DB}?stream=${stream}`);
    const id = await emitOrder(app, token, { order: 2 });
    const failed = await attemptsOf(app, id, 2);
    for (const attempt of failed) assert.match(attempt.error ?? '', /^broker refused: WRONGTYPE /);
    await admin.del(stream);
    await deliveryIs(app, id, 'done');
    assert.equal(await admin.type(stream), 'stream');
  });

  it('the server unreachable (a closed port): connection errors, then done once it listens', async () => {
    const port = await freePort();
    const { token } = await tenantEndpoint(app, `redis://127.0.0.1:${port}/${DB}?stream=${streamOf()}`);
    const id = await emitOrder(app, token, { order: 3 });
    const failed = await attemptsOf(app, id, 2);
    for (const attempt of failed) assert.match(attempt.error ?? '', /^connection error: .*ECONNREFUSED/);
    const front = await startTcpProxy(`tcp://127.0.0.1:${REDIS}`, port);
    after(() => front.close());
    await deliveryIs(app, id, 'done');
  });

  it('an answer that never comes: timeouts after webhooks.timeout, then done once the server answers', async () => {
    const front = await startTcpProxy(`tcp://127.0.0.1:${REDIS}`);
    after(() => front.close());
    front.stall();
    const { token } = await tenantEndpoint(app, `redis://127.0.0.1:${front.port}/${DB}?stream=${streamOf()}`);
    const id = await emitOrder(app, token, { order: 4 });
    const failed = await attemptsOf(app, id, 2);
    for (const attempt of failed) {
      assert.match(attempt.error ?? '', /^timeout: no (connection|XADD answer) within \d+ ms$/);
      assert.ok(attempt.duration_ms < 3_000, `bounded by webhooks.timeout: ${attempt.duration_ms} ms`);
    }
    front.flow();
    await deliveryIs(app, id, 'done');
  });
});
