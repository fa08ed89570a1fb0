import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getIntrospectionQuery } from 'graphql';
import { post, startGraphqlApp } from './fixtures.ts';

const SCHEMA = '{ __schema { queryType { name } } }';
const TYPE = '{ __type(name: "WebhookEndpoint") { name fields { name } } }';

describe('introspection by environment (graphql.introspection: on, except in production)', () => {
  it('development and test: __schema and __type answer', async () => {
    for (const env of ['development', 'test']) {
      const app = await startGraphqlApp({ env });
      assert.deepEqual((await post(app, SCHEMA)).body, { data: { __schema: { queryType: { name: 'Query' } } } }, env);
      const type = (await post(app, TYPE)).body.data?.__type as { name: string; fields: unknown[] };
      assert.equal(type.name, 'WebhookEndpoint', env);
    }
  });

  it('the full introspection query (what GraphiQL and code generators send) passes the default limits', async () => {
    const app = await startGraphqlApp();
    const answer = await post(
      app,
      getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        inputValueDeprecation: true,
      }),
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body.errors));
    assert.ok((answer.body.data!.__schema as { types: unknown[] }).types.length > 20);
  });

  it('production: __schema is refused with 400 APP_GRAPHQL_INTROSPECTION_DISABLED, __type answers null for every name', async () => {
    const app = await startGraphqlApp({ env: 'production' });
    const schema = await post(app, SCHEMA);
    assert.equal(schema.status, 400);
    assert.equal(schema.body.errors?.[0]?.extensions?.code, 'APP_GRAPHQL_INTROSPECTION_DISABLED');
    assert.match(schema.body.errors?.[0]?.message ?? '', /graphql\.introspection/);
    for (const query of [
      TYPE,
      '{ __type(name: "Query") { name } }',
      'query($n: String!) { t: __type(name: $n) { name } }',
    ]) {
      const answer = await post(app, query, { variables: { n: 'Query' } });
      assert.equal(answer.status, 200, query);
      assert.deepEqual(Object.values(answer.body.data ?? {}), [null], query);
      assert.equal(answer.body.errors, undefined);
    }
    assert.deepEqual((await post(app, '{ __typename }')).body, { data: { __typename: 'Query' } });
  });

  it("production: no error message suggests the schema's names (a misspelt field, argument, type, input field or enum value)", async () => {
    const probes: [string, Record<string, unknown>?][] = [
      ['{ webhookEndpoin }'],
      ['{ webhookDeliveries(filte: {}) { total } }'],
      ['query($f: WebhookDeliveryFilte) { __typename }'],
      ['{ webhookDeliveries(filter: {statu: []}) { total } }'],
      ['query($f: WebhookDeliveryFilter) { webhookDeliveries(filter: $f) { total } }', { f: { statu: [] } }],
      ['query($f: WebhookDeliveryFilter) { webhookDeliveries(filter: $f) { total } }', { f: { status: ['DON'] } }],
    ];
    for (const env of ['production', 'development']) {
      const app = await startGraphqlApp({ env });
      for (const [query, variables] of probes) {
        const messages = ((await post(app, query, { variables })).body.errors ?? []).map((error) => error.message);
        assert.ok(messages.length > 0, query);
        if (env === 'production') {
          for (const message of messages)
            assert.doesNotMatch(message, /Did you mean|"status"|DONE|webhookEndpoint\b/, query);
        } else
          assert.ok(
            messages.some((message) => message.includes('Did you mean')),
            `${env}: ${query}`,
          );
      }
    }
  });

  it('production with graphql.introspection true: introspection answers', async () => {
    const app = await startGraphqlApp({ env: 'production', graphql: { introspection: true } });
    assert.deepEqual((await post(app, SCHEMA)).body, { data: { __schema: { queryType: { name: 'Query' } } } });
  });

  it('test with graphql.introspection false: refused as in production', async () => {
    const app = await startGraphqlApp({ graphql: { introspection: false } });
    assert.equal((await post(app, SCHEMA)).status, 400);
  });
});
