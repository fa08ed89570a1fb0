/**
 * Single-use links leave the address bar at their first request: a browser's GET of
 * `/reset-password?token=` or `/portal?token=` is sent (303) to the page without the token, which
 * a short-lived, path-scoped link cookie keeps for the page's form. JSON and scripted clients keep
 * posting the token in the `token` field. No log line carries a token.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createPasswordLink } from '../../../shared/accounts/password-links.ts';
import { createPortalLink } from '../../../shared/accounts/portal-links.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { testConfig } from '../../helpers/database.ts';
import { linesInto } from '../../helpers/logs.ts';
import { Browser, PASSWORD, startAccounts } from './helpers.ts';

const lines: Record<string, unknown>[] = [];
const log = createLogger(testConfig(null, { logLevel: 'trace' }), { name: 'test', destination: linesInto(lines) });
const app = await startAccounts({ logLevel: 'trace' }, { log });

const LINK_COOKIE_MS = 30 * 60_000;

/** The `Set-Cookie` line of `name` in an answer. */
const setCookie = (answer: { headers: Headers }, name: string) =>
  answer.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));

const csrfOf = (html: string) => /<meta name="csrf-token" content="([^"]+)">/.exec(html)?.[1] as string;

describe('a set-password link opened by a browser', () => {
  it('303 to /reset-password without the token, kept in an HttpOnly, SameSite=Lax cookie of that path alone', async () => {
    const user = await app.user();
    const { token } = await createPasswordLink(app.accounts, user.id, 'invite');
    const browser = new Browser(app.base);
    const followed = await browser.request('GET', `/reset-password?token=${encodeURIComponent(token)}`, { html: true });
    assert.equal(followed.status, 303);
    assert.equal(followed.headers.get('location'), '/reset-password');
    assert.match(followed.headers.get('cache-control') ?? '', /no-store/);
    assert.ok(!followed.text.includes(token));
    const cookie = setCookie(followed, 'app_link');
    assert.ok(cookie, followed.headers.getSetCookie().join(' | '));
    assert.ok(cookie.startsWith(`app_link=${token};`));
    assert.match(cookie, /; path=\/reset-password(;|$)/i);
    assert.match(cookie, /; httponly/i);
    assert.match(cookie, /; samesite=lax/i);
    assert.doesNotMatch(cookie, /; secure/i, 'not Secure outside production');
    const expires = Date.parse(/; expires=([^;]+)/i.exec(cookie)?.[1] ?? '');
    assert.ok(expires > Date.now() && expires <= Date.now() + LINK_COOKIE_MS + 2000, 'short-lived');

    const page = await browser.request('GET', '/reset-password', { html: true });
    assert.equal(page.status, 200);
    assert.ok(!page.text.includes(token), 'the page never carries the token');
    assert.match(page.text, /name="password"/, 'the form is shown from the cookie');
    const set = await browser.request('POST', '/reset-password', {
      form: { _csrf: csrfOf(page.text), password: 'a passphrase from the cookie' },
    });
    assert.equal(set.status, 200, set.text);
    assert.match(set.text, /Your password is set/);
    assert.match(setCookie(set, 'app_link') ?? '', /^app_link=;.*path=\/reset-password/i, 'the spent token is cleared');
    await new Browser(app.base).signIn(user.email, 'a passphrase from the cookie');
  });

  it('a refused password keeps the token for the form shown again; other query parameters stay', async () => {
    const user = await app.user();
    const { token } = await createPasswordLink(app.accounts, user.id, 'reset');
    const browser = new Browser(app.base);
    const followed = await browser.request('GET', `/reset-password?lang=en&token=${token}`, { html: true });
    assert.equal(followed.headers.get('location'), '/reset-password?lang=en');
    const page = await browser.request('GET', '/reset-password?lang=en', { html: true });
    const weak = await browser.request('POST', '/reset-password', {
      form: { _csrf: csrfOf(page.text), password: 'short' },
    });
    assert.equal(weak.status, 422);
    assert.match(weak.text, /name="password"/);
    assert.ok(!weak.text.includes(token));
    const set = await browser.request('POST', '/reset-password', {
      form: { _csrf: csrfOf(weak.text), password: 'a long enough passphrase' },
    });
    assert.equal(set.status, 200, set.text);
  });

  it('without a kept token the page asks for the link again; a token not shaped like one is not kept', async () => {
    const browser = new Browser(app.base);
    const odd = await browser.request('GET', '/reset-password?token=not%20a%20token%3B', { html: true });
    assert.equal(odd.status, 303);
    assert.equal(setCookie(odd, 'app_link'), undefined);
    const page = await browser.request('GET', '/reset-password', { html: true });
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /name="password"/);
    assert.match(page.text, /open that link again/);
  });
});

describe('JSON and scripted clients keep the token in the form field', () => {
  it('a JSON GET with ?token= answers the page object as before; a JSON POST with the token sets the password', async () => {
    const user = await app.user();
    const { token } = await createPasswordLink(app.accounts, user.id, 'invite');
    const client = new Browser(app.base);
    const page = await client.request('GET', `/reset-password?token=${token}`);
    assert.equal(page.status, 200);
    assert.equal(page.body.page, 'reset-password');
    assert.equal(page.body.data.token, token);
    const set = await client.request('POST', '/reset-password', {
      json: { token, password: 'a scripted passphrase' },
      headers: { 'x-csrf-token': page.body.csrfToken },
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.user.id, user.id);
  });

  it('a form posted with the token field, by a client that never followed the link, works', async () => {
    const user = await app.user();
    const { token } = await createPasswordLink(app.accounts, user.id, 'reset');
    const client = new Browser(app.base);
    const page = await client.request('GET', '/reset-password', { html: true });
    const set = await client.request('POST', '/reset-password', {
      form: { _csrf: csrfOf(page.text), token, password: 'a form field passphrase' },
    });
    assert.equal(set.status, 200, set.text);
    await new Browser(app.base).signIn(user.email, 'a form field passphrase');
  });

  it('a portal link: a JSON client GETs the page object and posts the token; a browser is sent to /portal', async () => {
    const json = await createPortalLink(app.accounts, OPERATOR, { owner: 'acme', role: 'viewer' });
    const client = new Browser(app.base);
    const page = await client.request('GET', `/portal?token=${json.token}`);
    assert.equal(page.status, 200);
    assert.equal(page.body.data.token, json.token);
    const started = await client.request('POST', '/portal', {
      json: { _csrf: page.body.csrfToken, token: json.token },
    });
    assert.equal(started.status, 200, started.text);
    assert.deepEqual(started.body.portal, { owner: 'acme', role: 'viewer' });

    const link = await createPortalLink(app.accounts, OPERATOR, { owner: 'acme', role: 'member' });
    const browser = new Browser(app.base);
    const followed = await browser.request('GET', `/portal?token=${link.token}`, { html: true });
    assert.equal(followed.status, 303);
    assert.equal(followed.headers.get('location'), '/portal');
    const cookie = setCookie(followed, 'app_link') ?? '';
    assert.match(cookie, /; path=\/portal(;|$)/i);
    assert.match(cookie, /; httponly/i);
    assert.match(cookie, /; samesite=lax/i);
    const landing = await browser.request('GET', '/portal', { html: true });
    assert.ok(!landing.text.includes(link.token));
    assert.match(landing.text, /Continue to the console/);
    const signedIn = await browser.request('POST', '/portal', { form: { _csrf: csrfOf(landing.text) } });
    assert.equal(signedIn.status, 303, signedIn.text);
    assert.equal(signedIn.headers.get('location'), '/');
    assert.ok(browser.cookies.has('app_session'));
    assert.ok(!browser.cookies.has('app_link'), 'the spent token is cleared');
  });

  it('a portal link used already is said to be spent on its GET: no button whose press can only fail', async () => {
    const link = await createPortalLink(app.accounts, OPERATOR, { owner: 'acme', role: 'member' });
    const first = new Browser(app.base);
    await first.request('GET', `/portal?token=${link.token}`, { html: true });
    const landing = await first.request('GET', '/portal', { html: true });
    const used = await first.request('POST', '/portal', { form: { _csrf: csrfOf(landing.text) } });
    assert.equal(used.status, 303, used.text);

    const again = new Browser(app.base);
    await again.request('GET', `/portal?token=${link.token}`, { html: true });
    const spent = await again.request('GET', '/portal', { html: true });
    assert.equal(spent.status, 200);
    assert.doesNotMatch(spent.text, /Continue to the console/);
    assert.match(spent.text, /id="link-spent"/);
    const json = await new Browser(app.base).request('GET', `/portal?token=${link.token}`);
    assert.equal(json.body.data.usable, false);
    assert.equal(json.body.data.link, true);
  });
});

describe('logs', () => {
  it('no log line carries a link token, the first request with ?token= included', async () => {
    lines.length = 0;
    const user = await app.user();
    const { token } = await createPasswordLink(app.accounts, user.id, 'reset');
    const portal = await createPortalLink(app.accounts, OPERATOR, { owner: 'acme' });
    const browser = new Browser(app.base);
    await browser.request('GET', `/reset-password?token=${token}`, { html: true });
    await browser.request('GET', `/reset-password?token=${token}`); // JSON: the token stays in this URL
    const page = await browser.request('GET', '/reset-password', { html: true });
    await browser.request('POST', '/reset-password', { form: { _csrf: csrfOf(page.text), password: 'short' } });
    await browser.request('POST', '/reset-password', { form: { _csrf: 'forged', token, password: PASSWORD } });
    await browser.request('POST', '/reset-password', {
      form: { _csrf: csrfOf(page.text), password: 'a logged-around passphrase' },
    });
    await browser.request('GET', `/portal?token=${portal.token}`, { html: true });
    const landing = await browser.request('GET', '/portal', { html: true });
    await browser.request('POST', '/portal', { form: { _csrf: csrfOf(landing.text) } });
    await browser.request('POST', '/portal', { form: { _csrf: csrfOf(landing.text), token: portal.token } });
    assert.ok(lines.length > 0, 'the logger was heard');
    const written = JSON.stringify(lines);
    assert.ok(written.includes('password set through a link'), 'the flows ran');
    assert.ok(!written.includes(token), 'the set-password token is never logged');
    assert.ok(!written.includes(portal.token), 'the portal token is never logged');
  });
});
