/**
 * What a browser is answered when a console form is refused (docs/accounts-and-console.md
 * "Console"): the controls the reasons name are marked invalid and described by them, and the
 * summary links each reason to its control; a form sent after its session ended leads to the
 * sign-in page, which says so, and back to the form's page; a form opened in an earlier session is
 * the error page saying it was not sent and why; a refused portal-link form keeps what was typed;
 * a page named by a long URL has a short title.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { Browser, startConsole } from './harness.ts';
import { PASSWORD } from '../accounts/helpers.ts';

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** The opening tag of the control with `id` in `page`. */
const control = (page: string, id: string): string => {
  const tag = new RegExp(`<(input|textarea|select)\\b[^>]*\\bid="${id}"[^>]*>`).exec(page)?.[0];
  assert.ok(tag, `a control #${id}`);
  return tag;
};

describe('refused console forms', () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let endpointId: string;
  let admin: { email: string };
  /** A browser signed in as the admin, and the token of its session. */
  const signedIn = async () => {
    const browser = new Browser(app.base);
    return { browser, csrf: await browser.signIn(admin.email) };
  };

  before(async () => {
    app = await startConsole();
    admin = await app.user({ role: 'admin' });
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    endpointId = (await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/a', events: ['*'], owner: 'acme' }))
      .id;
  });
  after(() => app.close());

  it('marks the controls a refusal names, described by its reason, which links to the control', async () => {
    const { browser, csrf } = await signedIn();
    const register = await browser.request('POST', '/endpoints', {
      form: { _csrf: csrf, url: 'ftp://nope', events: '*', description: 'kept' },
      headers: html,
    });
    assert.equal(register.status, 422, register.text);
    assert.match(control(register.text, 'url'), /aria-invalid="true" aria-describedby="error-0"/);
    assert.doesNotMatch(control(register.text, 'events'), /aria-invalid/);
    assert.match(register.text, /<li id="error-0"><a href="#url">webhook url is not acceptable/);
    assert.match(register.text, /<div id="error-summary"[^>]* tabindex="-1" autofocus>/, 'the summary takes the focus');

    // the endpoint page has two fields named data-ish and filter: the form that was sent is the one marked
    const test = await browser.request('POST', `/endpoints/${endpointId}/test`, {
      form: { _csrf: csrf, type: 'webhook.test', data: '{not json' },
      headers: html,
    });
    assert.equal(test.status, 400, test.text);
    assert.match(control(test.text, 'test-data'), /aria-invalid="true" aria-describedby="error-0"/);
    for (const other of ['try-sample', 'filter', 'try-filter-text'])
      assert.doesNotMatch(control(test.text, other), /aria-invalid/, other);
    assert.match(test.text, /<a href="#test-data">/);

    // a reason that names no field is in the summary, linked to nothing
    const login = await new Browser(app.base).request('POST', '/login', {
      form: { email: admin.email, password: 'not the password at all' },
      headers: html,
    });
    assert.equal(login.status, 401, login.text);
    assert.match(login.text, /<li id="error-0">the email or the password is wrong/);
    assert.doesNotMatch(login.text, /aria-invalid/);
  });

  it('keeps what a refused portal-link form held', async () => {
    const { browser, csrf } = await signedIn();
    const refused = await browser.request('POST', '/tenants/portal-link', {
      form: { _csrf: csrf, owner: 'x'.repeat(300), role: 'viewer' },
      headers: html,
    });
    assert.equal(refused.status, 422, refused.text);
    assert.match(control(refused.text, 'portal-owner'), new RegExp(`value="${'x'.repeat(300)}"`));
    assert.match(control(refused.text, 'portal-owner'), /aria-invalid="true"/);
    assert.match(refused.text, /<option value="viewer" selected>/);
  });

  it('a form sent after its session ended: the sign-in page says so, then leads back to the form’s page', async () => {
    const { browser, csrf } = await signedIn();
    const page = `/endpoints/${endpointId}`;
    assert.equal(
      (await browser.request('POST', '/logout', { json: {}, headers: { 'x-csrf-token': csrf } })).status,
      204,
    );
    const sent = await browser.request('POST', `${page}/test`, {
      form: { _csrf: csrf, type: 'webhook.test', data: '{}' },
      headers: { ...html, referer: `${app.base}${page}?window=hour` },
    });
    assert.equal(sent.status, 303, sent.text);
    const location = sent.headers.get('location') ?? '';
    assert.equal(location, `/login?next=${encodeURIComponent(`${page}?window=hour`)}&ended=1`);
    const login = await browser.request('GET', location, { headers: html });
    assert.match(login.text, /You were signed out before the form was sent/);
    assert.match(login.text, new RegExp(`name="next" value="${page}\\?window=hour"`));
    const back = await browser.request('POST', '/login', {
      form: { email: admin.email, password: PASSWORD, next: `${page}?window=hour` },
      headers: html,
    });
    assert.equal(back.headers.get('location'), `${page}?window=hour`, 'the form’s page, which a GET answers');
    // a form sent from no page of this site leads to the overview
    const stranger = new Browser(app.base);
    const blind = await stranger.request('POST', `${page}/test`, { form: { type: 'x' }, headers: html });
    assert.equal(blind.headers.get('location'), '/login?next=%2F&ended=1');
    // a page opened signed out still comes back to itself, and says nothing of a form
    const opened = await stranger.request('GET', page, { headers: html });
    assert.equal(opened.headers.get('location'), `/login?next=${encodeURIComponent(page)}`);
  });

  it('a form opened in an earlier session is refused with a page saying it was not sent and why', async () => {
    const first = await signedIn();
    // signing in again (another tab) starts a new session in place of the first
    const again = await first.browser.request('POST', '/login', { json: { email: admin.email, password: PASSWORD } });
    assert.equal(again.status, 200, again.text);
    const stale = await first.browser.request('POST', `/endpoints/${endpointId}/disable`, {
      form: { _csrf: first.csrf },
      headers: { ...html, referer: `${app.base}/endpoints/${endpointId}` },
    });
    assert.equal(stale.status, 403, stale.text);
    assert.match(stale.text, /<title>The form was not sent · app<\/title>/);
    assert.match(stale.text, /this form was opened in an earlier session/);
    assert.match(stale.text, /<p data-history-back><a href="\/endpoints\/[^"]+">Go back<\/a>/);
    // a script that sends the header keeps the plain reason
    const header = await first.browser.request('POST', `/endpoints/${endpointId}/disable`, {
      json: {},
      headers: { 'x-csrf-token': first.csrf },
    });
    assert.equal(header.status, 403);
    assert.match(header.body.detail, /^cross-site request refused: the CSRF token is not valid for this session/);
  });

  it('names an endpoint of a 2,000-character URL in a short page title, and in full in its heading', async () => {
    const url = `http://127.0.0.1:9/${'p'.repeat(1980)}`;
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const long = await registerEndpoint(deps, OPERATOR, { url, events: ['*'], owner: 'acme' });
    const { browser } = await signedIn();
    const page = await browser.request('GET', `/endpoints/${long.id}`, { headers: html });
    const title = /<title>([^<]*)<\/title>/.exec(page.text)?.[1] ?? '';
    assert.match(title, /^Endpoint http:\/\/127\.0\.0\.1:9\/p+… · app$/);
    assert.equal(Array.from(title.replace(/ · app$/, '')).length, 80);
    assert.match(page.text, new RegExp(`<h1>Endpoint ${url}</h1>`));
  });
});
