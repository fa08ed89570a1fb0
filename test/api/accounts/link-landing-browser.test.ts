/**
 * Single-use links in real Chromium (test/api/console/chromium.ts): a set-password link and a
 * portal link opened in a browser end on their page without the token, no entry of the tab's
 * history holds it (read through the DevTools protocol, and by going back), and their forms work
 * from the link cookie.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createPasswordLink, passwordLinkUrl } from '../../../shared/accounts/password-links.ts';
import { createPortalLink, portalLinkUrl } from '../../../shared/accounts/portal-links.ts';
import { checkPage, chromiumMissing, launch, watchedContext } from '../console/chromium.ts';
import { Browser, startAccounts } from './helpers.ts';

const skip = chromiumMissing();

/** The URLs of every entry of the tab's history. */
async function history(page: Page): Promise<string[]> {
  const session = await page.context().newCDPSession(page);
  const { entries } = (await session.send('Page.getNavigationHistory')) as { entries: { url: string }[] };
  await session.detach();
  return entries.map((entry) => entry.url);
}

describe('single-use links in a browser', { skip }, () => {
  let app: Awaited<ReturnType<typeof startAccounts>>;
  let chromium: Chromium;

  before(async () => {
    app = await startAccounts();
    chromium = await launch();
  });
  after(async () => {
    await chromium?.close();
  });

  it('a set-password link ends on /reset-password without its token, in the address bar and the history; its form works', async () => {
    const user = await app.user({ role: 'member', owner: 'acme' });
    const { token } = await createPasswordLink(app.accounts, user.id, 'invite');
    const { context, watch } = await watchedContext(chromium);
    const page = await context.newPage();
    await page.goto(passwordLinkUrl(app.base, token));
    assert.equal(page.url(), `${app.base}/reset-password`);
    // the form names its account, so a password manager files the new password under it
    assert.equal(await page.getByLabel('Account').inputValue(), user.email);
    assert.equal(await page.getByLabel('Account').getAttribute('autocomplete'), 'username');
    assert.ok(!(await page.content()).includes(token), 'the page does not carry the token');
    await checkPage(page, watch); // Chromium's notes included: none on the password form
    await page.getByLabel(/New password/).fill('a browser chosen passphrase');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByText('Your password is set: sign in with it.').waitFor();
    const entries = await history(page);
    assert.ok(entries.some((url) => url === `${app.base}/reset-password`));
    assert.deepEqual(
      entries.filter((url) => url.includes('token')),
      [],
      `no history entry holds the token: ${entries.join(' ')}`,
    );
    await page.goBack();
    assert.equal(page.url(), `${app.base}/reset-password`, 'going back finds the page without the token');
    assert.deepEqual(
      (await context.cookies()).filter((cookie) => cookie.value === token),
      [],
      'the spent token is not kept',
    );
    await context.close();
    await new Browser(app.base).signIn(user.email, 'a browser chosen passphrase');
  });

  it('a portal link ends on /portal without its token; its button signs in and the history never held the token', async () => {
    const link = await createPortalLink(app.accounts, OPERATOR, { owner: 'acme', role: 'viewer' });
    const { context, watch } = await watchedContext(chromium);
    const page = await context.newPage();
    await page.goto(portalLinkUrl(app.base, link.token));
    assert.equal(page.url(), `${app.base}/portal`);
    assert.ok(!(await page.content()).includes(link.token));
    await checkPage(page, watch);
    await page.getByRole('button', { name: 'Continue to the console' }).click();
    await page.waitForURL(`${app.base}/`);
    await page.getByText('Portal of acme').waitFor();
    const entries = await history(page);
    assert.deepEqual(
      entries.filter((url) => url.includes('token')),
      [],
      `no history entry holds the token: ${entries.join(' ')}`,
    );
    await page.goBack();
    assert.equal(page.url(), `${app.base}/portal`);
    await context.close();
  });
});
