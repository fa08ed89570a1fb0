/**
 * The event-type catalog in real Chromium: an admin opens it from the navigation, adds a type
 * (a schema that is not JSON first: the form comes back open with the text and the reason), sees
 * its schema in a box reachable from the keyboard, deprecates it, and finds its name suggested on
 * the register form; a tenant's portal session reads the catalog without any form. Every page
 * passes the console's checks (title, no console error or CSP violation, axe-core clean).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { createPortalLink } from '../../../../shared/accounts/portal-links.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedContext, watchedPage, type Watch } from '../chromium.ts';
import { startConsole } from '../harness.ts';

const skip = chromiumMissing();

describe('the event-type catalog in Chromium', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let page: Page;
  let watch: Watch;

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    ({ page, watch } = await watchedPage(chromium));
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  it('an admin adds a type, after a schema that is not JSON, and reads its page', async () => {
    const admin = await app.user({ role: 'admin' });
    await signIn(page, app.base, admin.email, '/');
    await page.getByRole('link', { name: 'Event types' }).click();
    await page.waitForURL(`${app.base}/event-types`);
    assert.match((await page.locator('table tbody').textContent()) ?? '', /The catalog is empty\./);
    await checkPage(page, watch);

    await page.getByText('Add an event type').click();
    await page.getByLabel(/^Name/).fill('order.paid');
    await page.getByLabel(/^Description/).fill('An order was paid in full');
    await page.getByLabel(/^Schema/).fill('{"type": "object", "required": ["id"]');
    await page.getByRole('button', { name: 'Add the event type' }).click();
    await page.locator('[role="alert"]', { hasText: 'the schema is not valid JSON' }).waitFor();
    assert.equal(await page.getByLabel(/^Name/).inputValue(), 'order.paid');
    assert.equal(await page.getByLabel(/^Schema/).inputValue(), '{"type": "object", "required": ["id"]');
    assert.equal(await page.getByLabel(/^Schema/).getAttribute('aria-invalid'), 'true');
    await checkPage(page, watch);

    // a schema taller than its box, which then scrolls: the box must be reachable from the keyboard
    const properties = Object.fromEntries(
      Array.from({ length: 60 }, (_, n) => [`field${n}`, { type: 'string', description: `field number ${n}` }]),
    );
    await page
      .getByLabel(/^Schema/)
      .fill(
        JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'integer' }, ...properties } }),
      );
    await page.getByLabel(/^Examples/).fill('[{"id": 42}]');
    await page.getByRole('button', { name: 'Add the event type' }).click();
    await page.waitForURL(`${app.base}/event-types/order.paid?done=event-type-added`);
    await page.getByText('The event type is added to the catalog.').waitFor();
    assert.equal(await page.title(), 'Event type order.paid · app');
    const schema = page.getByLabel('Schema of order.paid', { exact: true });
    assert.ok(await schema.evaluate((box) => box.scrollHeight > box.clientHeight), 'the schema box scrolls');
    // Tab from the link before it reaches the box
    await page.getByRole('link', { name: '/api/v1/event-types/order.paid' }).focus();
    await page.keyboard.press('Tab');
    assert.ok(await schema.evaluate((box) => box.ownerDocument.activeElement === box), 'the schema box has the focus');
    assert.match((await page.getByLabel('Example 1 of order.paid').textContent()) ?? '', /"id": 42/);
    await checkPage(page, watch);

    await page.getByRole('button', { name: 'Mark deprecated' }).click();
    await page.waitForURL(/done=event-type-deprecated/);
    await page.getByRole('button', { name: 'Mark no longer deprecated' }).waitFor();
    await checkPage(page, watch);
    await page.getByRole('button', { name: 'Mark no longer deprecated' }).click();
    await page.waitForURL(/done=event-type-undeprecated/);

    await page.getByRole('link', { name: 'All event types' }).click();
    await page.getByRole('link', { name: 'order.paid' }).waitFor();
    await checkPage(page, watch);
  });

  it('the register form suggests the catalog in its events field', async () => {
    await page.goto(`${app.base}/endpoints/new`);
    const events = page.getByLabel(/^Events/);
    assert.equal(await events.getAttribute('list'), 'event-choices');
    assert.deepEqual(
      await page
        .locator('#event-choices option')
        .evaluateAll((options) => options.map((option) => option.getAttribute('value'))),
      ['order.*', 'order.paid'],
    );
    await events.fill('invoice.*, order.paid');
    assert.equal(await events.inputValue(), 'invoice.*, order.paid');
    await checkPage(page, watch);
  });

  it("a tenant's portal session reads the catalog from its navigation, without a form", async () => {
    const { token } = await createPortalLink(app.web.accounts, OPERATOR, { owner: 'acme', role: 'member' });
    const made = await watchedContext(chromium);
    const tenant = await made.context.newPage();
    await tenant.goto(`${app.base}/portal?token=${encodeURIComponent(token)}`);
    await tenant.getByRole('button', { name: 'Continue to the console' }).click();
    await tenant.waitForURL(`${app.base}/`);
    await tenant.getByRole('link', { name: 'Event types' }).click();
    await tenant.getByRole('link', { name: 'order.paid' }).click();
    await tenant.waitForURL(`${app.base}/event-types/order.paid`);
    await tenant.getByLabel('Schema of order.paid', { exact: true }).waitFor();
    assert.equal(await tenant.locator('form[method="post"][action^="/event-types"]').count(), 0);
    await checkPage(tenant, made.watch);
    await made.context.close();
  });
});
