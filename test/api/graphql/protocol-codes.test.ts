import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { TestApp } from '../fixtures/app.ts';
import { post, startGraphqlApp, type GraphqlAnswer } from './fixtures.ts';

/** Each error's code and message. */
const errors = (answer: GraphqlAnswer) =>
  (answer.body.errors ?? []).map((error) => ({ code: error.extensions?.code, message: error.message }));

/** A raw POST (a body the `post` helper would not send). */
async function postRaw(app: TestApp, body: string, accept = 'application/graphql-response+json') {
  const response = await fetch(`${app.base}/_app/gql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: accept },
    body,
  });
  return { status: response.status, body: (await response.json()) as GraphqlAnswer['body'] };
}

const ENDPOINTS = 'query($perPage: Int) { webhookEndpoints(perPage: $perPage) { total } }';

describe("GraphQL's own refusals carry a stable extensions.code", () => {
  let app: TestApp;
  let production: TestApp;
  before(async () => {
    app = await startGraphqlApp();
    production = await startGraphqlApp({ env: 'production' });
  });

  it('a document that does not parse: APP_GRAPHQL_SYNTAX, graphql-js message and status kept', async () => {
    const answer = await post(app, '{ webhookEndpoints(');
    assert.equal(answer.status, 400);
    assert.equal(errors(answer).length, 1);
    assert.equal(errors(answer)[0].code, 'APP_GRAPHQL_SYNTAX');
    assert.match(errors(answer)[0].message, /^Syntax Error:/);
    const json = await postRaw(app, JSON.stringify({ query: '{' }), 'application/json');
    assert.equal(json.status, 200, 'application/json answers 200, as graphql-http does');
    assert.equal(json.body.errors?.[0]?.extensions?.code, 'APP_GRAPHQL_SYNTAX');
  });

  it('a document the schema refuses (unknown field, wrong argument type): APP_GRAPHQL_VALIDATION', async () => {
    for (const query of ['{ nope }', '{ webhookEndpoints(perPage: "ten") { total } }']) {
      const answer = await post(app, query);
      assert.equal(answer.status, 400, query);
      assert.ok(errors(answer).length > 0, query);
      for (const error of errors(answer)) assert.equal(error.code, 'APP_GRAPHQL_VALIDATION', query);
    }
  });

  it('variables that do not fit the operation: APP_GRAPHQL_VARIABLES_INVALID, even in production', async () => {
    for (const target of [app, production]) {
      const wrongType = await post(target, ENDPOINTS, { variables: { perPage: 'ten' } });
      assert.equal(wrongType.status, 200, 'the status graphql-http gives a result without data');
      assert.equal(errors(wrongType)[0].code, 'APP_GRAPHQL_VARIABLES_INVALID');
      assert.match(errors(wrongType)[0].message, /^Variable "\$perPage" got invalid value "ten"/);
      const missing = await post(target, 'query($id: ID!) { webhookEndpoint(id: $id) { url } }');
      assert.equal(errors(missing)[0].code, 'APP_GRAPHQL_VARIABLES_INVALID');
      // a scalar's own check: a client's mistake, not an internal error to mask
      const date = await post(
        target,
        'query($since: DateTime) { webhookDeliveries(filter: {since: $since}) { total } }',
        { variables: { since: 'yesterday' } },
      );
      assert.equal(errors(date)[0].code, 'APP_GRAPHQL_VARIABLES_INVALID');
      assert.match(errors(date)[0].message, /DateTime must be an ISO 8601 date-time.*"yesterday"/);
    }
  });

  it("production still cuts graphql-js's suggestions, code kept; the service's own codes stay", async () => {
    const introspection = await post(production, '{ __schema { queryType { name } } }');
    assert.equal(errors(introspection)[0].code, 'APP_GRAPHQL_INTROSPECTION_DISABLED');
    const field = await post(app, '{ webhookEndpoint(id: "ep_00000000000000000000000000") { url } }', {
      headers: { 'X-Test-Principal': 'admin-all;admin;' },
    });
    assert.equal(errors(field)[0].code, 'APP_WEBHOOK_NOT_FOUND', "a field error keeps its resolver's code");
    const answer = await post(production, '{ webhookEndpoin }');
    assert.deepEqual(errors(answer), [
      { code: 'APP_GRAPHQL_VALIDATION', message: 'Cannot query field "webhookEndpoin" on type "Query".' },
    ]);
    const variable = await post(
      production,
      'query($f: WebhookDeliveryFilter) { webhookDeliveries(filter: $f) { total } }',
      { variables: { f: { status: ['DON'] } } },
    );
    assert.equal(errors(variable)[0].code, 'APP_GRAPHQL_VARIABLES_INVALID');
    assert.doesNotMatch(errors(variable)[0].message, /Did you mean/);
  });

  it("graphql-http's checks of the request's parameters: APP_GRAPHQL_REQUEST_INVALID, status 400", async () => {
    for (const body of [
      {},
      { query: 7 },
      { query: '{ __typename }', variables: [1] },
      { query: '{ __typename }', operationName: 3 },
    ]) {
      const answer = await postRaw(app, JSON.stringify(body));
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.errors?.[0]?.extensions?.code, 'APP_GRAPHQL_REQUEST_INVALID', JSON.stringify(body));
    }
    const missing = await postRaw(app, '{}');
    assert.equal(missing.body.errors?.[0]?.message, 'Missing query');
    const get = await fetch(`${app.base}/_app/gql?variables=%7B%7D`, { headers: { Accept: 'application/json' } });
    assert.equal(get.status, 400);
    const got = (await get.json()) as GraphqlAnswer['body'];
    assert.equal(got.errors?.[0]?.extensions?.code, 'APP_GRAPHQL_REQUEST_INVALID');
  });

  it('several operations and no operationName: says to name one; an unknown name is named', async () => {
    const document = 'query A { __typename } query B { __typename }';
    const unnamed = await post(app, document);
    assert.equal(unnamed.status, 400, 'the status graphql-http gave');
    assert.deepEqual(errors(unnamed), [
      {
        code: 'APP_GRAPHQL_REQUEST_INVALID',
        message: 'the document holds several operations: name the one to run with operationName',
      },
    ]);
    const unknown = await post(app, document, { operationName: 'C' });
    assert.equal(errors(unknown)[0].code, 'APP_GRAPHQL_REQUEST_INVALID');
    assert.match(errors(unknown)[0].message, /no operation named "C" \(it holds "A", "B"\)/);
    const chosen = await post(app, document, { operationName: 'B' });
    assert.deepEqual(chosen.body, { data: { __typename: 'Query' } });
  });

  it('graphql.run in process: the same codes', async () => {
    const service = app.web.graphql;
    assert.ok(service);
    const codes = async (query: string, variables?: Record<string, unknown>) =>
      ((await service.run(query, variables)).errors ?? []).map((error) => error.extensions?.code);
    assert.deepEqual(await codes('{'), ['APP_GRAPHQL_SYNTAX']);
    assert.deepEqual(await codes('{ nope }'), ['APP_GRAPHQL_VALIDATION']);
    assert.deepEqual(await codes(ENDPOINTS, { perPage: 'ten' }), ['APP_GRAPHQL_VARIABLES_INVALID']);
    assert.deepEqual(await codes('query A { __typename } query B { __typename }'), ['APP_GRAPHQL_REQUEST_INVALID']);
  });
});
