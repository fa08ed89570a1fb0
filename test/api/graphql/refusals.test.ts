import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { TestApp } from '../fixtures/app.ts';
import { as, post, startGraphqlApp, type GraphqlAnswer } from './fixtures.ts';

const ACME = as('member', 'acme');

/** The first error's code, status and data. */
const refusal = (answer: GraphqlAnswer) => {
  const error = answer.body.errors?.[0];
  return { code: error?.extensions?.code, status: error?.extensions?.status, data: error?.extensions?.data };
};

let app: TestApp;
before(async () => {
  app = await startGraphqlApp();
});

describe('GraphQL refuses what REST refuses, with the same code', () => {
  it('testWebhookFilter without a filter is refused (filter is required, null for none), as POST /webhooks/filter-test', async () => {
    const missing = await post(app, '{ testWebhookFilter(event: {type: "order.created"}) { matches } }', {
      headers: ACME,
    });
    assert.equal(missing.status, 200);
    assert.deepEqual(refusal(missing), {
      code: 'APP_WEBHOOK_FILTER_TEST_INVALID',
      status: 422,
      data: { field: 'filter', reason: 'is required (null for none)' },
    });
    const none = await post(app, '{ testWebhookFilter(filter: null, event: {type: "order.created"}) { matches } }', {
      headers: ACME,
    });
    assert.deepEqual(
      none.body,
      { data: { testWebhookFilter: { matches: true } } },
      'null: no filter, every event matches',
    );
  });

  it('testWebhookFilter with neither event nor eventId says to give one, not that both were given', async () => {
    const answer = await post(app, '{ testWebhookFilter(filter: {}) { matches } }', { headers: ACME });
    assert.equal(refusal(answer).code, 'APP_WEBHOOK_FILTER_TEST_INVALID');
    assert.doesNotMatch(answer.body.errors?.[0]?.message ?? '', /not both/);
    assert.match(answer.body.errors?.[0]?.message ?? '', /event or eventId/);
  });
});

describe('GraphQL page arguments: a refusal names the argument the client sent', () => {
  for (const [field, args, parameter, value] of [
    ['webhookDeliveries', 'perPage: 0', 'perPage', 0],
    ['webhookEndpoints', 'perPage: -3', 'perPage', -3],
    ['webhookEvents', 'page: 0', 'page', 0],
    ['eventTypes', 'perPage: 0', 'perPage', 0],
  ] as const) {
    it(`${field}(${args}) is APP_PAGINATION_INVALID naming ${parameter}, with the value as sent`, async () => {
      const answer = await post(app, `{ ${field}(${args}) { total } }`, { headers: ACME });
      assert.deepEqual(refusal(answer), { code: 'APP_PAGINATION_INVALID', status: 400, data: { parameter, value } });
      assert.match(answer.body.errors?.[0]?.message ?? '', new RegExp(`^${parameter} must be a whole number`));
    });
  }
});
