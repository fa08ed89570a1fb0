/**
 * The sign-in page a browser meets around a session (api/accounts/routes.ts): after signing out it
 * says so, a fixed sentence that tells nothing about who was signed in; a browser already signed
 * in with an account is not shown the form again but goes where signing in would have taken it
 * (`next`, checked as the sign-in checks it, else the home page). JSON clients get the page object
 * as before, and a portal session, which has no account, may still sign in with one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SIGNED_OUT } from '../../../api/accounts/routes.ts';
import { Browser, startAccounts } from './helpers.ts';

const app = await startAccounts();

/** A browser signed in with a form-sent sign-in, and the sign-out form's CSRF token of its account page. */
async function signedIn(): Promise<{ browser: Browser; email: string; csrf: string }> {
  const user = await app.user({ role: 'member', owner: 'acme' });
  const browser = new Browser(app.base);
  await browser.signIn(user.email);
  const account = await browser.request('GET', '/account', { html: true });
  const csrf = /action="\/logout"[^>]*>\s*<input type="hidden" name="_csrf" value="([^"]+)"/.exec(account.text)?.[1];
  assert.ok(csrf, 'the account page has a sign-out form');
  return { browser, email: user.email, csrf };
}

describe('the sign-in page after signing out', () => {
  it('a browser that signs out lands on the sign-in page, which says "You are signed out."', async () => {
    const { browser, email, csrf } = await signedIn();
    const out = await browser.request('POST', '/logout', { form: { _csrf: csrf } });
    assert.equal(out.status, 303, out.text);
    const location = out.headers.get('location') ?? '';
    assert.equal(new URL(location, app.base).pathname, '/login');
    const page = await browser.request('GET', location, { html: true });
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /<p class="notice" role="status">You are signed out\.<\/p>/);
    assert.equal(SIGNED_OUT, 'You are signed out.');
    assert.doesNotMatch(page.text, new RegExp(email.replace('.', '\\.')), 'names no one');
    assert.match(page.text, /<form method="post" action="\/login">/, 'and offers to sign in again');
  });

  it('the sign-in page says nothing of a sign-out when it is only opened', async () => {
    const page = await new Browser(app.base).request('GET', '/login', { html: true });
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /signed out/);
  });

  it('JSON clients signing out still get 204 and no redirect', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    const csrf = await browser.signIn(user.email);
    const out = await browser.request('POST', '/logout', { json: {}, headers: { 'x-csrf-token': csrf } });
    assert.equal(out.status, 204);
    assert.equal(out.headers.get('location'), null);
  });
});

describe('the sign-in page to a browser already signed in', () => {
  const opened = async (browser: Browser, path: string) => {
    const page = await browser.request('GET', path, { html: true });
    assert.equal(page.status, 302, `${path}: ${page.text}`);
    return page.headers.get('location');
  };

  it('goes to the home page, or to next when it is a path of this site', async () => {
    const { browser } = await signedIn();
    assert.equal(await opened(browser, '/login'), '/');
    assert.equal(
      await opened(browser, `/login?next=${encodeURIComponent('/endpoints?status=dead')}`),
      '/endpoints?status=dead',
    );
  });

  it('a next that leaves the site, or leads back to the sign-in page, goes to the home page', async () => {
    const { browser } = await signedIn();
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example', '/login', '/login?next=/login'])
      assert.equal(await opened(browser, `/login?next=${encodeURIComponent(next)}`), '/', next);
  });

  it('JSON clients still get the page object, which names the user signed in', async () => {
    const { browser, email } = await signedIn();
    const page = await browser.request('GET', '/login');
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.page, 'login');
    assert.equal(page.body.user.email, email);
  });

  it('a portal session, which has no account, is shown the form to sign in with one', async () => {
    const portal = await app.portal('viewer');
    const page = await portal.request('GET', '/login', { html: true });
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /<form method="post" action="\/login">/);
  });
});
