import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { weakEtag } from '../../../api/middleware/json-answers.ts';
import { seed, send, startApp, type TestApp } from '../fixtures/app.ts';

describe('weak ETag on JSON answers and 304 for a matching If-None-Match', () => {
  let app: TestApp;
  let post: string;
  before(async () => {
    app = await startApp();
    ({
      posts: [post],
    } = await seed(app, { authors: 1, posts: 3 }));
  });

  for (const path of ['/posts', '/posts/:post', '/authors']) {
    it(`GET ${path}: weak ETag; the same tag back gives 304 with no body`, async () => {
      const url = `${app.api}${path.replace(':post', post)}`;
      const first = await fetch(url);
      assert.equal(first.status, 200);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^W\/"[A-Za-z0-9_-]+"$/);
      await first.text();
      const again = await fetch(url, { headers: { 'If-None-Match': etag as string } });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
      assert.equal(again.headers.get('etag'), etag);
    });
  }

  it('a changed record gets a new tag and the old one no longer matches', async () => {
    const url = `${app.api}/posts/${post}`;
    const etag = (await fetch(url)).headers.get('etag') as string;
    await send('PATCH', url, { title: 'changed' }, { 'X-Test-Principal': 'u;admin' });
    const after = await fetch(url, { headers: { 'If-None-Match': etag } });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), etag);
  });

  it('the HAL and plain JSON representations of one record have tags of their own and vary on Accept', async () => {
    const url = `${app.api}/posts/${post}`;
    const hal = await fetch(url, { headers: { Accept: 'application/hal+json' } });
    const json = await fetch(url, { headers: { Accept: 'application/json' } });
    assert.equal(hal.headers.get('content-type'), 'application/hal+json');
    assert.equal(json.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(await hal.json(), await json.json());
    assert.notEqual(hal.headers.get('etag'), json.headers.get('etag'));
    assert.match(hal.headers.get('vary') ?? '', /Accept/);
  });

  it('the tag is of the exact bytes sent (UTF-8 included), and Content-Length is their number', async () => {
    const created = await send('POST', `${app.api}/authors`, { name: 'Zoë ✓ 名前' });
    assert.equal(created.status, 201);
    const url = `${app.api}/authors/${created.body.externalId}`;
    for (const accept of ['application/hal+json', 'application/json']) {
      const answer = await fetch(url, { headers: { Accept: accept } });
      const bytes = Buffer.from(await answer.arrayBuffer());
      assert.equal(Number(answer.headers.get('content-length')), bytes.length, accept);
      assert.equal(answer.headers.get('etag'), weakEtag(accept, bytes.toString('utf8')), accept);
      assert.equal(JSON.parse(bytes.toString('utf8')).name, 'Zoë ✓ 名前');
    }
  });

  it('a JSON answer already written as text (GraphQL) gets the tag of its bytes; a POST is never answered 304', async () => {
    const url = `${app.base}/_app/gql`;
    const ask = (headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
    const answer = await ask();
    const bytes = Buffer.from(await answer.arrayBuffer());
    assert.equal(answer.status, 200);
    assert.equal(Number(answer.headers.get('content-length')), bytes.length);
    assert.equal(answer.headers.get('etag'), weakEtag('application/json', bytes));
    assert.equal(
      (await ask({ 'If-None-Match': answer.headers.get('etag') as string })).status,
      200,
      'a POST is never answered 304',
    );
  });

  it('answers to a write carry an ETag too, but a write is never answered 304', async () => {
    const created = await send('POST', `${app.api}/authors`, { name: 'Tagged' });
    assert.equal(created.status, 201);
    assert.match(created.headers.get('etag') ?? '', /^W\//);
    const again = await fetch(`${app.api}/authors`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'If-None-Match': '*' },
      body: JSON.stringify({ name: 'Tagged 2' }),
    });
    assert.equal(again.status, 201);
  });

  it('Cache-Control: no-store on authenticated answers only', async () => {
    const anonymous = await fetch(`${app.api}/posts`);
    assert.equal(anonymous.headers.get('cache-control'), null);
    const signedIn = await fetch(`${app.api}/posts`, { headers: { 'X-Test-Principal': 'u;' } });
    assert.equal(signedIn.headers.get('cache-control'), 'no-store');
  });

  it('every answer carries X-Request-Id (HAL, 304, problem)', async () => {
    const ok = await fetch(`${app.api}/posts`);
    const notModified = await fetch(`${app.api}/posts`, {
      headers: { 'If-None-Match': ok.headers.get('etag') as string },
    });
    const problem = await fetch(`${app.api}/posts?page=0`);
    for (const response of [ok, notModified, problem])
      assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });
});
