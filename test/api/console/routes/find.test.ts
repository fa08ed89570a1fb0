/**
 * The console's Find page (api/console/routes/find.ts) on an event id: the event's deliveries are
 * counted in the right number ("1 delivery", "2 deliveries"), and the page's title names what was
 * looked for, so a tab or a history entry of one search tells from another. A delivery or endpoint
 * id opens its page when it is there (in the caller's reach); one that is not stays on Find, with
 * why and the id as typed, rather than a page of its error alone.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { emitEvent } from '../../../../shared/webhooks/events/index.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { Browser, startAccounts } from '../../accounts/helpers.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };

const app = await startAccounts(FLAGS);
const webhooks = depsOf(app.db, FLAGS);

let admin: Browser;
let endpointId = '';

/** The caption of the event's deliveries on the Find page of the event emitted as `type` for `owner`. */
async function captionOfEvent(type: string, owner: string): Promise<string> {
  const emitted = await emitEvent(webhooks, OPERATOR, { type, owner, data: {} });
  assert.ok(emitted.event);
  const page = await admin.request('GET', `/find?q=${emitted.event.id}`, { html: true });
  assert.equal(page.status, 200, page.text);
  return /<caption id="deliveries-caption">([^<]*)<\/caption>/.exec(page.text)?.[1] ?? '';
}

before(async () => {
  const user = await app.user({ role: 'admin', owner: null });
  admin = new Browser(app.base);
  await admin.signIn(user.email);
  for (const [owner, count] of [
    ['acme', 1],
    ['globex', 2],
  ] as const)
    for (let n = 0; n < count; n += 1)
      ({ id: endpointId } = await registerEndpoint(webhooks, OPERATOR, {
        url: `http://127.0.0.1:9/${owner}/${n}`,
        events: ['*'],
        owner,
      }));
});

describe('the Find page on an event id', () => {
  it('counts one delivery in the singular', async () => {
    assert.equal(await captionOfEvent('order.created', 'acme'), '1 delivery');
  });

  it('counts several in the plural', async () => {
    assert.equal(await captionOfEvent('order.created', 'globex'), '2 deliveries');
  });
});

describe("the Find page's title", () => {
  it('names what was looked for, and is Find alone before a search', async () => {
    const searched = await admin.request('GET', '/find?q=order.created', { html: true });
    assert.match(searched.text, /<title>Find: order\.created · app<\/title>/);
    assert.match(searched.text, /<h1>Find: order\.created<\/h1>/);
    const empty = await admin.request('GET', '/find', { html: true });
    assert.match(empty.text, /<title>Find · app<\/title>/);
  });
});

describe('the Find page on a delivery or endpoint id', () => {
  it('opens the page of one that is there', async () => {
    const found = await admin.request('GET', `/find?q=${endpointId}`, { html: true });
    assert.equal(found.status, 302);
    assert.equal(found.headers.get('location'), `/endpoints/${endpointId}`);
  });

  it('stays on Find with why and the id typed, for one that is not there or out of reach', async () => {
    const member = new Browser(app.base);
    await member.signIn((await app.user({ role: 'member', owner: 'acme' })).email);
    for (const [who, q, code] of [
      [admin, `msg_${'0'.repeat(26)}`, 'APP_WEBHOOK_DELIVERY_NOT_FOUND'],
      [admin, 'ep_mistyped', 'APP_WEBHOOK_NOT_FOUND'],
      // globex's endpoint is out of a member of acme's reach: as if it were not there
      [member, endpointId, 'APP_WEBHOOK_NOT_FOUND'],
    ] as const) {
      const page = await who.request('GET', `/find?q=${q}`, { html: true });
      assert.equal(page.status, 404, q);
      assert.match(page.text, /<h1>Find: /, q);
      assert.match(page.text, new RegExp(`<code data-code="${code}">`), q);
      assert.match(page.text, new RegExp(`<input id="q" name="q" value="${q}"`), `${q}: the search box keeps it`);
    }
  });

  it("still sends a JSON client to the record's page object", async () => {
    const answer = await admin.request('GET', `/find?q=msg_${'0'.repeat(26)}`);
    assert.equal(answer.status, 302);
    assert.equal(answer.headers.get('location'), `/deliveries/msg_${'0'.repeat(26)}`);
  });
});
