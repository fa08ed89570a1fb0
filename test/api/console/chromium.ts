/**
 * Real Chromium for the console's tests: playwright-core drives Debian's `chromium`
 * package (never a downloaded browser; `.ci/run` installs it), one browser per test file. Every
 * page a test opens is watched: console errors and warnings (the browser's own, such as a response
 * header it cannot parse, as well as the page's), Chromium's `[DOM]` notes on forms, uncaught exceptions, failed requests and Content
 * Security Policy violations are collected, and `checkPage` fails on any of them and on any
 * serious or critical axe-core finding (axe's source is evaluated from node_modules, never
 * injected as a script tag: the page's own CSP stays in force), and on a table cell that a style
 * lays out as something else than a cell.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PASSWORD } from '../accounts/helpers.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The Chromium binary: `CHROMIUM_PATH`, else Debian's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumMissing = (): string | false =>
  existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}: apt-get install chromium (as .ci/run does)`;

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/** Problems seen on a context's pages. */
export interface Watch {
  problems: string[];
}

/** A new context (its own cookies) whose pages report their problems into the returned watch; a desktop's screen unless told. */
export async function watchedContext(
  browser: Browser,
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; watch: Watch }> {
  const context = await browser.newContext({ viewport });
  const watch: Watch = { problems: [] };
  // runs before the page's own scripts, through the DevTools protocol (not subject to the CSP)
  await context.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (event) => console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline')));",
  });
  context.on('page', (page) => observe(page, watch));
  return { context, watch };
}

/** A page in a new watched context ({@link watchedContext}), with the watch its problems go into. */
export async function watchedPage(
  browser: Browser,
  viewport?: { width: number; height: number },
): Promise<{ page: Page; watch: Watch }> {
  const { context, watch } = await watchedContext(browser, viewport);
  return { page: await context.newPage(), watch };
}

function observe(page: Page, watch: Watch): void {
  page.on('console', (message) => {
    // Chromium's notes on a page's forms (a password form without a username field, say) come as
    // verbose messages
    if (message.text().startsWith('[DOM]')) {
      watch.problems.push(`chromium note on ${page.url()}: ${message.text()}`);
      return;
    }
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    // the browser's own note about a page answered 4xx (a test that opens a 404 page asserts the status itself)
    if (
      message.location().url === page.url() &&
      /^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())
    )
      return;
    watch.problems.push(`console ${message.type()} on ${page.url()}: ${message.text()}`);
  });
  page.on('response', (response) => {
    // a missing asset or a refused fetch of the page's own (a page answered 4xx is asserted by its test)
    if (response.status() >= 400 && response.request().resourceType() !== 'document')
      watch.problems.push(
        `answered ${response.status()} on ${page.url()}: ${response.request().method()} ${response.url()}`,
      );
  });
  page.on('pageerror', (error) => watch.problems.push(`uncaught on ${page.url()}: ${error.message}`));
  page.on('requestfailed', (request) => {
    // a navigation that replaces a page in flight aborts its pending fetch: not a fault
    if (request.failure()?.errorText !== 'net::ERR_ABORTED')
      watch.problems.push(`request failed on ${page.url()}: ${request.url()} ${request.failure()?.errorText}`);
  });
}

/**
 * The checks every console page must pass: a title, no console error, warning or CSP violation so far,
 * no serious or critical axe-core violation (WCAG 2.x A and AA rules, contrast included), and every
 * shown `td` and `th` laid out as a table cell (a class that makes a cell a flex box takes it out
 * of its row: its border and height no longer line up with the other cells').
 */
export async function checkPage(page: Page, watch: Watch): Promise<void> {
  assert.match(await page.title(), /\S · app$/, `${page.url()} has a title`);
  const notCells = (await page.evaluate(`[...document.querySelectorAll('td, th')]
    .filter((cell) => !['table-cell', 'none'].includes(getComputedStyle(cell).display))
    .map((cell) => cell.tagName.toLowerCase() + '.' + cell.className + ' (' + getComputedStyle(cell).display + ')')`)) as string[];
  assert.deepEqual(notCells, [], `the table cells of ${page.url()} are laid out as cells`);
  await page.evaluate(AXE_SOURCE);
  const found = (await page.evaluate(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((node) => JSON.stringify(node.target)) }));
  })()`)) as { id: string; impact: string; help: string; targets: string[] }[];
  const serious = found.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(serious, [], `axe on ${page.url()}`);
  assert.deepEqual(watch.problems, [], `browser problems up to ${page.url()}`);
}

/**
 * Signs `email` (a user made with the test password) in through the sign-in form at `path` (the
 * sign-in page itself, or a console page that sends there), and waits for the page it lands on.
 */
export async function signIn(page: Page, base: string, email: string, path = '/login', landing = '/'): Promise<void> {
  await page.goto(`${base}${path}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}${landing}`);
}
