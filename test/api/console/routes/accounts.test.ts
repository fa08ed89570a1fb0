/**
 * The console's Tokens page (api/console/routes/accounts.ts) to a caller who may not mint: a
 * viewer gets no mint form and a sentence saying why (a viewer's token is minted by an admin),
 * where a member gets the form; a portal session, which has no user for a token to belong to,
 * has no Tokens page at all.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { createPortalLink } from '../../../../shared/accounts/portal-links.ts';
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
