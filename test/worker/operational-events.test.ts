/**
 * Operational events, with the real worker: a 410 disables an endpoint and
 * `app.endpoint.disabled` reaches the tenant's subscribed endpoints and the operator's owner-less
 * `app.*` endpoint, signed; a dead delivery raises `app.delivery.dead`; the first failure after a
 * success raises `app.endpoint.failing` once an hour; enabling raises `app.endpoint.enabled`; and
 * the operator endpoint failing its own operational deliveries raises nothing more (no loop).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { enableEndpoint } from '../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { endpoint, harness, runOnce, send } from './helpers.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

const db = await createTestDatabase();
const h = harness(db, { webhooks: { maxAttempts: 1 } });
const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});

async function receiver(status: () => number): Promise<Receiver> {
  const made = await startReceiver((_req, res) => {
    res.statusCode = status();
    res.end();
  });
  receivers.push(made);
  return made;
}

const types = (received: Receiver) =>
  received.requests.map((request) => JSON.parse(request.body.toString()).type as string);
const events = async (type: string) =>
  (await db.sql<{ n: number }[]>`select count(*)::int as n from app_events where type = ${type}`)[0].n;

describe('operational events', () => {
  it('a 410 disables the endpoint: app.endpoint.disabled goes to the subscribed endpoints of the tenant and to the operator, signed', async () => {
    const operatorReceiver = await receiver(() => 200);
    const operator = await endpoint(h, `${operatorReceiver.origin}/ops`, { owner: null, events: ['app.*'] });
    const watcherReceiver = await receiver(() => 200);
    await endpoint(h, `${watcherReceiver.origin}/watch`, { owner: 'acme', events: ['app.endpoint.*'] });
    const goneReceiver = await receiver(() => 410);
    const gone = await endpoint(h, `${goneReceiver.origin}/gone`, { owner: 'acme', events: ['order.*'] });
    await send(h, gone, 'order.paid');
    await runOnce(h);
    await runOnce(h); // the operational event's own deliveries
    assert.deepEqual(types(watcherReceiver), ['app.endpoint.disabled']);
    assert.deepEqual(types(operatorReceiver), ['app.endpoint.disabled']);
    const request = operatorReceiver.requests[0];
    const body = new Webhook(operator.secret).verify(
      request.body.toString(),
      request.headers as Record<string, string>,
    ) as { data: Record<string, unknown> };
    assert.equal(body.data.endpointId, gone.id);
    assert.equal(body.data.owner, 'acme');
    assert.match(String(body.data.reason), /410 Gone/);
  });

  it('a dead delivery raises app.delivery.dead with the delivery, endpoint, event type and last error; the first failure after a success raises app.endpoint.failing once', async () => {
    const operatorReceiver = await receiver(() => 200);
    await endpoint(h, `${operatorReceiver.origin}/ops2`, {
      owner: null,
      events: ['app.delivery.*', 'app.endpoint.failing'],
    });
    let answer = 200;
    const flaky = await receiver(() => answer);
    const made = await endpoint(h, `${flaky.origin}/flaky`, { owner: 'globex', events: ['invoice.*'] });
    await send(h, made, 'invoice.sent');
    await runOnce(h);
    answer = 500;
    const [deadId] = await send(h, made, 'invoice.sent');
    await runOnce(h);
    await send(h, made, 'invoice.sent');
    await runOnce(h);
    await runOnce(h);
    const received = types(operatorReceiver);
    assert.equal(received.filter((type) => type === 'app.endpoint.failing').length, 1, 'once, not for every failure');
    assert.equal(received.filter((type) => type === 'app.delivery.dead').length, 2);
    const dead = operatorReceiver.requests
      .map((request) => JSON.parse(request.body.toString()))
      .find((event) => event.type === 'app.delivery.dead');
    assert.equal(dead.data.deliveryId, deadId);
    assert.equal(dead.data.endpointId, made.id);
    assert.equal(dead.data.eventType, 'invoice.sent');
    assert.match(dead.data.lastError, /500/);
  });

  it('enabling raises app.endpoint.enabled; an operator endpoint that fails its operational deliveries raises no more of them', async () => {
    const brokenOperator = await receiver(() => 500);
    await endpoint(h, `${brokenOperator.origin}/broken-ops`, { owner: null, events: ['app.*'] });
    const goneReceiver = await receiver(() => 410);
    const gone = await endpoint(h, `${goneReceiver.origin}/gone2`, { owner: 'initech', events: ['*'] });
    await send(h, gone, 'thing.happened');
    await runOnce(h);
    const deadBefore = await events('app.delivery.dead');
    await runOnce(h); // the operator's delivery of app.endpoint.disabled dies (500, one attempt)
    await runOnce(h);
    assert.ok(brokenOperator.requests.length >= 1);
    assert.equal(await events('app.delivery.dead'), deadBefore, 'no app.delivery.dead about an operational delivery');
    await enableEndpoint({ config: h.config, sql: h.sql, log: h.log }, OPERATOR, gone.id);
    assert.ok((await events('app.endpoint.enabled')) >= 1);
  });
});
