import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Client } from 'ketting';
import { seed, startApp, type TestApp } from '../fixtures/app.ts';

describe('a real HAL client (ketting) walks the API', () => {
  let app: TestApp;
  const requests: string[] = [];
  before(async () => {
    app = await startApp({
      setup: (web) =>
        web.addMiddleware(async (ctx, next) => {
          requests.push(`${ctx.method} ${ctx.url}`);
          await next();
        }),
    });
    await seed(app, { authors: 2, posts: 5 });
  });

  it('collection -> item -> collection, reading _embedded items without extra requests', async () => {
    const client = new Client(app.base);
    const collection = client.go('/api/v1/posts?per_page=2');
    const page = await collection.get();
    assert.deepEqual([page.data.count, page.data.page, page.data.perPage, page.data.total], [2, 1, 2, 5]);
    assert.equal(requests.length, 1, requests.join('\n'));

    const items = await collection.followAll('posts');
    assert.equal(items.length, 2);
    const first = await items[0].get();
    const second = await items[1].get();
    assert.equal(first.data.title, 'Post 1');
    assert.equal(second.data.title, 'Post 2');
    assert.equal(requests.length, 1, 'embedded items come from the collection answer, not new requests');
    assert.equal(first.uri, `${app.base}/api/v1/posts/${first.data.externalId}`);
    assert.equal(first.links.get('collection')?.href, '/api/v1/posts');
    assert.equal(first.links.has('update'), false, 'an anonymous client is not offered update');

    const back = await items[0].follow('collection');
    assert.equal(back.uri, `${app.base}/api/v1/posts`);
    const full = await back.get();
    assert.equal(full.data.total, 5);
    assert.equal(requests.length, 2);

    const next = await collection.follow('next');
    const second_page = await next.get();
    assert.deepEqual([second_page.data.page, second_page.data.count], [2, 2]);
    assert.ok(second_page.links.has('prev'));
    assert.equal(requests.length, 3);
  });

  it('the client follows create (POST) and reads the new resource from Location', async () => {
    const client = new Client(app.base);
    const collection = client.go('/api/v1/authors');
    const created = await collection.postFollow({ data: { name: 'Via ketting' } });
    const state = await created.get();
    assert.equal(state.data.name, 'Via ketting');
    assert.match(created.uri, /\/api\/v1\/authors\/[A-Za-z0-9_-]{22}$/);
  });
});
