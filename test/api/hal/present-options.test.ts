import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { defineController } from '../../../api/model-framework/routing/controller.ts';
import { ROUTES, getJson, seed, startApp, type TestApp } from '../fixtures/app.ts';

/** A dashboard that presents other resources' records: `type` picks their links and `_embedded` key. */
const dashboard = defineController({
  async authors(ctx) {
    const Author = ctx.models.get('Author');
    const page = await Author!.paginate({ page: 1, perPage: 10 });
    await ctx.collection(page.records, {
      type: 'authors',
      page: 1,
      perPage: 10,
      total: page.total,
      links: { home: '/' },
    });
  },
  async summary(ctx) {
    const post = (await ctx.models.get('Post')!.paginate({ page: 1, perPage: 1 })).records[0];
    // a plain object copied from a record: the type's model recognises the foreign key
    await ctx.resource(
      { ...post },
      {
        type: 'posts',
        links: {
          author: { href: '/api/v1/authors/x', title: 'the author' },
          related: [{ href: '/a' }, { href: '/b' }],
        },
      },
    );
  },
  async things(ctx) {
    // a type without routes or model (like the webhook API's listings): records as given, each with _links
    await ctx.collection([{ name: 'a' }, { _links: { self: { href: '/things/b' } }, name: 'b' }], {
      type: 'things',
      page: 1,
      perPage: 10,
      total: 2,
    });
  },
  async plain(ctx) {
    await ctx.resource({ greeting: 'hello' }, { links: { self: '/dashboard/plain' }, status: 201 });
  },
});

describe('resource() and collection() options', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({
      routes: {
        ...ROUTES,
        'GET /dashboard/authors': { controller: 'dashboard.authors' },
        'GET /dashboard/summary': { controller: 'dashboard.summary' },
        'POST /dashboard/plain': { controller: 'dashboard.plain' },
        'GET /dashboard/things': { controller: 'dashboard.things' },
      },
      controllers: { dashboard },
    });
    await seed(app, { authors: 2, posts: 1 });
  });

  it('type names the _embedded key and takes the links of that resource; links adds rels', async () => {
    const { body } = await getJson(`${app.base}/dashboard/authors`);
    assert.equal(body._embedded.authors.length, 2);
    assert.equal(body._links.self.href, '/api/v1/authors?page=1&per_page=10');
    assert.deepEqual(body._links.home, { href: '/' });
    assert.deepEqual(body._links.create, { href: '/api/v1/authors', method: 'POST' });
    assert.match(body._embedded.authors[0]._links.self.href, /^\/api\/v1\/authors\/[A-Za-z0-9_-]{22}$/);
  });

  it("a plain object is published through the type's model: no id, foreign keys as externalId; link objects kept", async () => {
    const { body } = await getJson(`${app.base}/dashboard/summary`);
    assert.equal('id' in body, false);
    assert.match(body.author, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(body._links.self.href, `/api/v1/posts/${body.externalId}`);
    assert.deepEqual(body._links.author, { href: '/api/v1/authors/x', title: 'the author' });
    assert.deepEqual(body._links.related, [{ href: '/a' }, { href: '/b' }]);
  });

  it('a collection of a type without routes: each record as given, _links first (empty unless it brings its own)', async () => {
    const { body } = await getJson(`${app.base}/dashboard/things`);
    assert.deepEqual(body._embedded.things, [
      { _links: {}, name: 'a' },
      { _links: { self: { href: '/things/b' } }, name: 'b' },
    ]);
    assert.deepEqual(
      body._embedded.things.map((thing: object) => Object.keys(thing)[0]),
      ['_links', '_links'],
    );
    assert.equal(body.total, 2);
  });

  it('without a model or type the object is answered as given, with the given links; 201 sets Location from self', async () => {
    const response = await fetch(`${app.base}/dashboard/plain`, { method: 'POST' });
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('location'), '/dashboard/plain');
    assert.deepEqual(await response.json(), { _links: { self: { href: '/dashboard/plain' } }, greeting: 'hello' });
  });
});
