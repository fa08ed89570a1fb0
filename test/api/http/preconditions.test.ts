/**
 * `If-Match` on the writes of the webhook and token APIs is evaluated, never ignored: the service's ETags are
 * weak, so a tag (a stale one, or the current one) never satisfies it and the write is refused
 * with 412 `APP_PRECONDITION_FAILED`, changing nothing; `If-Match: *` lets it go on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, closeAll, createEndpoint, startApi, type ApiHarness } from '../webhooks-api/helpers.ts';

describe('If-Match on the webhook and token APIs', () => {
  let app: ApiHarness;
  let member: string;
  let id: string;
  before(async () => {
    app = await startApi();
    member = await app.token('member', 'acme');
    id = (await createEndpoint(app, member, { url: 'http://127.0.0.1:9/hook', description: 'first' })).externalId;
  });
  after(closeAll);

  it('a write with an ETag in If-Match is 412 APP_PRECONDITION_FAILED and changes nothing', async () => {
    const read = await call('GET', `${app.api}/webhooks/${id}`, { token: member });
    const etag = read.headers.get('etag');
    assert.ok(etag);
    for (const tag of [etag, 'W/"stale"', '"strong-looking"']) {
      const patched = await call('PATCH', `${app.api}/webhooks/${id}`, {
        token: member,
        body: { description: 'second' },
        headers: { 'If-Match': tag },
      });
      assert.equal(patched.status, 412, `${tag}: ${patched.text}`);
      assert.equal(patched.headers.get('content-type'), 'application/problem+json');
      assert.equal(patched.body.code, 'APP_PRECONDITION_FAILED');
      assert.equal(patched.body.data.value, tag);
      const removed = await call('DELETE', `${app.api}/webhooks/${id}`, {
        token: member,
        headers: { 'If-Match': tag },
      });
      assert.equal(removed.status, 412, removed.text);
    }
    const after = await call('GET', `${app.api}/webhooks/${id}`, { token: member });
    assert.equal(after.status, 200);
    assert.equal(after.body.description, 'first');
    assert.equal(after.headers.get('etag'), etag, 'the endpoint is as it was read');
  });

  it('a token write with an ETag in If-Match is refused too', async () => {
    const admin = await app.token('admin');
    const minted = await call('POST', `${app.api}/tokens`, {
      token: admin,
      body: { name: 'ci', role: 'admin' },
      headers: { 'If-Match': 'W/"x"' },
    });
    assert.equal(minted.status, 412, minted.text);
    assert.equal(minted.body.code, 'APP_PRECONDITION_FAILED');
    const listed = await call('GET', `${app.api}/tokens`, { token: admin });
    assert.ok(!listed.text.includes('"name":"ci"'), 'no token was minted');
  });

  it('If-Match: * and no If-Match let the write go on; reads are not affected', async () => {
    const starred = await call('PATCH', `${app.api}/webhooks/${id}`, {
      token: member,
      body: { description: 'starred' },
      headers: { 'If-Match': '*' },
    });
    assert.equal(starred.status, 200, starred.text);
    assert.equal(starred.body.description, 'starred');
    const plain = await call('PATCH', `${app.api}/webhooks/${id}`, { token: member, body: { description: 'plain' } });
    assert.equal(plain.status, 200, plain.text);
    const read = await call('GET', `${app.api}/webhooks/${id}`, { token: member, headers: { 'If-Match': 'W/"x"' } });
    assert.equal(read.status, 200);
  });
});
