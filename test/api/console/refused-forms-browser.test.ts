/**
 * A refused console form in real Chromium, as a keyboard and screen-reader user meets it: the
 * page opens with the focus on the error summary, whose reason leads to the control it names, and
 * that control is described by the reason; a form opened in an earlier session is refused with a
 * page whose "Go back" brings the form back with what it held, and sending it again acts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, BrowserContext, Page } from 'playwright-core';
import { PASSWORD } from '../accounts/helpers.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedContext, type Watch } from './chromium.ts';
import { startConsole } from './harness.ts';

const skip = chromiumMissing();

describe('a refused console form in Chromium', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let context: BrowserContext;
  let page: Page;
  let watch: Watch;
  let email: string;

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    ({ context, watch } = await watchedContext(chromium));
    page = await context.newPage();
    ({ email } = await app.user({ role: 'admin' }));
    await signIn(page, app.base, email);
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  const focused = () => page.evaluate('document.activeElement.id') as Promise<string>;

  it('opens on the error summary, whose reason leads to the control it describes', async () => {
    await page.goto(`${app.base}/endpoints/new`);
    await page.getByLabel('URL').fill('ftp://nope');
    await page.getByLabel('Events').fill('*');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(`${app.base}/endpoints`);
    assert.equal(await focused(), 'error-summary');
    // what a screen reader reads as the field's description: the elements aria-describedby names
    const description = (await page.evaluate(`document.getElementById('url').getAttribute('aria-describedby')
      .split(' ').map((id) => document.getElementById(id).textContent).join(' ')`)) as string;
    assert.match(description, /webhook url is not acceptable: scheme ftp is not allowed/);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    assert.equal(await focused(), 'url', 'the reason leads to its field');
    assert.equal(await page.getByLabel('URL').inputValue(), 'ftp://nope');
    await checkPage(page, watch);
  });

  it('a form of an earlier session: "Go back" brings it back as it was, and it can be sent', async () => {
    await page.goto(`${app.base}/endpoints/new`);
    await page.getByLabel('URL').fill('http://127.0.0.1:9/typed');
    await page.getByLabel('Events').fill('order.created');
    await page.getByLabel('Owner').fill('acme');
    // signed out and in again in another tab: the form's token is the ended session's
    const other = await context.newPage();
    await other.goto(`${app.base}/`);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.waitForURL(`${app.base}/login?signed-out=1`);
    await other.getByLabel('Email').fill(email);
    await other.getByLabel('Password').fill(PASSWORD);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.waitForURL(`${app.base}/`);
    await other.close();

    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(`${app.base}/endpoints`);
    assert.equal(await page.title(), 'The form was not sent · app');
    await checkPage(page, watch);
    await page.getByRole('link', { name: 'Go back' }).click();
    await page.waitForURL(`${app.base}/endpoints/new`);
    assert.equal(await page.getByLabel('URL').inputValue(), 'http://127.0.0.1:9/typed');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.locator('#secret').waitFor();
  });
});
