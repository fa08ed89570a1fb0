import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { TestApp } from '../fixtures/app.ts';
import { as, post, startGraphqlApp, type GraphqlAnswer } from './fixtures.ts';

const ADMIN = as('admin');

/** Each error's code, status and data. */
const refusals = (answer: GraphqlAnswer) =>
  (answer.body.errors ?? []).map((error) => ({
    code: error.extensions?.code,
    status: error.extensions?.status,
    data: error.extensions?.data,
  }));

describe('GraphQL list sizes: out of range is refused with APP_PAGINATION_INVALID, never charged as cost', () => {
  let app: TestApp;
  let endpoint: string;
  before(async () => {
    app = await startGraphqlApp();
    const registered = await post(
      app,
      'mutation($input: RegisterWebhookEndpointInput!) { registerWebhookEndpoint(input: $input) { endpoint { externalId } } }',
      { headers: ADMIN, variables: { input: { url: 'http://127.0.0.1:9/sizes', events: ['*'] } } },
    );
    const data = registered.body.data as { registerWebhookEndpoint: { endpoint: { externalId: string } } };
    endpoint = data.registerWebhookEndpoint.endpoint.externalId;
  });

  it('recentEvents(limit:) outside 1..50 is refused (400 APP_PAGINATION_INVALID naming the limit), not clamped', async () => {
    for (const limit of [0, -5, 51, 1000]) {
      const answer = await post(
        app,
        `query($id: ID!) { webhookEndpoint(id: $id) { recentEvents(limit: ${limit}) { type } } }`,
        {
          headers: ADMIN,
          variables: { id: endpoint },
        },
      );
      assert.deepEqual(
        refusals(answer),
        [{ code: 'APP_PAGINATION_INVALID', status: 400, data: { parameter: 'limit', value: limit } }],
        `limit ${limit}`,
      );
      assert.match(answer.body.errors?.[0]?.message ?? '', /limit must be a whole number from 1 to 50/);
    }
    for (const limit of [1, 50]) {
      const answer = await post(
        app,
        `query($id: ID!) { webhookEndpoint(id: $id) { recentEvents(limit: ${limit}) { type } } }`,
        {
          headers: ADMIN,
          variables: { id: endpoint },
        },
      );
      assert.equal(answer.body.errors, undefined, `limit ${limit}`);
    }
  });

  it('a limit of 1000 inside a page of endpoints is refused as out of range, not as too costly', async () => {
    const answer = await post(
      app,
      '{ webhookEndpoints(perPage: 25) { nodes { recentEvents(limit: 1000) { externalId type createdAt } } } }',
      { headers: ADMIN },
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body.errors));
    assert.deepEqual([...new Set(refusals(answer).map((refusal) => refusal.code))], ['APP_PAGINATION_INVALID']);
  });

  it('a perPage above api.maxPerPage is charged as api.maxPerPage (what the page holds), page and perPage below 1 refused', async () => {
    const rows = 'externalId status type eventId endpointId attemptCount createdAt';
    const answer = await post(app, `{ webhookDeliveries(perPage: 1000) { perPage nodes { ${rows} } } }`, {
      headers: ADMIN,
    });
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
    assert.deepEqual(answer.body.data?.webhookDeliveries, { perPage: 100, nodes: [] }, 'capped as REST caps per_page');
    for (const args of ['perPage: 0', 'perPage: -5', 'page: 0']) {
      const refused = await post(app, `{ webhookDeliveries(${args}) { total } }`, { headers: ADMIN });
      assert.equal(refusals(refused)[0]?.code, 'APP_PAGINATION_INVALID', args);
    }
  });
});
