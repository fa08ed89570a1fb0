import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Browser, startAccounts } from './helpers.ts';

const app = await startAccounts();

describe('a signed-in member sees only its owner', () => {
  it("REST and GraphQL answer the member's own endpoints and events, never another owner's", async () => {
    const admin = await app.user({ role: 'admin' });
    const adminBrowser = new Browser(app.base);
    const adminCsrf = await adminBrowser.signIn(admin.email);
    for (const owner of ['acme', 'globex']) {
      const made = await adminBrowser.request('POST', '/api/v1/webhooks', {
        json: { url: `https://${owner}.example/hook`, events: ['*'], owner },
        headers: { 'x-csrf-token': adminCsrf },
      });
      assert.equal(made.status, 201, made.text);
    }
    const member = await app.user({ role: 'member', owner: 'acme' });
    const browser = new Browser(app.base);
    const csrf = await browser.signIn(member.email);
    const listed = await browser.request('GET', '/api/v1/webhooks');
    assert.deepEqual(
      listed.body._embedded.webhooks.map((endpoint: { owner: string }) => endpoint.owner),
      ['acme'],
    );
    const other = await browser.request('GET', '/api/v1/webhooks?owner=globex');
    assert.equal(other.status, 404, 'another tenant does not exist for a member');
    const gql = await browser.request('POST', '/_app/gql', {
      json: { query: '{ webhookEndpoints { nodes { owner } } }' },
      headers: { 'x-csrf-token': csrf },
    });
    assert.equal(gql.status, 200, gql.text);
    assert.deepEqual(
      gql.body.data.webhookEndpoints.nodes.map((node: { owner: string }) => node.owner),
      ['acme'],
    );
    const emitted = await browser.request('POST', '/api/v1/events', {
      json: { type: 'order.paid', data: { n: 1 } },
      headers: { 'x-csrf-token': csrf },
    });
    assert.equal(emitted.status, 202, emitted.text);
    assert.equal(emitted.body.owner, 'acme', 'a member emits as its owner');
    assert.equal(emitted.body.deliveryCount, 1);
  });

  it('a viewer may read but not write', async () => {
    const viewer = await app.user({ role: 'viewer', owner: 'acme' });
    const browser = new Browser(app.base);
    const csrf = await browser.signIn(viewer.email);
    assert.equal((await browser.request('GET', '/api/v1/webhooks')).status, 200);
    const write = await browser.request('POST', '/api/v1/webhooks', {
      json: { url: 'https://x.example/h', events: ['*'] },
      headers: { 'x-csrf-token': csrf },
    });
    assert.equal(write.status, 403);
    assert.equal(write.body.code, 'APP_FORBIDDEN');
  });
});

describe('keys of a signed-in user', () => {
  it("idempotency keys belong to the user: two sessions of one user share them, another user's same key is its own", async () => {
    const user = await app.user({ role: 'member', owner: 'keys' });
    const other = await app.user({ role: 'member', owner: 'keys' });
    const laptop = new Browser(app.base);
    const phone = new Browser(app.base);
    const stranger = new Browser(app.base);
    const tokens = [
      await laptop.signIn(user.email),
      await phone.signIn(user.email),
      await stranger.signIn(other.email),
    ];
    const create = (browser: Browser, csrf: string) =>
      browser.request('POST', '/api/v1/webhooks', {
        json: { url: 'https://keys.example/hook', events: ['*'] },
        headers: { 'x-csrf-token': csrf, 'idempotency-key': 'same-key-1' },
      });
    const first = await create(laptop, tokens[0]);
    const replay = await create(phone, tokens[1]);
    const theirs = await create(stranger, tokens[2]);
    assert.equal(first.status, 201, first.text);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.equal(replay.body.externalId, first.body.externalId);
    assert.equal(theirs.status, 201);
    assert.notEqual(theirs.body.externalId, first.body.externalId);
  });
});
