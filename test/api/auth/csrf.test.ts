import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCsrfToken, createFormToken, formKeyOf, verifyCsrfToken } from '../../../shared/accounts/csrf.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { Browser, PASSWORD, startAccounts } from '../accounts/helpers.ts';

const app = await startAccounts({ auth: { signup: true, signupConfirm: false, lockout: false } });
const endpoint = { url: 'https://receiver.example/hook', events: ['order.*'] };

describe('CSRF: cookie-authenticated writes need a token and must come from this site', () => {
  it('a cookie-authenticated write without a token is 403 APP_CSRF_INVALID and changes nothing; with the token it is served', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    const csrfToken = await browser.signIn(user.email);
    const refused = await browser.request('POST', '/api/v1/webhooks', { json: endpoint });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'APP_CSRF_INVALID');
    assert.match(refused.headers.get('content-type') ?? '', /problem\+json/);
    assert.equal((await browser.request('GET', '/api/v1/webhooks')).body.total, 0, 'nothing was made');
    const wrong = await browser.request('POST', '/api/v1/webhooks', {
      json: endpoint,
      headers: { 'x-csrf-token': 'abc.def' },
    });
    assert.equal(wrong.status, 403);
    const served = await browser.request('POST', '/api/v1/webhooks', {
      json: endpoint,
      headers: { 'x-csrf-token': csrfToken },
    });
    assert.equal(served.status, 201, served.text);
  });

  it("another session's token does not fit", async () => {
    const user = await app.user();
    const mine = new Browser(app.base);
    const theirs = new Browser(app.base);
    await mine.signIn(user.email);
    const theirToken = await theirs.signIn(user.email);
    const answer = await mine.request('DELETE', '/api/v1/webhooks/ep_nope', {
      headers: { 'x-csrf-token': theirToken },
    });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.code, 'APP_CSRF_INVALID');
  });

  it('the token as the _csrf form field works too, and GraphQL mutations over the cookie need it as well', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    const csrfToken = await browser.signIn(user.email);
    const logout = await browser.request('POST', '/logout', { form: { _csrf: csrfToken } });
    assert.equal(logout.status, 303);
    assert.equal(logout.headers.get('location'), '/login?signed-out=1');
    const again = new Browser(app.base);
    const token = await again.signIn(user.email);
    const query = {
      query:
        'mutation { registerWebhookEndpoint(input: {url: "https://receiver.example/g", events: ["*"]}) { endpoint { externalId } } }',
    };
    const refused = await again.request('POST', '/_app/gql', { json: query });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'APP_CSRF_INVALID');
    const served = await again.request('POST', '/_app/gql', { json: query, headers: { 'x-csrf-token': token } });
    assert.equal(served.status, 200, served.text);
    assert.equal(served.body.errors, undefined, served.text);
  });

  it('a request from another site is refused even with a valid token (Origin, Sec-Fetch-Site)', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    const csrfToken = await browser.signIn(user.email);
    for (const headers of [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: '', 'sec-fetch-site': 'cross-site' },
      { origin: '', 'sec-fetch-site': 'same-site' },
    ] as Record<string, string>[]) {
      const answer = await browser.request('POST', '/api/v1/webhooks', {
        json: endpoint,
        headers: { ...headers, 'x-csrf-token': csrfToken },
      });
      assert.equal(answer.status, 403, JSON.stringify(headers));
      assert.equal(answer.body.code, 'APP_CSRF_INVALID');
    }
    const sameOrigin = await browser.request('POST', '/api/v1/webhooks', {
      json: endpoint,
      headers: { 'sec-fetch-site': 'same-origin', 'x-csrf-token': csrfToken },
    });
    assert.equal(sameOrigin.status, 201, sameOrigin.text);
  });

  it('POST /login checks where it comes from instead of a token', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    const answer = await browser.request('POST', '/login', {
      json: { email: user.email, password: 'whatever it is' },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.code, 'APP_CSRF_INVALID');
    // a client that is no browser sends neither Origin nor Sec-Fetch-Site: it is not refused
    const scripted = await browser.request('POST', '/login', {
      json: { email: user.email, password: PASSWORD },
      headers: { origin: '' },
    });
    assert.equal(scripted.status, 200, scripted.text);
  });

  it('the sign-in and anonymous form checks hold for every spelling of their paths the router answers', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    for (const path of ['/LOGIN', '/Login/', '/login//']) {
      const answer = await browser.request('POST', path, {
        json: { email: user.email, password: 'whatever it is' },
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(answer.status, 403, path);
      assert.equal(answer.body.code, 'APP_CSRF_INVALID', path);
    }
    for (const path of ['/FORGOT-PASSWORD', '/Reset-Password', '/PORTAL', '/Register/', '/SIGNUP']) {
      const answer = await browser.request('POST', path, { json: { email: 'someone@example.com', token: 'x' } });
      assert.equal(answer.status, 403, path);
      assert.equal(answer.body.code, 'APP_CSRF_INVALID', path);
    }
    assert.equal(browser.cookies.has('app_session'), false, 'nobody was signed in');
  });

  it('bearer writes are untouched: no cookie, no CSRF, even from another origin', async () => {
    const { token } = await createToken({ sql: app.db.sql, log: app.db.log }, { name: 'script', role: 'admin' });
    const answer = await fetch(`${app.base}/api/v1/webhooks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        origin: 'https://elsewhere.example',
      },
      body: JSON.stringify(endpoint),
    });
    assert.equal(answer.status, 201, await answer.text());
  });

  it('anonymous account forms (sign-up, forgot password) need the token of the app_csrf cookie their page gave', async () => {
    const browser = new Browser(app.base);
    const without = await browser.request('POST', '/forgot-password', { json: { email: 'someone@example.com' } });
    assert.equal(without.status, 403);
    assert.equal(without.body.code, 'APP_CSRF_INVALID');
    const page = await browser.request('GET', '/register', { html: true });
    const token = /<meta name="csrf-token" content="([^"]+)">/.exec(page.text)?.[1];
    assert.ok(token && browser.cookies.has('app_csrf'));
    const elsewhere = new Browser(app.base);
    assert.equal(
      (
        await elsewhere.request('POST', '/forgot-password', {
          json: { email: 'x@example.com' },
          headers: { 'x-csrf-token': token },
        })
      ).status,
      403,
      'a token without its cookie',
    );
    const signUp = await browser.request('POST', '/register', {
      form: { _csrf: token, email: 'new.person@example.com', password: 'a long and unusual passphrase' },
    });
    assert.equal(signUp.status, 303, signUp.text);
    const me = await browser.request('GET', '/login');
    assert.equal(me.body.user.email, 'new.person@example.com');
    assert.equal(me.body.user.role, 'member');
    assert.equal(me.body.user.owner, me.body.user.id, 'a tenant of its own');
  });
});

describe('CSRF tokens with a form key (shared/accounts/csrf.ts)', () => {
  it('a form token is valid for its secret, in the field or the header; its key is its third part', () => {
    const token = createFormToken('secret');
    assert.equal(token.split('.').length, 3);
    assert.ok(verifyCsrfToken('secret', token));
    assert.ok(!verifyCsrfToken('another secret', token));
    assert.equal(formKeyOf(token), token.split('.')[2]);
    assert.notEqual(formKeyOf(createFormToken('secret')), formKeyOf(token), 'a fresh key per form');
    assert.equal(formKeyOf(createCsrfToken('secret')), undefined, 'a plain token names no form');
  });

  it('any key the caller chooses is accepted with a valid token; a malformed one is refused', () => {
    const plain = createCsrfToken('secret');
    assert.ok(verifyCsrfToken('secret', `${plain}.my-own_key1`));
    for (const bad of [`${plain}.`, `${plain}.not a key`, `${plain}.a.b`, `${plain}.${'k'.repeat(65)}`])
      assert.ok(!verifyCsrfToken('secret', bad), bad);
  });
});
