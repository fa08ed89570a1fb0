/**
 * Problems on console paths are console pages for browsers (docs/accounts-and-console.md
 * "Console"): a page whose operation the caller's role may not run answers the console's error
 * page (403, HTML, what the role may not do) instead of its form; a refused form, a CSRF refusal,
 * a 405, a 404 and the sign-in limiter's 429 answer the same page with a link back; JSON clients
 * and the API keep problem+json.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPortalLink } from '../../../shared/accounts/portal-links.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { startAccounts } from '../accounts/helpers.ts';
import type { Answer } from '../accounts/helpers.ts';
import { Browser, PASSWORD, startConsole } from './harness.ts';

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** Asserts `answer` is the console's error page with `status` and `code`, and answers its text. */
function errorPage(answer: Answer, status: number, code?: string): string {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(answer.text, /<main id="main"/, 'in the console layout');
  assert.match(answer.text, /<a href="[^"]*">Go back<\/a>/);
  if (code) assert.match(answer.text, new RegExp(`data-code="${code}"`));
  return answer.text;
}

describe('console error pages', () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let acme: string;
  const signedIn = async (role: string) => {
    const user = await app.user({ role, owner: role === 'admin' ? null : 'acme' });
    const browser = new Browser(app.base);
    const csrf = await browser.signIn(user.email);
    return { browser, csrf };
  };
  const portal = async (role: 'member' | 'viewer') => {
    const link = await createPortalLink(app.web.accounts, OPERATOR, { owner: 'acme', role });
    const browser = new Browser(app.base);
    const landing = await browser.request('GET', `/portal?token=${encodeURIComponent(link.token)}`);
    const answer = await browser.request('POST', '/portal', {
      form: { _csrf: landing.body.csrfToken, token: link.token },
    });
    assert.equal(answer.status, 303, answer.text);
    const page = await browser.request('GET', '/');
    return { browser, csrf: page.body.csrfToken as string };
  };

  before(async () => {
    app = await startConsole();
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    acme = (await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/acme', events: ['*'], owner: 'acme' }))
      .id;
  });
  after(() => app.close());

  it('a page whose operation the role may not run is the 403 error page saying so, not its form', async () => {
    const viewer = await signedIn('viewer');
    const member = await signedIn('member');
    const portalViewer = await portal('viewer');
    const cases: [Browser, string, RegExp][] = [
      [viewer.browser, '/endpoints/new', /a viewer may not register an endpoint/],
      [viewer.browser, '/events/new', /a viewer may not emit an event/],
      [portalViewer.browser, '/endpoints/new', /may not register an endpoint/],
      [portalViewer.browser, '/events/new', /may not emit an event/],
      [member.browser, '/users', /a member may not list users/],
      [member.browser, '/tenants', /a member may not list tenants/],
    ];
    for (const [browser, path, says] of cases) {
      const text = errorPage(await browser.request('GET', path, { headers: html }), 403, 'APP_FORBIDDEN');
      assert.match(text, says, path);
      assert.doesNotMatch(text, /<form[^>]+method="post"[^>]+action="\/(endpoints|events|users|tenants)/, path);
    }
    // roles that may still get the forms
    assert.equal((await member.browser.request('GET', '/endpoints/new', { headers: html })).status, 200);
    assert.equal((await (await portal('member')).browser.request('GET', '/events/new', { headers: html })).status, 200);
  });

  it('a refused form is the error page to a browser and problem+json to a JSON client', async () => {
    const viewer = await signedIn('viewer');
    const form = { _csrf: viewer.csrf, url: 'http://127.0.0.1:9/refused', events: '*' };
    const page = await viewer.browser.request('POST', '/endpoints', {
      form,
      headers: { ...html, referer: `${app.base}/` },
    });
    assert.match(errorPage(page, 403, 'APP_FORBIDDEN'), /<a href="\/">Go back<\/a>/);
    const json = await viewer.browser.request('POST', '/endpoints', { form, headers: { accept: 'application/json' } });
    assert.equal(json.status, 403);
    assert.match(json.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(json.body.code, 'APP_FORBIDDEN');
  });

  it('a CSRF refusal, a 405 and an unknown console path are error pages; the API keeps problem+json', async () => {
    const admin = await signedIn('admin');
    const stale = await admin.browser.request('POST', `/endpoints/${acme}/disable`, {
      form: { _csrf: 'not-the-token' },
      headers: html,
    });
    errorPage(stale, 403, 'APP_CSRF_INVALID');
    const get = await admin.browser.request('GET', `/endpoints/${acme}/rotate`, { headers: html });
    errorPage(get, 405, 'APP_METHOD_NOT_ALLOWED');
    assert.match(get.headers.get('allow') ?? '', /POST/);
    errorPage(await admin.browser.request('GET', '/no-such-console-page', { headers: html }), 404, 'APP_NOT_FOUND');
    const anonymous = await new Browser(app.base).request('GET', '/no-such-page', { headers: html });
    errorPage(anonymous, 404, 'APP_NOT_FOUND');
    // a page whose record is out of reach names its code the same way
    const gone = await admin.browser.request('GET', '/endpoints/ep_no_such_endpoint', { headers: html });
    assert.equal(gone.status, 404, gone.text);
    assert.match(gone.text, /data-code="APP_WEBHOOK_NOT_FOUND"/);

    // the link back: the page the browser came from on this site, never a path that leads elsewhere
    const back = async (method: string, referer: string) => {
      const answer = await admin.browser.request(method, method === 'GET' ? '/no-such-console-page' : '/endpoints', {
        headers: { ...html, referer },
        ...(method === 'POST' ? { form: { _csrf: 'not-the-token' } } : {}),
      });
      return /<a href="([^"]*)">Go back<\/a>/.exec(answer.text)?.[1];
    };
    assert.equal(await back('GET', `${app.base}/dead-letters?page=2`), '/dead-letters?page=2');
    assert.equal(await back('POST', `${app.base}/endpoints/new`), '/endpoints/new');
    assert.equal(await back('GET', 'https://elsewhere.example/endpoints'), '/', "another site's page");
    for (const method of ['GET', 'POST'])
      assert.equal(await back(method, `${app.base}//elsewhere.example/x`), '/', `${method}: //host leads off the site`);

    const json = await admin.browser.request('GET', '/no-such-console-page');
    assert.equal(json.status, 404);
    assert.match(json.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const api = await admin.browser.request('GET', '/api/v1/no-such-thing', { headers: html });
    assert.equal(api.status, 404);
    assert.match(api.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });
});

describe('console error pages: the sign-in limiter', () => {
  let app: Awaited<ReturnType<typeof startAccounts>>;
  before(async () => {
    app = await startAccounts({ rateLimit: { auth: { max: 2 } } });
  });

  it('a 429 on /login is the error page with Retry-After', async () => {
    const browser = new Browser(app.base);
    const user = await app.user({ role: 'admin' });
    let answer: Answer | undefined;
    for (let i = 0; i < 4; i += 1)
      answer = await browser.request('POST', '/login', {
        form: { email: user.email, password: PASSWORD },
        headers: html,
      });
    errorPage(answer as Answer, 429);
    assert.ok((answer as Answer).headers.get('retry-after'));
  });
});
