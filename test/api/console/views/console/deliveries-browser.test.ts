/**
 * The event types of the delivery tables (api/console/views/console/_deliveries.eta) and of the
 * event-type catalog in real Chromium: a type breaks across lines only after one of its dots,
 * never inside a word ("order.cr" / "eated"), at a desktop's width and on a phone's (where the
 * table scrolls in its box rather than the page sideways, as test/api/console/narrow-screen.test.ts
 * checks); so do the events of the sentence a viewer's endpoint page describes the endpoint with.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { OPERATOR } from '../../../../../shared/access/actor.ts';
import { createEventType } from '../../../../../shared/webhooks/event-types/index.ts';
import { registerEndpoint } from '../../../../../shared/webhooks/endpoints/index.ts';
import { seedAttempts } from '../../../../helpers/attempt-history.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedContext } from '../../chromium.ts';
import { startConsole } from '../../harness.ts';

const skip = chromiumMissing();
const LONG = 'order.fulfilment.warehouse.shipment.created';
const URL_PATH = `/webhooks/receivers/${'northern-warehouses-'.repeat(3)}shipments`;
/** A description in right-to-left scripts, ending in one (the sentence's full stop must not join its run). */
const RTL = 'משלוחים 🚚 الشحنات';
const ERROR = 'connect ECONNREFUSED 127.0.0.1:9 while sending to the receiver of the northern warehouses';

/**
 * Where the text of each element matching `selector` breaks onto a new line: for each element, its
 * text with `|` at every break. Read off the rendered characters' boxes (a `<wbr>` adds no
 * character, so the text is the name as written).
 */
const breaks = (page: Page, selector: string): Promise<string[]> =>
  page.locator(selector).evaluateAll((elements) =>
    elements.map((element) => {
      const document = element.ownerDocument;
      const walker = document.createTreeWalker(element, 0x4); // NodeFilter.SHOW_TEXT;
      let text = '';
      let lastTop: number | undefined;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let index = 0; index < (node.textContent ?? '').length; index += 1) {
          const range = document.createRange();
          range.setStart(node, index);
          range.setEnd(node, index + 1);
          const top = range.getClientRects()[0]?.top;
          if (top !== undefined && lastTop !== undefined && top > lastTop + 1) text += '|';
          if (top !== undefined) lastTop = top;
          text += (node.textContent ?? '')[index];
        }
      }
      return text;
    }),
  );

/** Every break of `texts` comes right after a dot. */
const onlyAfterDots = (texts: string[], where: string) => {
  assert.ok(texts.length > 0, `${where}: some types to look at`);
  for (const text of texts)
    assert.ok(
      [...text.matchAll(/\|/g)].every((found) => text[(found.index ?? 0) - 1] === '.'),
      `${where}: "${text}" breaks only after a dot`,
    );
};

describe('event types in the console tables break only at their dots', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let subscribed = '';

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: `http://127.0.0.1:9${URL_PATH}`,
      events: ['*'],
      owner: 'northwind-logistics',
    });
    const at = new Date(Date.now() - 60_000);
    const ids = await seedAttempts(
      app.db.sql,
      endpoint,
      Array.from({ length: 4 }, () => [{ at, outcome: 'dead' as const, durationMs: 5 }]),
    );
    await app.db.sql`update app_webhook_deliveries set event_type = 'order.created', last_error = ${ERROR}`;
    await app.db.sql`update app_webhook_deliveries set event_type = ${LONG} where id = ${ids[0]}`;
    await createEventType(deps, OPERATOR, { name: LONG, description: 'a shipment left a warehouse' });
    await createEventType(deps, OPERATOR, { name: 'order.created', description: 'an order was placed' });
    subscribed = (
      await registerEndpoint(deps, OPERATOR, {
        url: `http://127.0.0.1:9${URL_PATH}`,
        events: [LONG, 'order.created', `${LONG.slice(0, LONG.lastIndexOf('.'))}.*`],
        owner: 'northwind-logistics',
        description: RTL,
      })
    ).id;
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  for (const [screen, viewport] of [
    ['a desktop', { width: 1280, height: 900 }],
    ['a phone', { width: 390, height: 844 }],
  ] as const) {
    it(`on ${screen}: the dead letters' and the catalog's`, async () => {
      const { context, watch } = await watchedContext(chromium, viewport);
      const page = await context.newPage();
      const admin = await app.user({ role: 'admin' });
      await signIn(page, app.base, admin.email);
      await page.goto(`${app.base}/dead-letters`);
      const types = await breaks(page, 'tbody td:nth-child(3) code');
      assert.ok(types.some((text) => text.replaceAll('|', '') === 'order.created'));
      onlyAfterDots(types, 'dead letters');
      await checkPage(page, watch);
      await page.goto(`${app.base}/event-types`);
      onlyAfterDots(await breaks(page, 'tbody td:first-child code'), 'event types');
      await checkPage(page, watch);
      await context.close();
    });
  }

  it("on a phone: the events an endpoint receives, in a viewer's sentence", async () => {
    const { context, watch } = await watchedContext(chromium, { width: 390, height: 844 });
    const page = await context.newPage();
    const viewer = await app.user({ role: 'viewer', owner: 'northwind-logistics' });
    await signIn(page, app.base, viewer.email);
    await page.goto(`${app.base}/endpoints/${subscribed}`);
    const received = await breaks(page, 'main > p code');
    onlyAfterDots(received, "a viewer's endpoint page");
    assert.equal(received.length, 3, 'each event its own name');
    // the description is isolated from the sentence around it (<bdi>), so its direction does not reorder it
    assert.equal(await page.locator('main > p bdi').textContent(), RTL);
    await checkPage(page, watch);
    await context.close();
  });
});
