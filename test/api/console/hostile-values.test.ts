/**
 * Every value someone other than the reader controls is shown by the console as text, never as
 * markup (docs/accounts-and-console.md "Console": Eta templates, escaped by default): what a hostile
 * receiver answers (its excerpt, its redirect's Location in the attempt's error), an endpoint's
 * URL, description, filter and header names and values, an event's data, an event type's
 * description, schema and examples, token names, users' emails, tenant ids, error messages that
 * echo the input, and the query-string values pages echo (filters, search boxes, `next`, the
 * error page's way back). Each page's HTML holds the value escaped and no tag or attribute of it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer } from '../accounts/helpers.ts';
import { Browser } from './harness.ts';
import { HOSTILE, hostileConsole } from './hostile.ts';

/** A tag of {@link HOSTILE} written as markup. */
const RAW = /<script>window\.__hostile|<img\/src=x/;
/** {@link HOSTILE}'s script as escaped text. */
const ESCAPED = '&lt;script&gt;window.__hostile=1&lt;/script&gt;';

/** Asserts that `answer` is an HTML page holding {@link HOSTILE} escaped (unless `shown` is false) and never as markup. */
function assertShownAsText(answer: Answer, what: string, shown = true): void {
  assert.match(answer.headers.get('content-type') ?? '', /^text\/html/, what);
  assert.doesNotMatch(answer.text, RAW, `${what}: no markup of the hostile value`);
  if (shown) assert.ok(answer.text.includes(ESCAPED), `${what}: the hostile value shown as text`);
}

describe('hostile values in the console are shown as text', () => {
  let hostile: Awaited<ReturnType<typeof hostileConsole>>;
  let app: Awaited<ReturnType<typeof hostileConsole>>['app'];
  let admin: Browser;
  let csrf: string;
  let endpointId = '';
  let deliveryId = '';
  let eventId = '';
  const html = { accept: 'text/html' };
  const page = (path: string, headers: Record<string, string> = {}) =>
    admin.request('GET', path, { headers: { ...html, ...headers } });

  before(async () => {
    hostile = await hostileConsole();
    ({ app, endpointId, deliveryId, eventId } = hostile);
    ({ browser: admin, csrf } = hostile.admin);
  });
  after(() => hostile?.close());

  it("a hostile receiver's answer excerpt and redirect Location: the delivery page, the endpoint's last failure and the dead letters", async () => {
    const delivery = await page(`/deliveries/${deliveryId}`);
    assert.equal(delivery.status, 200, delivery.text);
    assertShownAsText(delivery, 'the delivery page');
    assert.match(delivery.text, /a redirect to javascript:/, 'the Location is shown, as text');
    assertShownAsText(await page('/'), 'the overview');
    assertShownAsText(await page(`/endpoints/${endpointId}`), 'the endpoint page');
    assertShownAsText(await page('/dead-letters'), 'the dead letters');
  });

  it("an endpoint's URL, description, filter, owner and header values, in its pages and forms", async () => {
    assertShownAsText(await page(`/endpoints/${endpointId}`), 'the endpoint page');
    // these name the endpoint by its URL alone, which is kept percent-encoded
    for (const path of [`/endpoints/${endpointId}/remove`, `/endpoints/${endpointId}/secret`])
      assertShownAsText(await page(path), path, false);
    const revealed = await admin.request('POST', `/endpoints/${endpointId}/secret`, { form: { _csrf: csrf } });
    assert.equal(revealed.status, 200, revealed.text);
    assertShownAsText(revealed, 'the revealed header values');
    const tried = await admin.request('POST', `/endpoints/${endpointId}/filter-test`, {
      form: {
        _csrf: csrf,
        filter: JSON.stringify({ [HOSTILE]: { $eq: 1 } }),
        sample: '{"type": "order.created", "data": {}}',
      },
    });
    assertShownAsText(tried, 'a tried filter on a hostile path');
  });

  it("an event's data and an event type's description, schema and examples", async () => {
    assertShownAsText(await page(`/find?q=${eventId}`), 'the event found');
    assertShownAsText(await page('/event-types'), 'the catalog');
    assertShownAsText(await page('/event-types/order.created'), "the type's page");
  });

  it('token names, user emails and tenant ids', async () => {
    assertShownAsText(await page('/tokens'), 'the tokens page');
    assertShownAsText(await page('/users'), 'the users page');
    assertShownAsText(await page('/tenants'), 'the tenants page');
    const member = await app.user({ role: 'member', owner: HOSTILE });
    const browser = new Browser(app.base);
    await browser.signIn(member.email);
    assertShownAsText(await browser.request('GET', '/', { headers: html }), "a tenant's own header line");
    assertShownAsText(
      await (await app.portal('viewer', HOSTILE)).request('GET', '/account', { headers: html }),
      'a portal session',
    );
  });

  it('query-string values the pages echo: filters, search boxes, paging and the sign-in page’s next', async () => {
    const value = encodeURIComponent(HOSTILE);
    for (const path of [
      `/?owner=${value}`,
      `/find?q=${value}`,
      `/dead-letters?owner=${value}&since=${value}`,
      `/dead-letters/replay?owner=${value}`,
      `/endpoints/${endpointId}?type=${value}&page=2`,
      `/users?email=${value}&owner=${value}`,
    ])
      assertShownAsText(await page(path), path);
    const login = await new Browser(app.base).request('GET', `/login?next=${encodeURIComponent(`/${HOSTILE}`)}`, {
      headers: html,
    });
    assertShownAsText(login, 'the sign-in page');
  });

  it('error messages that echo the input, and the error page’s way back', async () => {
    const refused = await admin.request('POST', '/events', {
      form: { _csrf: csrf, type: HOSTILE, data: '{}', owner: HOSTILE },
    });
    assert.equal(refused.status, 422, refused.text);
    assertShownAsText(refused, 'a refused emit');
    const registered = await admin.request('POST', '/endpoints', {
      form: { _csrf: csrf, url: `https://${HOSTILE}`, events: HOSTILE, description: HOSTILE, headers: `${HOSTILE}: x` },
    });
    assert.equal(registered.status, 422, registered.text);
    assertShownAsText(registered, 'a refused registration');
    const signIn = await new Browser(app.base).request('POST', '/login', {
      form: { email: HOSTILE, password: HOSTILE, next: HOSTILE },
    });
    assertShownAsText(signIn, 'a refused sign-in');
    const unknown = await page(`/nowhere/${encodeURIComponent(HOSTILE)}`, {
      referer: `${app.base}/find?q=${encodeURIComponent(HOSTILE)}`,
    });
    assert.equal(unknown.status, 404);
    assertShownAsText(unknown, 'an error page', false);
  });
});
