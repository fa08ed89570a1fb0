/**
 * A page that updates itself (api/console/assets/console.js) keeps its word, in real Chromium
 * under a controlled clock (playwright's `page.clock`: no test waits the minutes it covers): a
 * pending delivery's page still notices a change after half an hour open, asking less and less
 * often (at most once a minute after the first minutes), and once an answer says waiting will
 * not help (the session ended) it stops and says since when it no longer updates.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { showDelivery } from '../../../../shared/webhooks/deliveries/show.ts';
import { disableEndpoint, registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { emitEvent } from '../../../../shared/webhooks/events/index.ts';
import { eventually } from '../../../helpers/poll.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { startReceiver, type Receiver } from '../../../worker/delivery/receiver.ts';
import { chromiumMissing, launch, signIn, watchedContext } from '../chromium.ts';
import { startConsole } from '../harness.ts';

const skip = chromiumMissing();
// a failed attempt's retry is an hour away: the delivery stays pending while the page is open
const FLAGS = {
  webhooks: {
    allowHttp: true,
    allowPrivate: true,
    maxAttempts: 3,
    backoff: { base: '1h', factor: 1, max: '1h', jitter: 0 },
  },
};
const START = new Date('2031-03-04T10:00:00Z');

/**
 * Counts the page's requests for its page object and lets a test wait until the one in flight is
 * answered and read (the page has then set its next timer): runs before the page's own script.
 */
const COUNT_POLLS = `(() => {
  let inFlight = 0;
  const waiting = [];
  const settle = () => {
    inFlight -= 1;
    if (inFlight === 0) for (const resolve of waiting.splice(0)) resolve();
  };
  window.polls = 0;
  const fetchOf = window.fetch;
  window.fetch = function (...args) {
    window.polls += 1;
    inFlight += 1;
    return fetchOf.apply(this, args).then(
      (answer) => {
        if (!answer.ok) {
          settle();
          return answer;
        }
        const json = answer.json.bind(answer);
        answer.json = () => {
          const read = json();
          read.then(settle, settle);
          return read;
        };
        return answer;
      },
      (error) => {
        settle();
        throw error;
      },
    );
  };
  window.pollsSettled = () => (inFlight === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve)));
})();`;

describe('a page that updates itself keeps doing so, and says when it stops', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let failing: Receiver;
  let email = '';

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(FLAGS), launch()]);
    failing = await startReceiver((_req, res) => {
      res.statusCode = 500;
      res.end('down');
    });
    email = (await app.user({ role: 'admin', owner: null })).email;
  });
  after(async () => {
    await chromium?.close();
    await failing?.close();
    await app?.close();
  });

  /** A delivery pending for an hour (its first attempt failed), and its page open under a paused clock. */
  async function openPending() {
    const webhooks = depsOf(app.db, FLAGS);
    const endpoint = await registerEndpoint(webhooks, OPERATOR, { url: `${failing.origin}/hook`, events: ['*'] });
    const emitted = await emitEvent(webhooks, OPERATOR, { type: 'order.created', data: {} });
    const id = emitted.deliveries.find((d) => d.endpointId === endpoint.id)?.id ?? '';
    await eventually(
      async () => (await showDelivery(webhooks, OPERATOR, id)).attempts === 1,
      20_000,
      'the first attempt failed',
    );
    const { context, watch } = await watchedContext(chromium);
    const page = await context.newPage();
    await signIn(page, app.base, email);
    await context.addInitScript({ content: COUNT_POLLS });
    await page.clock.install({ time: START });
    await page.clock.pauseAt(START.getTime() + 1000);
    await page.goto(`${app.base}/deliveries/${id}`);
    return { page, watch, endpointId: endpoint.id, polls: () => page.evaluate('window.polls') as Promise<number> };
  }

  /** Moves the page's clock on by `ms`, a second at a time, each ask answered and read before the next second. */
  async function runFor(page: Page, ms: number): Promise<void> {
    for (let passed = 0; passed < ms; passed += 1000) {
      await page.clock.runFor(1000);
      await page.evaluate('window.pollsSettled()');
    }
  }

  it('still shows a change after half an hour open, asking at most once a minute by then', async () => {
    const { page, endpointId, polls } = await openPending();
    const live = page.locator('[data-live]');
    assert.match((await live.textContent()) ?? '', /this page updates itself/);

    await runFor(page, 5 * 60_000);
    const afterFive = await polls();
    assert.ok(afterFive >= 60, `asks every second for the first minute (${afterFive} asks in five minutes)`);
    await runFor(page, 25 * 60_000);
    const afterThirty = await polls();
    assert.ok(
      afterThirty - afterFive >= 20 && afterThirty - afterFive <= 26,
      `asks about once a minute from then on (${afterThirty - afterFive} asks in 25 minutes)`,
    );
    assert.match((await live.textContent()) ?? '', /this page updates itself/, 'it says so and still does');

    // the delivery's data changes (its endpoint is disabled): the page, open half an hour, reloads
    await disableEndpoint(depsOf(app.db, FLAGS), OPERATOR, endpointId, { reason: 'maintenance' });
    let reloaded = false;
    const reload = page
      .waitForEvent('load', { timeout: 0 })
      .then(() => {
        reloaded = true;
      })
      .catch(() => undefined);
    for (let passed = 0; passed < 2 * 60_000 && !reloaded; passed += 1000) {
      await page.clock.runFor(1000);
      // a reload under way replaces the document the question was asked in
      await page.evaluate('window.pollsSettled()').catch(() => reload);
    }
    assert.ok(reloaded, 'the page reloaded within two minutes of the change');
    await page.close();
  });

  it('says since when it stopped updating once its session ended, and stops asking', async () => {
    const { page, watch, polls } = await openPending();
    await runFor(page, 10_000);
    assert.deepEqual(watch.problems, [], 'the page and its asks went without a problem so far');
    // signed out elsewhere: the next ask is answered 401, which waiting does not change
    await page.context().clearCookies();
    await runFor(page, 2000);
    const live = page.locator('[data-live]');
    assert.equal(
      (await live.textContent()) ?? '',
      'Stopped updating at 10:00 UTC: reload the page to see the latest.',
      'says since when the page is no longer the latest',
    );
    const stoppedAt = await polls();
    await runFor(page, 10 * 60_000);
    assert.equal(await polls(), stoppedAt, 'asks no more');
    await page.close();
  });
});
