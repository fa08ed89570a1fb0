/**
 * A console form sent again from real Chromium acts once (api/console/form-once.ts): registering
 * an endpoint, going back to the form (the browser fetches the page anew: pages are `no-store`)
 * and sending it again answers the first registration, whose page then says its secret was shown.
 * (Chromium sends a double-clicked form once; two sendings at once are test/api/console/resubmit.test.ts's.)
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { checkPage, chromiumMissing, launch, signIn, watchedPage, type Watch } from './chromium.ts';
import { startConsole } from './harness.ts';

const skip = chromiumMissing();

describe('a console form sent again from Chromium', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let page: Page;
  let watch: Watch;
  /** Bodies of the register form's POSTs, as the browser sent them. */
  const sent: string[] = [];

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    ({ page, watch } = await watchedPage(chromium));
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/endpoints')
        sent.push(request.postData() ?? '');
    });
    const admin = await app.user({ role: 'admin' });
    await signIn(page, app.base, admin.email);
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  const endpoints = async (url: string) =>
    Number((await app.db.sql`SELECT count(*)::int AS n FROM app_webhooks WHERE url = ${url}`)[0].n);
  const formKey = (body: string) => (new URLSearchParams(body).get('_csrf') ?? '').split('.')[2];
  const fillRegister = async (url: string) => {
    await page.getByLabel('URL').fill(url);
    await page.getByLabel('Events').fill('*');
    await page.getByLabel('Owner').fill('acme');
  };

  it('registers, goes back, sends the form again: one endpoint, and the page says the secret was shown', async () => {
    const url = `http://127.0.0.1:9/back-${randomUUID()}`;
    await page.goto(`${app.base}/endpoints/new`);
    await fillRegister(url);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/endpoints\/ep_[^/]+\/created$/);
    assert.match((await page.locator('#secret').textContent()) ?? '', /^whsec_/);
    const created = page.url();

    await page.goBack();
    await page.waitForURL(`${app.base}/endpoints/new`);
    assert.equal(await page.getByLabel('URL').inputValue(), url, 'the browser shows the form as it was sent');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/endpoints\/ep_[^/]+\?done=secret-shown$/);
    assert.equal(new URL(page.url()).pathname, new URL(created).pathname.replace(/\/created$/, ''));
    assert.match((await page.locator('.notice').textContent()) ?? '', /was shown once.*rotate the secret/);
    await checkPage(page, watch);

    assert.equal(sent.length, 2);
    assert.ok(formKey(sent[0]), 'the form carries a key');
    assert.equal(formKey(sent[1]), formKey(sent[0]), 'sent again with the key it was first sent with');
    assert.equal(await endpoints(url), 1);
  });
});
