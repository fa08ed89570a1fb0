/**
 * The whole path over HTTP only, with the real worker and a real receiver on the loopback:
 * token -> register -> emit -> signed request verified by the standardwebhooks library ->
 * delivery done with its attempt; a failing receiver -> dead -> retry (same webhook-id) -> done;
 * bulk replay of an endpoint's dead deliveries over a time range.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../../helpers/poll.ts';
import { call, closeAll, receiver, startApi, startDeliveryWorker, type Answer } from './helpers.ts';
import { runAppInProcess } from '../../helpers/cli.ts';

const app = await startApi();
await startDeliveryWorker(app);
const hook = await receiver();

/** `app tokens:create ... --json` against this file's database: the operator's step. */
async function cliToken(args: string[]): Promise<string> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: app.db.url,
  };
  const run = await runAppInProcess(['tokens:create', ...args, '--json'], env);
  if (run.code !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout).token;
}

/** Polls a delivery until its status is one of `statuses`. */
function deliveryUntil(token: string, id: string, statuses: string[]): Promise<Answer> {
  return eventually(
    async () => {
      const answer = await call('GET', `${app.api}/deliveries/${id}`, { token });
      return statuses.includes(answer.body?.status) ? answer : undefined;
    },
    15_000,
    `delivery ${id} to be ${statuses.join(' or ')}`,
  );
}

describe('a tenant backend over HTTP only', () => {
  after(closeAll);
  let token: string;
  let endpoint: { externalId: string; secret: string };

  it('registers an endpoint with a token made by tokens:create; the secret comes once, in the 201', async () => {
    token = await cliToken(['--name', 'acme backend', '--role', 'member', '--owner', 'acme']);
    const created = await call('POST', `${app.api}/webhooks`, {
      token,
      body: { url: hook.url, events: ['order.*'], description: 'orders' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('location'), `/api/v1/webhooks/${created.body.externalId}`);
    assert.match(created.body.secret, /^whsec_/);
    assert.equal(created.body.owner, 'acme', "bound to the token's tenant");
    endpoint = created.body;
  });

  it('emit answers 202 with the event and a link to each delivery; the receiver gets a request the standardwebhooks library verifies', async () => {
    const emitted = await call('POST', `${app.api}/events`, {
      token,
      body: { type: 'order.created', data: { order: 42 } },
    });
    assert.equal(emitted.status, 202, emitted.text);
    assert.equal(emitted.body.deliveryCount, 1);
    assert.match(emitted.body.externalId, /^evt_/);
    const [link] = emitted.body._links.delivery;
    const deliveryId = emitted.body.deliveryIds[0];
    assert.equal(link.href, `/api/v1/deliveries/${deliveryId}`);

    const received = await eventually(
      () => hook.requests.find((r) => r.headers['webhook-id'] === deliveryId),
      15_000,
      'the receiver',
    );
    const payload = new Webhook(endpoint.secret).verify(
      received.body,
      received.headers as Record<string, string>,
    ) as Record<string, unknown>;
    assert.deepEqual(payload, {
      data: { order: 42 },
      id: deliveryId,
      timestamp: payload.timestamp,
      type: 'order.created',
    });

    const done = await deliveryUntil(token, deliveryId, ['done']);
    assert.equal(done.body.attempts.length, 1);
    const [attempt] = done.body.attempts;
    assert.equal(attempt.status, 200);
    assert.equal(attempt.outcome, 'done');
    assert.equal(attempt.excerpt, 'ok');
    assert.equal(typeof attempt.durationMs, 'number');
    assert.ok(Date.parse(attempt.startedAt) > 0);
    assert.equal('retry' in done.body._links, false, 'a delivered delivery offers no retry');
    const event = await call('GET', `${app.api}/events/${emitted.body.externalId}`, { token });
    assert.deepEqual(event.body.data, { order: 42 });
    assert.equal(event.body.deliveryCounts.done, 1);
  });

  it('a receiver answering 500 until told otherwise: dead after the attempts run out; retry sends it again with the same webhook-id; done', async () => {
    hook.answer(500);
    const emitted = await call('POST', `${app.api}/events`, {
      token,
      body: { type: 'order.paid', data: { order: 43 } },
    });
    const deliveryId = emitted.body.deliveryIds[0];
    const dead = await deliveryUntil(token, deliveryId, ['dead']);
    assert.equal(dead.body.attempts.length, 3, 'webhooks.maxAttempts of the fast test config');
    assert.ok(dead.body.attempts.every((a: { status: number }) => a.status === 500));
    assert.match(dead.body.attempts[0].excerpt, /failing with 500/);
    assert.deepEqual(dead.body._links.retry, { href: `/api/v1/deliveries/${deliveryId}/retry`, method: 'POST' });
    const listed = await call('GET', `${app.api}/deliveries?status=dead`, { token });
    assert.deepEqual(
      listed.body._embedded.deliveries.map((d: { externalId: string }) => d.externalId),
      [deliveryId],
    );

    hook.answer(200);
    const retried = await call('POST', `${app.api}${dead.body._links.retry.href.slice('/api/v1'.length)}`, { token });
    assert.equal(retried.status, 202, retried.text);
    const done = await deliveryUntil(token, deliveryId, ['done']);
    assert.equal(done.body.attempts.length, 4, 'earlier attempts stay on record');
    const requests = hook.requests.filter((r) => r.headers['webhook-id'] === deliveryId);
    assert.equal(requests.length, 4);
    const last = requests[requests.length - 1];
    new Webhook(endpoint.secret).verify(last.body, last.headers as Record<string, string>);
    assert.equal(new Set(requests.map((r) => r.body)).size, 1, 'the same body every time');
  });

  it('retrying a delivery that is not dead is 409 APP_WEBHOOK_DELIVERY_NOT_DEAD', async () => {
    const [done] = (await call('GET', `${app.api}/deliveries?status=done`, { token })).body._embedded.deliveries;
    const answer = await call('POST', `${app.api}/deliveries/${done.externalId}/retry`, { token });
    assert.equal(answer.status, 409);
    assert.equal(answer.body.code, 'APP_WEBHOOK_DELIVERY_NOT_DEAD');
  });

  it("recover replays the endpoint's dead deliveries created in a time range, and only those", async () => {
    hook.answer(500);
    const before = new Date().toISOString();
    const emitted = await Promise.all(
      [1, 2].map((n) => call('POST', `${app.api}/events`, { token, body: { type: 'order.refunded', data: { n } } })),
    );
    const ids = emitted.map((answer) => answer.body.deliveryIds[0] as string);
    for (const id of ids) await deliveryUntil(token, id, ['dead']);
    hook.answer(200);
    const range = await call(
      'GET',
      `${app.api}/webhooks/${endpoint.externalId}/deliveries?status=dead&since=${encodeURIComponent(before)}`,
      { token },
    );
    assert.deepEqual(
      range.body._embedded.deliveries.map((d: { externalId: string }) => d.externalId).sort(),
      [...ids].sort(),
    );
    const future = await call('POST', `${app.api}/webhooks/${endpoint.externalId}/recover`, {
      token,
      body: { since: new Date(Date.now() + 60_000).toISOString() },
    });
    assert.equal(future.body.recovered, 0, 'nothing dead in that range');
    const recovered = await call('POST', `${app.api}/webhooks/${endpoint.externalId}/recover`, {
      token,
      body: { since: before },
    });
    assert.equal(recovered.status, 202, recovered.text);
    assert.deepEqual([...recovered.body.deliveryIds].sort(), [...ids].sort());
    assert.equal(recovered.body.more, false);
    for (const id of ids) await deliveryUntil(token, id, ['done']);
    const missing = await call('POST', `${app.api}/webhooks/${endpoint.externalId}/recover`, { token, body: {} });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.code, 'APP_WEBHOOK_TIME_RANGE_INVALID');
    assert.equal(missing.body.data.field, 'since');
  });

  it('test sends a webhook.test event to this endpoint alone, whatever it subscribed to', async () => {
    const sent = await call('POST', `${app.api}/webhooks/${endpoint.externalId}/test`, { token, body: {} });
    assert.equal(sent.status, 202, sent.text);
    assert.equal(sent.body.type, 'webhook.test');
    const received = await eventually(
      () => hook.requests.find((r) => r.headers['webhook-id'] === sent.body.externalId),
      15_000,
      'the test event',
    );
    assert.equal(JSON.parse(received.body).type, 'webhook.test');
  });
});
