/**
 * The console in real Chromium: an operator signs in, registers an endpoint, sends a
 * test event to a local receiver and sees the delivery become done (the real worker delivers it;
 * the page updates itself), makes a receiver fail until its delivery is dead and replays it from
 * the dead-letter page, rotates a secret; a member cannot reach another tenant's endpoint by
 * editing the URL; a portal link signs in once and not twice. Every page is checked for a title,
 * console errors, CSP violations and serious or critical axe-core findings. With
 * CONSOLE_SCREENSHOTS=1 the main pages are saved as docs/console-*.png (docs/accounts-and-console.md, Console).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { checkPage, chromiumMissing, launch, watchedContext, watchedPage, type Watch } from './chromium.ts';
import { PASSWORD, startConsole } from './harness.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';

const skip = chromiumMissing();
const SHOTS = process.env.CONSOLE_SCREENSHOTS === '1';

describe('the console in Chromium', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let page: Page;
  let watch: Watch;
  let endpointId = '';
  let firstSecret = '';

  const shot = async (name: string) => {
    if (SHOTS)
      await page.screenshot({
        path: new URL(`../../../docs/console-${name}.png`, import.meta.url).pathname,
        fullPage: true,
      });
  };
  const signIn = async (target: Page, email: string, next = '/') => {
    await target.goto(`${app.base}${next}`);
    assert.match(target.url(), /\/login\?next=/);
    await target.getByLabel('Email').fill(email);
    await target.getByLabel('Password').fill(PASSWORD);
    await target.getByRole('button', { name: 'Sign in' }).click();
    await target.waitForURL(`${app.base}${next}`);
  };
  const statusIs = (status: string) =>
    page.locator('#delivery-status .status', { hasText: new RegExp(`^${status}$`) }).waitFor({ timeout: 20_000 });

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    ({ page, watch } = await watchedPage(chromium));
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  it('signs in and lands on the overview', async () => {
    const admin = await app.user({ role: 'admin', email: 'operator@example.com' });
    await signIn(page, admin.email);
    assert.equal(await page.title(), 'Overview · app');
    await checkPage(page, watch);
  });

  it('registers an endpoint; its secret is shown once', async () => {
    const receiver = await app.receiver();
    await page.getByRole('link', { name: 'Register an endpoint' }).click();
    await checkPage(page, watch);
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Events').fill('order.*, webhook.test');
    await page.getByLabel('Description').fill('Orders of acme');
    await page.getByLabel('Owner').fill('acme');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/endpoints\/ep_[^/]+\/created$/);
    firstSecret = (await page.locator('#secret').textContent()) ?? '';
    assert.match(firstSecret, /^whsec_/);
    await checkPage(page, watch);
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    endpointId = new URL(page.url()).pathname.split('/')[2];
    assert.match(endpointId, /^ep_/);
    (app as unknown as { acme: typeof receiver }).acme = receiver;
  });

  it('sends a test event to the local receiver and sees the delivery become done', async () => {
    const receiver = (app as unknown as { acme: Awaited<ReturnType<typeof app.receiver>> }).acme;
    await checkPage(page, watch);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.waitForURL(/\/deliveries\/msg_/);
    const deliveryId = new URL(page.url()).pathname.split('/')[2];
    await statusIs('done');
    await checkPage(page, watch);
    assert.equal(receiver.requests.length, 1);
    assert.equal(receiver.requests[0].headers['webhook-id'], deliveryId);
    assert.match((await page.locator('ol.timeline').textContent()) ?? '', /status 200/);
    await shot('delivery');
  });

  it('tries a filter on a sample event and on the test event just sent, then saves it in the settings', async () => {
    await page.goto(`${app.base}/endpoints/${endpointId}`);
    await page.locator('#try-filter-text').fill('{"type": "order.created", "data.amount": {"$gte": 100}}');
    await page.getByLabel('Sample event').fill('{"type": "order.created", "data": {"amount": 42}}');
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.locator('#try-result').waitFor();
    assert.match(
      (await page.locator('#try-result').textContent()) ?? '',
      /No match: \$gte on data\.amount failed first/,
    );
    await checkPage(page, watch);
    // the test event just sent is among the endpoint's recent events
    const offered = await page.locator('#try-event option').allTextContents();
    assert.ok(
      offered.some((text) => text.startsWith('webhook.test')),
      offered.join(' | '),
    );
    await page.locator('#try-filter-text').fill('{"type": "webhook.test"}');
    await page.locator('#try-event').selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.locator('#try-result', { hasText: 'Matches' }).waitFor();
    await page.locator('#filter').fill('{"data.amount": {"$gte": 100}}');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.waitForURL(/done=updated/);
    assert.match((await page.locator('dl.fields').textContent()) ?? '', /\{"data\.amount":\{"\$gte":100\}\}/);
    await page.locator('#filter').fill('');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.waitForURL(/done=updated/);
    assert.match((await page.locator('dl.fields').textContent()) ?? '', /none \(every event of its types\)/);
    await checkPage(page, watch);
  });

  it('a receiver failing until the delivery is dead: replayed from the dead-letter page after a confirmation, then done', async () => {
    const failing = await app.receiver();
    failing.answer(503);
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: failing.url,
      events: ['*'],
      owner: 'acme',
      description: 'Billing of acme',
    });
    await page.goto(`${app.base}/endpoints/${endpoint.id}`);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.waitForURL(/\/deliveries\/msg_/);
    const deliveryUrl = page.url().replace(/\?.*$/, '');
    await statusIs('dead');
    await checkPage(page, watch);
    assert.match((await page.locator('ol.timeline').textContent()) ?? '', /status 503/);
    failing.answer(200);

    await page.getByRole('link', { name: 'Dead letters' }).click();
    await page.getByLabel('Endpoint').selectOption(endpoint.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await checkPage(page, watch);
    await shot('dead-letters');
    await page.getByRole('link', { name: /Replay this dead delivery/ }).click();
    assert.match((await page.locator('#replay-count').textContent()) ?? '', /Replay 1 dead delivery/);
    await checkPage(page, watch);
    await page.getByRole('button', { name: 'Yes, replay 1' }).click();
    await page.waitForURL(/\/dead-letters\?done=replayed/);
    await page.getByText('1 dead delivery is queued again.').waitFor();
    await checkPage(page, watch);
    await page.goto(deliveryUrl);
    await statusIs('done');
    assert.equal(failing.requests.at(-1)?.headers['webhook-id'], new URL(deliveryUrl).pathname.split('/')[2]);
    await checkPage(page, watch);
  });

  it('rotates a secret with a grace period: both sign meanwhile, and the reveal (after a confirmation) lists both', async () => {
    const receiver = (app as unknown as { acme: Awaited<ReturnType<typeof app.receiver>> }).acme;
    await page.goto(`${app.base}/endpoints/${endpointId}`);
    await page.getByLabel('Old secret keeps signing for').selectOption('24h');
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const secret = (await page.locator('#secret').textContent()) ?? '';
    assert.match(secret, /^whsec_/);
    assert.notEqual(secret, firstSecret);
    await checkPage(page, watch);
    await page.getByRole('link', { name: 'Back to the endpoint' }).click();
    await page.getByRole('link', { name: 'Reveal the secret' }).click();
    await checkPage(page, watch);
    await page.getByRole('button', { name: 'Yes, reveal the secret' }).click();
    const shown = await page.locator('.secret pre').allTextContents();
    assert.deepEqual(shown, [secret, firstSecret]);
    await checkPage(page, watch);

    await page.goto(`${app.base}/endpoints/${endpointId}`);
    const next = receiver.next();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const received = await next;
    assert.equal(String(received.headers['webhook-signature']).split(' ').length, 2, 'signed with both secrets');
    await statusIs('done');
  });

  it('the overview, find, emit, tokens and users pages', async () => {
    await page.goto(`${app.base}/`);
    await page.locator('table tbody tr', { hasText: 'Orders of acme' }).waitFor();
    assert.match(
      (await page
        .getByRole('table', { name: /endpoints?$/ })
        .locator('tbody')
        .textContent()) ?? '',
      /100 %/,
    );
    await checkPage(page, watch);
    await shot('overview');
    await page.goto(`${app.base}/endpoints/${endpointId}`);
    await checkPage(page, watch);
    await shot('endpoint');

    await page.getByRole('link', { name: 'Find' }).click();
    await page.getByLabel(/Event id, delivery id/).fill('webhook.test');
    await page.getByRole('button', { name: 'Find' }).click();
    await checkPage(page, watch);
    await page.locator('table tbody a').first().click();
    assert.match(page.url(), /\/find\?q=evt_/);
    await checkPage(page, watch);

    await page.goto(`${app.base}/events/new`);
    await page.getByLabel('Event type').fill('order.created');
    // data taller than its box, which then scrolls: the box must be reachable from the keyboard
    const tall = { id: 42, items: Array.from({ length: 80 }, (_, n) => ({ n, note: 'line of the order' })) };
    await page.getByLabel('Data (JSON)').fill(JSON.stringify(tall));
    await page.getByLabel(/^Owner/).fill('acme');
    await page.getByRole('button', { name: 'Emit' }).click();
    await page.waitForURL(/\/find\?q=evt_/);
    await checkPage(page, watch);

    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByLabel(/^Name/).fill('ci');
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByLabel(/^Owner/).fill('acme');
    await page.getByRole('button', { name: 'Mint' }).click();
    assert.match((await page.locator('#token').textContent()) ?? '', /\S{20,}/);
    await checkPage(page, watch);
    await page.getByRole('button', { name: 'Revoke ci' }).click();
    await page.getByText('The token is revoked.').waitFor();

    await page.getByRole('link', { name: 'Users' }).click();
    // the invite form is named by its heading: the filter form above it has fields of the same names
    const invite = page.getByRole('form', { name: 'Invite a user' });
    await invite.getByLabel('Email').fill('member@globex.example');
    await invite.getByLabel('Role').selectOption('member');
    await invite.getByLabel(/^Owner/).fill('globex');
    await invite.getByRole('button', { name: /Invite/ }).click();
    assert.match((await page.locator('#link').textContent()) ?? '', /\/reset-password\?token=/);
    await checkPage(page, watch);
    await shot('users');
  });

  it("a member cannot reach another tenant's endpoint by editing the URL", async () => {
    const member = await app.user({ role: 'member', owner: 'globex' });
    const made = await watchedContext(chromium);
    const other = await made.context.newPage();
    await signIn(other, member.email);
    assert.equal(
      await other
        .getByRole('table', { name: /endpoints?$/ })
        .locator('tbody')
        .textContent()
        .then((text) => /acme/.test(text ?? '')),
      false,
    );
    const answer = await other.goto(`${app.base}/endpoints/${endpointId}`);
    assert.equal(answer?.status(), 404);
    assert.match((await other.locator('[role="alert"]').textContent()) ?? '', /does not exist/);
    assert.equal(await other.getByText('Orders of acme').count(), 0);
    await checkPage(other, made.watch);
    await made.context.close();
  });

  it("a portal link signs a tenant's member in once, and not twice", async () => {
    await page.getByRole('link', { name: 'Tenants' }).click();
    await checkPage(page, watch);
    await page.getByRole('button', { name: 'Make a link for acme' }).click();
    const link = (await page.locator('#portal-link').textContent()) ?? '';
    assert.match(link, /\/portal\?token=app_prt_/);
    await checkPage(page, watch);
    await shot('tenants');

    const first = await watchedContext(chromium);
    const tenant = await first.context.newPage();
    await tenant.goto(link);
    await checkPage(tenant, first.watch);
    await tenant.getByRole('button', { name: 'Continue to the console' }).click();
    await tenant.waitForURL(`${app.base}/`);
    assert.match((await tenant.locator('header').textContent()) ?? '', /Portal of acme/);
    await tenant.getByText('Orders of acme').waitFor();
    await checkPage(tenant, first.watch);
    await first.context.close();

    const second = await watchedContext(chromium);
    const again = await second.context.newPage();
    await again.goto(link);
    // the spent link's page says so at once, with no button to press
    assert.match((await again.locator('#link-spent').textContent()) ?? '', /expired or has been used already/);
    assert.equal(await again.getByRole('button', { name: 'Continue to the console' }).count(), 0);
    await checkPage(again, second.watch);
    assert.equal((await again.goto(`${app.base}/`))?.url(), `${app.base}/login?next=%2F`);
    await second.context.close();
  });
});
