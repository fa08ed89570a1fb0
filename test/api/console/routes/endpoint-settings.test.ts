/**
 * The endpoint's settings form in the console sends every field as the page showed them, so it
 * carries the endpoint's `updatedAt` as shown: a save after someone else changed the endpoint is
 * refused (409 `APP_WEBHOOK_CONFLICT`, the form shown again with what was typed) instead of
 * undoing that change without a word; the page shown again carries the new state, so saving once
 * more is a choice made knowing it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { registerEndpoint, updateEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
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

/** The value of the settings form's hidden `updatedAt` on an endpoint's page. */
async function shownUpdatedAt(id: string): Promise<string> {
  const page = await member.browser.request('GET', `/endpoints/${id}`, { html: true });
  const found = /<input type="hidden" name="updatedAt" value="([^"]+)">/.exec(page.text);
  assert.ok(found, 'the settings form carries the endpoint as shown');
  return found[1];
}

const settings = (fields: Record<string, string>) => ({
  url: 'http://127.0.0.1:9/first',
  events: '*',
  filter: '',
  description: 'first',
  headers: '',
  rateLimit: '',
  ordering: 'none',
  ...fields,
});

const stored = async (id: string) =>
  (
    await webhooks.sql<{ url: string; description: string | null }[]>`
    select url, description from app_webhooks where id = ${id}`
  )[0];

describe("the console's endpoint settings form does not undo a change made since it was shown", () => {
  it('a save after another change is refused with 409 and the typed values; saved again from the new page, it applies', async () => {
    const { id } = await registerEndpoint(webhooks, OPERATOR, {
      url: 'http://127.0.0.1:9/first',
      events: ['*'],
      owner: 'acme',
      description: 'first',
    });
    const shown = await shownUpdatedAt(id);
    // someone else moves the endpoint while the form is open
    await updateEndpoint(webhooks, OPERATOR, id, { url: 'http://127.0.0.1:9/moved' });

    const refused = await member.browser.request('POST', `/endpoints/${id}`, {
      form: { _csrf: member.csrf, updatedAt: shown, ...settings({ description: 'first, edited' }) },
    });
    assert.equal(refused.status, 409);
    assert.match(refused.text, /was changed by someone else at/);
    assert.match(refused.text, /APP_WEBHOOK_CONFLICT/);
    assert.match(refused.text, /first, edited/, 'what was typed is shown again');
    assert.deepEqual(await stored(id), { url: 'http://127.0.0.1:9/moved', description: 'first' }, 'nothing was saved');

    const again = /<input type="hidden" name="updatedAt" value="([^"]+)">/.exec(refused.text)?.[1];
    assert.ok(again && again !== shown, 'the page shown again carries the endpoint as it is now');
    const saved = await member.browser.request('POST', `/endpoints/${id}`, {
      form: { _csrf: member.csrf, updatedAt: again, ...settings({ description: 'first, edited' }) },
    });
    assert.equal(saved.status, 303);
    assert.deepEqual(await stored(id), { url: 'http://127.0.0.1:9/first', description: 'first, edited' });
  });

  it('a form without updatedAt (a script of its own) saves as before; a value that is no time is 400 APP_BODY_INVALID', async () => {
    const { id } = await registerEndpoint(webhooks, OPERATOR, {
      url: 'http://127.0.0.1:9/first',
      events: ['*'],
      owner: 'acme',
    });
    const bad = await member.browser.request('POST', `/endpoints/${id}`, {
      form: { _csrf: member.csrf, updatedAt: 'yesterday', ...settings({ description: 'never' }) },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /APP_BODY_INVALID/);
    assert.equal((await stored(id))?.description, null);
    const plain = await member.browser.request('POST', `/endpoints/${id}`, {
      form: { _csrf: member.csrf, ...settings({ description: 'plain' }) },
    });
    assert.equal(plain.status, 303);
    assert.equal((await stored(id))?.description, 'plain');
  });
});
