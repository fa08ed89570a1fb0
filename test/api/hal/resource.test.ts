import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { getJson, seed, send, startApp, type TestApp } from '../fixtures/app.ts';

const ADMIN = { 'X-Test-Principal': 'u1;admin' };

describe('HAL resource: list, show, create, update, destroy', () => {
  let app: TestApp;
  let authors: string[];
  before(async () => {
    app = await startApp();
    ({ authors } = await seed(app, { authors: 2, posts: 0 }));
  });

  it('create answers 201 with Location = the self link, the record as HAL, defaults applied', async () => {
    const created = await send(
      'POST',
      `${app.api}/posts`,
      { title: 'Hello', author: authors[0], meta: { tags: ['a'] }, rating: 4.5 },
      ADMIN,
    );
    assert.equal(created.status, 201);
    const self = `/api/v1/posts/${created.body.externalId}`;
    assert.equal(created.headers.get('location'), self);
    assert.equal(created.body._links.self.href, self);
    assert.match(created.body.externalId, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(created.body.title, 'Hello');
    assert.equal(created.body.published, false);
    assert.equal(created.body.views, 0);
    assert.equal(created.body.rating, 4.5);
    assert.deepEqual(created.body.meta, { tags: ['a'] });
    assert.equal(created.body.author, authors[0]);
    assert.equal(created.body.reviewer, null);
    assert.equal(typeof created.body.createdAt, 'string');
    assert.equal('id' in created.body, false);
    assert.equal('author_id' in created.body, false);
  });

  it('show answers the record with self, collection, edit, update (PATCH), destroy (DELETE) for a principal allowed all, and its author', async () => {
    const created = await send('POST', `${app.api}/posts`, { title: 'Shown', author: authors[1] });
    const { status, body, headers } = await getJson(`${app.api}/posts/${created.body.externalId}`, ADMIN);
    assert.equal(status, 200);
    assert.equal(headers.get('content-type'), 'application/hal+json');
    const item = `/api/v1/posts/${created.body.externalId}`;
    assert.deepEqual(body._links, {
      self: { href: item },
      collection: { href: '/api/v1/posts' },
      edit: { href: `${item}/edit` },
      update: { href: item, method: 'PATCH' },
      destroy: { href: item, method: 'DELETE' },
      author: { href: `/api/v1/authors/${authors[1]}` },
    });
    assert.equal(body.author, authors[1]);
    assert.equal(Object.keys(body)[0], '_links');
  });

  it('the primary key never leaves the server, in any answer', async () => {
    const created = await send('POST', `${app.api}/posts`, { title: 'Secret id' });
    const [{ id }] = await app.db.sql<
      { id: string }[]
    >`select id from fixture_posts where external_id = ${created.body.externalId}`;
    const answers = [
      JSON.stringify(created.body),
      JSON.stringify((await getJson(`${app.api}/posts/${created.body.externalId}`)).body),
      JSON.stringify((await getJson(`${app.api}/posts?per_page=100`)).body),
    ];
    for (const text of answers) {
      assert.doesNotMatch(text, /"id":/);
      assert.doesNotMatch(text, new RegExp(`/posts/${id}[/"?]`));
    }
  });

  it('update (PATCH) changes only the given, permitted fields; unknown body fields are refused', async () => {
    const created = await send('POST', `${app.api}/posts`, { title: 'Before', views: 3 });
    const refused = await send(
      'PATCH',
      `${app.api}/posts/${created.body.externalId}`,
      { title: 'After', reviewer: authors[1], id: 1, externalId: 'x' },
      ADMIN,
    );
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'APP_BODY_FIELD_UNKNOWN');
    assert.deepEqual(refused.body.data.fields, ['id', 'externalId']);
    const updated = await send(
      'PATCH',
      `${app.api}/posts/${created.body.externalId}`,
      { title: 'After', reviewer: authors[1] },
      ADMIN,
    );
    assert.equal(updated.status, 200);
    assert.equal(updated.body.title, 'After');
    assert.equal(updated.body.views, 3);
    assert.equal(updated.body.reviewer, authors[1]);
    assert.equal(updated.body.externalId, created.body.externalId);
    assert.ok(Date.parse(updated.body.updatedAt) >= Date.parse(created.body.updatedAt));
  });

  it('destroy answers 204 and the record is gone (404 APP_RECORD_NOT_FOUND)', async () => {
    const created = await send('POST', `${app.api}/posts`, { title: 'Doomed' });
    const deleted = await fetch(`${app.api}/posts/${created.body.externalId}`, { method: 'DELETE', headers: ADMIN });
    assert.equal(deleted.status, 204);
    const gone = await getJson(`${app.api}/posts/${created.body.externalId}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'APP_RECORD_NOT_FOUND');
    assert.deepEqual(gone.body.data, { model: 'Post', externalId: created.body.externalId });
  });

  it('new answers a template with the declared defaults, self = the new form and a create link', async () => {
    const { status, body } = await getJson(`${app.api}/posts/new`);
    assert.equal(status, 200);
    assert.equal(body.published, false);
    assert.equal(body.views, 0);
    assert.equal(body.title, null);
    assert.deepEqual(body._links.self, { href: '/api/v1/posts/new' });
    assert.deepEqual(body._links.create, { href: '/api/v1/posts', method: 'POST' });
  });

  it('an unknown externalId is 404 for show, update and destroy', async () => {
    for (const [method, extra] of [
      ['GET', undefined],
      ['PATCH', { title: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const answer = await send(method, `${app.api}/posts/AAAAAAAAAAAAAAAAAAAAAA`, extra, ADMIN);
      assert.equal(answer.status, 404, method);
      assert.equal(answer.body.code, 'APP_RECORD_NOT_FOUND');
    }
  });

  it('invalid input is 422 APP_VALIDATION_FAILED listing every field problem', async () => {
    const answer = await send('POST', `${app.api}/posts`, { published: 'maybe', views: 1.5, publishedAt: 'yesterday' });
    assert.equal(answer.status, 422);
    assert.equal(answer.body.code, 'APP_VALIDATION_FAILED');
    const fields = answer.body.data.errors.map((error: { field: string }) => error.field).sort();
    assert.deepEqual(fields, ['published', 'publishedAt', 'title', 'views']);
  });

  it('a reference to an unknown record is 422 APP_REFERENCE_INVALID', async () => {
    const answer = await send('POST', `${app.api}/posts`, { title: 'Orphan', author: 'NoSuchAuthorAAAAAAAAAA' });
    assert.equal(answer.status, 422);
    assert.equal(answer.body.code, 'APP_REFERENCE_INVALID');
    assert.equal(answer.body.data.errors[0].field, 'author');
  });

  it('Postgres errors are mapped: a unique violation is 409 APP_CONFLICT', async () => {
    assert.equal((await send('POST', `${app.api}/authors`, { name: 'A', email: 'same@example.com' })).status, 201);
    const again = await send('POST', `${app.api}/authors`, { name: 'B', email: 'same@example.com' });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'APP_CONFLICT');
    assert.equal(again.headers.get('content-type'), 'application/problem+json');
  });

  it('Postgres errors are mapped: deleting a record others reference is 409 APP_REFERENCE_IN_USE (foreign-key violation)', async () => {
    const author = await send('POST', `${app.api}/authors`, { name: 'Referenced' });
    await send('POST', `${app.api}/posts`, { title: 'Ref', author: author.body.externalId });
    const answer = await send('DELETE', `${app.api}/authors/${author.body.externalId}`, undefined);
    assert.equal(answer.status, 409);
    assert.equal(answer.body.code, 'APP_REFERENCE_IN_USE');
    assert.equal(answer.body.detail, 'the record is still referenced by others');
  });

  it('form bodies are accepted like JSON (text values read as the field type)', async () => {
    const response = await fetch(`${app.api}/posts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({ title: 'From a form', published: 'true', views: '12' }),
    });
    assert.equal(response.status, 201);
    const body = (await response.json()) as Record<string, unknown>;
    assert.deepEqual([body.title, body.published, body.views], ['From a form', true, 12]);
  });
});
