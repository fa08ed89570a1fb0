import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createToken, revokeToken } from '../../../shared/tokens/tokens.ts';
import { call, closeAll, startApi } from './helpers.ts';

const app = await startApi();
const deps = { sql: app.db.sql, log: app.db.log };

describe('bearer authentication', () => {
  after(closeAll);
  it('no token on a protected route: 401 APP_UNAUTHENTICATED problem+json with WWW-Authenticate: Bearer', async () => {
    const answer = await call('GET', `${app.api}/webhooks`);
    assert.equal(answer.status, 401);
    assert.equal(answer.body.code, 'APP_UNAUTHENTICATED');
    assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer realm="app"/);
  });

  it('an unknown, malformed or revoked token: 401 APP_TOKEN_INVALID with error="invalid_token"', async () => {
    const created = await createToken(deps, { name: 'soon revoked', role: 'admin' });
    assert.equal((await call('GET', `${app.api}/webhooks`, { token: created.token })).status, 200);
    // revoked through another pool, as `tokens:revoke` would: the web process drops the token
    // from its cache when the revocation's notice arrives (test/api/tokens-api/revocation.test.ts)
    const dropped = new Promise<void>((resolve) => {
      const off = app.web.tokenCache?.onForget((ids) => {
        if (ids === undefined || ids.includes(created.id)) {
          off?.();
          resolve();
        }
      });
      if (off === undefined) resolve(); // no cache: nothing to wait for
    });
    await revokeToken(deps, created.id);
    await dropped;
    for (const authorization of [`Bearer ${created.token}`, 'Bearer app_tok_nope', 'Bearer', 'bearer  a b']) {
      const answer = await call('GET', `${app.api}/webhooks`, { headers: { Authorization: authorization } });
      assert.equal(answer.status, 401, authorization);
      assert.equal(answer.body.code, 'APP_TOKEN_INVALID', authorization);
      assert.match(answer.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    }
  });

  it('another scheme is not a bearer token: the request is anonymous (401 on a protected route)', async () => {
    const answer = await call('GET', `${app.api}/events`, { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    assert.equal(answer.status, 401);
    assert.equal(answer.body.code, 'APP_UNAUTHENTICATED');
  });

  it('the scheme is case-insensitive; authenticated answers are not stored (Cache-Control: no-store)', async () => {
    const token = await app.token('admin');
    const answer = await call('GET', `${app.api}/deliveries`, { headers: { Authorization: `bEaReR ${token}` } });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  });

  it('a viewer may read but not change: 403 APP_FORBIDDEN on every write, and no write link', async () => {
    const viewer = await app.token('viewer', 'tenant-v');
    const list = await call('GET', `${app.api}/webhooks`, { token: viewer });
    assert.equal(list.status, 200);
    assert.equal('create' in list.body._links, false);
    const member = await app.token('member', 'tenant-v');
    const created = await call('POST', `${app.api}/webhooks`, {
      token: member,
      body: { url: 'http://127.0.0.1:9/x', events: ['*'] },
    });
    const id = created.body.externalId;
    const shown = await call('GET', `${app.api}/webhooks/${id}`, { token: viewer });
    assert.deepEqual(Object.keys(shown.body._links).sort(), ['collection', 'deliveries', 'self']);
    const writes: Array<[string, string, unknown]> = [
      ['POST', `${app.api}/webhooks`, { url: 'http://127.0.0.1:9/y', events: ['*'] }],
      ['PATCH', `${app.api}/webhooks/${id}`, { description: 'x' }],
      ['DELETE', `${app.api}/webhooks/${id}`, undefined],
      ['POST', `${app.api}/webhooks/${id}/rotate`, {}],
      ['POST', `${app.api}/webhooks/${id}/test`, {}],
      ['POST', `${app.api}/webhooks/${id}/recover`, { since: '2020-01-01T00:00:00Z' }],
      ['POST', `${app.api}/events`, { type: 'a.b', data: {} }],
      ['POST', `${app.api}/deliveries/msg_x/retry`, undefined],
    ];
    for (const [method, url, body] of writes) {
      const answer = await call(method, url, { token: viewer, body });
      assert.equal(answer.status, 403, `${method} ${url}`);
      assert.equal(answer.body.code, 'APP_FORBIDDEN');
    }
  });

  it('a token is used by its principal id for idempotency: the same key replays for the same token only', async () => {
    const first = await app.token('member', 'tenant-i');
    const second = await app.token('member', 'tenant-i');
    const headers = { 'Idempotency-Key': 'emit-once' };
    const body = { type: 'order.created', data: { n: 1 } };
    const one = await call('POST', `${app.api}/events`, { token: first, body, headers });
    const again = await call('POST', `${app.api}/events`, { token: first, body, headers });
    assert.equal(one.status, 202);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    const other = await call('POST', `${app.api}/events`, { token: second, body, headers });
    assert.equal(other.headers.get('idempotency-replayed'), null);
  });

  it('tokens never reach the logs', async () => {
    const token = await app.token('admin');
    await call('GET', `${app.api}/webhooks`, { token });
    await call('GET', `${app.api}/webhooks`, { token: `${token.slice(0, -1)}x` });
    assert.equal(app.logs.join('').includes(token.slice(8)), false);
  });
});
