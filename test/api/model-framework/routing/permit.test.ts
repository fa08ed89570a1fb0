/**
 * `ctx.permit` reads the fields of a request body: a body that is not an object of fields is
 * refused rather than read as no fields, and an update naming no field is a no-op answered 200.
 * The generic controller takes the model's declared fields only: any other is refused, named.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { seed, send, startApp, type TestApp } from '../../fixtures/app.ts';

const ADMIN = { 'X-Test-Principal': 'u1;admin' };

describe('ctx.permit on model writes', () => {
  let app: TestApp;
  let post: string;
  before(async () => {
    app = await startApp();
    ({
      posts: [post],
    } = await seed(app, { authors: 1, posts: 1 }));
  });

  it('a JSON array body is 400 APP_BODY_INVALID on create and update, and changes nothing', async () => {
    const before = await send('GET', `${app.api}/posts/${post}`, undefined);
    for (const [method, url] of [
      ['POST', `${app.api}/posts`],
      ['PATCH', `${app.api}/posts/${post}`],
    ]) {
      for (const body of [[], [{ title: 'in an array' }]]) {
        const answer = await send(method, url, body, ADMIN);
        assert.equal(answer.status, 400, `${method} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, 'APP_BODY_INVALID');
        assert.match(answer.body.detail, /must be a JSON object of fields, not an array/);
      }
    }
    const after = await send('GET', `${app.api}/posts/${post}`, undefined);
    assert.deepEqual(after.body, before.body);
    const [{ count }] = await app.db.sql<{ count: string }[]>`select count(*) from fixture_posts`;
    assert.equal(Number(count), 1, 'nothing was created');
  });

  it('a field the model does not declare is 422 APP_BODY_FIELD_UNKNOWN on create and update, naming it, and changes nothing', async () => {
    const before = await send('GET', `${app.api}/posts/${post}`, undefined);
    const created = await send('POST', `${app.api}/posts`, { title: 'typo', publishd: true }, ADMIN);
    assert.equal(created.status, 422, JSON.stringify(created.body));
    assert.equal(created.body.code, 'APP_BODY_FIELD_UNKNOWN');
    assert.equal(created.body.data.field, 'publishd');
    assert.ok(created.body.data.accepted.includes('published'), 'the declared fields are listed');
    const updated = await send(
      'PATCH',
      `${app.api}/posts/${post}`,
      { ...before.body, title: 'round trip' }, // the record as read: externalId, _links, timestamps
      ADMIN,
    );
    assert.equal(updated.status, 422, JSON.stringify(updated.body));
    assert.equal(updated.body.code, 'APP_BODY_FIELD_UNKNOWN');
    assert.deepEqual(
      [...updated.body.data.fields].sort(),
      ['_links', 'createdAt', 'externalId', 'updatedAt'],
      'every field the model does not take',
    );
    const after = await send('GET', `${app.api}/posts/${post}`, undefined);
    assert.deepEqual(after.body, before.body);
    const [{ count }] = await app.db.sql<{ count: string }[]>`select count(*) from fixture_posts`;
    assert.equal(Number(count), 1, 'nothing was created');
  });

  it('the other JSON values (string, number, null) are refused by the body parsers with the same code', async () => {
    for (const text of ['"a title"', '42', 'null']) {
      const response = await fetch(`${app.api}/posts/${post}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', ...ADMIN },
        body: text,
      });
      assert.equal(response.status, 400, text);
      assert.equal(((await response.json()) as { code: string }).code, 'APP_BODY_INVALID', text);
    }
  });

  it('an update naming no field ({} or no body) is 200 with the record unchanged, updatedAt included', async () => {
    const before = await send('GET', `${app.api}/posts/${post}`, undefined);
    for (const body of [{}, undefined]) {
      const answer = await send('PATCH', `${app.api}/posts/${post}`, body, ADMIN);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.updatedAt, before.body.updatedAt);
      assert.equal(answer.body.title, before.body.title);
    }
  });
});
