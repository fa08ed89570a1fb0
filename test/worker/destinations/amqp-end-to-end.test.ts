/**
 * RabbitMQ destinations end to end, with the real web process, the real worker and the local
 * RabbitMQ: an endpoint registered over the API with an `amqp://` URL gets each emitted event as
 * one message its consumer verifies with `standardwebhooks`; a FIFO endpoint's messages arrive in
 * emit order even when the first waits for a fault to be fixed; wrong credentials, a missing
 * exchange, an unreachable broker and a confirm that never comes are failed attempts with a
 * clear reason, and the delivery is done once the fault is fixed; a private address is refused
 * without `webhooks.allowPrivate`.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { call, closeAll, startApi } from '../../api/webhooks-api/helpers.ts';
import { RABBITMQ, rabbitAdmin } from '../../helpers/rabbitmq.ts';
import { attemptRows } from '../helpers.ts';
import { unique } from './attempts.ts';
import { brokerFlow } from './broker-flow.ts';
import { proxyTo } from './faults.ts';

const flow = await brokerFlow();
const BROKER = `amqp://guest:guest@${RABBITMQ.host}:${RABBITMQ.port}`;

const proxy = () => proxyTo(`amqp://${RABBITMQ.host}:${RABBITMQ.port}`);

describe('RabbitMQ destinations end to end', () => {
  after(async () => {
    await closeAll();
  });

  it('register, emit: the consumer gets the body and headers, standardwebhooks verifies them, and the delivery is done', async () => {
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('q'));
    const endpoint = await flow.register(`${BROKER}/?routingKey=${queue}`, { headers: { 'x-tenant': 'acme' } });
    const id = await flow.emit(endpoint, { order: 42 });
    const [message] = await admin.take(queue);
    const headers = message.properties.headers as Record<string, string>;
    const payload = new Webhook(endpoint.secret).verify(message.content.toString('utf8'), headers) as {
      id: string;
      data: unknown;
    };
    assert.deepEqual([payload.id, payload.data], [id, { order: 42 }]);
    assert.equal(message.properties.messageId, id);
    assert.equal(headers['x-tenant'], 'acme');
    const attempts = await flow.until(id, 'done');
    assert.deepEqual(
      attempts.map((a) => [a.outcome, a.error]),
      [['done', null]],
    );
  });

  it('a FIFO endpoint keeps emit order: the first waits (no queue bound) and the others wait behind it until a queue is bound', async () => {
    const admin = await rabbitAdmin();
    const exchange = await admin.exchange(unique('x'));
    const endpoint = await flow.register(`${BROKER}/?exchange=${exchange}&routingKey=fifo`, { ordering: 'fifo' });
    const ids: string[] = [];
    for (let n = 1; n <= 6; n++) ids.push(await flow.emit(endpoint, { n }));
    const failed = await flow.failedAttempts(ids[0], 2);
    assert.match(failed[0].error ?? '', /^broker refused: no queue bound for routing key "fifo"/);
    for (const id of ids.slice(1))
      assert.equal((await attemptRows(flow.app.h, id)).length, 0, 'the others wait behind the first');
    const queue = await admin.queue(unique('q'));
    await admin.channel.bindQueue(queue, exchange, 'fifo');
    const messages = await admin.take(queue, 6, 20_000);
    assert.deepEqual(
      messages.map((m) => (JSON.parse(m.content.toString('utf8')) as { data: { n: number } }).data.n),
      [1, 2, 3, 4, 5, 6],
    );
    for (const id of ids) await flow.until(id, 'done');
  });

  it('wrong credentials: failed attempts saying ACCESS_REFUSED, without the password; done once the URL has the right ones', async () => {
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('q'));
    const password = 'Not-The-Pa55word';
    const endpoint = await flow.register(
      `amqp://guest:${password}@${RABBITMQ.host}:${RABBITMQ.port}/?routingKey=${queue}`,
    );
    const id = await flow.emit(endpoint, { order: 1 });
    const failed = await flow.failedAttempts(id, 2);
    assert.match(failed[0].error ?? '', /^broker refused: .*ACCESS.REFUSED/);
    assert.ok(!JSON.stringify(failed).includes(password), 'the password is in no stored error');
    assert.ok(!flow.app.logs.join('').includes(password), 'nor in the log');
    const patched = await call('PATCH', `${flow.app.api}/webhooks/${endpoint.externalId}`, {
      token: flow.token,
      body: { url: `${BROKER}/?routingKey=${queue}` },
    });
    assert.equal(patched.status, 200, patched.text);
    await flow.until(id, 'done');
    assert.equal((await admin.take(queue)).length, 1);
  });

  it('a missing exchange: failed attempts saying NOT_FOUND; done once the exchange exists', async () => {
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('q'));
    const exchange = unique('x');
    const endpoint = await flow.register(`${BROKER}/?exchange=${exchange}&routingKey=k`);
    const id = await flow.emit(endpoint, { order: 2 });
    const failed = await flow.failedAttempts(id, 2);
    assert.match(failed[0].error ?? '', /^broker refused: .*NOT_FOUND - no exchange/);
    await admin.exchange(exchange, { queue, routingKey: 'k' });
    await flow.until(id, 'done');
    assert.equal((await admin.take(queue)).length, 1);
  });

  it('the broker unreachable (a closed port): failed attempts with the connection error; done once it listens', async () => {
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('q'));
    const p = await proxy();
    await p.cut();
    const endpoint = await flow.register(`amqp://guest:guest@${new URL(p.url).host}/?routingKey=${queue}`);
    const id = await flow.emit(endpoint, { order: 3 });
    const failed = await flow.failedAttempts(id, 2);
    assert.match(failed[0].error ?? '', /^connection error: .*ECONNREFUSED/);
    await p.restore();
    await flow.until(id, 'done');
    assert.equal((await admin.take(queue)).length, 1);
  });

  it('a confirm that never comes: failed attempts timed out within webhooks.timeout; done once the broker answers', async () => {
    const admin = await rabbitAdmin();
    const queue = await admin.queue(unique('q'));
    const p = await proxy();
    p.stall();
    const endpoint = await flow.register(`amqp://guest:guest@${new URL(p.url).host}/?routingKey=${queue}`);
    const id = await flow.emit(endpoint, { order: 4 });
    const failed = await flow.failedAttempts(id, 2);
    assert.match(failed[0].error ?? '', /^(timeout|connection error): /);
    p.flow();
    await flow.until(id, 'done');
    assert.equal((await admin.take(queue)).length, 1);
  });

  it('a broker URL on a private address is refused without webhooks.allowPrivate', async () => {
    const strict = await startApi({ webhooks: { allowHttp: true, allowPrivate: false } });
    const created = await call('POST', `${strict.api}/webhooks`, {
      token: await strict.token('admin'),
      body: { url: `${BROKER}/?routingKey=q`, events: ['*'] },
    });
    assert.equal(created.status, 422, created.text);
    assert.equal(created.body.code, 'APP_WEBHOOK_ADDRESS_REFUSED');
    assert.ok(!created.text.includes('guest:guest'), 'the answer does not echo the credentials');
  });
});
