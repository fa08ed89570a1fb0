/**
 * The console's Tokens page (api/console/routes/accounts.ts) to a caller who may not mint: a
 * viewer gets no mint form and a sentence saying why (a viewer's token is minted by an admin),
 * where a member gets the form; a portal session, which has no user for a token to belong to,
 * has no Tokens page at all. A token past its expiry, still listed until revoked, is marked expired
 * and the listing counts the tokens not revoked, never calling an expired one in use. The Tenants page's button that ends a tenant's portal sessions: what
 * it says it ended, and the ended sessions refused at their next request on every face.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { createPortalLink } from '../../../../shared/accounts/portal-links.ts';
import { createToken } from '../../../../shared/tokens/tokens.ts';
import { Browser, startAccounts, type Answer } from '../../accounts/helpers.ts';

const app = await startAccounts();

const tokensPageOf = async (browser: Browser): Promise<Answer> => {
  const page = await browser.request('GET', '/tokens', { html: true });
  assert.equal(page.status, 200, page.text);
  return page;
};

const refusalOf = (page: Answer) => /<p id="mint-refusal">([^<]*)<\/p>/.exec(page.text)?.[1];

async function signedIn(role: 'member' | 'viewer'): Promise<Browser> {
  const user = await app.user({ role, owner: 'acme' });
  const browser = new Browser(app.base);
  await browser.signIn(user.email);
  return browser;
}

describe('the Tokens page to a caller who may not mint', () => {
  it('a viewer: no mint form, and a sentence saying an admin mints its token', async () => {
    const page = await tokensPageOf(await signedIn('viewer'));
    assert.doesNotMatch(page.text, /<h2>Mint a token<\/h2>/);
    assert.equal(refusalOf(page), 'A viewer mints no tokens: an admin mints a viewer token for you.');
  });

  it('a portal session: no Tokens page (403) and no Tokens in its navigation', async () => {
    const { token } = await createPortalLink(app.accounts, OPERATOR, { owner: 'acme', role: 'member' });
    const browser = new Browser(app.base);
    const landing = await browser.request('GET', `/portal?token=${encodeURIComponent(token)}`);
    const started = await browser.request('POST', '/portal', { json: { _csrf: landing.body.csrfToken, token } });
    assert.equal(started.status, 200, started.text);
    const page = await browser.request('GET', '/tokens', { html: true });
    assert.equal(page.status, 403, page.text);
    const home = await browser.request('GET', '/', { html: true });
    assert.equal(home.status, 200, home.text);
    assert.doesNotMatch(home.text, /href="\/tokens"/);
  });

  it('a member: the mint form, and no such sentence', async () => {
    const page = await tokensPageOf(await signedIn('member'));
    assert.match(page.text, /<h2>Mint a token<\/h2>/);
    assert.equal(refusalOf(page), undefined);
  });
});

describe('the Tokens page and expired tokens', () => {
  it('marks a token past its expiry as expired, and counts the tokens not revoked without calling them in use', async () => {
    const deps = { sql: app.db.sql, log: app.db.log };
    await createToken(deps, { name: 'the nightly export', role: 'viewer', owner: 'acme' });
    const lapsed = await createToken(deps, {
      name: 'the yearly audit',
      role: 'viewer',
      owner: 'acme',
      expiresInMs: 60_000,
    });
    await app.db.sql`update app_api_tokens set expires_at = now() - interval '1 day' where id = ${lapsed.id}`;
    const browser = new Browser(app.base);
    await browser.signIn((await app.user({ role: 'admin' })).email);
    const page = await tokensPageOf(browser);
    const row = (name: string) => new RegExp(`<tr><td>${name}</td>[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? '';
    assert.match(row('the yearly audit'), /<td><strong>expired<\/strong> \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/td>/);
    assert.doesNotMatch(row('the nightly export'), /expired/);
    assert.match(page.text, /<caption id="tokens-caption">\d+ tokens not revoked<\/caption>/);
    assert.doesNotMatch(page.text, /in use/);
  });
});

describe("the Tenants page ends a tenant's portal sessions", () => {
  /** A browser signed in through a portal link of `owner`, with its CSRF token. */
  async function portal(owner: string): Promise<{ browser: Browser; csrf: string }> {
    const { token } = await createPortalLink(app.accounts, OPERATOR, { owner, role: 'member' });
    const browser = new Browser(app.base);
    const landing = await browser.request('GET', `/portal?token=${encodeURIComponent(token)}`);
    const started = await browser.request('POST', '/portal', { json: { _csrf: landing.body.csrfToken, token } });
    assert.equal(started.status, 200, started.text);
    return { browser, csrf: started.body.csrfToken as string };
  }

  /** The status and code of a REST read and a GraphQL query, and a console page's answer, asked with a caller's cookie. */
  async function faces({ browser, csrf }: { browser: Browser; csrf: string }) {
    const rest = await browser.request('GET', '/api/v1/webhooks');
    const gql = await browser.request('POST', '/_app/gql', {
      json: { query: '{ webhookEndpoints { total } }' },
      headers: { 'x-csrf-token': csrf },
    });
    const page = await browser.request('GET', '/', { html: true });
    return {
      rest: [rest.status, rest.body?.code],
      // a GraphQL answer carries the refusal in its error's extensions
      graphql: [gql.body?.errors?.[0]?.extensions?.status ?? gql.status, gql.body?.errors?.[0]?.extensions?.code],
      page: [page.status, page.headers.get('location')],
    };
  }

  it('the button of a tenant ends its portal sessions and unopened links, says so, and leaves the rest', async () => {
    const owner = 'globex';
    const admin = new Browser(app.base);
    await admin.signIn((await app.user({ role: 'admin' })).email);
    const member = new Browser(app.base);
    const memberCsrf = await member.signIn((await app.user({ role: 'member', owner })).email);
    const ended = [await portal(owner), await portal(owner)];
    const other = await portal('initech');
    const unopened = await createPortalLink(app.accounts, OPERATOR, { owner, role: 'viewer' });
    for (const caller of ended) assert.deepEqual((await faces(caller)).rest, [200, undefined], 'signed in before');

    const tenants = await admin.request('GET', '/tenants', { html: true });
    const button = new RegExp(
      `<form [^>]*action="/tenants/portal-end"><input type="hidden" name="_csrf" value="([^"]+)"><input type="hidden" name="owner" value="${owner}"><label[^>]*><input type="checkbox" name="links" value="true" checked`,
    ).exec(tenants.text);
    assert.ok(button, 'a button on the row of the tenant');
    const sent = await admin.request('POST', '/tenants/portal-end', {
      form: { _csrf: button[1], owner, links: 'true' },
    });
    assert.equal(sent.status, 303, sent.text);
    const location = sent.headers.get('location') ?? '';
    assert.equal(location, `/tenants?done=portal-ended&owner=${owner}&sessions=2&links=1`);
    const shown = await admin.request('GET', location, { html: true });
    assert.match(
      shown.text,
      /<p class="notice" role="status">2 portal sessions of globex ended: signed out at their next request\. 1 unopened portal link is spent\.<\/p>/,
    );

    for (const caller of ended)
      assert.deepEqual(await faces(caller), {
        rest: [401, 'APP_UNAUTHENTICATED'],
        graphql: [401, 'APP_UNAUTHENTICATED'],
        page: [302, '/login?next=%2F'],
      });
    const form = await ended[0].browser.request('POST', '/events', {
      form: { _csrf: ended[0].csrf, type: 'order.paid', data: '{}' },
      headers: { referer: `${app.base}/events/new` },
    });
    assert.equal(form.status, 303, 'a form of the ended session did nothing');
    assert.equal(form.headers.get('location'), '/login?next=%2Fevents%2Fnew&ended=1');
    const landing = await new Browser(app.base).request('GET', `/portal?token=${unopened.token}`);
    assert.equal(landing.body.data.usable, false, 'the unopened link signs nobody in');

    assert.deepEqual((await faces(other)).rest, [200, undefined], "another tenant's portal goes on");
    assert.deepEqual(
      (await faces({ browser: member, csrf: memberCsrf })).rest,
      [200, undefined],
      "the tenant's users keep their sessions",
    );
  });

  it('without the box ticked, unopened links keep working, and the page says nothing of links', async () => {
    const owner = 'hooli';
    const admin = new Browser(app.base);
    const csrf = await admin.signIn((await app.user({ role: 'admin' })).email);
    const caller = await portal(owner);
    const unopened = await createPortalLink(app.accounts, OPERATOR, { owner, role: 'member' });
    const sent = await admin.request('POST', '/tenants/portal-end', { form: { _csrf: csrf, owner } });
    assert.equal(sent.headers.get('location'), `/tenants?done=portal-ended&owner=${owner}&sessions=1`);
    const shown = await admin.request('GET', sent.headers.get('location') ?? '', { html: true });
    assert.match(shown.text, /1 portal session of hooli ended: signed out at their next request\.<\/p>/);
    assert.deepEqual((await faces(caller)).rest, [401, 'APP_UNAUTHENTICATED']);
    const landing = await new Browser(app.base).request('GET', `/portal?token=${unopened.token}`);
    assert.equal(landing.body.data.usable, true, 'the unopened link still signs in');
  });
});
