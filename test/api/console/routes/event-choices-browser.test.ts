/**
 * The events field's suggestions in real Chromium. The field takes a comma-separated list, and a
 * browser matches a `<datalist>` against the whole value: with the console's script the options
 * follow what is typed up to the last comma, so a pick completes the entry being typed and keeps
 * the earlier ones (a name already listed is not offered again); the endpoint registered from such
 * a pick has both patterns. Without JavaScript the datalist offers the catalog's plain names. The
 * settings form suggests after the patterns it shows. Every page passes the console's checks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { showEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { createEventType } from '../../../../shared/webhooks/event-types/index.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedPage, type Watch } from '../chromium.ts';
import { startConsole } from '../harness.ts';

const skip = chromiumMissing();

describe('the events field suggests the entry being typed', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let page: Page;
  let watch: Watch;
  let email = '';
  let endpointId = '';

  const options = (target: Page) =>
    target.locator('#event-choices option').evaluateAll((found) => found.map((option) => option.getAttribute('value')));

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    for (const name of ['order.created', 'order.paid', 'invoice.sent'])
      await createEventType(deps, OPERATOR, { name, description: `${name} happened` });
    ({ page, watch } = await watchedPage(chromium));
    email = (await app.user({ role: 'admin' })).email;
    await signIn(page, app.base, email, '/');
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  it('after a comma, the options complete the last entry; a pick registers both patterns', async () => {
    const receiver = await app.receiver();
    await page.goto(`${app.base}/endpoints/new`);
    const events = page.getByLabel(/^Events/);
    // the first entry: the plain names and families
    assert.deepEqual(await options(page), ['invoice.*', 'invoice.sent', 'order.*', 'order.created', 'order.paid']);
    await events.pressSequentially('order.created, ');
    assert.deepEqual(await options(page), [
      'order.created, invoice.*',
      'order.created, invoice.sent',
      'order.created, order.*',
      'order.created, order.paid',
    ]);
    // typing within the entry keeps them; a comma without a space yet offers them with one
    await events.pressSequentially('inv');
    assert.equal((await options(page)).length, 4);
    await events.fill('order.created, invoice.sent,');
    assert.deepEqual(await options(page), [
      'order.created, invoice.sent, invoice.*',
      'order.created, invoice.sent, order.*',
      'order.created, invoice.sent, order.paid',
    ]);
    // back to a single entry: the plain names again
    await events.fill('ord');
    assert.equal((await options(page)).length, 5);
    await checkPage(page, watch);

    // a pick, as the browser makes it: the whole value becomes the option's, with an input event
    await events.fill('order.created, ');
    await events.fill('order.created, order.paid');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/endpoints\/ep_[^/]+\/created$/);
    endpointId = new URL(page.url()).pathname.split('/')[2];
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    assert.deepEqual((await showEndpoint(deps, OPERATOR, endpointId)).events, ['order.created', 'order.paid']);
    await checkPage(page, watch);
  });

  it("the settings form suggests after the endpoint's own patterns", async () => {
    await page.goto(`${app.base}/endpoints/${endpointId}`);
    const events = page.getByLabel(/^Events/);
    assert.equal(await events.inputValue(), 'order.created, order.paid');
    // the entry after the last comma is the one being completed: its own name stays among them
    assert.deepEqual(await options(page), [
      'order.created, invoice.*',
      'order.created, invoice.sent',
      'order.created, order.*',
      'order.created, order.paid',
    ]);
    await checkPage(page, watch);
  });

  it('without JavaScript, the datalist offers the plain names and any text is sent as typed', async () => {
    const context = await chromium.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const plain = await context.newPage();
    await signIn(plain, app.base, email, '/');
    await plain.goto(`${app.base}/endpoints/new`);
    const events = plain.getByLabel(/^Events/);
    assert.equal(await events.getAttribute('list'), 'event-choices');
    await events.fill('order.created, ');
    assert.deepEqual(await options(plain), ['invoice.*', 'invoice.sent', 'order.*', 'order.created', 'order.paid']);
    await events.fill('order.created , invoice.*');
    await plain.getByLabel('URL').fill((await app.receiver()).url);
    await plain.getByRole('button', { name: 'Register' }).click();
    await plain.waitForURL(/\/endpoints\/ep_[^/]+\/created$/);
    const id = new URL(plain.url()).pathname.split('/')[2];
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    assert.deepEqual((await showEndpoint(deps, OPERATOR, id)).events, ['order.created', 'invoice.*']);
    await context.close();
  });
});
