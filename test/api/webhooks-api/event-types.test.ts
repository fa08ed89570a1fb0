/**
 * The event-type catalog over REST and GraphQL: admins add and change types,
 * every role reads them, an emit whose data fails its type's schema is 422
 * APP_WEBHOOK_EVENT_DATA_INVALID with ajv's reasons and writes nothing, an invalid schema is
 * refused, and with webhooks.strictEventTypes unknown types and unmatched subscriptions are refused.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { runAppInProcess } from '../../helpers/cli.ts';
import { call, closeAll, startApi } from './helpers.ts';

const app = await startApi();
const strict = await startApi({ webhooks: { strictEventTypes: true } });
const ORDER_PAID = {
  name: 'order.paid',
  description: 'An order was paid',
  schema: {
    type: 'object',
    required: ['orderId', 'amount'],
    properties: { orderId: { type: 'string' }, amount: { type: 'integer', minimum: 0 } },
    additionalProperties: false,
  },
  examples: [{ orderId: 'o_1', amount: 1200 }],
};

describe('the event-type catalog', () => {
  after(closeAll);

  it('an admin adds a type (201); every role reads it; a member may not add or change one (403)', async () => {
    const admin = await app.token('admin');
    const member = await app.token('member', 'acme');
    const viewer = await app.token('viewer', 'acme');
    const made = await call('POST', `${app.api}/event-types`, { token: admin, body: ORDER_PAID });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.name, 'order.paid');
    assert.equal(made.body._links.update.method, 'PATCH');
    const listed = await call('GET', `${app.api}/event-types`, { token: viewer });
    assert.deepEqual(
      listed.body._embedded.eventTypes.map((type: { name: string }) => type.name),
      ['order.paid'],
    );
    assert.equal(listed.body._embedded.eventTypes[0]._links.update, undefined, 'no update link for a viewer');
    assert.equal(
      (await call('GET', `${app.api}/event-types/order.paid`, { token: member })).body.description,
      'An order was paid',
    );
    assert.equal((await call('POST', `${app.api}/event-types`, { token: member, body: { name: 'x.y' } })).status, 403);
    assert.equal(
      (await call('PATCH', `${app.api}/event-types/order.paid`, { token: member, body: { deprecated: true } })).status,
      403,
    );
    const again = await call('POST', `${app.api}/event-types`, { token: admin, body: ORDER_PAID });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'APP_WEBHOOK_EVENT_TYPE_EXISTS');
    assert.equal(
      (await call('GET', `${app.api}/event-types/nope.nope`, { token: admin })).body.code,
      'APP_WEBHOOK_EVENT_TYPE_NOT_FOUND',
    );
  });

  it("an emit whose data fails the type's schema is 422 APP_WEBHOOK_EVENT_DATA_INVALID with the validator's errors, and writes nothing", async () => {
    const admin = await app.token('admin');
    await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: 'https://receiver.example/hook', events: ['order.*'], owner: 'acme' },
    });
    const refused = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'order.paid', owner: 'acme', data: { orderId: 7, amount: -1, extra: true } },
    });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'APP_WEBHOOK_EVENT_DATA_INVALID');
    const paths = refused.body.data.errors
      .map((error: { instancePath: string; keyword: string }) => `${error.instancePath} ${error.keyword}`)
      .sort();
    assert.deepEqual(paths, [' additionalProperties', '/amount minimum', '/orderId type']);
    assert.equal(
      (await call('GET', `${app.api}/events?type=order.paid`, { token: admin })).body.total,
      0,
      'nothing was written',
    );
    const accepted = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'order.paid', owner: 'acme', data: { orderId: 'o_2', amount: 5 } },
    });
    assert.equal(accepted.status, 202);
    assert.equal(accepted.body.deliveryCount, 1);
    const untyped = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'order.shipped', owner: 'acme', data: 'anything' },
    });
    assert.equal(untyped.status, 202, 'a type the catalog lacks is not checked unless strict');
  });

  it('an invalid schema is refused (422 APP_WEBHOOK_EVENT_SCHEMA_INVALID), so are examples that do not match; schema: null removes it', async () => {
    const admin = await app.token('admin');
    const bad = await call('POST', `${app.api}/event-types`, {
      token: admin,
      body: { name: 'bad.schema', schema: { type: 'no-such-type' } },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, 'APP_WEBHOOK_EVENT_SCHEMA_INVALID');
    const example = await call('POST', `${app.api}/event-types`, {
      token: admin,
      body: { name: 'bad.example', schema: { type: 'integer' }, examples: ['text'] },
    });
    assert.equal(example.body.code, 'APP_WEBHOOK_EVENT_TYPE_INVALID');
    await call('POST', `${app.api}/event-types`, {
      token: admin,
      body: { name: 'user.created', schema: { type: 'object' } },
    });
    assert.equal(
      (await call('POST', `${app.api}/events`, { token: admin, body: { type: 'user.created', data: 5 } })).status,
      422,
    );
    const cleared = await call('PATCH', `${app.api}/event-types/user.created`, {
      token: admin,
      body: { schema: null, deprecated: true },
    });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.schema, null);
    const current = await call('GET', `${app.api}/event-types?deprecated=false&per_page=100`, { token: admin });
    assert.equal(
      current.body._embedded.eventTypes.some((type: { name: string }) => type.name === 'user.created'),
      false,
      'deprecated=false leaves a deprecated type out',
    );
    const unclear = await call('GET', `${app.api}/event-types?deprecated=maybe`, { token: admin });
    assert.equal(unclear.status, 422, 'a flag is true or false, as every list filter');
    assert.equal(unclear.body.code, 'APP_WEBHOOK_LIST_INVALID');
    assert.equal(
      (await call('POST', `${app.api}/events`, { token: admin, body: { type: 'user.created', data: 5 } })).status,
      202,
      'this process sees the change at once',
    );
  });

  // how long such data would take on JavaScript's own engine is checked, bounded, in
  // test/shared/webhooks/event-types/schema-check.test.ts; here the data stays short enough for either
  it("an emit's data is checked against the schema's patterns on the linear-time engine; a pattern it does not run is refused", async () => {
    const admin = await app.token('admin');
    const member = await app.token('member', 'acme');
    const made = await call('POST', `${app.api}/event-types`, {
      token: admin,
      body: { name: 'user.renamed', schema: { type: 'object', properties: { name: { pattern: '(a+)+$' } } } },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const emitted = await call('POST', `${app.api}/events`, {
      token: member,
      body: { type: 'user.renamed', data: { name: `${'a'.repeat(16)}!` } },
    });
    assert.equal(emitted.status, 422);
    assert.equal(emitted.body.code, 'APP_WEBHOOK_EVENT_DATA_INVALID');
    assert.equal((await fetch(`${app.base}/livez`)).status, 200);
    const lookaround = await call('POST', `${app.api}/event-types`, {
      token: admin,
      body: { name: 'user.moved', schema: { type: 'string', pattern: '^(?!x)' } },
    });
    assert.equal(lookaround.status, 422);
    assert.equal(lookaround.body.code, 'APP_WEBHOOK_EVENT_SCHEMA_INVALID');
    assert.match(lookaround.body.detail, /RE2 syntax/);
  });

  it('GraphQL: eventTypes, eventType and the admin mutations, with the same refusals', async () => {
    const admin = await app.token('admin');
    const member = await app.token('member', 'acme');
    const gql = async (token: string, query: string) =>
      (await call('POST', `${app.base}/_app/gql`, { token, headers: { Accept: 'application/json' }, body: { query } }))
        .body;
    const created = await gql(
      admin,
      'mutation { createEventType(input: {name: "invoice.sent", description: "Sent", schema: {type: "object"}}) { name schema } }',
    );
    assert.deepEqual(created.data.createEventType, { name: 'invoice.sent', schema: { type: 'object' } });
    const listed = await gql(
      member,
      '{ eventTypes { total nodes { name } } eventType(name: "invoice.sent") { description } }',
    );
    assert.ok(listed.data.eventTypes.nodes.some((node: { name: string }) => node.name === 'invoice.sent'));
    assert.equal(listed.data.eventType.description, 'Sent');
    const refused = await gql(
      member,
      'mutation { updateEventType(name: "invoice.sent", input: {deprecated: true}) { name } }',
    );
    assert.equal(refused.errors[0].extensions.code, 'APP_FORBIDDEN');
  });

  it('strict mode: emitting an unknown type and subscribing to a pattern no type matches are refused (APP_WEBHOOK_EVENT_TYPE_UNKNOWN)', async () => {
    const admin = await strict.token('admin');
    await call('POST', `${strict.api}/event-types`, { token: admin, body: { name: 'order.paid' } });
    const emit = await call('POST', `${strict.api}/events`, { token: admin, body: { type: 'order.lost', data: {} } });
    assert.equal(emit.status, 422);
    assert.equal(emit.body.code, 'APP_WEBHOOK_EVENT_TYPE_UNKNOWN');
    const subscribe = await call('POST', `${strict.api}/webhooks`, {
      token: admin,
      body: { url: 'https://receiver.example/s', events: ['order.paid', 'refund.*'] },
    });
    assert.equal(subscribe.status, 422);
    assert.equal(subscribe.body.data.pattern, 'refund.*');
    const made = await call('POST', `${strict.api}/webhooks`, {
      token: admin,
      body: { url: 'https://receiver.example/s', events: ['order.*'] },
    });
    assert.equal(made.status, 201);
    assert.equal(
      (await call('POST', `${strict.api}/events`, { token: admin, body: { type: 'order.paid', data: {} } })).status,
      202,
    );
    const test = await call('POST', `${strict.api}/webhooks/${made.body.externalId}/test`, { token: admin, body: {} });
    assert.equal(test.status, 202, 'test events are not held to the strict rule');
  });

  it('the CLI manages the catalog, and app openapi describes it as the webhooks object', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: '/tmp', NODE_ENV: 'test', DATABASE_URL: app.db.url };
    const added = await runAppInProcess(
      [
        'event-types:add',
        'shipment.sent',
        '--description',
        'Shipped',
        '--schema',
        '{"type":"object","required":["tracking"]}',
        '--example',
        '{"tracking":"T1"}',
        '--json',
      ],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    assert.equal(JSON.parse(added.stdout).name, 'shipment.sent');
    const badJson = await runAppInProcess(['event-types:add', 'x.y', '--schema', '{nope'], env);
    assert.equal(badJson.code, 1);
    assert.match(badJson.stderr, /--schema is not valid JSON/);
    const updated = await runAppInProcess(['event-types:update', 'shipment.sent', '--deprecated', '--json'], env);
    assert.equal(JSON.parse(updated.stdout).deprecated, true);
    const listed = await runAppInProcess(['event-types:list', '--no-deprecated', '--json'], env);
    assert.ok(!JSON.parse(listed.stdout).some((type: { name: string }) => type.name === 'shipment.sent'));
    const openapi = await runAppInProcess(['openapi'], env);
    assert.equal(openapi.code, 0, openapi.stderr);
    const document = JSON.parse(openapi.stdout);
    const shipment = document.webhooks['shipment.sent'].post;
    assert.equal(shipment.deprecated, true);
    assert.deepEqual(shipment.requestBody.content['application/json'].schema.properties.data, {
      type: 'object',
      required: ['tracking'],
    });
    assert.deepEqual(shipment.requestBody.content['application/json'].examples.example1.value.data, { tracking: 'T1' });
    const result = await new Validator().validate(structuredClone(document));
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });
});
