/**
 * A broker url in the console, in real Chromium: the register form takes it (its field and the
 * core's checks accept the broker schemes), the created page, the endpoint page, its settings
 * form and the JSON page object show it masked; saving the settings with the masked url keeps
 * the credentials; a refused form comes back with the url masked, never as typed. No page, page
 * object or log line of the web process holds the user name or the password.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium, Page } from 'playwright-core';
import { captureLogger } from '../../shared/webhooks/fixtures.ts';
import { openUrlCredentials } from '../../../shared/webhooks/destinations/credentials.ts';
import { testConfig } from '../../helpers/database.ts';
import { checkPage, chromiumMissing, launch, signIn, watchedPage, type Watch } from './chromium.ts';
import { Browser, startConsole } from './harness.ts';

const skip = chromiumMissing();
const SECRET = 'the console broker url test application secret';
const USER = 'console-publisher';
const PW = 'Console-Pw-8812';
const URL_GIVEN = `amqp://${USER}:${PW}@127.0.0.1:5672/%2F?routingKey=console-orders`;
const URL_MASKED = 'amqp://***@127.0.0.1:5672/%2F?routingKey=console-orders';

describe('a broker url in the console', { skip }, () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let chromium: Chromium;
  let page: Page;
  let watch: Watch;
  let email = '';
  const captured = captureLogger(testConfig(null));
  const seen: string[] = [];
  const clean = (text: string, what: string) => {
    assert.ok(!text.includes(PW), `${what} holds the password`);
    assert.ok(!text.includes(USER), `${what} holds the user name`);
  };
  const storedUrl = async (id: string) =>
    (await app.db.sql<{ url: string }[]>`select url from app_webhooks where id = ${id}`)[0].url;

  before(async () => {
    const { log } = captured;
    [app, chromium] = await Promise.all([startConsole({ secret: SECRET }, { log }), launch()]);
    ({ page, watch } = await watchedPage(chromium));
    page.on('response', async (response) => {
      if (response.request().resourceType() === 'document') seen.push(await response.text().catch(() => ''));
    });
    email = (await app.user({ role: 'admin' })).email;
    await signIn(page, app.base, email);
  });
  after(async () => {
    await chromium?.close();
    await app?.close();
  });

  it('a refused broker url comes back masked, with the reason; the hint lists the accepted forms', async () => {
    await page.goto(`${app.base}/endpoints/new`);
    assert.match((await page.locator('label[for="url"]').textContent()) ?? '', /amqps:\/\/user:pass@host/);
    // no routingKey: the core refuses it, and the form is shown again
    await page.getByLabel('URL').fill(`amqp://${USER}:${PW}@127.0.0.1:5672/%2F`);
    await page.getByLabel('Events').fill('order.*');
    await page.getByRole('button', { name: 'Register' }).click();
    await page
      .getByText(/routingKey is missing/)
      .first()
      .waitFor();
    assert.equal(await page.getByLabel('URL').inputValue(), 'amqp://***@127.0.0.1:5672/%2F');
    clean(await page.content(), 'the refused form');
    await checkPage(page, watch);
  });

  it('registers a broker url through the form; the created page, the endpoint page and its page object show it masked', async () => {
    await page.goto(`${app.base}/endpoints/new`);
    await page.getByLabel('URL').fill(URL_GIVEN);
    await page.getByLabel('Events').fill('order.*');
    await page.getByLabel('Rate limit').fill('4');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/endpoints\/ep_[^/]+\/created$/);
    assert.match((await page.locator('#secret').textContent()) ?? '', /^whsec_/);
    assert.match(await page.content(), /amqp:\/\/\*\*\*@127\.0\.0\.1:5672/);
    clean(await page.content(), 'the created page');
    await checkPage(page, watch);
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    const id = new URL(page.url()).pathname.split('/')[2];
    assert.match(id, /^ep_/);
    assert.equal(await page.getByLabel('URL').inputValue(), URL_MASKED);
    assert.match(await page.title(), /amqp:\/\/\*\*\*@/);
    clean(await page.content(), 'the endpoint page');
    await checkPage(page, watch);

    const client = new Browser(app.base);
    await client.signIn(email);
    const object = await client.request('GET', `/endpoints/${id}`);
    assert.equal(object.status, 200, object.text);
    assert.equal(object.body.data.webhookEndpoint.url, URL_MASKED);
    clean(object.text, 'the page object');
    const overview = await client.request('GET', '/');
    clean(overview.text, 'the overview page object');

    // saving the settings as shown (the url masked) keeps the credentials
    const before = await storedUrl(id);
    await page.getByLabel('Events').fill('order.*, invoice.paid');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.waitForURL(/updated/);
    const after = await storedUrl(id);
    const [row] = await app.db.sql<{ events: string[] }[]>`select events from app_webhooks where id = ${id}`;
    assert.deepEqual(row.events, ['order.*', 'invoice.paid'], 'the settings were saved');
    assert.equal(after, before, 'the sealed credentials were kept as they were');
    assert.equal(openUrlCredentials(app.web.accounts.config as never, after, id), URL_GIVEN);
    clean(after, 'the stored row');
    await checkPage(page, watch);
  });

  it('no page Chromium received and no line of the web log holds the credentials', () => {
    assert.ok(seen.length >= 4, `${seen.length} pages seen`);
    for (const html of seen) clean(html, 'a page');
    assert.ok(captured.text().length > 0, 'the web process logged');
    clean(captured.text(), 'the web log');
  });
});
