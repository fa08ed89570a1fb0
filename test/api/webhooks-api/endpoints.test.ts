import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, closeAll, createEndpoint, startApi, type ApiHarness } from './helpers.ts';

const URL = 'http://127.0.0.1:9/hook';
const app = await startApi({ webhooks: { maxFanout: 2 } });
const api = app.api;

describe('crud webhooks', () => {
  let member: string;
  before(async () => {
    member = await app.token('member', 'crud');
  });

  it('create: 201, Location, every link a member may use, and the secret this once', async () => {
    const created = await call('POST', `${api}/webhooks`, {
      token: member,
      body: { url: URL, events: ['order.*'], description: 'orders', headers: { 'X-Tenant': 'crud' } },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.externalId;
    assert.match(id, /^ep_/);
    assert.equal(created.headers.get('location'), `/api/v1/webhooks/${id}`);
    assert.match(created.body.secret, /^whsec_/);
    assert.equal('id' in created.body, false, 'the id is the externalId');
    assert.deepEqual(created.body._links, {
      self: { href: `/api/v1/webhooks/${id}` },
      collection: { href: '/api/v1/webhooks' },
      update: { href: `/api/v1/webhooks/${id}`, method: 'PATCH' },
      destroy: { href: `/api/v1/webhooks/${id}`, method: 'DELETE' },
      rotate: { href: `/api/v1/webhooks/${id}/rotate`, method: 'POST' },
      test: { href: `/api/v1/webhooks/${id}/test`, method: 'POST' },
      recover: { href: `/api/v1/webhooks/${id}/recover`, method: 'POST' },
      deliveries: { href: `/api/v1/webhooks/${id}/deliveries` },
    });
    assert.deepEqual(created.body.headers, { 'X-Tenant': null }, 'header names only: values are shown on request');
  });

  it('secrets appear only in the create and rotate answers: never in show or list, never in the logs', async () => {
    const created = await createEndpoint(app, member, { url: URL });
    const shown = await call('GET', `${api}/webhooks/${created.externalId}`, { token: member });
    assert.equal(shown.status, 200);
    assert.equal(shown.text.includes('whsec_'), false);
    assert.equal(shown.body.secrets.length, 1, 'the dates of the signing secrets only');
    assert.deepEqual(Object.keys(shown.body.secrets[0]).sort(), ['createdAt', 'expiresAt']);
    const listed = await call('GET', `${api}/webhooks`, { token: member });
    assert.equal(listed.text.includes('whsec_'), false);

    const rotated = await call('POST', `${api}/webhooks/${created.externalId}/rotate`, {
      token: member,
      body: { grace: 60_000 },
    });
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, created.secret);
    assert.ok(Date.parse(rotated.body.graceEndsAt) > Date.now());
    assert.equal(rotated.body.secrets.length, 2, 'both sign during the grace period');
    const updated = await call('PATCH', `${api}/webhooks/${created.externalId}`, {
      token: member,
      body: { description: 'x' },
    });
    assert.equal(updated.text.includes('whsec_'), false);
    const logs = app.logs.join('');
    assert.ok(logs.includes('webhook endpoint registered'), 'the logs were captured');
    for (const secret of [created.secret, rotated.body.secret]) assert.equal(logs.includes(secret.slice(6)), false);
    assert.equal(logs.includes('whsec_'), false);
  });

  it('list: filters by state and by the events an endpoint receives; paging links keep the filters', async () => {
    const owner = await app.token('member', 'lists');
    const orders = await createEndpoint(app, owner, { url: URL, events: ['order.*'] });
    const everything = await createEndpoint(app, owner, { url: URL, events: ['*'] });
    const users = await createEndpoint(app, owner, { url: URL, events: ['user.created'] });
    await call('PATCH', `${api}/webhooks/${users.externalId}`, { token: owner, body: { enabled: false } });
    const ids = async (query: string) =>
      (await call('GET', `${api}/webhooks${query}`, { token: owner })).body._embedded.webhooks.map(
        (e: { externalId: string }) => e.externalId,
      );
    assert.deepEqual(await ids('?events=order.created'), [orders.externalId, everything.externalId]);
    assert.deepEqual(await ids('?events=order'), [everything.externalId], 'order.* does not match order itself');
    assert.deepEqual(await ids('?events=user.created,order.paid.late'), [
      orders.externalId,
      everything.externalId,
      users.externalId,
    ]);
    assert.deepEqual(await ids('?enabled=false'), [users.externalId]);
    assert.deepEqual(await ids('?enabled=true&events=user.created'), [everything.externalId]);

    const page = await call('GET', `${api}/webhooks?enabled=true&per_page=1`, { token: owner });
    assert.equal(page.body.total, 2);
    assert.equal(page.headers.get('x-total-count'), '2');
    assert.equal(page.body._links.next.href, '/api/v1/webhooks?enabled=true&page=2&per_page=1');
    assert.match(page.headers.get('link') ?? '', /<\/api\/v1\/webhooks\?enabled=true&page=2&per_page=1>; rel="next"/);
    const next = await call('GET', `${app.base}${page.body._links.next.href}`, { token: owner });
    assert.deepEqual(
      next.body._embedded.webhooks.map((e: { externalId: string }) => e.externalId),
      [everything.externalId],
    );
    assert.deepEqual(page.body._links.create, { href: '/api/v1/webhooks', method: 'POST' });
  });

  it('update changes url, events, description, headers and enabled; destroy answers 204 and the endpoint is gone', async () => {
    const created = await createEndpoint(app, member, { url: URL });
    const patched = await call('PATCH', `${api}/webhooks/${created.externalId}`, {
      token: member,
      body: {
        url: 'http://127.0.0.1:9/other',
        events: ['a.b'],
        description: 'd',
        headers: { 'X-A': '1' },
        enabled: false,
      },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(
      [patched.body.url, patched.body.events, patched.body.description, patched.body.headers, patched.body.enabled],
      ['http://127.0.0.1:9/other', ['a.b'], 'd', { 'X-A': null }, false],
    );
    const disabled = await call('POST', `${api}/webhooks/${created.externalId}/test`, { token: member, body: {} });
    assert.equal(disabled.status, 409);
    assert.equal(disabled.body.code, 'APP_WEBHOOK_ENDPOINT_DISABLED');
    const removed = await call('DELETE', `${api}/webhooks/${created.externalId}`, { token: member });
    assert.equal(removed.status, 204);
    assert.equal((await call('GET', `${api}/webhooks/${created.externalId}`, { token: member })).status, 404);
  });

  it('a disabled endpoint offers no test and no recover link: both would answer 409, and come back once it is enabled', async () => {
    const created = await createEndpoint(app, member, { url: URL });
    const disabled = await call('PATCH', `${api}/webhooks/${created.externalId}`, {
      token: member,
      body: { enabled: false },
    });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.body._links.test, undefined);
    assert.equal(disabled.body._links.recover, undefined);
    assert.ok(disabled.body._links.update, 'enabling it again is offered');
    const shown = await call('GET', `${api}/webhooks/${created.externalId}`, { token: member });
    assert.deepEqual([shown.body._links.test, shown.body._links.recover], [undefined, undefined]);
    const recover = await call('POST', `${api}/webhooks/${created.externalId}/recover`, {
      token: member,
      body: { since: new Date(0).toISOString() },
    });
    assert.equal(recover.status, 409);
    assert.equal(recover.body.code, 'APP_WEBHOOK_ENDPOINT_DISABLED');
    const enabled = await call('PATCH', `${api}/webhooks/${created.externalId}`, {
      token: member,
      body: { enabled: true },
    });
    assert.equal(enabled.body._links.test.method, 'POST');
    assert.equal(enabled.body._links.recover.method, 'POST');
  });

  it('a client asking for another API version gets 406', async () => {
    const answer = await call('GET', `${api}/webhooks`, {
      token: member,
      headers: { Accept: 'application/vnd.app.v2+json' },
    });
    assert.equal(answer.status, 406);
    assert.equal(answer.body.code, 'APP_VERSION_NOT_ACCEPTABLE');
  });
});

describe('refusals: 4xx problem+json with a stable code and the offending field in data', () => {
  after(closeAll); // the last suite of the file stops the servers
  let member: string;
  let strict: ApiHarness;
  before(async () => {
    member = await app.token('member', 'refusals');
    strict = await startApi({ webhooks: { allowHttp: false, allowPrivate: false } });
  });

  const refused = async (
    target: ApiHarness,
    method: string,
    path: string,
    body: unknown,
    status: number,
    code: string,
    field?: string,
  ) => {
    const token = target === app ? member : await target.token('member', 'refusals');
    const answer = await call(method, `${target.api}${path}`, { token, body });
    assert.equal(answer.status, status, `${method} ${path}: ${answer.text}`);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(answer.body.code, code);
    if (field !== undefined) assert.equal(answer.body.data.field, field, JSON.stringify(answer.body.data));
    return answer.body;
  };

  it('a refused URL: APP_WEBHOOK_URL_INVALID (shape, scheme) or APP_WEBHOOK_ADDRESS_REFUSED (internal address), field url', async () => {
    await refused(
      app,
      'POST',
      '/webhooks',
      { url: 'ftp://example.com/x', events: ['*'] },
      422,
      'APP_WEBHOOK_URL_INVALID',
      'url',
    );
    await refused(
      app,
      'POST',
      '/webhooks',
      { url: 'http://user:pass@example.com/x', events: ['*'] },
      422,
      'APP_WEBHOOK_URL_INVALID',
      'url',
    );
    await refused(
      strict,
      'POST',
      '/webhooks',
      { url: 'http://example.com/x', events: ['*'] },
      422,
      'APP_WEBHOOK_URL_INVALID',
      'url',
    );
    await refused(
      strict,
      'POST',
      '/webhooks',
      { url: 'https://127.0.0.1/x', events: ['*'] },
      422,
      'APP_WEBHOOK_ADDRESS_REFUSED',
      'url',
    );
    await refused(
      strict,
      'POST',
      '/webhooks',
      { url: 'https://[::ffff:10.0.0.1]/x', events: ['*'] },
      422,
      'APP_WEBHOOK_ADDRESS_REFUSED',
      'url',
    );
  });

  it('a reserved header: APP_WEBHOOK_HEADERS_INVALID, field headers', async () => {
    for (const name of ['webhook-signature', 'Content-Type', 'Connection']) {
      const body = await refused(
        app,
        'POST',
        '/webhooks',
        { url: URL, events: ['*'], headers: { [name]: 'x' } },
        422,
        'APP_WEBHOOK_HEADERS_INVALID',
        'headers',
      );
      assert.equal(body.data.name, name);
    }
  });

  it('an unknown event pattern: APP_WEBHOOK_EVENTS_INVALID, field events', async () => {
    const body = await refused(
      app,
      'POST',
      '/webhooks',
      { url: URL, events: ['order.*.paid'] },
      422,
      'APP_WEBHOOK_EVENTS_INVALID',
      'events',
    );
    assert.equal(body.data.value, 'order.*.paid');
    await refused(app, 'POST', '/webhooks', { url: URL, events: [] }, 422, 'APP_WEBHOOK_EVENTS_INVALID', 'events');
  });

  it('invalid JSON: 400 APP_BODY_INVALID', async () => {
    const answer = await call('POST', `${api}/events`, { token: member, body: '{"type": "a.b", "data": ' });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.code, 'APP_BODY_INVALID');
  });

  it('an over-fanout emit: 422 APP_WEBHOOK_FANOUT_EXCEEDED with limit and matched, field type; nothing is written', async () => {
    const fan = await app.token('member', 'fan');
    for (let i = 0; i < 3; i += 1) await createEndpoint(app, fan, { url: URL });
    const answer = await call('POST', `${api}/events`, { token: fan, body: { type: 'order.created', data: {} } });
    assert.equal(answer.status, 422);
    assert.equal(answer.body.code, 'APP_WEBHOOK_FANOUT_EXCEEDED');
    assert.deepEqual([answer.body.data.field, answer.body.data.limit, answer.body.data.matched], ['type', 2, 3]);
    const [{ count }] = await app.db.sql<
      { count: number }[]
    >`select count(*)::int as count from app_events where owner = 'fan'`;
    assert.equal(count, 0);
  });

  it('an invalid event name, owner, grace, filter or time: each its code and field', async () => {
    await refused(
      app,
      'POST',
      '/events',
      { type: 'order..created', data: {} },
      422,
      'APP_WEBHOOK_EVENT_INVALID',
      'type',
    );
    await refused(app, 'POST', '/events', { data: {} }, 422, 'APP_WEBHOOK_EVENT_INVALID', 'type');
    const endpoint = await createEndpoint(app, member, { url: URL });
    await refused(
      app,
      'POST',
      `/webhooks/${endpoint.externalId}/rotate`,
      { grace: -1 },
      422,
      'APP_WEBHOOK_GRACE_INVALID',
      'grace',
    );
    await refused(app, 'GET', '/deliveries?status=lost', undefined, 422, 'APP_WEBHOOK_LIST_INVALID', 'status');
    await refused(app, 'GET', '/webhooks?enabled=maybe', undefined, 422, 'APP_WEBHOOK_LIST_INVALID', 'enabled');
    await refused(app, 'GET', '/webhooks?events=a..b', undefined, 422, 'APP_WEBHOOK_LIST_INVALID', 'events');
    await refused(app, 'GET', '/events?since=yesterday', undefined, 422, 'APP_WEBHOOK_TIME_RANGE_INVALID', 'since');
    await refused(
      app,
      'GET',
      '/deliveries?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z',
      undefined,
      422,
      'APP_WEBHOOK_TIME_RANGE_INVALID',
      'until',
    );
    await refused(app, 'GET', '/events?page=0', undefined, 400, 'APP_PAGINATION_INVALID');
  });

  it('an emit no endpoint subscribed to: 202 with no event and no deliveries (nothing is written)', async () => {
    const quiet = await app.token('member', 'nobody-listens');
    const answer = await call('POST', `${api}/events`, { token: quiet, body: { type: 'order.created', data: {} } });
    assert.equal(answer.status, 202);
    assert.deepEqual(
      [answer.body.externalId, answer.body.deliveryCount, answer.body.owner],
      [null, 0, 'nobody-listens'],
    );
    assert.deepEqual(answer.body._links, { collection: { href: '/api/v1/events' }, delivery: [] });
  });
});
