/**
 * The bodies of the webhook and token APIs' writes: a field the route does not take is refused
 * with 422 `APP_BODY_FIELD_UNKNOWN` naming it and the accepted ones, and nothing is written, so a
 * misspelt field never acts as if it were absent (an emit whose `payload` was meant as `data`, a
 * token whose `expires` was meant as `expiresInMs`); a JSON array is 400 `APP_BODY_INVALID` on
 * every write, updates included.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, closeAll, createEndpoint, startApi, type ApiHarness } from './helpers.ts';

const URL = 'http://127.0.0.1:9/hook';

describe('unknown body fields on the webhook and token APIs', () => {
  let app: ApiHarness;
  let admin: string;
  let member: string;
  let endpoint: string;
  before(async () => {
    app = await startApi();
    admin = await app.token('admin');
    member = await app.token('member', 'acme');
    endpoint = (await createEndpoint(app, member, { url: URL, events: ['order.*'] })).externalId;
    const type = await call('POST', `${app.api}/event-types`, { token: admin, body: { name: 'order.known' } });
    assert.equal(type.status, 201, type.text);
  });
  after(closeAll);

  /** What each list holds, to show a refused write wrote nothing. */
  const totals = async () => {
    const totalOf = async (path: string) => (await call('GET', `${app.api}${path}`, { token: admin })).body.total;
    return {
      webhooks: await totalOf('/webhooks'),
      events: await totalOf('/events'),
      deliveries: await totalOf('/deliveries'),
      eventTypes: await totalOf('/event-types'),
      tokens: (await call('GET', `${app.api}/tokens`, { token: admin })).text,
    };
  };

  const writes = () => [
    {
      path: '/webhooks',
      token: member,
      body: { url: URL, events: ['order.*'], secret: 'whsec_bXlvd25zZWNyZXQ=' },
      field: 'secret',
    },
    { path: '/events', token: member, body: { type: 'order.created', payload: { id: 7 } }, field: 'payload' },
    { path: `/webhooks/${endpoint}/rotate`, token: member, body: { grace_ms: 1000 }, field: 'grace_ms' },
    { path: `/webhooks/${endpoint}/test`, token: member, body: { event: 'order.created' }, field: 'event' },
    {
      path: `/webhooks/${endpoint}/recover`,
      token: member,
      body: { since: '2020-01-01T00:00:00Z', to: '2021-01-01T00:00:00Z' },
      field: 'to',
    },
    { path: '/event-types', token: admin, body: { name: 'order.typo', descripton: 'x' }, field: 'descripton' },
    { path: '/tokens', token: admin, body: { name: 'ci', role: 'admin', expires: '1d' }, field: 'expires' },
  ];

  it('retry and resend take no field: a body with one is refused before the delivery is looked at', async () => {
    for (const action of ['retry', 'resend']) {
      const answer = await call('POST', `${app.api}/deliveries/msg_none/${action}`, {
        token: member,
        body: { endpoint: endpoint },
      });
      assert.equal(answer.status, 422, `${action}: ${answer.text}`);
      assert.equal(answer.body.code, 'APP_BODY_FIELD_UNKNOWN');
      assert.deepEqual(answer.body.data.accepted, []);
      const empty = await call('POST', `${app.api}/deliveries/msg_none/${action}`, { token: member, body: {} });
      assert.equal(empty.body.code, 'APP_WEBHOOK_DELIVERY_NOT_FOUND', 'an empty body is no field');
    }
  });

  it('every write refuses a field it does not take with 422 APP_BODY_FIELD_UNKNOWN, and writes nothing', async () => {
    const before = await totals();
    const secretsBefore = (await call('GET', `${app.api}/webhooks/${endpoint}`, { token: member })).body.secrets;
    for (const write of writes()) {
      const answer = await call('POST', `${app.api}${write.path}`, { token: write.token, body: write.body });
      assert.equal(answer.status, 422, `${write.path}: ${answer.text}`);
      assert.equal(answer.headers.get('content-type'), 'application/problem+json');
      assert.equal(answer.body.code, 'APP_BODY_FIELD_UNKNOWN', write.path);
      assert.equal(answer.body.data.field, write.field, write.path);
      assert.deepEqual(answer.body.data.fields, [write.field], write.path);
      const known = Object.keys(write.body).filter((key) => key !== write.field);
      for (const key of known) assert.ok(answer.body.data.accepted.includes(key), `${write.path} accepts ${key}`);
      assert.match(answer.body.detail, new RegExp(`"${write.field}"`));
    }
    assert.deepEqual(await totals(), before, 'nothing was written');
    const secretsAfter = (await call('GET', `${app.api}/webhooks/${endpoint}`, { token: member })).body.secrets;
    assert.deepEqual(secretsAfter, secretsBefore, 'the secret was not rotated');
  });

  it('the same bodies with their known fields only are served', async () => {
    for (const write of writes()) {
      const body = Object.fromEntries(Object.entries(write.body).filter(([key]) => key !== write.field));
      const answer = await call('POST', `${app.api}${write.path}`, { token: write.token, body });
      assert.ok(answer.status >= 200 && answer.status < 300, `${write.path}: ${answer.status} ${answer.text}`);
    }
  });

  it('a JSON array body is 400 APP_BODY_INVALID on creates and updates alike', async () => {
    for (const [method, path, token] of [
      ['POST', '/webhooks', member],
      ['PATCH', `/webhooks/${endpoint}`, member],
      ['POST', '/events', member],
      ['POST', '/webhooks/filter-test', member],
      ['POST', '/event-types', admin],
      ['PATCH', '/event-types/order.known', admin],
      ['POST', '/tokens', admin],
    ] as const) {
      const answer = await call(method, `${app.api}${path}`, { token, body: [{ description: 'in an array' }] });
      assert.equal(answer.status, 400, `${method} ${path}: ${answer.text}`);
      assert.equal(answer.body.code, 'APP_BODY_INVALID', `${method} ${path}`);
    }
  });
});
