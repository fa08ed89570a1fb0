import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setUserDisabled } from '../../../shared/accounts/users.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { Browser, startAccounts } from '../accounts/helpers.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';

const app = await startAccounts();

/** A signed-in browser of a new user; `call` sends its CSRF token with every write. */
async function signedIn(input: { role?: string; owner?: string | null } = {}) {
  const user = await app.user(input);
  const browser = new Browser(app.base);
  const csrf = await browser.signIn(user.email);
  const call = (method: string, path: string, json?: unknown) =>
    browser.request(method, path, { json, headers: { 'x-csrf-token': csrf } });
  return { user, browser, call };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('tokens over the API', () => {
  it('a signed-in member mints a token for itself: 201 with the text once; the token works, bound to its owner and role', async () => {
    const { call } = await signedIn({ role: 'member', owner: 'acme' });
    const created = await call('POST', '/api/v1/tokens', { name: 'deploy script' });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.token, /^app_tok_/);
    assert.equal(created.body.role, 'member');
    assert.equal(created.body.owner, 'acme');
    assert.equal(created.body._links.destroy.method, 'DELETE');
    const listed = await call('GET', '/api/v1/tokens');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body._embedded.tokens.map((token: { externalId: string }) => token.externalId),
      [created.body.externalId],
    );
    assert.equal(listed.body._embedded.tokens[0].token, undefined, 'the text is never shown again');
    const used = await fetch(`${app.base}/api/v1/webhooks`, {
      method: 'POST',
      headers: { ...bearer(created.body.token), 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://r.example/h', events: ['*'] }),
    });
    assert.equal(used.status, 201);
    assert.equal(((await used.json()) as { owner: string }).owner, 'acme');
  });

  it('a member cannot exceed its role or owner; a viewer mints no token at all', async () => {
    const member = await signedIn({ role: 'member', owner: 'acme' });
    for (const [input, field] of [
      [{ name: 'x', role: 'admin' }, 'role'],
      [{ name: 'x', owner: 'globex' }, 'owner'],
      [{ name: 'x', role: 'viewer', owner: 'globex' }, 'owner'],
    ] as const) {
      const answer = await member.call('POST', '/api/v1/tokens', input);
      assert.equal(answer.status, 403, JSON.stringify(input));
      assert.equal(answer.body.code, 'APP_FORBIDDEN');
      assert.equal(answer.body.data.field, field);
      if (field === 'role') assert.equal(answer.body.detail, 'a member may not mint an admin token');
    }
    assert.equal(
      (await member.call('POST', '/api/v1/tokens', { name: 'read only', role: 'viewer' })).status,
      201,
      'a lesser role of its own owner is fine',
    );
    const viewer = await signedIn({ role: 'viewer', owner: 'acme' });
    assert.equal((await viewer.call('POST', '/api/v1/tokens', { name: 'x', role: 'member' })).status, 403);
    const refused = await viewer.call('POST', '/api/v1/tokens', { name: 'mine' });
    assert.equal(
      refused.status,
      403,
      'a read-only role changes nothing, its own tokens included: an admin mints one for it',
    );
    assert.equal(refused.body.code, 'APP_FORBIDDEN');
  });

  it('an admin mints for any owner and lists every token; bad fields are 422 APP_TOKEN_FIELD_INVALID', async () => {
    const admin = await signedIn({ role: 'admin' });
    const forGlobex = await admin.call('POST', '/api/v1/tokens', {
      name: 'globex ci',
      role: 'member',
      owner: 'globex',
    });
    assert.equal(forGlobex.status, 201, forGlobex.text);
    assert.equal(forGlobex.body.owner, 'globex');
    const bad = await admin.call('POST', '/api/v1/tokens', { name: '', role: 'member', owner: 'globex' });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, 'APP_TOKEN_FIELD_INVALID');
    const all = await admin.call('GET', '/api/v1/tokens?per_page=100');
    assert.ok(all.body.total >= 1);
    assert.ok(
      all.body._embedded.tokens.some((token: { externalId: string }) => token.externalId === forGlobex.body.externalId),
    );
  });

  it("revoking: one's own token is revoked at once; another user's is 404 like an unknown one", async () => {
    const mine = await signedIn({ role: 'member', owner: 'acme' });
    const theirs = await signedIn({ role: 'member', owner: 'acme' });
    const token = (await mine.call('POST', '/api/v1/tokens', { name: 'soon gone' })).body;
    const refused = await theirs.call('DELETE', `/api/v1/tokens/${token.externalId}`);
    assert.equal(refused.status, 404);
    assert.equal(refused.body.code, 'APP_TOKEN_NOT_FOUND');
    assert.equal((await theirs.call('GET', '/api/v1/tokens')).body.total, 0, 'nor does it see it');
    const revoked = await mine.call('DELETE', `/api/v1/tokens/${token.externalId}`);
    assert.equal(revoked.status, 200, revoked.text);
    assert.ok(revoked.body.revokedAt);
    assert.equal((await fetch(`${app.base}/api/v1/webhooks`, { headers: bearer(token.token) })).status, 401);
  });

  it('disabling a user revokes the tokens it minted', async () => {
    const { user, call } = await signedIn({ role: 'member', owner: 'acme' });
    const token = (await call('POST', '/api/v1/tokens', { name: 'ci' })).body.token as string;
    assert.equal((await fetch(`${app.base}/api/v1/webhooks`, { headers: bearer(token) })).status, 200);
    await setUserDisabled(app.accounts, OPERATOR, user.id, true);
    assert.equal((await fetch(`${app.base}/api/v1/webhooks`, { headers: bearer(token) })).status, 401);
  });

  it("a token minted with a user's admin token belongs to that user: disabling the user revokes both", async () => {
    const { user, call } = await signedIn({ role: 'admin', owner: null });
    const parent = (await call('POST', '/api/v1/tokens', { name: 'parent' })).body.token as string;
    const child = await fetch(`${app.base}/api/v1/tokens`, {
      method: 'POST',
      headers: { ...bearer(parent), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'child' }),
    });
    assert.equal(child.status, 201);
    const minted = (await child.json()) as { token: string; role: string };
    assert.equal(minted.role, 'admin');
    const grandchild = await fetch(`${app.base}/api/v1/tokens`, {
      method: 'POST',
      headers: { ...bearer(minted.token), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'grandchild', role: 'member', owner: 'acme' }),
    });
    assert.equal(grandchild.status, 201);
    const last = ((await grandchild.json()) as { token: string }).token;
    for (const token of [parent, minted.token, last])
      assert.equal((await fetch(`${app.base}/api/v1/webhooks`, { headers: bearer(token) })).status, 200);
    await setUserDisabled(app.accounts, OPERATOR, user.id, true);
    for (const token of [parent, minted.token, last])
      assert.equal((await fetch(`${app.base}/api/v1/webhooks`, { headers: bearer(token) })).status, 401);
  });

  it('a member API token (no user) cannot mint; an admin API token can', async () => {
    const deps = { sql: app.db.sql, log: app.db.log };
    const member = await createToken(deps, { name: 'm', role: 'member', owner: 'acme' });
    const refused = await fetch(`${app.base}/api/v1/tokens`, {
      method: 'POST',
      headers: { ...bearer(member.token), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'child' }),
    });
    assert.equal(refused.status, 403);
    const admin = await createToken(deps, { name: 'a', role: 'admin' });
    const minted = await fetch(`${app.base}/api/v1/tokens`, {
      method: 'POST',
      headers: { ...bearer(admin.token), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'child', role: 'viewer', owner: 'acme' }),
    });
    assert.equal(minted.status, 201, await minted.text());
  });

  it('the list offers its create link to exactly the callers whose mint would not be refused', async () => {
    const deps = { sql: app.db.sql, log: app.db.log };
    const offered = async (headers: Record<string, string>) => {
      const answer = await fetch(`${app.base}/api/v1/tokens`, { headers });
      assert.equal(answer.status, 200);
      return 'create' in ((await answer.json()) as { _links: Record<string, unknown> })._links;
    };
    const withSession = async (role: string, owner: string | null) => {
      const { browser } = await signedIn({ role, owner });
      const answer = await browser.request('GET', '/api/v1/tokens');
      assert.equal(answer.status, 200);
      return 'create' in answer.body._links;
    };
    assert.equal(await withSession('admin', null), true, 'a signed-in admin');
    assert.equal(await withSession('member', 'acme'), true, 'a signed-in member');
    assert.equal(await withSession('viewer', 'acme'), false, 'a signed-in viewer');
    const token = async (role: 'admin' | 'member' | 'viewer', owner: string | null) =>
      bearer((await createToken(deps, { name: `links ${role}`, role, owner })).token);
    assert.equal(await offered(await token('admin', null)), true, 'an admin token');
    assert.equal(await offered(await token('member', 'acme')), false, 'a member token: minted by no user');
    assert.equal(await offered(await token('viewer', 'acme')), false, 'a viewer token');
  });

  it('without credentials: 401', async () => {
    assert.equal((await fetch(`${app.base}/api/v1/tokens`)).status, 401);
  });
});
