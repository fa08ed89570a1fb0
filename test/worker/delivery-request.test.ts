/**
 * The delivery request (docs/receiving.md, "The request"): what a receiver gets
 * from the worker, checked with the `standardwebhooks` library as a receiver would.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import pkg from '../../package.json' with { type: 'json' };
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { attemptRows, endpoint, harness, runOnce, send, settled, worker, type Harness } from './helpers.ts';
import { rotateSecret } from '../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

const plain = (headers: Receiver['requests'][number]['headers']): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
  );

const h: Harness = harness(await createTestDatabase());

describe('the delivery request', () => {
  const receivers: Receiver[] = [];
  const receiver = async (handler: Parameters<typeof startReceiver>[0]) => {
    const started = await startReceiver(handler);
    receivers.push(started);
    return started;
  };
  after(async () => {
    for (const r of receivers) await r.close();
  });

  it('an emitted event arrives signed and verifiable by the standardwebhooks library', async () => {
    const server = await receiver((_req, res) => res.end('thanks'));
    const ep = await endpoint(h, `${server.origin}/hooks/in?tenant=7`, { headers: { 'X-Receiver-Token': 'abc' } });
    const [id] = await send(h, ep, 'order.created', { order: 42, note: 'ünïcödé' });
    await runOnce(h);
    const row = await settled(h, id);
    assert.equal(row.status, 'done');
    assert.equal(server.requests.length, 1);
    const [request] = server.requests;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/hooks/in?tenant=7');
    const headers = plain(request.headers);
    const envelope = new Webhook(ep.secret).verify(request.body.toString('utf8'), headers) as Record<string, unknown>;
    assert.deepEqual(Object.keys(envelope), ['data', 'id', 'timestamp', 'type'], 'envelope keys in their fixed order');
    assert.deepEqual(envelope.data, { order: 42, note: 'ünïcödé' });
    assert.equal(envelope.id, id);
    assert.equal(envelope.type, 'order.created');
    assert.equal(request.body.toString('utf8'), row.body, 'the stored body is sent byte for byte');
  });

  it("sends exactly the service's headers plus the endpoint's own, and no unsigned routing header", async () => {
    const server = await receiver((_req, res) => res.end());
    const ep = await endpoint(h, `${server.origin}/`, { headers: { 'X-Receiver-Token': 'abc' } });
    const [id] = await send(h, ep, 'invoice.paid');
    await runOnce(h);
    await settled(h, id);
    const headers = plain(server.requests[0].headers);
    assert.equal(headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(headers['user-agent'], `app-webhooks/${pkg.version}`);
    assert.equal(headers['webhook-id'], id);
    assert.match(headers['webhook-timestamp'], /^\d+$/);
    assert.ok(
      Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000) < 30,
      'timestamp is integer seconds of now',
    );
    assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
    assert.equal(headers['x-receiver-token'], 'abc');
    const expected = [
      'host',
      'connection',
      'content-length',
      'content-type',
      'user-agent',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'x-receiver-token',
    ];
    assert.deepEqual(
      Object.keys(headers).sort(),
      expected.sort(),
      'no other header (the event type travels only in the body)',
    );
    assert.ok(
      !Object.values(headers).some((value) => value.includes('invoice.paid')),
      'the event name is in no header',
    );
  });

  it('every attempt carries the same webhook-id, a fresh webhook-timestamp and a fresh signature', async () => {
    const slow = harness(h.db, { webhooks: { backoff: { base: '1100ms', factor: 1, jitter: 0 } } });
    let calls = 0;
    const server = await receiver((_req, res) => {
      calls += 1;
      res.statusCode = calls === 1 ? 503 : 200;
      res.end();
    });
    const ep = await endpoint(slow, `${server.origin}/`);
    const [id] = await send(slow, ep);
    await worker(slow);
    const row = await settled(slow, id);
    assert.equal(row.status, 'done');
    assert.equal(server.requests.length, 2);
    const [first, second] = server.requests.map((r) => plain(r.headers));
    assert.equal(first['webhook-id'], id);
    assert.equal(second['webhook-id'], id);
    assert.ok(
      Number(second['webhook-timestamp']) > Number(first['webhook-timestamp']),
      'a later timestamp on the retry',
    );
    assert.notEqual(second['webhook-signature'], first['webhook-signature']);
    for (const r of server.requests) new Webhook(ep.secret).verify(r.body.toString('utf8'), plain(r.headers));
    assert.deepEqual(
      (await attemptRows(slow, id)).map((a) => [a.status, a.outcome]),
      [
        [503, 'retry'],
        [200, 'done'],
      ],
    );
  });

  it('during a rotation grace period the header carries two v1 signatures, old and new secret each verifying', async () => {
    const server = await receiver((_req, res) => res.end());
    const ep = await endpoint(h, `${server.origin}/`);
    const { secret: fresh } = await rotateSecret({ config: h.config, sql: h.sql, log: h.log }, OPERATOR, ep.id, {
      grace: 60_000,
    });
    const [id] = await send(h, ep);
    await runOnce(h);
    await settled(h, id);
    const headers = plain(server.requests[0].headers);
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    const body = server.requests[0].body.toString('utf8');
    new Webhook(ep.secret).verify(body, headers);
    new Webhook(fresh).verify(body, headers);
  });

  it('a rotation without grace stops the old secret at once: the next delivery verifies only with the new one', async () => {
    const server = await receiver((_req, res) => res.end());
    const ep = await endpoint(h, `${server.origin}/`);
    const { secret: fresh } = await rotateSecret({ config: h.config, sql: h.sql, log: h.log }, OPERATOR, ep.id);
    const [id] = await send(h, ep);
    await runOnce(h);
    await settled(h, id);
    const headers = plain(server.requests[0].headers);
    const body = server.requests[0].body.toString('utf8');
    assert.equal(headers['webhook-signature'].split(' ').length, 1);
    new Webhook(fresh).verify(body, headers);
    assert.throws(() => new Webhook(ep.secret).verify(body, headers));
  });

  it('delivers a 1 MB body intact and verifiable', async () => {
    const server = await receiver((_req, res) => res.end());
    const ep = await endpoint(h, `${server.origin}/`);
    const big = 'x'.repeat(1_000_000);
    const [id] = await send(h, ep, 'file.uploaded', { big });
    await runOnce(h);
    assert.equal((await settled(h, id)).status, 'done');
    const body = server.requests[0].body.toString('utf8');
    assert.ok(body.length > 1_000_000);
    const envelope = new Webhook(ep.secret).verify(body, plain(server.requests[0].headers)) as {
      data: { big: string };
    };
    assert.equal(envelope.data.big, big);
  });
});
