import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCredentials } from '../../../shared/accounts/sign-in.ts';
import { insertNewUser } from '../../../shared/accounts/users.ts';
import { Browser, PASSWORD, startAccounts } from './helpers.ts';

const app = await startAccounts();

describe('sign-in over JSON and over a form', () => {
  it('JSON: 200 {user, csrfToken} and a session cookie that is HttpOnly, SameSite=Lax, Path=/ (not Secure outside production)', async () => {
    const user = await app.user({ role: 'admin' });
    const browser = new Browser(app.base);
    const answer = await browser.request('POST', '/login', {
      json: { email: user.email.toUpperCase(), password: PASSWORD },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.user.id, user.id);
    assert.equal(answer.body.user.role, 'admin');
    assert.equal(answer.body.user.passwordHash, undefined);
    assert.match(answer.body.csrfToken, /^[\w-]+\.[\w-]+$/);
    const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('app_session='));
    assert.ok(cookie, 'a session cookie is set');
    assert.match(cookie, /; path=\//i);
    assert.match(cookie, /; httponly/i);
    assert.match(cookie, /; samesite=lax/i);
    assert.doesNotMatch(cookie, /; secure/i);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    const webhooks = await browser.request('GET', '/api/v1/webhooks');
    assert.equal(webhooks.status, 200, webhooks.text);
  });

  it('a form: 303 to where the browser was going, and the session works', async () => {
    const user = await app.user({ role: 'member', owner: 'acme' });
    const browser = new Browser(app.base);
    const page = await browser.request('GET', '/login?next=/api/v1/webhooks', { html: true });
    assert.equal(page.status, 200);
    assert.match(page.text, /<form method="post" action="\/login">/);
    assert.match(page.text, /<meta name="csrf-token" content="[\w-]+\.[\w-]+">/);
    assert.match(page.text, /name="next" value="\/api\/v1\/webhooks"/);
    const answer = await browser.request('POST', '/login', {
      form: { email: user.email, password: PASSWORD, next: '/api/v1/webhooks' },
    });
    assert.equal(answer.status, 303, answer.text);
    assert.equal(answer.headers.get('location'), '/api/v1/webhooks');
    const home = await browser.request('GET', '/account', { html: true });
    assert.equal(home.status, 200);
    assert.match(home.text, new RegExp(`Signed in as ${user.email.replace('.', '\\.')}`));
  });

  it('a next that leaves the site (//host, a url) is replaced by / (the console)', async () => {
    const user = await app.user();
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const browser = new Browser(app.base);
      const answer = await browser.request('POST', '/login', { form: { email: user.email, password: PASSWORD, next } });
      assert.equal(answer.status, 303);
      assert.equal(answer.headers.get('location'), '/', next);
    }
  });

  it('wrong password and unknown email: the same 401 APP_AUTH_FAILED; a browser gets the form again with the reason', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    const wrong = await browser.request('POST', '/login', {
      json: { email: user.email, password: 'not the password at all' },
    });
    const unknown = await browser.request('POST', '/login', {
      json: { email: 'nobody@example.com', password: 'not the password at all' },
    });
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.equal(wrong.body.code, 'APP_AUTH_FAILED');
    assert.equal(unknown.body.code, 'APP_AUTH_FAILED');
    assert.equal(wrong.body.detail, unknown.body.detail);
    assert.equal(browser.cookies.has('app_session'), false);
    const form = await browser.request('POST', '/login', { form: { email: user.email, password: 'nope nope nope' } });
    assert.equal(form.status, 401);
    assert.match(form.text, /the email or the password is wrong/);
    assert.match(form.text, new RegExp(`value="${user.email.replace('.', '\\.')}"`), 'the email typed is kept');
  });

  it('a user with no password yet (invited) is refused in the time of a password check, as an unknown email', async () => {
    const invited = await insertNewUser(app.accounts, {
      email: `invited-${Date.now()}@example.com`,
      role: 'viewer',
      owner: 'acme',
    });
    assert.equal(invited.hasPassword, false);
    /**
     * The median CPU time (ms, every thread of this process: argon2 runs on libuv's) of a refused
     * sign-in with this email. CPU time, not the clock: a loaded machine stretches the clock of
     * either path by any amount, while the work each does stays what it is.
     */
    const refusal = async (email: string) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const started = process.cpuUsage();
        await assert.rejects(checkCredentials(app.accounts, { email, password: 'not the password at all' }), {
          code: 'APP_AUTH_FAILED',
        });
        const used = process.cpuUsage(started);
        times.push((used.user + used.system) / 1000);
      }
      return times.sort((a, b) => a - b)[2];
    };
    const unknown = await refusal('nobody-at-all@example.com');
    const withoutPassword = await refusal(invited.email);
    // an argon2 verification takes tens of milliseconds; a refusal without one, well under one
    assert.ok(
      withoutPassword > unknown * 0.3,
      `no password: ${withoutPassword.toFixed(1)} ms, unknown email: ${unknown.toFixed(1)} ms`,
    );
  });

  it('malformed bodies are refused as failed sign-ins, never 500', async () => {
    const browser = new Browser(app.base);
    for (const json of [{}, { email: 1, password: [] }, { email: 'a@b', password: 'x'.repeat(5000) }, [1, 2]]) {
      const answer = await browser.request('POST', '/login', { json });
      assert.equal(answer.status, 401, JSON.stringify(json));
      assert.equal(answer.body.code, 'APP_AUTH_FAILED');
    }
  });

  it('a new session id at sign-in: signing in again ends the session the browser came with', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    const first = browser.cookies.get('app_session');
    await browser.signIn(user.email);
    const second = browser.cookies.get('app_session');
    assert.notEqual(first, second);
    const stale = new Browser(app.base);
    stale.cookies.set('app_session', first as string);
    assert.equal((await stale.request('GET', '/api/v1/webhooks')).status, 401, 'the first session has ended');
  });

  it('sign-out ends the session: the cookie no longer works, even replayed', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    const csrfToken = await browser.signIn(user.email);
    const cookie = browser.cookies.get('app_session') as string;
    const out = await browser.request('POST', '/logout', { json: {}, headers: { 'x-csrf-token': csrfToken } });
    assert.equal(out.status, 204, out.text);
    assert.equal(browser.cookies.has('app_session'), false, 'the cookie is cleared');
    const replay = new Browser(app.base);
    replay.cookies.set('app_session', cookie);
    assert.equal((await replay.request('GET', '/api/v1/webhooks')).status, 401);
  });

  it('GET /login for JSON clients: the page object with a csrfToken and the paths', async () => {
    const answer = await new Browser(app.base).request('GET', '/login');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.page, 'login');
    assert.equal(answer.body.user, null);
    assert.match(answer.body.csrfToken, /\./);
    assert.equal(answer.body.paths.logout, '/logout');
    assert.equal(answer.body._links.self.href, '/login');
  });
});

describe('the account page', () => {
  it('GET /account: the signed-in user; a browser without a session goes to the sign-in page, a JSON client gets 401', async () => {
    const anonymousPage = await new Browser(app.base).request('GET', '/account', { html: true });
    assert.equal(anonymousPage.status, 302);
    assert.equal(anonymousPage.headers.get('location'), '/login?next=%2Faccount');
    const anonymousJson = await new Browser(app.base).request('GET', '/account');
    assert.equal(anonymousJson.status, 401);
    assert.equal(anonymousJson.body.code, 'APP_UNAUTHENTICATED');
    const user = await app.user({ role: 'viewer', owner: 'acme' });
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    const page = await browser.request('GET', '/account');
    assert.equal(page.body.page, 'home');
    assert.deepEqual(page.body.user, { id: user.id, email: user.email, role: 'viewer', owner: 'acme' });
  });
});
