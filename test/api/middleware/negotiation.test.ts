import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { requestedVersion } from '../../../api/middleware/api-version.ts';
import { defineController } from '../../../api/model-framework/routing/controller.ts';
import { seed, startApp, type TestApp } from '../fixtures/app.ts';

/** posts.show answers HTML to browsers and `*\/*`, HAL to JSON clients; `X-Api-Version` echoes ctx.state.apiVersion. */
const posts = defineController({
  /** An application controller's page (`ctx.render` with a query): the page object or the template. */
  async index(ctx) {
    await ctx.render(
      'home',
      { greeting: 'hello' },
      { graphql: { query: 'query Probe { __typename n: __typename }', variables: { n: 1 } } },
    );
  },
  async show(ctx) {
    ctx.set('X-Api-Version', String(ctx.state.apiVersion));
    await ctx.negotiate({
      html: () => {
        ctx.type = 'html';
        ctx.body = '<h1>a post</h1>';
      },
      json: async () => {
        const record = await ctx.model?.find(ctx.params.externalId);
        await ctx.resource(record ?? {});
      },
    });
  },
});

describe('content negotiation and versioning through Accept', () => {
  let app: TestApp;
  let post: string;
  before(async () => {
    app = await startApp({ controllers: { posts } });
    ({
      posts: [post],
    } = await seed(app, { authors: 1, posts: 1 }));
  });

  const get = (accept: string | undefined, path = `/posts/${post}`) =>
    fetch(`${app.api}${path}`, { headers: accept === undefined ? {} : { Accept: accept } });

  for (const [rule, accept, type] of [
    ['*/* gets HTML', '*/*', 'text/html; charset=utf-8'],
    [
      "a browser's Accept gets HTML",
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'text/html; charset=utf-8',
    ],
    ['application/json gets JSON as application/json', 'application/json', 'application/json; charset=utf-8'],
    ['application/hal+json gets JSON as application/hal+json', 'application/hal+json', 'application/hal+json'],
    [
      'the versioned type gets JSON as application/json',
      'application/vnd.app.v1+json',
      'application/json; charset=utf-8',
    ],
    [
      "a HAL client's weighted list gets application/hal+json",
      'application/hal+json;q=0.9, application/json;q=0.7',
      'application/hal+json',
    ],
    [
      'a weighted list preferring plain JSON gets application/json',
      'application/hal+json;q=0.5, application/json',
      'application/json; charset=utf-8',
    ],
  ] as const) {
    it(rule, async () => {
      const response = await get(accept);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), type);
      const text = await response.text();
      if (type.startsWith('text/html')) assert.equal(text, '<h1>a post</h1>');
      else assert.equal(JSON.parse(text)._links.self.href, `/api/v1/posts/${post}`);
    });
  }

  /** Asks the route in turn with each `[Accept, expected]` pair; `header` of each answer must be the expected value. */
  const inTurn = async (header: string, pairs: ReadonlyArray<readonly [string, string]>) => {
    for (const [accept, expected] of pairs) {
      const response = await get(accept);
      assert.equal(response.headers.get(header), expected, accept);
      assert.match(response.headers.get('vary') ?? '', /Accept/);
      await response.text();
    }
  };

  it('one route asked in turn with different Accept values answers each its own type (the choice is remembered per value)', async () => {
    const hal = 'application/hal+json';
    const json = 'application/json; charset=utf-8';
    await inTurn('content-type', [
      [hal, hal],
      ['application/json', json],
      [hal, hal],
      ['application/hal+json;q=0.5, application/json', json],
      ['application/json', json],
    ]);
  });

  it('ctx.render: the page object to JSON clients and X-App-Page visits (the query run, its text and variables), the template to browsers', async () => {
    const json = (await (await get('application/json', '/posts')).json()) as Record<string, any>;
    assert.equal(json.page, 'home');
    assert.deepEqual(json.data, { __typename: 'Query', n: 'Query' });
    assert.deepEqual(json.props, { greeting: 'hello' });
    assert.deepEqual(json.graphql, {
      endpoint: '/_app/gql',
      query: 'query Probe { __typename n: __typename }',
      variables: { n: 1 },
    });
    assert.equal(json._links.self.href, '/api/v1/posts');
    assert.equal(json.errors, undefined);
    const visit = await fetch(`${app.api}/posts`, { headers: { Accept: 'text/html', 'X-App-Page': 'true' } });
    assert.equal(((await visit.json()) as { page: string }).page, 'home');
    const html = await get('text/html', '/posts');
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await html.text(), /<title>Signed in · app<\/title>/);
  });

  it('ctx.negotiate runs json for a client-side visit (X-App-Page: true) even when it accepts HTML', async () => {
    const response = await fetch(`${app.api}/posts/${post}`, {
      headers: { Accept: 'text/html', 'X-App-Page': 'true' },
    });
    assert.equal(response.status, 200);
    assert.equal(
      ((await response.json()) as { _links: { self: { href: string } } })._links.self.href,
      `/api/v1/posts/${post}`,
    );
    assert.match(response.headers.get('vary') ?? '', /X-App-Page/);
  });

  it('a client accepting neither HTML nor JSON gets 406', async () => {
    const response = await get('image/png');
    assert.equal(response.status, 406);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
  });

  it("Accept: application/vnd.app.v1+json sets ctx.state.apiVersion to 'v1'; otherwise it is null", async () => {
    assert.equal((await get('application/vnd.app.v1+json')).headers.get('x-api-version'), 'v1');
    assert.equal((await get('application/json')).headers.get('x-api-version'), 'null');
  });

  it('the version is read per Accept value: asked in turn, each value gets its own (it is remembered per value)', async () => {
    const v1 = 'application/vnd.app.v1+json';
    await inTurn('x-api-version', [
      [v1, 'v1'],
      ['application/json', 'null'],
      [v1, 'v1'],
      [`application/vnd.app.v2+json;q=0, ${v1}`, 'v1'],
      ['application/json', 'null'],
    ]);
  });

  it('a route declared version v1 answers 406 to a client asking for v2', async () => {
    const response = await get('application/vnd.app.v2+json');
    assert.equal(response.status, 406);
    const problem = (await response.json()) as {
      status: number;
      data: { version: string; requested: string };
      code?: string;
    };
    assert.equal(problem.status, 406);
    assert.deepEqual([problem.data.version, problem.data.requested], ['v1', 'v2']);
    assert.equal(problem.code, 'APP_VERSION_NOT_ACCEPTABLE');
    const list = await get('application/vnd.app.v2+json', '/posts');
    assert.equal(list.status, 406);
  });

  it('q-values are honoured: a v1 route serves a client that accepts v1 at a lower q than a version the route lacks', async () => {
    for (const accept of [
      'application/vnd.app.v1+json;q=0.1, application/vnd.app.v2+json',
      'application/vnd.app.v3+json, application/vnd.app.v2+json;q=0.9, application/vnd.app.v1+json;q=0.5',
    ]) {
      const response = await get(accept);
      assert.equal(response.status, 200, accept);
      assert.equal(response.headers.get('x-api-version'), 'v1', 'the version served is the one the action sees');
      assert.equal((await get(accept, '/posts')).status, 200, accept);
    }
    for (const accept of [
      'application/vnd.app.v2+json, application/vnd.app.v1+json;q=0',
      'application/vnd.app.v2+json;q=0.5, application/vnd.app.v3+json',
    ]) {
      const refused = await get(accept);
      assert.equal(refused.status, 406, `${accept}: v1 is not acceptable`);
      const problem = (await refused.json()) as { data: { version: string; requested: string } };
      assert.equal(problem.data.version, 'v1');
    }
  });

  it('a v1 route answers 406 to a client refusing v1 with q=0, whatever else it accepts', async () => {
    for (const accept of [
      'application/vnd.app.v1+json;q=0',
      'application/vnd.app.v1+json;q=0, */*',
      'application/json, application/vnd.app.v1+json;q=0',
    ]) {
      const refused = await get(accept);
      assert.equal(refused.status, 406, accept);
      const problem = (await refused.json()) as { code: string; detail: string; data: { version: string } };
      assert.equal(problem.code, 'APP_VERSION_NOT_ACCEPTABLE', accept);
      assert.equal(problem.data.version, 'v1');
      assert.match(problem.detail, /refuses v1 \(q=0\)/, accept);
      assert.equal((await get(accept, '/posts')).status, 406, accept);
    }
    const named = 'application/vnd.app.v1+json;q=0, application/vnd.app.v1+json;q=0.5';
    assert.equal((await get(named)).status, 200, 'a version named twice keeps its highest q');
  });

  it('a route without version serves any requested version', async () => {
    assert.equal((await get('application/vnd.app.v2+json, application/json;q=0.5', '/authors')).status, 200);
  });

  it('reads the version with the highest q; q=0 does not count', () => {
    assert.equal(requestedVersion('application/vnd.app.v1+json'), 'v1');
    assert.equal(requestedVersion('application/vnd.app.v1+json;q=0.4, application/vnd.app.v2+json;q=0.8'), 'v2');
    assert.equal(requestedVersion('application/vnd.app.v3+json;q=0'), null);
    assert.equal(requestedVersion('application/json'), null);
    assert.equal(requestedVersion(''), null);
  });
});
