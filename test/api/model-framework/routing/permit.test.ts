/**
 * `ctx.permit` reads the fields of a request body: a body that is not an object of fields is
 * refused rather than read as no fields, and an update naming no field is a no-op answered 200.
 * The generic controller takes the model's declared fields only: any other is refused, named.
 * `If-Match` on its writes is evaluated as on the product's own APIs: the ETags are weak, so a
 * tag never satisfies it (412 `APP_PRECONDITION_FAILED`, nothing changed); `*` lets them go on.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { seed, send, startApp, type TestApp } from '../../fixtures/app.ts';

const ADMIN = { 'X-Test-Principal': 'u1;admin' };

describe('the generic controller on model writes: ctx.permit, unknown fields, If-Match', () => {
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

  it('a write with an ETag in If-Match is 412 APP_PRECONDITION_FAILED and changes nothing; If-Match: * goes on', async () => {
    const read = await send('GET', `${app.api}/posts/${post}`, undefined);
    const etag = read.headers.get('etag');
    assert.ok(etag);
    for (const tag of [etag, 'W/"stale"', '"strong-looking"']) {
      const writes = [
        await send('PATCH', `${app.api}/posts/${post}`, { title: 'changed' }, { ...ADMIN, 'If-Match': tag }),
        await send('DELETE', `${app.api}/posts/${post}`, undefined, { ...ADMIN, 'If-Match': tag }),
        await send('POST', `${app.api}/posts`, { title: 'new' }, { ...ADMIN, 'If-Match': tag }),
      ];
      for (const answer of writes) {
        assert.equal(answer.status, 412, `${tag}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.headers.get('content-type'), 'application/problem+json');
        assert.equal(answer.body.code, 'APP_PRECONDITION_FAILED');
        assert.equal(answer.body.data.value, tag);
      }
    }
    const after = await send('GET', `${app.api}/posts/${post}`, undefined);
    assert.equal(after.status, 200);
    assert.deepEqual(after.body, read.body, 'the post is as it was read');
    const [{ count }] = await app.db.sql<{ count: string }[]>`select count(*) from fixture_posts`;
    assert.equal(Number(count), 1, 'nothing was created');
    // If-Match: * (the record exists) and no If-Match let the write go on; reads are not affected
    const starred = await send(
      'PATCH',
      `${app.api}/posts/${post}`,
      { title: 'starred' },
      { ...ADMIN, 'If-Match': '*' },
    );
    assert.equal(starred.status, 200, JSON.stringify(starred.body));
    assert.equal(starred.body.title, 'starred');
    const reread = await send('GET', `${app.api}/posts/${post}`, undefined, { 'If-Match': 'W/"x"' });
    assert.equal(reread.status, 200);
    const removed = await send('DELETE', `${app.api}/posts/${post}`, undefined, ADMIN);
    assert.equal(removed.status, 204);
  });
});
