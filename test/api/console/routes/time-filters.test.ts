/**
 * The console's `since`/`until` filters (api/console/forms.ts `timeFilters`): a time the core's
 * reader refuses is the page's error naming the field (422), in the console's words, and the rest
 * of the page is still shown; never GraphQL's refusal of a variable.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { seedAttempts } from '../../../helpers/attempt-history.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { Browser, startAccounts } from '../../accounts/helpers.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };

const app = await startAccounts(FLAGS);
const webhooks = depsOf(app.db, FLAGS);
const OWNER = 'time-filters';
const FORMAT = 'since: must be a date and time such as 2026-01-31T12:00';

let admin: { browser: Browser; csrf: string };
let endpoint: string;

/** The messages of the page's alert (the layout's error list). */
const alerts = (html: string) =>
  [
    ...(/<div id="error-summary"[^>]*>([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '').matchAll(
      /<li id="error-\d+">(?:<a href="#[^"]*">)?([^<]*)</g,
    ),
  ].map((found) => found[1].trim());

before(async () => {
  const user = await app.user({ role: 'admin', owner: null });
  const browser = new Browser(app.base);
  admin = { browser, csrf: await browser.signIn(user.email) };
  endpoint = (
    await registerEndpoint(webhooks, OPERATOR, { url: 'http://127.0.0.1:9/hook', events: ['*'], owner: OWNER })
  ).id;
  await seedAttempts(webhooks.sql, { id: endpoint, owner: OWNER }, [
    [{ at: new Date(Date.now() - 60_000), outcome: 'dead' as const, durationMs: 5 }],
  ]);
});

describe("the console's time filters", () => {
  it('dead letters with a malformed since: 422 naming the field, the list still shown', async () => {
    const answer = await admin.browser.request('GET', `/dead-letters?owner=${OWNER}&since=yesterday`);
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.body.errors, [
      {
        message: FORMAT,
        code: 'APP_WEBHOOK_TIME_RANGE_INVALID',
        status: 422,
        data: { field: 'since', value: 'yesterday' },
      },
    ]);
    assert.equal(answer.body.data.webhookDeliveries.total, 1);

    const html = await admin.browser.request('GET', `/dead-letters?owner=${OWNER}&since=yesterday`, { html: true });
    assert.equal(html.status, 422);
    assert.deepEqual(alerts(html.text), [FORMAT]);
    assert.doesNotMatch(html.text, /Variable &quot;\$since&quot;|Variable "\$since"/);
    assert.match(html.text, /id="since" name="since" type="datetime-local" value="yesterday" aria-invalid="true"/);
    assert.match(html.text, /1 delivery|1 dead deliver/);
  });

  it("an endpoint's deliveries with an until that does not exist: 422 naming until, the endpoint still shown", async () => {
    const answer = await admin.browser.request('GET', `/endpoints/${endpoint}?until=2026-02-30T12:00`);
    assert.equal(answer.status, 422);
    assert.deepEqual(
      answer.body.errors.map((error: { message: string; data: unknown }) => [error.message, error.data]),
      [['until: is not a valid date', { field: 'until', value: '2026-02-30T12:00' }]],
    );
    assert.equal(answer.body.data.webhookEndpoint.externalId, endpoint);
    const html = await admin.browser.request('GET', `/endpoints/${endpoint}?since=soon`, { html: true });
    assert.equal(html.status, 422);
    assert.deepEqual(alerts(html.text), ['since: must be a date and time such as 2026-01-31T12:00']);
  });

  it('a time the core reads is taken as before (a datetime-local value, as UTC)', async () => {
    const answer = await admin.browser.request('GET', `/dead-letters?owner=${OWNER}&since=2000-01-01T00:00`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.errors, undefined);
    assert.equal(answer.body.graphql.variables.since, '2000-01-01T00:00:00Z');
    assert.equal(answer.body.data.webhookDeliveries.total, 1);
  });

  it('the replay of a selection with a malformed since replays nothing and names the field once', async () => {
    const sent = await admin.browser.request('POST', '/dead-letters/replay', {
      form: { _csrf: admin.csrf, endpoint: '', owner: OWNER, since: 'yesterday', until: '' },
    });
    assert.equal(sent.status, 422);
    assert.deepEqual(alerts(sent.text), [FORMAT]);
    const after = await admin.browser.request('GET', `/dead-letters?owner=${OWNER}`);
    assert.equal(after.body.data.webhookDeliveries.total, 1);
  });
});
