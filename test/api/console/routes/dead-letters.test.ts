/**
 * The console's dead letters (api/console/routes/dead-letters.ts): the replay link and the page a
 * replay leads to say what the replay did, in the right number: how many deliveries were queued
 * again, and, when none were (the deliveries of disabled endpoints stay dead), that none were and
 * why, never that the dead deliveries are queued again. The confirmation before it counts what the
 * replay will queue (the core's rule, shared/webhooks/deliveries/replayable.ts), and says how many
 * it leaves dead and why.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { disableEndpoint, registerEndpoint, updateEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { seedAttempts } from '../../../helpers/attempt-history.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { Browser, startAccounts, type Answer } from '../../accounts/helpers.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };

const app = await startAccounts(FLAGS);
const webhooks = depsOf(app.db, FLAGS);

/** The page's notice (the layout's status line) and every other status line. */
const statusLines = (answer: Answer) => [...answer.text.matchAll(/role="status">([^<]*)</g)].map((found) => found[1]);

let admin: { browser: Browser; csrf: string };

/** An endpoint of `owner` with `count` dead deliveries (one unless told); answers its id. */
async function withOneDead(owner: string, count = 1): Promise<string> {
  const endpoint = await registerEndpoint(webhooks, OPERATOR, {
    url: 'http://127.0.0.1:9/hook',
    events: ['*'],
    owner,
  });
  await seedAttempts(
    webhooks.sql,
    { id: endpoint.id, owner },
    Array.from({ length: count }, () => [
      { at: new Date(Date.now() - 60_000), outcome: 'dead' as const, durationMs: 5 },
    ]),
  );
  return endpoint.id;
}

/** The confirmation's count, what it leaves out, and its button. */
async function confirmation(query: string) {
  const page = await admin.browser.request('GET', `/dead-letters/replay${query}`, { html: true });
  assert.equal(page.status, 200, page.text);
  const text = (pattern: RegExp) => (pattern.exec(page.text)?.[1] ?? '').replace(/<[^>]+>/g, '');
  return {
    count: text(/<p id="replay-count">([\s\S]*?)<\/p>/),
    leftOut: [
      ...(/<ul id="replay-left-out">([\s\S]*?)<\/ul>/.exec(page.text)?.[1] ?? '').matchAll(/<li>([^<]*)<\/li>/g),
    ].map((found) => found[1].replaceAll('&#39;', "'")),
    button: text(/<button type="submit">(Yes, replay [^<]*)<\/button>/),
  };
}

/** Sends the replay form for `owner`'s dead deliveries and follows its redirect. */
async function replay(owner: string): Promise<Answer> {
  const sent = await admin.browser.request('POST', '/dead-letters/replay', {
    form: { _csrf: admin.csrf, endpoint: '', owner, since: '', until: '' },
  });
  assert.equal(sent.status, 303, sent.text);
  const location = sent.headers.get('location') ?? '';
  assert.match(location, /^\/dead-letters\?done=replayed/);
  return admin.browser.request('GET', location, { html: true });
}

before(async () => {
  const user = await app.user({ role: 'admin', owner: null });
  const browser = new Browser(app.base);
  admin = { browser, csrf: await browser.signIn(user.email) };
});

describe('the replay of dead letters in the console', () => {
  it('one dead delivery: the link and the result say one delivery, once', async () => {
    await withOneDead('acme');
    const list = await admin.browser.request('GET', '/dead-letters?owner=acme', { html: true });
    assert.match(list.text, />Replay this dead delivery<\/a>/);
    assert.doesNotMatch(list.text, /Replay these 1 /);

    const after = await replay('acme');
    assert.deepEqual(statusLines(after), ['1 dead delivery is queued again.']);
  });

  it('dead deliveries only of disabled endpoints: the result says none was queued again and why', async () => {
    const endpoint = await withOneDead('globex');
    await disableEndpoint(webhooks, OPERATOR, endpoint, { reason: 'the receiver is gone' });

    const after = await replay('globex');
    assert.deepEqual(statusLines(after), [
      'No dead delivery is queued again: those of disabled endpoints stay dead until their endpoint is enabled.',
    ]);
    // it is still listed, still dead
    assert.match(after.text, /1 dead delivery, newest first/);
    const [row] = await webhooks.sql`select status from app_webhook_deliveries where endpoint_id = ${endpoint}`;
    assert.equal(row.status, 'dead');
  });

  it('several: the count in the plural, and a replay that stopped early says more remain', async () => {
    const page = await admin.browser.request('GET', '/dead-letters?done=replayed&replayed=3&more=true', { html: true });
    assert.deepEqual(statusLines(page), [
      '3 dead deliveries are queued again. More remain: replay again for the rest.',
    ]);
  });

  it("the confirmation counts what the replay queues: a disabled endpoint's dead delivery is left out, and why", async () => {
    await withOneDead('initech', 2);
    const off = await withOneDead('initech');
    await disableEndpoint(webhooks, OPERATOR, off, { reason: 'the receiver is gone' });

    const asked = await confirmation('?owner=initech');
    assert.match(asked.count, /^Replay 2 dead deliveries\?/);
    assert.deepEqual(asked.leftOut, [
      '1 dead delivery of disabled endpoints stays dead: a replay sends nothing to a disabled endpoint; enable it first.',
    ]);
    assert.equal(asked.button, 'Yes, replay 2');
    assert.deepEqual(statusLines(await replay('initech')), ['2 dead deliveries are queued again.']);
  });

  it('only deliveries a replay leaves dead: the confirmation says none can be replayed and offers no button', async () => {
    const off = await withOneDead('umbrella');
    await disableEndpoint(webhooks, OPERATOR, off);
    const asked = await confirmation('?owner=umbrella');
    assert.equal(asked.count, 'None of the 1 dead delivery of this selection can be replayed.');
    assert.equal(asked.leftOut.length, 1);
    assert.equal(asked.button, '');
    assert.match((await confirmation(`?endpoint=${off}`)).count, /^None of the 1 dead delivery/);
  });

  it("an endpoint given to another tenant: its previous tenant's dead deliveries are left out, and why", async () => {
    const moved = await withOneDead('hooli');
    await updateEndpoint(webhooks, OPERATOR, moved, { owner: 'piedpiper' });
    const asked = await confirmation('?owner=hooli');
    assert.equal(asked.count, 'None of the 1 dead delivery of this selection can be replayed.');
    assert.deepEqual(asked.leftOut, [
      "1 dead delivery of endpoints given to another tenant since stays dead: an endpoint never receives a previous tenant's events.",
    ]);
  });

  it('a viewer, who may not replay, is refused the confirmation as it would be the replay', async () => {
    const user = await app.user({ role: 'viewer', owner: 'acme' });
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    const page = await browser.request('GET', '/dead-letters/replay', { html: true });
    assert.equal(page.status, 403);
    assert.match(page.text, /APP_FORBIDDEN/);
  });
});
