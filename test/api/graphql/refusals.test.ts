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

describe('GraphQL requests refused before any resolver runs: never a 500', () => {
  const postBody = (body: string) =>
    fetch(`${app.base}/_app/gql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json', ...ACME },
      body,
    });

  it('a JSON body that does not parse, or is a string, number or null, is 400 problem+json APP_BODY_INVALID', async () => {
    for (const body of ['{"query":', '"{ __typename }"', '5', 'null']) {
      const response = await postBody(body);
      assert.equal(response.status, 400, body);
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/, body);
      assert.equal(((await response.json()) as { code: string }).code, 'APP_BODY_INVALID', body);
    }
  });

  it('a GET whose variables are not JSON is APP_GRAPHQL_REQUEST_INVALID (Unparsable URL)', async () => {
    const response = await fetch(`${app.base}/_app/gql?query=%7B__typename%7D&variables=%7Bnope`, {
      headers: { Accept: 'application/graphql-response+json', ...ACME },
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as GraphqlAnswer['body'];
    assert.deepEqual(
      body.errors?.map((error) => [error.message, error.extensions?.code]),
      [['Unparsable URL', 'APP_GRAPHQL_REQUEST_INVALID']],
    );
  });

  it('a document too costly to validate (thousands of fields of one name) is 400 APP_GRAPHQL_VALIDATION', async () => {
    const answer = await post(app, `{ ${'__typename '.repeat(1900)}}`, { headers: ACME });
    assert.equal(answer.status, 400, JSON.stringify(answer.body).slice(0, 300));
    assert.deepEqual(
      answer.body.errors?.map((error) => [error.message, error.extensions?.code]),
      [['Validation aborted.', 'APP_GRAPHQL_VALIDATION']],
    );
  });
});

describe("GraphQL refusals of the request's parameters answer in the media type the client accepts", () => {
  for (const accept of ['application/graphql-response+json', 'application/json'] as const) {
    it(`Accept: ${accept}: a POST without query, a GET with unparsable variables, are 400 ${accept}`, async () => {
      const headers = { Accept: accept, ...ACME };
      const answers = [
        await fetch(`${app.base}/_app/gql`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: '{"variables":{}}',
        }),
        await fetch(`${app.base}/_app/gql`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: '{"query":"{ __typename }","variables":"x"}',
        }),
        await fetch(`${app.base}/_app/gql?query=%7B__typename%7D&variables=%7Bnope`, { headers }),
      ];
      for (const response of answers) {
        assert.equal(response.status, 400);
        assert.equal(response.headers.get('content-type'), `${accept}; charset=utf-8`);
        const body = (await response.json()) as GraphqlAnswer['body'];
        assert.equal(body.errors?.[0]?.extensions?.code, 'APP_GRAPHQL_REQUEST_INVALID');
      }
    });
  }
});

describe('GraphQL DateTime: a date that does not exist is refused, as REST refuses it, never rolled over', () => {
  it('a literal is APP_GRAPHQL_VALIDATION, a variable APP_GRAPHQL_VARIABLES_INVALID, REST 422 APP_WEBHOOK_TIME_RANGE_INVALID', async () => {
    const literal = await post(app, '{ webhookEvents(filter: {since: "2026-11-31T00:00:00Z"}) { total } }', {
      headers: ACME,
    });
    assert.equal(literal.status, 400);
    assert.equal(refusal(literal).code, 'APP_GRAPHQL_VALIDATION');
    const variable = await post(app, 'query($s: DateTime) { webhookEvents(filter: {since: $s}) { total } }', {
      headers: ACME,
      variables: { s: '2026-02-30T00:00:00Z' },
    });
    assert.equal(refusal(variable).code, 'APP_GRAPHQL_VARIABLES_INVALID');
    const rest = await fetch(`${app.base}/api/v1/events?since=2026-02-30T00:00:00Z`, { headers: ACME });
    assert.equal(rest.status, 422);
    assert.equal(((await rest.json()) as { code: string }).code, 'APP_WEBHOOK_TIME_RANGE_INVALID');
  });
});

describe('GraphQL subscriptions: none, refused as a request the service does not serve', () => {
  it('a subscription operation is 400 APP_GRAPHQL_REQUEST_INVALID', async () => {
    const answer = await post(app, 'subscription { deliveries }', { headers: ACME });
    assert.equal(answer.status, 400);
    assert.deepEqual(
      answer.body.errors?.map((error) => [error.message, error.extensions?.code]),
      [['Subscriptions are not supported', 'APP_GRAPHQL_REQUEST_INVALID']],
    );
  });
});
