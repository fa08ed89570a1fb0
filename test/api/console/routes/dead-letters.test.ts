/**
 * The console's dead letters (api/console/routes/dead-letters.ts): the replay link and the page a
 * replay leads to say what the replay did, in the right number: how many deliveries were queued
 * again, and, when none were (the deliveries of disabled endpoints stay dead), that none were and
 * why, never that the dead deliveries are queued again.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { disableEndpoint, registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { seedAttempts } from '../../../helpers/attempt-history.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { Browser, startAccounts, type Answer } from '../../accounts/helpers.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };

const app = await startAccounts(FLAGS);
const webhooks = depsOf(app.db, FLAGS);

/** The page's notice (the layout's status line) and every other status line. */
const statusLines = (answer: Answer) => [...answer.text.matchAll(/role="status">([^<]*)</g)].map((found) => found[1]);

let admin: { browser: Browser; csrf: string };

/** An endpoint of `owner` with one dead delivery; answers its id. */
async function withOneDead(owner: string): Promise<string> {
  const endpoint = await registerEndpoint(webhooks, OPERATOR, {
    url: 'http://127.0.0.1:9/hook',
    events: ['*'],
    owner,
  });
  await seedAttempts(webhooks.sql, { id: endpoint.id, owner }, [
    [{ at: new Date(Date.now() - 60_000), outcome: 'dead', durationMs: 5 }],
  ]);
  return endpoint.id;
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
});
