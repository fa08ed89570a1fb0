import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { getJson, seed, startApp, type TestApp } from '../fixtures/app.ts';

const href = (page: number, perPage: number) => `/api/v1/posts?page=${page}&per_page=${perPage}`;

describe('HAL collection: links and counters', () => {
  let app: TestApp;
  let empty: TestApp;
  before(async () => {
    app = await startApp();
    await seed(app, { authors: 3, posts: 7 });
  });

  it('first page: self, first, next, last; no prev; create and new; counters', async () => {
    const { status, body, headers } = await getJson(`${app.api}/posts?per_page=3`);
    assert.equal(status, 200);
    assert.deepEqual(body._links, {
      self: { href: href(1, 3) },
      first: { href: href(1, 3) },
      next: { href: href(2, 3) },
      last: { href: href(3, 3) },
      create: { href: '/api/v1/posts', method: 'POST' },
      new: { href: '/api/v1/posts/new' },
    });
    assert.deepEqual([body.count, body.page, body.perPage, body.total], [3, 1, 3, 7]);
    assert.equal(body._embedded.posts.length, 3);
    assert.deepEqual(
      body._embedded.posts.map((post: { title: string }) => post.title),
      ['Post 1', 'Post 2', 'Post 3'],
    );
    assert.equal(headers.get('x-total-count'), '7');
    assert.equal(
      headers.get('link'),
      `<${href(1, 3)}>; rel="self", <${href(1, 3)}>; rel="first", <${href(2, 3)}>; rel="next", <${href(3, 3)}>; rel="last"`,
    );
  });

  it('middle page: prev and next both present', async () => {
    const { body, headers } = await getJson(`${app.api}/posts?page=2&per_page=3`);
    assert.equal(body._links.self.href, href(2, 3));
    assert.equal(body._links.prev.href, href(1, 3));
    assert.equal(body._links.next.href, href(3, 3));
    assert.equal(body._links.last.href, href(3, 3));
    assert.deepEqual([body.count, body.page, body.perPage, body.total], [3, 2, 3, 7]);
    assert.match(headers.get('link') ?? '', /rel="prev"/);
  });

  it('last page: prev, no next, count of the remainder', async () => {
    const { body, headers } = await getJson(`${app.api}/posts?page=3&per_page=3`);
    assert.equal(body._links.prev.href, href(2, 3));
    assert.equal('next' in body._links, false);
    assert.equal(body._links.last.href, href(3, 3));
    assert.deepEqual([body.count, body.page, body.total], [1, 3, 7]);
    assert.deepEqual(
      body._embedded.posts.map((post: { title: string }) => post.title),
      ['Post 7'],
    );
    assert.doesNotMatch(headers.get('link') ?? '', /rel="next"/);
  });

  it('a page past the end is empty, not an error; prev points at the last page', async () => {
    const { status, body } = await getJson(`${app.api}/posts?page=9&per_page=3`);
    assert.equal(status, 200);
    assert.deepEqual(body._embedded.posts, []);
    assert.deepEqual([body.count, body.page, body.total], [0, 9, 7]);
    assert.equal(body._links.prev.href, href(3, 3));
    assert.equal('next' in body._links, false);
    assert.equal(body._links.last.href, href(3, 3));
  });

  it('defaults: page 1 and per_page = config.api.perPage (25)', async () => {
    const { body } = await getJson(`${app.api}/posts`);
    assert.deepEqual([body.page, body.perPage, body.count, body.total], [1, 25, 7, 7]);
    assert.equal(body._links.self.href, href(1, 25));
    assert.equal(body._links.last.href, href(1, 25));
    assert.equal('next' in body._links, false);
    assert.equal('prev' in body._links, false);
  });

  it('each embedded item is a full HAL resource with its own self link and the author as externalId', async () => {
    const { body } = await getJson(`${app.api}/posts?per_page=2`);
    const authors = (await getJson(`${app.api}/authors`)).body._embedded.authors.map(
      (a: { externalId: string }) => a.externalId,
    );
    for (const post of body._embedded.posts) {
      assert.equal(post._links.self.href, `/api/v1/posts/${post.externalId}`);
      assert.equal(post._links.collection.href, '/api/v1/posts');
      assert.ok(authors.includes(post.author), 'author is the referenced externalId');
      assert.equal('id' in post, false, 'the primary key never appears');
    }
  });

  it('an empty collection: total 0, one (empty) page, first = last = page 1', async () => {
    empty = await startApp({ routes: { 'crud authors': { scope: 'api/v1' } } });
    await empty.db.sql`delete from fixture_posts`;
    await empty.db.sql`delete from fixture_authors`;
    const { status, body, headers } = await getJson(`${empty.api}/authors?per_page=5`);
    assert.equal(status, 200);
    assert.deepEqual([body.count, body.page, body.perPage, body.total], [0, 1, 5, 0]);
    assert.deepEqual(body._embedded.authors, []);
    assert.equal(body._links.first.href, '/api/v1/authors?page=1&per_page=5');
    assert.equal(body._links.last.href, '/api/v1/authors?page=1&per_page=5');
    assert.equal('prev' in body._links, false);
    assert.equal('next' in body._links, false);
    assert.equal('new' in body._links, false, 'crud routes have no new form');
    assert.deepEqual(body._links.create, { href: '/api/v1/authors', method: 'POST' });
    assert.equal(headers.get('x-total-count'), '0');
  });
});

describe('pagination parameters', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });

  it('per_page above config.api.maxPerPage is capped at 100', async () => {
    const { status, body } = await getJson(`${app.api}/posts?per_page=1000`);
    assert.equal(status, 200);
    assert.equal(body.perPage, 100);
    assert.match(body._links.self.href, /per_page=100$/);
  });

  it('a lower configured cap applies', async () => {
    const capped = await startApp({ flags: { api: { maxPerPage: 10, perPage: 4 } } });
    assert.equal((await getJson(`${capped.api}/posts?per_page=50`)).body.perPage, 10);
    assert.equal((await getJson(`${capped.api}/posts`)).body.perPage, 4);
  });

  for (const [rule, query, parameter] of [
    ['per_page zero', 'per_page=0', 'per_page'],
    ['per_page negative', 'per_page=-5', 'per_page'],
    ['per_page non-numeric', 'per_page=ten', 'per_page'],
    ['per_page fractional', 'per_page=2.5', 'per_page'],
    ['per_page empty', 'per_page=', 'per_page'],
    ['page zero', 'page=0', 'page'],
    ['page negative', 'page=-1', 'page'],
    ['page non-numeric', 'page=last', 'page'],
    ['page given twice', 'page=1&page=2', 'page'],
    ['page of 16 digits', 'page=9007199254740993', 'page'],
  ] as const) {
    it(`${rule} is refused with 400 APP_PAGINATION_INVALID naming the parameter, not silently replaced`, async () => {
      const response = await fetch(`${app.api}/posts?${query}`);
      assert.equal(response.status, 400);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      const problem = (await response.json()) as { code: string; detail: string; data: { parameter: string } };
      assert.equal(problem.code, 'APP_PAGINATION_INVALID');
      assert.equal(problem.data.parameter, parameter);
      // the bound is named, so a page number too long to read is not reported as below 1
      assert.match(
        problem.detail,
        new RegExp(`^${parameter} must be a whole number of at least 1, of at most 15 digits`),
      );
    });
  }
});
