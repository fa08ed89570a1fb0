/**
 * Every console page an admin reaches, in real Chromium, leaves the browser's console silent: no
 * error or warning (the browser's own included, such as a `Permissions-Policy` feature it does not
 * know), no uncaught exception, no failed request, no Content Security Policy violation, and
 * passes the console's checks (chromium.ts). The pages are those of the console's router
 * (api/console/routes/), the account pages, the signed-out pages, a tenant portal link, error
 * pages, and GraphiQL where it is served (development). The default `Permissions-Policy` names
 * only features Chromium recognises.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { POWERFUL_FEATURES } from '../../../api/security/permissions-policy.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createPortalLink } from '../../../shared/accounts/portal-links.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createEventType } from '../../../shared/webhooks/event-types/index.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { seedAttempts } from '../../helpers/attempt-history.ts';
import { PASSWORD } from '../accounts/helpers.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedContext, watchedPage, type Watch } from './chromium.ts';
import { SIGNED_OUT_PAGES, startConsole } from './harness.ts';

const skip = chromiumMissing();
const OWNER = 'acme';

describe('the console in Chromium: no console message on any page', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let page: Page;
  let watch: Watch;
  let endpointId = '';
  let deliveryId = '';
  let eventId = '';

  /** Opens `path`, expects `status`, and runs the console's checks on what the browser shows. */
  const visit = async (path: string, status = 200, target = page, targetWatch = watch) => {
    const answer = await target.goto(`${app.base}${path}`);
    assert.equal(answer?.status(), status, path);
    await checkPage(target, targetWatch);
  };

  /** Opens every closed `<details>` of the page, so that what they hold is checked too. */
  const openDetails = (target: Page) =>
    target.evaluate("for (const details of document.querySelectorAll('details')) details.open = true");

  before(async () => {
    [app, chromium] = await Promise.all([startConsole(), launch()]);
    ({ page, watch } = await watchedPage(chromium));
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['order.created', 'invoice.*'],
      filter: { 'data.total': { $gt: 10 } },
      headers: { 'X-Receiver-Key': 'a-header-value' },
      owner: OWNER,
      description: 'Orders for the dashboards',
    });
    endpointId = endpoint.id;
    const now = Date.now();
    const at = (minutes: number, outcome: 'done' | 'retry' | 'dead') => ({
      at: new Date(now - minutes * 60_000),
      outcome,
      durationMs: 80,
    });
    const ids = await seedAttempts(app.db.sql, endpoint, [
      [at(50, 'retry'), at(45, 'dead')],
      [at(30, 'done')],
      [at(20, 'retry'), at(15, 'done')],
    ]);
    deliveryId = ids[0];
    [{ event_id: eventId }] = await app.db.sql<{ event_id: string }[]>`
      select event_id from app_webhook_deliveries where id = ${deliveryId}`;
    await createEventType(deps, OPERATOR, {
      name: 'order.created',
      description: 'An order was placed',
      schema: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
      examples: [{ id: 42 }],
    });
    await createToken(deps, { name: 'the deploy pipeline', role: 'member', owner: OWNER });
    await app.user({ role: 'member', owner: OWNER });
    const admin = await app.user({ role: 'admin' });
    await signIn(page, app.base, admin.email, '/');
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  it('the default Permissions-Policy names only features Chromium recognises, each denied', async () => {
    const answer = await page.goto(`${app.base}/`);
    const header = answer?.headers()['permissions-policy'] ?? '';
    // Chromium's own lists: the features its header parser knows, and those this page may use
    const known = (await page.evaluate('document.featurePolicy.features()')) as string[];
    const allowed = (await page.evaluate('document.featurePolicy.allowedFeatures()')) as string[];
    const sent = header.split(', ').map((entry) => entry.slice(0, entry.indexOf('=')));
    assert.deepEqual(
      sent.filter((feature) => !known.includes(feature)),
      [],
      'every feature in the header is one Chromium knows',
    );
    assert.deepEqual([...sent].sort(), [...POWERFUL_FEATURES].sort(), 'the header names the default list');
    assert.deepEqual(
      POWERFUL_FEATURES.filter((feature) => allowed.includes(feature)),
      [],
      'each is denied to the page itself',
    );
    await checkPage(page, watch);
  });

  it('the overview, endpoints, their forms and the pages that show a secret once', async () => {
    await visit('/');
    await visit('/endpoints/new');
    await page.locator('#url').fill('http://127.0.0.1:9/other');
    await page.getByLabel('Events').fill('order.created');
    await page.getByLabel(/^Owner/).fill(OWNER);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.locator('#secret').waitFor();
    await checkPage(page, watch);
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByRole('link', { name: 'Back to the endpoint' }).waitFor();
    await checkPage(page, watch);

    await visit(`/endpoints/${endpointId}`);
    // every closed part of the page (its settings form among them) opened
    await openDetails(page);
    await checkPage(page, watch);
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.locator('#try-result').waitFor();
    await checkPage(page, watch);
    await visit(`/endpoints/${endpointId}?status=dead`);
    await visit(`/endpoints/${endpointId}/secret`);
    await page.getByRole('button', { name: /Yes, reveal/ }).click();
    await page.locator('#header-values').waitFor();
    await checkPage(page, watch);
    await visit(`/endpoints/${endpointId}/remove`);
  });

  it('deliveries, dead letters, find, emit and event types', async () => {
    await visit(`/deliveries/${deliveryId}`);
    await visit('/dead-letters');
    await visit(`/dead-letters?endpoint=${endpointId}`);
    await visit('/dead-letters/replay');
    await visit(`/find?q=${eventId}`);
    await visit(`/find?q=${deliveryId}`);
    await visit('/find?q=order.created');
    await visit('/events/new');
    await page.getByLabel('Event type').fill('order.created');
    await page.getByLabel('Data (JSON)').fill('{"id": 7, "total": 12}');
    await page.getByLabel(/^Owner/).fill(OWNER);
    await page.getByRole('button', { name: 'Emit' }).click();
    await page.waitForURL((url) => url.pathname !== '/events/new');
    await checkPage(page, watch);
    await visit('/event-types');
    await openDetails(page);
    await checkPage(page, watch);
    await visit('/event-types/order.created');
    await openDetails(page);
    await checkPage(page, watch);
  });

  it('tokens, users, tenants with the values they show once, and the account pages', async () => {
    await visit('/tokens');
    await page.getByLabel(/^Name/).fill('the nightly export');
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByLabel(/^Owner/).fill(OWNER);
    await page.getByRole('button', { name: 'Mint' }).click();
    await page.locator('#token').waitFor();
    await checkPage(page, watch);
    await visit('/users');
    await page
      .getByRole('button', { name: /^New link for / })
      .first()
      .click();
    await page.locator('#link').waitFor();
    await checkPage(page, watch);
    await visit('/tenants');
    await page.getByRole('button', { name: `Make a link for ${OWNER}` }).click();
    await page.locator('#portal-link').waitFor();
    await checkPage(page, watch);
    await visit('/account');
    await visit('/password');
  });

  it('error pages: an unknown page, an unknown endpoint, delivery and event type', async () => {
    await visit('/nowhere', 404);
    await visit(`/endpoints/ep_${'0'.repeat(40)}`, 404);
    await visit(`/deliveries/dl_${'0'.repeat(40)}`, 404);
    await visit('/event-types/no.such.type', 404);
  });

  it('the signed-out pages, a portal link and a forbidden page of a portal session', async () => {
    const made = await watchedContext(chromium);
    const other = await made.context.newPage();
    for (const path of SIGNED_OUT_PAGES) await visit(path, 200, other, made.watch);
    const link = await createPortalLink(app.web.accounts, OPERATOR, { owner: OWNER, role: 'member' });
    await visit(`/portal?token=${encodeURIComponent(link.token)}`, 200, other, made.watch);
    await other.getByRole('button', { name: 'Continue to the console' }).click();
    await other.waitForURL(`${app.base}/`);
    await checkPage(other, made.watch);
    await visit('/users', 403, other, made.watch);
    await made.context.close();
  });

  it('GraphiQL, served in development, opened with a session', async () => {
    const development = await startConsole({ env: 'development' });
    try {
      const made = await watchedContext(chromium);
      const other = await made.context.newPage();
      const admin = await development.user({ role: 'admin' });
      await other.goto(`${development.base}/login?next=/_app/gql`);
      await other.getByLabel('Email').fill(admin.email);
      await other.getByLabel('Password').fill(PASSWORD);
      const introspected = other.waitForResponse(
        (response) => response.url() === `${development.base}/_app/gql` && response.request().method() === 'POST',
        { timeout: 20_000 },
      );
      await other.getByRole('button', { name: 'Sign in' }).click();
      assert.equal((await introspected).status(), 200);
      await other.locator('.graphiql-container').waitFor();
      await other.waitForLoadState('networkidle');
      assert.deepEqual(made.watch.problems, [], 'browser problems on GraphiQL');
      await made.context.close();
    } finally {
      await development.close();
    }
  });
});
