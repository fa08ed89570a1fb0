/**
 * An endpoint's actions in the console (api/console/routes/endpoint-actions.ts): a disabled
 * endpoint's page offers neither a test event nor a replay of its dead deliveries, which the core
 * refuses there (nothing is delivered to a disabled endpoint); a test event posted anyway is
 * refused with 409 `APP_WEBHOOK_ENDPOINT_DISABLED` and the reason, and queues nothing. Enabled
 * again, the endpoint offers both.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { disableEndpoint, enableEndpoint, registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { Browser, startAccounts } from '../../accounts/helpers.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };

const app = await startAccounts(FLAGS);
const webhooks = depsOf(app.db, FLAGS);

let member: { browser: Browser; csrf: string };

before(async () => {
  const user = await app.user({ role: 'member', owner: 'acme' });
  const browser = new Browser(app.base);
  member = { browser, csrf: await browser.signIn(user.email) };
});

describe("a disabled endpoint's actions in the console", () => {
  it('offers no test event and no replay while disabled; a test event sent anyway is refused with the reason', async () => {
    const { id } = await registerEndpoint(webhooks, OPERATOR, {
      url: 'http://127.0.0.1:9/hook',
      events: ['*'],
      owner: 'acme',
    });
    await disableEndpoint(webhooks, OPERATOR, id, { reason: 'the receiver is gone' });

    const page = await member.browser.request('GET', `/endpoints/${id}`);
    assert.equal(page.status, 200);
    assert.equal(page.body._links.test, undefined);
    assert.equal(page.body._links.replay, undefined);
    assert.ok(page.body._links.enable, 'enabling it is offered');
    const html = await member.browser.request('GET', `/endpoints/${id}`, { html: true });
    assert.doesNotMatch(html.text, /Send a test event/);
    assert.doesNotMatch(html.text, /Replay dead deliveries/);
    assert.doesNotMatch(html.text, /<div class="actions">\s*<\/div>/, 'no empty row of actions is left');

    const sent = await member.browser.request('POST', `/endpoints/${id}/test`, {
      form: { _csrf: member.csrf, type: 'webhook.test', data: '{}' },
    });
    assert.equal(sent.status, 409);
    assert.match(sent.text, /is disabled; enable it first/);
    assert.match(sent.text, /APP_WEBHOOK_ENDPOINT_DISABLED/);
    const [{ count }] = await webhooks.sql<{ count: number }[]>`
      select count(*)::int as count from app_webhook_deliveries where endpoint_id = ${id}`;
    assert.equal(count, 0, 'nothing was queued');

    await enableEndpoint(webhooks, OPERATOR, id);
    const enabled = await member.browser.request('GET', `/endpoints/${id}`, { html: true });
    assert.match(enabled.text, /Send a test event/);
    assert.match(enabled.text, /Replay dead deliveries/);
  });
});
