/**
 * Every console page a user reaches by following the console's own links, in real Chromium, as an
 * admin and as a viewer: each has one main heading, which its title names, and passes the
 * console's checks (chromium.ts: labelled controls, buttons with text, axe-core); and every link
 * of this site on it leads to a page a browser is shown (HTML, not an error nor a JSON answer),
 * so no link says a place is there that is not (a viewer's links included: none leads to a page
 * its role is refused).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { seedAttempts } from '../../helpers/attempt-history.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedPage } from './chromium.ts';
import { startConsole } from './harness.ts';

const skip = chromiumMissing();
const OWNER = 'acme';
/** What a browser asks for when it follows a link. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
/** How many pages one walk opens at most (the links of each are all checked). */
const MOST_PAGES = 40;

describe('every page the console links to, in Chromium', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['order.*'],
      owner: OWNER,
      description: 'Orders',
    });
    const now = Date.now();
    const at = (minutes: number, outcome: 'done' | 'retry' | 'dead') => ({
      at: new Date(now - minutes * 60_000),
      outcome,
      durationMs: 80,
    });
    await seedAttempts(app.db.sql, endpoint, [[at(50, 'retry'), at(45, 'dead')], [at(30, 'done')]]);
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  /**
   * Opens the overview signed in as `role` and every page its links lead to (up to MOST_PAGES),
   * checking each; answers the links that lead nowhere a browser is shown, as `page → link: why`.
   */
  async function walk(role: 'admin' | 'viewer'): Promise<{ pages: string[]; dead: string[] }> {
    const user = await app.user({ role, owner: role === 'admin' ? null : OWNER });
    const { page, watch } = await watchedPage(chromium);
    await signIn(page, app.base, user.email, '/');
    const queue = ['/'];
    const opened = new Set<string>();
    const answers = new Map<string, string>();
    const dead: string[] = [];
    try {
      while (queue.length > 0 && opened.size < MOST_PAGES) {
        const path = queue.shift() as string;
        if (opened.has(path)) continue;
        opened.add(path);
        const answer = await page.goto(`${app.base}${path}`);
        assert.equal(answer?.status(), 200, path);
        await checkHeadings(page, path);
        await checkPage(page, watch);
        for (const link of await sameSiteLinks(page)) {
          if (!answers.has(link)) answers.set(link, await shownToBrowser(page, link));
          const why = answers.get(link);
          if (why) dead.push(`${path} → ${link}: ${why}`);
          else if (!opened.has(link)) queue.push(link);
        }
      }
    } finally {
      await page.context().close();
    }
    return { pages: [...opened], dead };
  }

  /** One main heading, not empty, which the page's title names. */
  async function checkHeadings(page: Page, path: string): Promise<void> {
    const headings = await page.locator('h1').allTextContents();
    assert.equal(headings.length, 1, `${path} has one h1: ${JSON.stringify(headings)}`);
    const heading = headings[0].trim();
    assert.ok(heading.length > 0, `${path}: its h1 says something`);
    const title = (await page.title()).replace(/ · app$/, '');
    assert.ok(heading.startsWith(title.replace(/…$/, '')), `${path}: the title "${title}" names the h1 "${heading}"`);
  }

  /** The paths (with their query) of the page's links to this site, fragments dropped. */
  const sameSiteLinks = (page: Page): Promise<string[]> =>
    page.evaluate(`[...document.querySelectorAll('a[href]')]
      .map((link) => new URL(link.href))
      .filter((url) => url.origin === location.origin)
      .map((url) => url.pathname + url.search)`) as Promise<string[]>;

  /** '' when a browser following `link` is shown a page (HTML, under 400), else what it gets. */
  async function shownToBrowser(page: Page, link: string): Promise<string> {
    const answer = await page.request.get(`${app.base}${link}`, { headers: { accept: BROWSER_ACCEPT } });
    const type = answer.headers()['content-type'] ?? '';
    if (answer.status() >= 400) return `${answer.status()} ${type}`;
    return type.startsWith('text/html') ? '' : `${answer.status()} ${type}`;
  }

  it('as an admin: every page has its heading and passes the checks, and every link leads to a page', async () => {
    const { pages, dead } = await walk('admin');
    assert.deepEqual(dead, []);
    // the walk reached the console's pages, not the overview alone
    for (const path of [
      '/dead-letters',
      '/find',
      '/events/new',
      '/event-types',
      '/tokens',
      '/users',
      '/tenants',
      '/account',
    ])
      assert.ok(pages.includes(path), `${path} among ${pages.join(' ')}`);
    assert.ok(
      pages.some((path) => path.startsWith('/deliveries/')),
      'a delivery page',
    );
  });

  it("as a viewer: the same, and no link leads to a page the viewer's role is refused", async () => {
    const { pages, dead } = await walk('viewer');
    assert.deepEqual(dead, []);
    assert.ok(
      pages.some((path) => path.startsWith('/endpoints/')),
      'an endpoint page',
    );
  });
});
