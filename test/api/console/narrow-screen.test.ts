/**
 * The console on a phone (390 x 844 CSS pixels) in real Chromium, over records made as wide as
 * they come (long URLs, owners, emails, event types and errors): no page scrolls sideways; a table
 * wider than the screen scrolls inside its own box, which is named and reachable from the keyboard
 * (the arrow keys scroll it); every page passes the console's checks (axe-core included) at that
 * width. The signed-out pages, the portal's and a portal session's are checked too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { createPortalLink } from '../../../shared/accounts/portal-links.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { seedAttempts } from '../../helpers/attempt-history.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedContext, watchedPage, type Watch } from './chromium.ts';
import { SIGNED_OUT_PAGES, startConsole } from './harness.ts';

const skip = chromiumMissing();
const PHONE = { width: 390, height: 844 };
const OWNER = 'northwind-logistics-international-holdings';
const TYPE = 'order.fulfilment.warehouse.shipment.created';
const URL_PATH = `/webhooks/receivers/${'northern-warehouses-'.repeat(4)}shipments?signature=${'0123456789abcdef'.repeat(3)}`;
const ERROR = `connect ECONNREFUSED 127.0.0.1:9 while sending to the receiver of ${OWNER}`;

/** What a page's tables and their boxes look like at this width. */
interface TableBox {
  caption: string;
  /** The table's scrolling box: role="region", its name, its tabindex, whether it scrolls now. */
  region: boolean;
  name: string;
  tabIndex: number | null;
  overflowX: string | null;
  scrolls: boolean;
}

describe('the console on a 390 px wide screen', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let page: Page;
  let watch: Watch;
  let endpointId = '';
  let deliveryId = '';
  let eventId = '';

  /** The page never scrolls sideways: its content is no wider than the screen. */
  const fits = async (target: Page) => {
    const { scrollWidth, innerWidth, past } = await target.locator('html').evaluate((html) => {
      const screen = html.ownerDocument.defaultView;
      return {
        scrollWidth: html.scrollWidth,
        innerWidth: screen.innerWidth,
        // what reaches past the screen's right edge, to name in a failure
        past: [...html.ownerDocument.body.querySelectorAll('*')]
          .filter((element) => element.getBoundingClientRect().right > screen.innerWidth + 0.5)
          .slice(-5)
          .map(
            (element) => `${element.tagName.toLowerCase()}.${element.className} ${element.textContent.slice(0, 40)}`,
          ),
      };
    });
    assert.equal(innerWidth, PHONE.width);
    assert.ok(
      scrollWidth <= innerWidth,
      `${target.url()} is ${scrollWidth} px wide on a ${innerWidth} px screen: ${past.join(' | ')}`,
    );
  };

  /** Every visible table (closed `<details>` opened first) with its box. */
  const tableBoxes = (target: Page): Promise<TableBox[]> =>
    target.locator('html').evaluate((html) => {
      const document = html.ownerDocument;
      for (const details of document.querySelectorAll('details')) details.open = true;
      return [...document.querySelectorAll('table')]
        .filter((table) => table.checkVisibility())
        .map((table) => {
          const box = table.parentElement.closest('[role="region"]');
          const labelledBy: string = box?.getAttribute('aria-labelledby') ?? '';
          const name: string =
            box?.getAttribute('aria-label') ??
            labelledBy
              .split(/\s+/)
              .map((id) => document.getElementById(id)?.textContent ?? '')
              .join(' ');
          return {
            caption: table.caption?.textContent ?? '',
            region: box !== null,
            name: name.trim(),
            tabIndex: box ? box.tabIndex : null,
            overflowX: box ? document.defaultView.getComputedStyle(box).overflowX : null,
            scrolls: box !== null && box.scrollWidth > box.clientWidth,
          };
        });
    });

  /**
   * The checks of a page at this width: it fits; each table is in a named box of its own, in the
   * tab order, that scrolls sideways when the table is wider; the table captioned `wide` is (its
   * box scrolls, and the arrow keys scroll it once it has the focus); the console's own checks
   * (axe-core).
   */
  const checkNarrow = async (target: Page, targetWatch: Watch, wide?: RegExp) => {
    const boxes = await tableBoxes(target);
    await fits(target);
    for (const box of boxes) {
      assert.ok(box.region, `${target.url()}: the table "${box.caption}" is in a box of its own`);
      assert.ok(box.name.length > 0, `${target.url()}: the box of "${box.caption}" is named`);
      assert.equal(box.tabIndex, 0, `${target.url()}: the box of "${box.caption}" is in the tab order`);
      assert.match(box.overflowX ?? '', /^(auto|scroll)$/, `${target.url()}: the box of "${box.caption}" scrolls`);
    }
    if (wide) {
      assert.ok(
        boxes.some((box) => wide.test(box.caption) && box.scrolls),
        `${target.url()}: the table ${wide} is wider than the screen and scrolls in its box: ${JSON.stringify(boxes)}`,
      );
      const box = target.locator('[role="region"]').filter({ has: target.locator('caption', { hasText: wide }) });
      await box.focus();
      assert.equal(await box.evaluate((element) => element === element.ownerDocument.activeElement), true);
      await target.keyboard.press('ArrowRight');
      await box.evaluate(
        (element) =>
          new Promise<void>((resolve) => {
            if (element.scrollLeft > 0) resolve();
            else element.addEventListener('scroll', () => resolve(), { once: true });
          }),
      );
      assert.ok((await box.evaluate((element) => element.scrollLeft)) > 0, `${target.url()}: the arrow keys scroll`);
      await fits(target);
    }
    await checkPage(target, targetWatch);
  };

  const visit = async (path: string, wide?: RegExp) => {
    const answer = await page.goto(`${app.base}${path}`);
    assert.ok(answer && answer.status() < 500, `${path}: ${answer?.status()}`);
    await checkNarrow(page, watch, wide);
  };

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    ({ page, watch } = await watchedPage(chromium, PHONE));
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: `http://127.0.0.1:9${URL_PATH}`,
      events: [TYPE, 'invoice.settlement.*', 'order.created'],
      filter: { 'data.customer.country': { $in: ['FR', 'DE', 'NL', 'BE', 'LU', 'AT', 'CH'] } },
      headers: { 'X-Northwind-Warehouse-Authorization': 'a-header-value' },
      owner: OWNER,
      description: `The shipments of the northern warehouses, for the dashboards of ${OWNER}`,
    });
    endpointId = endpoint.id;
    // more dead deliveries than a page of dead letters, each with a long type and error
    const now = Date.now();
    const at = (minutes: number, outcome: 'retry' | 'dead') => ({
      at: new Date(now - minutes * 60_000),
      outcome,
      durationMs: 120,
    });
    const ids = await seedAttempts(
      app.db.sql,
      endpoint,
      Array.from({ length: 30 }, (_, n) => [at(90 - n, 'retry'), at(80 - n, 'dead')]),
    );
    deliveryId = ids[0];
    await app.db.sql`update app_webhook_deliveries set event_type = ${TYPE}, last_error = ${ERROR}, last_status = 503`;
    [{ event_id: eventId }] = await app.db.sql<{ event_id: string }[]>`
      select event_id from app_webhook_deliveries where id = ${deliveryId}`;
    await createToken(deps, {
      name: `the deploy pipeline of the warehouses of ${OWNER}`,
      role: 'member',
      owner: OWNER,
    });
    await app.user({ role: 'member', owner: OWNER, email: 'warehouse.operations.lead@northwind-logistics.example' });

    const admin = await app.user({ role: 'admin', email: 'operations.on-call.primary@infrastructure.example.com' });
    await signIn(page, app.base, admin.email, '/');
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  it('the overview, an endpoint, its deliveries and its actions', async () => {
    await visit('/', /endpoint/);
    await visit(`/endpoints/${endpointId}`, /deliveries/);
    await visit(`/endpoints/${endpointId}?page=2`, /deliveries/);
    await visit('/endpoints/new');
    // the pages that show a new secret once: registered, then rotated
    await page.locator('#url').fill(`http://127.0.0.1:9${URL_PATH}&copy=2`);
    await page.getByLabel('Events').fill(`${TYPE}, invoice.settlement.*`);
    await page.getByLabel(/^Owner/).fill(OWNER);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.locator('#secret').waitFor();
    await checkNarrow(page, watch);
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByRole('link', { name: 'Back to the endpoint' }).waitFor();
    await checkNarrow(page, watch);
    await visit(`/endpoints/${endpointId}/secret`);
    await page.getByRole('button', { name: /Yes, reveal/ }).click();
    await page.locator('#header-values').waitFor();
    await checkNarrow(page, watch);
    await visit(`/endpoints/${endpointId}/remove`);
    await visit(`/deliveries/${deliveryId}`);
  });

  it('dead letters, their replay, find and emit', async () => {
    await visit('/dead-letters', /dead deliveries/);
    await visit(`/dead-letters?endpoint=${endpointId}&page=2`, /dead deliveries/);
    await visit('/dead-letters?page=300');
    await visit('/dead-letters/replay');
    await visit('/find?q=order.created', /events of type/);
    await visit(`/find?q=${eventId}`, /^1 delivery$/);
    await visit('/events/new');
  });

  it('tokens, users and tenants, with the values they show once', async () => {
    await visit('/tokens', /not revoked/);
    await page.getByLabel(/^Name/).fill(`the nightly export of ${OWNER}`);
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByLabel(/^Owner/).fill(OWNER);
    await page.getByRole('button', { name: 'Mint' }).click();
    await page.locator('#token').waitFor();
    await checkNarrow(page, watch, /not revoked/);

    await visit('/users', /users/);
    await page.getByRole('button', { name: /^New link for warehouse/ }).click();
    await page.locator('#link').waitFor();
    await checkNarrow(page, watch, /users/);

    await visit('/tenants', /tenant/);
    await page.getByRole('button', { name: `Make a link for ${OWNER}` }).click();
    await page.locator('#portal-link').waitFor();
    await checkNarrow(page, watch, /tenant/);
  });

  it('the account pages and an error page', async () => {
    await visit('/account');
    await visit('/password');
    const missing = await page.goto(`${app.base}/endpoints/ep_${'0'.repeat(40)}`);
    assert.equal(missing?.status(), 404);
    await checkNarrow(page, watch);
  });

  it('the signed-out pages, a portal link and a portal session', async () => {
    const made = await watchedContext(chromium, PHONE);
    const other = await made.context.newPage();
    for (const path of SIGNED_OUT_PAGES) {
      await other.goto(`${app.base}${path}`);
      await checkNarrow(other, made.watch);
    }
    const link = await createPortalLink(app.web.accounts, OPERATOR, { owner: OWNER, role: 'member' });
    await other.goto(`${app.base}/portal?token=${encodeURIComponent(link.token)}`);
    await checkNarrow(other, made.watch);
    await other.getByRole('button', { name: 'Continue to the console' }).click();
    await other.waitForURL(`${app.base}/`);
    await other.getByText(`Portal of ${OWNER}`).waitFor();
    await checkNarrow(other, made.watch, /endpoint/);
    await made.context.close();
  });
});
