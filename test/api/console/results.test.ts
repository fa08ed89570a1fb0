/**
 * Console forms that make something answer by POST/redirect/GET (docs/accounts-and-console.md
 * "Console"): registering, rotating, minting, inviting, a new set-password link and a portal link
 * answer 303 to the page that shows the one-time value; that page shows it once, and reloading
 * it neither runs the form again nor shows the value again. A refused form shows again with what
 * was typed (the test event's type and data too).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { Browser, startConsole } from './harness.ts';

describe('console results: POST/redirect/GET, one-time values shown once', () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let admin: { browser: Browser; csrf: string };
  const html = { accept: 'text/html' };

  before(async () => {
    app = await startConsole();
    const user = await app.user({ role: 'admin' });
    const browser = new Browser(app.base);
    admin = { browser, csrf: await browser.signIn(user.email) };
  });
  after(() => app.close());

  /** POSTs a form as a browser; asserts the 303 and answers the result page and its reload. */
  const submit = async (path: string, fields: Record<string, string>) => {
    const posted = await admin.browser.request('POST', path, { form: { _csrf: admin.csrf, ...fields } });
    assert.equal(posted.status, 303, posted.text);
    const location = posted.headers.get('location') as string;
    const first = await admin.browser.request('GET', location, { headers: html });
    const reload = await admin.browser.request('GET', location, { headers: html });
    return { location, first, reload };
  };
  const endpointCount = async (url: string) =>
    Number((await app.db.sql`SELECT count(*)::int AS n FROM app_webhooks WHERE url = ${url}`)[0].n);

  it('registering redirects to the registered page; its reload registers nothing and shows no secret', async () => {
    const url = 'http://127.0.0.1:9/registered-once';
    const { location, first, reload } = await submit('/endpoints', { url, events: '*', owner: 'acme' });
    assert.match(location, /^\/endpoints\/ep_[^/]+\/created$/);
    assert.match(first.text, /<pre id="secret">whsec_/);
    assert.doesNotMatch(reload.text, /whsec_/);
    assert.equal(await endpointCount(url), 1);
  });

  it('rotating redirects to the rotated page; its reload rotates nothing and shows no secret', async () => {
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const made = await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/rotated-once', events: ['*'] });
    const { location, first, reload } = await submit(`/endpoints/${made.id}/rotate`, { grace: '1h' });
    assert.equal(location, `/endpoints/${made.id}/rotated`);
    const secret = /<pre id="secret">([^<]+)<\/pre>/.exec(first.text)?.[1];
    assert.ok(secret && secret !== made.secret, first.text);
    assert.doesNotMatch(reload.text, /<pre id="secret">/);
    const secrets = await app.db.sql`SELECT jsonb_array_length(secrets) AS n FROM app_webhooks WHERE id = ${made.id}`;
    assert.equal(secrets[0].n, 2, 'one rotation: the first secret (in its grace) and one new one');
  });

  it('minting, inviting, a new link and a portal link show their value once on their page', async () => {
    const minted = await submit('/tokens', { name: 'once' });
    assert.equal(minted.location, '/tokens');
    assert.match(minted.first.text, /<pre id="token">app_/);
    assert.doesNotMatch(minted.reload.text, /<pre id="token">/);

    const invited = await submit('/users', { email: 'invited-once@example.com', role: 'viewer', owner: 'acme' });
    assert.equal(invited.location, '/users');
    assert.match(invited.first.text, /<pre id="link">http/);
    assert.doesNotMatch(invited.reload.text, /<pre id="link">/);
    const userId = /\/users\/([^/]+)\/reset-link/.exec(invited.first.text)?.[1] as string;
    const relinked = await submit(`/users/${userId}/reset-link`, {});
    assert.match(relinked.first.text, /<pre id="link">http/);
    assert.doesNotMatch(relinked.reload.text, /<pre id="link">/);

    const portal = await submit('/tenants/portal-link', { owner: 'acme', role: 'viewer' });
    assert.equal(portal.location, '/tenants');
    assert.match(portal.first.text, /<pre id="portal-link">http/);
    assert.doesNotMatch(portal.reload.text, /<pre id="portal-link">/);
  });

  it("a one-time value is shown to its own session only: another browser's cookie jar gets nothing", async () => {
    const posted = await admin.browser.request('POST', '/tokens', { form: { _csrf: admin.csrf, name: 'theirs' } });
    assert.equal(posted.status, 303);
    const other = new Browser(app.base);
    await other.signIn((await app.user({ role: 'admin' })).email);
    const once = admin.browser.cookies.get('app_once') as string;
    other.cookies.set('app_once', once);
    const shown = await other.request('GET', '/tokens', { headers: html });
    assert.doesNotMatch(shown.text, /<pre id="token">/);
  });
});

describe('console forms keep what was typed: the test event', () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  before(async () => {
    app = await startConsole();
  });
  after(() => app.close());

  it('a refused test event shows its form again with the type and data as typed', async () => {
    const user = await app.user({ role: 'admin' });
    const browser = new Browser(app.base);
    const csrf = await browser.signIn(user.email);
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const made = await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/typed', events: ['*'] });
    const refused = await browser.request('POST', `/endpoints/${made.id}/test`, {
      form: { _csrf: csrf, type: 'order.created', data: '{"amount": 4' },
    });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.text, /APP_WEBHOOK_PAYLOAD_INVALID/);
    assert.match(refused.text, /<input id="test-type" name="type" value="order.created">/);
    assert.match(refused.text, /<input id="test-data" name="data"[^>]* value="\{&quot;amount&quot;: 4">/);
  });
});
