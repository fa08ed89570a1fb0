/**
 * The delivery charts in real Chromium (docs/accounts-and-console.md, Console): over a history
 * written at known times, the overview and an endpoint page draw one bar per bucket whose figures
 * are the history's, the summary beside each chart gives the totals and the busiest hour, the
 * "last hour" link switches to minutes without any script, and every page passes the console's
 * checks (title, no console error or CSP violation, axe-core clean).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { seedAttempts, type PastAttempt } from '../../helpers/attempt-history.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedPage, type Watch } from './chromium.ts';
import { startConsole } from './harness.ts';

const skip = chromiumMissing();
const HOUR = 3_600_000;

describe('the delivery charts in Chromium', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let page: Page;
  let watch: Watch;
  let endpointId = '';
  // the hour the history's busiest bucket starts (three hours before the clock's current hour)
  let busiest = 0;

  /** The figures of each drawn bar that has any, by its start. */
  const bars = () =>
    page.locator('#chart-counts-title').evaluate((title) =>
      [...(title.ownerSVGElement?.querySelectorAll('g.bar') ?? [])]
        .map((bar) => ({
          start: bar.getAttribute('data-start'),
          done: Number(bar.getAttribute('data-done')),
          failed: Number(bar.getAttribute('data-failed')),
          dead: Number(bar.getAttribute('data-dead')),
          rects: bar.querySelectorAll('rect').length,
        }))
        .filter((bar) => bar.done + bar.failed + bar.dead > 0),
    );
  const total = (name: string) => page.locator(`[data-total="${name}"]`).first().textContent();

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    ({ page, watch } = await watchedPage(chromium));
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const ours = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/ours',
      events: ['*'],
      owner: 'ours',
    });
    const theirs = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/theirs',
      events: ['*'],
      owner: 'theirs',
    });
    endpointId = ours.id;
    // times well inside their buckets: whichever hour the pages are drawn in, each stays in its hour
    busiest = (Math.floor(Date.now() / HOUR) - 3) * HOUR;
    const at = (ms: number, outcome: PastAttempt['outcome'], durationMs = 100): PastAttempt => ({
      at: new Date(ms),
      outcome,
      durationMs,
    });
    const h = (hours: number, minutes: number) => busiest + hours * HOUR + minutes * 60_000;
    await seedAttempts(app.db.sql, ours, [
      [at(h(0, 10), 'done')],
      [at(h(0, 11), 'done')],
      [at(h(0, 12), 'retry'), at(h(0, 20), 'done', 300)],
      [at(h(0, 30), 'retry'), at(h(0, 40), 'dead', 300)],
      [at(h(-5, 30), 'done', 50)],
    ]);
    await seedAttempts(app.db.sql, theirs, [[at(h(0, 15), 'dead')], [at(h(-5, 30), 'done')]]);
    const member = await app.user({ role: 'member', owner: 'ours', email: 'charts@example.com' });
    await signIn(page, app.base, member.email, '/');
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  it("the overview draws the tenant's history: one bar per hour with attempts, its figures and the summary", async () => {
    assert.equal(await page.locator('svg[role="img"]').count(), 2, 'the counts and the latency');
    assert.deepEqual(await bars(), [
      { start: new Date(busiest - 5 * HOUR).toISOString(), done: 1, failed: 0, dead: 0, rects: 1 },
      { start: new Date(busiest).toISOString(), done: 3, failed: 2, dead: 1, rects: 3 },
    ]);
    assert.equal(await total('done'), '4');
    assert.equal(await total('failed'), '2');
    assert.equal(await total('dead'), '1');
    assert.match((await total('peak')) ?? '', /\(6 attempts\)$/);
    assert.equal(await total('p50'), '100 ms');
    assert.equal(await total('p95'), '300 ms');
    // the image's accessible name is its title
    assert.equal(
      await page.getByRole('img', { name: 'Attempts per hour by outcome' }).count(),
      1,
      'the chart is an image named by its title',
    );
    await checkPage(page, watch);
  });

  it('"Last hour (per minute)" is a plain link: sixty buckets, none of the history within them', async () => {
    await page.getByRole('link', { name: 'Last hour (per minute)' }).click();
    await page.waitForURL(`${app.base}/?window=hour`);
    assert.equal(await page.locator('g.bar').count(), 60);
    assert.deepEqual(await bars(), []);
    assert.equal(await total('peak'), 'none');
    await checkPage(page, watch);
  });

  it("the endpoint page draws that endpoint's bars, and its figures table says the same", async () => {
    await page.goto(`${app.base}/endpoints/${endpointId}`);
    assert.deepEqual(
      (await bars()).map((bar) => [bar.done, bar.failed, bar.dead]),
      [
        [1, 0, 0],
        [3, 2, 1],
      ],
    );
    await page.getByText('The figures per hour').click();
    const row = page.locator('tr', { has: page.locator(`time[datetime="${new Date(busiest).toISOString()}"]`) });
    assert.deepEqual(await row.locator('td').allTextContents(), ['3', '2', '1', '100 ms', '300 ms']);
    await checkPage(page, watch);
  });
});
