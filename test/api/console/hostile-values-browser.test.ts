/**
 * In real Chromium, with no Content Security Policy to stop what escaping let through (`helmet:
 * false`), no hostile value runs on the console's pages: the script and handler of
 * {@link HOSTILE} never set their flag, and the value reads as text, in the page and in the
 * form fields that hold it (a filter, a description: `</textarea>` does not end them).
 * test/api/console/hostile-values.test.ts checks the HTML of every page; this shows the browser
 * agrees on the pages that hold the most of it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { chromiumMissing, launch, signIn, watchedPage } from './chromium.ts';
import { HOSTILE, hostileConsole } from './hostile.ts';

const skip = chromiumMissing();

describe('hostile values in Chromium without a CSP', { skip }, () => {
  let hostile: Awaited<ReturnType<typeof hostileConsole>>;
  let chromium: Chromium;
  let page: Page;

  /** Opens `path`, its closed parts too, and asserts nothing of the hostile value ran and its text is shown. */
  const visit = async (path: string) => {
    const answer = await page.goto(`${hostile.app.base}${path}`);
    assert.equal(answer?.headers()['content-security-policy'], undefined, 'no CSP: escaping alone keeps the page safe');
    await page.evaluate("for (const details of document.querySelectorAll('details')) details.open = true");
    assert.equal(await page.evaluate('window.__hostile'), undefined, `${path}: nothing of the hostile value ran`);
    assert.equal(await page.locator('main script, main img').count(), 0, `${path}: no element of it`);
    assert.ok(
      ((await page.locator('main').textContent()) ?? '').includes(HOSTILE),
      `${path}: the hostile value shown as text`,
    );
  };

  before(async () => {
    [hostile, chromium] = await Promise.all([hostileConsole({ helmet: false }), launch()]);
    ({ page } = await watchedPage(chromium));
    await signIn(page, hostile.app.base, hostile.admin.email, '/');
  });
  after(async () => {
    await chromium?.close();
    await hostile?.close();
  });

  it("a hostile receiver's answer, an endpoint's settings, an event and its type, tokens, users and tenants", async () => {
    await visit(`/deliveries/${hostile.deliveryId}`);
    await visit(`/endpoints/${hostile.endpointId}`);
    assert.equal(await page.locator('#description').inputValue(), HOSTILE, 'the description field holds it whole');
    assert.match(await page.locator('#filter').inputValue(), /<\/textarea>/, 'the filter field holds its </textarea>');
    await visit(`/find?q=${hostile.eventId}`);
    await visit('/event-types/order.created');
    assert.equal(await page.locator('#description').inputValue(), HOSTILE);
    for (const path of ['/tokens', '/users', '/tenants', `/find?q=${encodeURIComponent(HOSTILE)}`]) await visit(path);
  });
});
