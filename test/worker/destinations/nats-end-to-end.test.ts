/**
 * NATS JetStream destinations end to end, with the real web process, the real worker and a real
 * nats-server: an endpoint registered over the API with a `nats://` URL gets each emitted event
 * as one stream message its consumer verifies with `standardwebhooks`; a FIFO endpoint's
 * messages arrive in emit order even when the first waits for a fault to be fixed; wrong
 * credentials, a subject no stream captures, an unreachable server and a PubAck that never
 * comes are failed attempts with a clear reason, and the delivery is done once the fault is
 * fixed; a private address is refused without `webhooks.allowPrivate`.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Webhook } from 'standardwebhooks';
import { call, closeAll, startApi } from '../../api/webhooks-api/helpers.ts';
import { NATS, natsAdmin, privateNatsServer } from '../../helpers/nats.ts';
import { attemptRows } from '../helpers.ts';
import { unique } from './attempts.ts';
import { brokerFlow } from './broker-flow.ts';
import { proxyTo } from './faults.ts';

const flow = await brokerFlow();
const BROKER = `nats://${NATS.host}:${NATS.port}`;

const proxy = () => proxyTo(`nats://${NATS.host}:${NATS.port}`);

/** A subject of the test's own, and a stream name for it. */
const names = () => ({ stream: unique('S'), subject: `${unique('hooks')}.orders` });

describe('NATS JetStream destinations end to end', () => {
  after(async () => {
    await closeAll();
  });

  it('register, emit: the stream holds the body and headers, standardwebhooks verifies them, and the delivery is done', async () => {
    const admin = await natsAdmin();
    const { stream, subject } = names();
    await admin.stream(stream, subject);
    const endpoint = await flow.register(`${BROKER}/${subject}`, { headers: { 'x-tenant': 'acme' } });
    const id = await flow.emit(endpoint, { order: 42 });
    const [message] = await admin.take(stream);
    const headers = Object.fromEntries(
      message.header.keys().map((key) => [key.toLowerCase(), message.header.get(key)]),
    );
    const payload = new Webhook(endpoint.secret).verify(message.string(), headers) as { id: string; data: unknown };
    assert.deepEqual([payload.id, payload.data], [id, { order: 42 }]);
    assert.equal(headers['nats-msg-id'], id);
    assert.equal(headers['x-tenant'], 'acme');
    const attempts = await flow.until(id, 'done');
    assert.deepEqual(
      attempts.map((a) => [a.outcome, a.error]),
      [['done', null]],
    );
  });

  it('a FIFO endpoint keeps emit order: the first waits (no stream) and the others wait behind it until a stream captures the subject', async () => {
    const admin = await natsAdmin();
    const { stream, subject } = names();
    const endpoint = await flow.register(`${BROKER}/${subject}`, { ordering: 'fifo' });
    const ids: string[] = [];
    for (let n = 1; n <= 6; n++) ids.push(await flow.emit(endpoint, { n }));
    const failed = await flow.failedAttempts(ids[0], 2);
    assert.equal(failed[0].error, `broker refused: no stream captures subject ${subject} (no responders)`);
    for (const id of ids.slice(1))
      assert.equal((await attemptRows(flow.app.h, id)).length, 0, 'the others wait behind the first');
    await admin.stream(stream, subject);
    const messages = await admin.take(stream, 6, 20_000);
    assert.deepEqual(
      messages.map((m) => (m.json() as { data: { n: number } }).data.n),
      [1, 2, 3, 4, 5, 6],
    );
    for (const id of ids) await flow.until(id, 'done');
  });

  it('wrong credentials: failed attempts saying authorization violation, without the password; done once the URL has the right ones', async () => {
    const server = await privateNatsServer('hooks', 'Right-Pa55');
    const nc = await connect({ servers: `127.0.0.1:${server.port}`, user: 'hooks', pass: 'Right-Pa55' });
    try {
      await (await jetstreamManager(nc)).streams.add({ name: 'PRIVATE', subjects: ['orders.>'] });
      const password = 'Not-The-Pa55word';
      const endpoint = await flow.register(`nats://hooks:${password}@127.0.0.1:${server.port}/orders.created`);
      const id = await flow.emit(endpoint, { order: 1 });
      const failed = await flow.failedAttempts(id, 2);
      assert.match(failed[0].error ?? '', /^broker refused: .*authorization violation/i);
      assert.ok(!JSON.stringify(failed).includes(password), 'the password is in no stored error');
      assert.ok(!flow.app.logs.join('').includes(password), 'nor in the log');
      const patched = await call('PATCH', `${flow.app.api}/webhooks/${endpoint.externalId}`, {
        token: flow.token,
        body: { url: `nats://hooks:Right-Pa55@127.0.0.1:${server.port}/orders.created` },
      });
      assert.equal(patched.status, 200, patched.text);
      await flow.until(id, 'done');
    } finally {
      await nc.close();
      await server.stop();
    }
  });

  it('the server unreachable (a closed port): failed attempts with the connection error; done once it listens', async () => {
    const admin = await natsAdmin();
    const { stream, subject } = names();
    await admin.stream(stream, subject);
    const p = await proxy();
    await p.cut();
    const endpoint = await flow.register(`nats://${new URL(p.url).host}/${subject}`);
    const id = await flow.emit(endpoint, { order: 3 });
    const failed = await flow.failedAttempts(id, 2);
    assert.match(failed[0].error ?? '', /^connection error: .*refused/);
    await p.restore();
    await flow.until(id, 'done');
    assert.equal((await admin.take(stream)).length, 1);
  });

  it('a PubAck that never comes: failed attempts timed out within webhooks.timeout; done once the server answers', async () => {
    const admin = await natsAdmin();
    const { stream, subject } = names();
    await admin.stream(stream, subject);
    const p = await proxy();
    p.stall();
    const endpoint = await flow.register(`nats://${new URL(p.url).host}/${subject}`);
    const id = await flow.emit(endpoint, { order: 4 });
    const failed = await flow.failedAttempts(id, 2);
    assert.match(failed[0].error ?? '', /^(timeout|connection error): /);
    p.flow();
    await flow.until(id, 'done');
    assert.equal((await admin.take(stream)).length, 1);
  });

  it('a NATS URL on a private address is refused without webhooks.allowPrivate', async () => {
    const strict = await startApi({ webhooks: { allowHttp: true, allowPrivate: false } });
    const created = await call('POST', `${strict.api}/webhooks`, {
      token: await strict.token('admin'),
      body: { url: `nats://hooks:secret@127.0.0.1:${NATS.port}/orders.created`, events: ['*'] },
    });
    assert.equal(created.status, 422, created.text);
    assert.equal(created.body.code, 'APP_WEBHOOK_ADDRESS_REFUSED');
  });
});
