/**
 * An endpoint's URL runs to 2,048 characters. In the console's listings (the overview's
 * endpoints, the dead letters, Find) such a URL keeps its row to three lines in real Chromium,
 * while the link still holds the whole URL as its text (copied and read aloud whole) and its
 * title; the endpoint's own page shows it whole, in its heading.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { MAX_URL_LENGTH } from '../../../shared/webhooks/endpoints/fields.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { seedAttempts } from '../../helpers/attempt-history.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedPage, type Watch } from './chromium.ts';
import { startConsole } from './harness.ts';

const skip = chromiumMissing();
const PREFIX = 'http://127.0.0.1:9/hooks?token=';
const LONG_URL = `${PREFIX}${'a1b2c3d4e5'.repeat(Math.ceil(MAX_URL_LENGTH / 10))}`.slice(0, MAX_URL_LENGTH);

describe('a URL as long as an endpoint may have, in the console', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let page: Page;
  let watch: Watch;
  let endpointId = '';

  /** The link to the endpoint in the listing's table: its text, its title, and its height in lines. */
  const listed = (path: string) =>
    page.goto(`${app.base}${path}`).then(async () => {
      const link = page.locator(`td.url a[href="/endpoints/${endpointId}"]`).first();
      return link.evaluate((element) => {
        const style = element.ownerDocument.defaultView.getComputedStyle(element);
        return {
          text: element.textContent,
          title: element.getAttribute('title'),
          lines: element.getBoundingClientRect().height / Number.parseFloat(style.lineHeight),
        };
      });
    });

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    ({ page, watch } = await watchedPage(chromium));
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: LONG_URL, events: ['order.created'] });
    endpointId = endpoint.id;
    await seedAttempts(app.db.sql, endpoint, [[{ at: new Date(Date.now() - 60_000), outcome: 'dead', durationMs: 5 }]]);
    const admin = await app.user({ role: 'admin', email: 'long-urls@example.com' });
    await signIn(page, app.base, admin.email, '/');
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  it('keeps a listing row to three lines and the whole URL in the link', async () => {
    assert.equal(LONG_URL.length, MAX_URL_LENGTH);
    for (const path of ['/', '/dead-letters']) {
      const link = await listed(path);
      assert.equal(link.text, LONG_URL, `${path}: the link's text is the whole URL`);
      assert.equal(link.title, LONG_URL, `${path}: the link's title is the whole URL`);
      assert.ok(link.lines <= 3.5, `${path}: the URL takes ${link.lines.toFixed(1)} lines`);
      await checkPage(page, watch);
    }
  });

  it("shows the whole URL on the endpoint's own page", async () => {
    await page.goto(`${app.base}/endpoints/${endpointId}`);
    const heading = page.locator('h1');
    assert.equal(await heading.textContent(), `Endpoint ${LONG_URL}`);
    const lines = await heading.evaluate((element) => {
      const style = element.ownerDocument.defaultView.getComputedStyle(element);
      return element.getBoundingClientRect().height / Number.parseFloat(style.lineHeight);
    });
    assert.ok(lines > 5, `the URL runs over ${lines.toFixed(1)} lines, whole`);
    await checkPage(page, watch);
  });
});
