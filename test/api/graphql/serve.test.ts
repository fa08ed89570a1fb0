import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { TestApp } from '../fixtures/app.ts';
import { post, startGraphqlApp } from './fixtures.ts';

let app: TestApp;
before(async () => {
  app = await startGraphqlApp();
});

const url = (query?: Record<string, string>) => `${app.base}/_app/gql${query ? `?${new URLSearchParams(query)}` : ''}`;

describe('serving at graphql.path: GET and POST per the GraphQL-over-HTTP spec', () => {
  it('GET runs a query from the URL; a mutation over GET is 405 with Allow: POST', async () => {
    const got = await fetch(url({ query: '{ __typename }' }), {
      headers: { Accept: 'application/graphql-response+json' },
    });
    assert.equal(got.status, 200);
    assert.match(got.headers.get('content-type') ?? '', /^application\/graphql-response\+json/);
    assert.deepEqual(await got.json(), { data: { __typename: 'Query' } });
    const mutation = await fetch(url({ query: 'mutation { __typename }' }));
    assert.equal(mutation.status, 405);
    assert.equal(mutation.headers.get('allow'), 'POST');
  });

  it('a mutation over GET is the standard 405 problem: problem+json, APP_METHOD_NOT_ALLOWED, Allow: POST, the request id', async () => {
    for (const accept of [undefined, 'application/graphql-response+json', 'application/json']) {
      const mutation = await fetch(url({ query: 'mutation { __typename }' }), {
        headers: { 'X-Request-Id': 'gql-get-mutation', ...(accept ? { Accept: accept } : {}) },
      });
      assert.equal(mutation.status, 405, `Accept: ${accept}`);
      assert.equal(mutation.headers.get('content-type'), 'application/problem+json', `Accept: ${accept}`);
      assert.equal(mutation.headers.get('allow'), 'POST');
      const problem = (await mutation.json()) as Record<string, unknown>;
      assert.equal(problem.code, 'APP_METHOD_NOT_ALLOWED');
      assert.deepEqual(problem.data, { allow: ['POST'] });
      assert.equal(problem.requestId, 'gql-get-mutation');
    }
  });

  it('POST answers application/json to clients that ask for it (or for anything)', async () => {
    for (const accept of ['application/json', '*/*']) {
      const answer = await post(app, '{ __typename }', { headers: { Accept: accept } });
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    }
  });

  it('another method is 405 problem+json with Allow: GET, POST; a POST that is not JSON is 415; an unacceptable Accept is 406', async () => {
    const put = await fetch(url(), { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, POST');
    assert.equal(((await put.json()) as { code: string }).code, 'APP_METHOD_NOT_ALLOWED');

    const text = await fetch(url(), {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '{ __typename }',
    });
    assert.equal(text.status, 415);
    assert.equal(((await text.json()) as { code: string }).code, 'APP_GRAPHQL_MEDIA_TYPE_UNSUPPORTED');

    const xml = await fetch(url({ query: '{ __typename }' }), { headers: { Accept: 'application/xml' } });
    assert.equal(xml.status, 406);
    assert.equal(((await xml.json()) as { code: string }).code, 'APP_NOT_ACCEPTABLE');
  });

  it('no batching: an array of operations is refused with 400 APP_GRAPHQL_BATCHING_UNSUPPORTED', async () => {
    const response = await fetch(url(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { errors: Array<{ extensions: { code: string } }> };
    assert.equal(body.errors[0].extensions.code, 'APP_GRAPHQL_BATCHING_UNSUPPORTED');
  });

  it("the request id applies: the client's X-Request-Id is echoed, else one is made", async () => {
    const given = await post(app, '{ __typename }', { headers: { 'X-Request-Id': 'gql-req-7' } });
    assert.equal(given.headers.get('x-request-id'), 'gql-req-7');
    const made = await post(app, '{ __typename }');
    assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });
});

describe('the global rate limiter applies to GraphQL requests', () => {
  it('past rateLimit.max requests in the window, GraphQL answers 429 APP_API_RATE_LIMITED', async () => {
    const limited = await startGraphqlApp({ flags: { rateLimit: { max: 2, windowMs: 60_000 } } });
    assert.equal((await post(limited, '{ __typename }')).status, 200);
    assert.equal((await post(limited, '{ __typename }')).status, 200);
    const refused = await post(limited, '{ __typename }');
    assert.equal(refused.status, 429);
    assert.equal((refused.body as { code?: string }).code, 'APP_API_RATE_LIMITED');
  });
});
