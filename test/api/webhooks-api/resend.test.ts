/**
 * Resend: a done or dead delivery is sent again with the same webhook-id
 * (REST, GraphQL, CLI); while it is pending or running the resend is 409
 * APP_WEBHOOK_DELIVERY_IN_FLIGHT; retry keeps its meaning (dead only).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runAppInProcess } from '../../helpers/cli.ts';
import { startReceiver, type Receiver } from '../../worker/delivery/receiver.ts';
import { harness, runOnce } from '../../worker/helpers.ts';
import { call, closeAll, startApi } from './helpers.ts';

const app = await startApi();
const h = harness(app.db);
const receivers: Receiver[] = [];

describe('resending a delivery', () => {
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await closeAll();
  });

  it('a done delivery is resent with the same webhook-id; a pending one is 409; retry still wants a dead one', async () => {
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    receivers.push(receiver);
    const admin = await app.token('admin');
    await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: `${receiver.origin}/hook`, events: ['*'], owner: 'resend' },
    });
    const emitted = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'a.b', owner: 'resend', data: { n: 1 } },
    });
    const id = emitted.body.deliveryIds[0] as string;
    const inFlight = await call('POST', `${app.api}/deliveries/${id}/resend`, { token: admin });
    assert.equal(inFlight.status, 409);
    assert.equal(inFlight.body.code, 'APP_WEBHOOK_DELIVERY_IN_FLIGHT');
    await runOnce(h);
    const done = await call('GET', `${app.api}/deliveries/${id}`, { token: admin });
    assert.equal(done.body.status, 'done');
    assert.equal(done.body._links.resend.method, 'POST');
    assert.equal(done.body._links.retry, undefined);
    assert.equal(
      (await call('POST', `${app.api}/deliveries/${id}/retry`, { token: admin })).body.code,
      'APP_WEBHOOK_DELIVERY_NOT_DEAD',
    );
    const resent = await call('POST', `${app.api}/deliveries/${id}/resend`, { token: admin });
    assert.equal(resent.status, 202, JSON.stringify(resent.body));
    assert.equal(resent.body.status, 'pending');
    await runOnce(h);
    assert.equal(receiver.requests.length, 2);
    assert.deepEqual(
      receiver.requests.map((request) => request.headers['webhook-id']),
      [id, id],
      'the same webhook-id',
    );
    assert.equal(receiver.requests[0].body.toString(), receiver.requests[1].body.toString(), 'the same body');
    const gql = await call('POST', `${app.base}/_app/gql`, {
      token: admin,
      headers: { Accept: 'application/json' },
      body: { query: `mutation { resendWebhookDelivery(id: "${id}") { status } }` },
    });
    assert.equal(gql.body.data.resendWebhookDelivery.status, 'PENDING');
    await runOnce(h);
    const env = { PATH: process.env.PATH ?? '', HOME: '/tmp', NODE_ENV: 'test', DATABASE_URL: app.db.url };
    const cli = await runAppInProcess(['jobs:resend', id], env);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /queued again/);
    const again = await runAppInProcess(['jobs:resend', id], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /still on its way/);
    await runOnce(h);
    assert.equal(receiver.requests.length, 4);
  });

  it('a delivery of a disabled endpoint is not resent: 409 APP_WEBHOOK_ENDPOINT_DISABLED, and it stays done', async () => {
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    receivers.push(receiver);
    const admin = await app.token('admin');
    const endpoint = await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: `${receiver.origin}/hook`, events: ['*'], owner: 'resend-disabled' },
    });
    const emitted = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'a.b', owner: 'resend-disabled', data: { n: 1 } },
    });
    const id = emitted.body.deliveryIds[0] as string;
    await runOnce(h);
    const disabled = await call('PATCH', `${app.api}/webhooks/${endpoint.body.externalId}`, {
      token: admin,
      body: { enabled: false },
    });
    assert.equal(disabled.status, 200, disabled.text);
    const refused = await call('POST', `${app.api}/deliveries/${id}/resend`, { token: admin });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.code, 'APP_WEBHOOK_ENDPOINT_DISABLED');
    assert.equal((await call('GET', `${app.api}/deliveries/${id}`, { token: admin })).body.status, 'done');
    await runOnce(h);
    assert.equal(receiver.requests.length, 1, 'sent once, when it was emitted');
  });
});
