import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, closeAll, createEndpoint, startApi } from './helpers.ts';

// Receivers are never reached here (no worker runs): the urls only have to be acceptable.
const URL_A = 'http://127.0.0.1:9/a';
const URL_B = 'http://127.0.0.1:9/b';

const app = await startApi();
const api = app.api;

describe('tenant isolation: a member reaches only its owner; another tenant looks like nothing (404, not 403)', () => {
  after(closeAll);
  let admin: string;
  let memberA: string;
  let memberB: string;
  let endpointA: string;
  let endpointB: string;
  let eventB: string;
  let deliveryB: string;

  before(async () => {
    admin = await app.token('admin');
    memberA = await app.token('member', 'tenant-a');
    memberB = await app.token('member', 'tenant-b');
    endpointA = (await createEndpoint(app, memberA, { url: URL_A })).externalId;
    endpointB = (await createEndpoint(app, memberB, { url: URL_B, description: 'B' })).externalId;
    await call('POST', `${api}/events`, { token: memberA, body: { type: 'order.created', data: { tenant: 'a' } } });
    const emitted = await call('POST', `${api}/events`, {
      token: memberB,
      body: { type: 'order.created', data: { tenant: 'b' } },
    });
    eventB = emitted.body.externalId;
    deliveryB = emitted.body.deliveryIds[0];
    await app.db.sql`update app_webhook_deliveries set status = 'dead', completed_at = now() where id = ${deliveryB}`;
  });

  const notFound = async (method: string, url: string, body: unknown, code: string) => {
    const answer = await call(method, url, { token: memberA, body });
    assert.equal(answer.status, 404, `${method} ${url}: ${answer.text}`);
    assert.equal(answer.body.code, code, `${method} ${url}`);
  };

  it("every route on tenant B's endpoint answers member A 404 APP_WEBHOOK_NOT_FOUND, like an id that does not exist", async () => {
    for (const id of [endpointB, 'ep_00000000000000000000000000']) {
      await notFound('GET', `${api}/webhooks/${id}`, undefined, 'APP_WEBHOOK_NOT_FOUND');
      await notFound('PATCH', `${api}/webhooks/${id}`, { description: 'mine now' }, 'APP_WEBHOOK_NOT_FOUND');
      await notFound('POST', `${api}/webhooks/${id}/rotate`, {}, 'APP_WEBHOOK_NOT_FOUND');
      await notFound('POST', `${api}/webhooks/${id}/test`, {}, 'APP_WEBHOOK_NOT_FOUND');
      await notFound(
        'POST',
        `${api}/webhooks/${id}/recover`,
        { since: '2020-01-01T00:00:00Z' },
        'APP_WEBHOOK_NOT_FOUND',
      );
      await notFound('GET', `${api}/webhooks/${id}/deliveries`, undefined, 'APP_WEBHOOK_NOT_FOUND');
      await notFound('DELETE', `${api}/webhooks/${id}`, undefined, 'APP_WEBHOOK_NOT_FOUND');
    }
    const still = await call('GET', `${api}/webhooks/${endpointB}`, { token: memberB });
    assert.equal(still.status, 200, 'not deleted');
    assert.equal(still.body.description, 'B', 'not changed');
    assert.equal(still.body.secrets.length, 1, 'not rotated');
    const [{ count }] = await app.db.sql<
      { count: number }[]
    >`select count(*)::int as count from app_webhook_deliveries where endpoint_id = ${endpointB}`;
    assert.equal(count, 1, 'no test event was sent to it');
  });

  it("tenant B's event and delivery answer 404; B's dead delivery cannot be retried by A", async () => {
    await notFound('GET', `${api}/events/${eventB}`, undefined, 'APP_WEBHOOK_EVENT_NOT_FOUND');
    await notFound('GET', `${api}/deliveries/${deliveryB}`, undefined, 'APP_WEBHOOK_DELIVERY_NOT_FOUND');
    await notFound('POST', `${api}/deliveries/${deliveryB}/retry`, undefined, 'APP_WEBHOOK_DELIVERY_NOT_FOUND');
    const [row] = await app.db.sql<
      { status: string }[]
    >`select status from app_webhook_deliveries where id = ${deliveryB}`;
    assert.equal(row.status, 'dead');
  });

  it('listings show member A only its own records, and naming tenant B is 404 APP_TENANT_NOT_FOUND', async () => {
    const owners = async (path: string, key: string) =>
      (await call('GET', `${api}/${path}`, { token: memberA })).body._embedded[key].map(
        (item: { owner: string }) => item.owner,
      );
    assert.deepEqual(await owners('webhooks', 'webhooks'), ['tenant-a']);
    assert.deepEqual(await owners('events', 'events'), ['tenant-a']);
    assert.deepEqual(await owners('deliveries', 'deliveries'), ['tenant-a']);
    assert.deepEqual(await owners(`deliveries?endpoint=${endpointB}`, 'deliveries'), []);
    assert.deepEqual(await owners(`deliveries?event=${eventB}`, 'deliveries'), []);
    for (const path of [
      'webhooks?owner=tenant-b',
      'events?owner=tenant-b',
      'deliveries?owner=tenant-b',
      'webhooks?without_owner=true',
    ]) {
      await notFound('GET', `${api}/${path}`, undefined, 'APP_TENANT_NOT_FOUND');
    }
  });

  it('member A cannot emit into, register for, or give an endpoint to tenant B (404 APP_TENANT_NOT_FOUND), nor emit without owner', async () => {
    await notFound(
      'POST',
      `${api}/events`,
      { type: 'order.created', data: {}, owner: 'tenant-b' },
      'APP_TENANT_NOT_FOUND',
    );
    await notFound('POST', `${api}/events`, { type: 'order.created', data: {}, owner: null }, 'APP_TENANT_NOT_FOUND');
    await notFound('POST', `${api}/webhooks`, { url: URL_A, events: ['*'], owner: 'tenant-b' }, 'APP_TENANT_NOT_FOUND');
    await notFound('PATCH', `${api}/webhooks/${endpointA}`, { owner: 'tenant-b' }, 'APP_TENANT_NOT_FOUND');
    const [{ count }] = await app.db.sql<
      { count: number }[]
    >`select count(*)::int as count from app_events where owner = 'tenant-b'`;
    assert.equal(count, 1, 'nothing was emitted as tenant B');
    const own = await call('POST', `${api}/events`, {
      token: memberA,
      body: { type: 'order.created', data: {}, owner: 'tenant-a' },
    });
    assert.equal(own.status, 202, 'naming its own owner is fine');
    assert.equal(own.body.owner, 'tenant-a');
  });

  it("an admin reaches every tenant: lists by owner, shows, changes, emits as B and retries B's dead delivery", async () => {
    const listed = await call('GET', `${api}/webhooks?owner=tenant-b`, { token: admin });
    assert.deepEqual(
      listed.body._embedded.webhooks.map((e: { externalId: string }) => e.externalId),
      [endpointB],
    );
    assert.equal((await call('GET', `${api}/webhooks`, { token: admin })).body.total, 2);
    assert.equal((await call('GET', `${api}/webhooks/${endpointB}`, { token: admin })).status, 200);
    assert.equal(
      (await call('PATCH', `${api}/webhooks/${endpointB}`, { token: admin, body: { description: 'by admin' } })).body
        .description,
      'by admin',
    );
    const emitted = await call('POST', `${api}/events`, {
      token: admin,
      body: { type: 'order.paid', data: {}, owner: 'tenant-b' },
    });
    assert.equal(emitted.status, 202);
    assert.equal(emitted.body.deliveryCount, 1);
    assert.equal((await call('GET', `${api}/events/${eventB}`, { token: admin })).status, 200);
    const retried = await call('POST', `${api}/deliveries/${deliveryB}/retry`, { token: admin });
    assert.equal(retried.status, 202, retried.text);
    assert.equal(retried.body.status, 'pending');
  });

  it("an endpoint given to another tenant leaves the old tenant's reach at once, deliveries included", async () => {
    const moving = await createEndpoint(app, memberA, { url: URL_A });
    const emitted = await call('POST', `${api}/events`, { token: memberA, body: { type: 'user.moved', data: {} } });
    const delivery = emitted.body.deliveryIds.find((id: string) => id);
    assert.equal((await call('GET', `${api}/deliveries/${delivery}`, { token: memberA })).status, 200);
    const moved = await call('PATCH', `${api}/webhooks/${moving.externalId}`, {
      token: admin,
      body: { owner: 'tenant-b' },
    });
    assert.equal(moved.body.owner, 'tenant-b');
    await notFound('GET', `${api}/webhooks/${moving.externalId}`, undefined, 'APP_WEBHOOK_NOT_FOUND');
    const deliveries = await Promise.all(
      emitted.body.deliveryIds.map((id: string) => call('GET', `${api}/deliveries/${id}`, { token: memberA })),
    );
    const toMoved = deliveries.filter((answer) => answer.status === 404);
    assert.equal(toMoved.length, 1, 'the delivery to the moved endpoint is out of reach');
  });

  it("after an endpoint moved, the old tenant's event counts are what its delivery listing of the event shows", async () => {
    const moving = await createEndpoint(app, memberA, { url: URL_A, events: ['stock.*'] });
    await createEndpoint(app, memberA, { url: URL_A, events: ['stock.*'] });
    const emitted = await call('POST', `${api}/events`, { token: memberA, body: { type: 'stock.low', data: {} } });
    const event = emitted.body.externalId;
    const emittedTo: number = emitted.body.deliveryIds.length; // its endpoints subscribed to stock.* or every type
    assert.ok(emittedTo >= 2);
    const kept = emittedTo - 1;
    await call('PATCH', `${api}/webhooks/${moving.externalId}`, { token: admin, body: { owner: 'tenant-b' } });

    const listed = await call('GET', `${api}/deliveries?event=${event}`, { token: memberA });
    assert.equal(listed.body.total, kept);
    const shown = await call('GET', `${api}/events/${event}`, { token: memberA });
    assert.deepEqual(shown.body.deliveryCounts, { pending: kept, running: 0, done: 0, dead: 0, total: kept });
    const page = await call('GET', `${api}/events?type=stock.low`, { token: memberA });
    assert.equal(page.body._embedded.events[0].deliveryCounts.total, kept, 'the listing of events counts the same');

    const gql = async (token: string) => {
      const answer = await call('POST', `${app.base}/_app/gql`, {
        token,
        headers: { Accept: 'application/json' },
        body: {
          query: `query($id: ID!) {
            webhookEvent(id: $id) { deliveryCounts { pending total } }
            webhookEvents(filter: { type: "stock.low" }) { nodes { deliveryCounts { total } } }
            webhookDeliveries(filter: { event: $id }) { total }
          }`,
          variables: { id: event },
        },
      });
      assert.equal(answer.body.errors, undefined, answer.text);
      return answer.body.data;
    };
    assert.deepEqual(await gql(memberA), {
      webhookEvent: { deliveryCounts: { pending: kept, total: kept } },
      webhookEvents: { nodes: [{ deliveryCounts: { total: kept } }] },
      webhookDeliveries: { total: kept },
    });
    // an operator keeps seeing every delivery of the event
    assert.equal((await call('GET', `${api}/events/${event}`, { token: admin })).body.deliveryCounts.total, emittedTo);
    assert.deepEqual(await gql(admin), {
      webhookEvent: { deliveryCounts: { pending: emittedTo, total: emittedTo } },
      webhookEvents: { nodes: [{ deliveryCounts: { total: emittedTo } }] },
      webhookDeliveries: { total: emittedTo },
    });
  });
});
