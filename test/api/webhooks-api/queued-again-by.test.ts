/**
 * Who queued a delivery again, as a caller bound to one tenant reads it
 * (shared/webhooks/deliveries/record.ts `queuedAgainByAsRead`): a tenant portal session reading its
 * own deliveries through REST and GraphQL sees its own id, and `other` for anyone else (an
 * operator's user, a token), never their ids; an admin reading the same deliveries sees the ids
 * as recorded. The console's delivery page, which reads through GraphQL, says "someone else".
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { sendToEndpoint } from '../../../shared/webhooks/events/index.ts';
import { depsOf } from '../../shared/webhooks/fixtures.ts';
import { startAccounts } from '../accounts/helpers.ts';
import { signIn, type Caller } from '../access/faces.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };
const app = await startAccounts(FLAGS);
const webhooks = depsOf(app.db, FLAGS);
const API = '/api/v1';

let admin: Caller;
let portal: Caller;
let endpointId = '';

before(async () => {
  admin = await signIn(app.base, app.accounts, 'admin');
  portal = await signIn(app.base, app.accounts, 'portal member');
  endpointId = (
    await registerEndpoint(webhooks, OPERATOR, { url: 'http://127.0.0.1:9/hook', events: ['*'], owner: 'acme' })
  ).id;
});

/** A dead delivery of acme's endpoint (no worker runs here: it stays as it is put). */
async function deadDelivery(): Promise<string> {
  const delivery = await sendToEndpoint(webhooks, OPERATOR, endpointId, 'order.created', { n: 1 });
  await webhooks.sql`update app_webhook_deliveries set status = 'dead', completed_at = now() where id = ${delivery.id}`;
  return delivery.id;
}

/** `queuedAgainBy` of delivery `id` as `caller` reads it through REST (show and list) and GraphQL (show and list). */
async function seenBy(caller: Caller, id: string): Promise<unknown[]> {
  const headers = { 'x-csrf-token': caller.csrf };
  const shown = await caller.browser.request('GET', `${API}/deliveries/${id}`);
  assert.equal(shown.status, 200, shown.text);
  const listed = await caller.browser.request('GET', `${API}/webhooks/${endpointId}/deliveries?per_page=100`);
  assert.equal(listed.status, 200, listed.text);
  const fromList = (listed.body._embedded.deliveries as { externalId: string; queuedAgainBy: unknown }[]).find(
    (delivery) => delivery.externalId === id,
  );
  const query = `query($id: ID!, $endpoint: ID!) {
    webhookDelivery(id: $id) { queuedAgainBy }
    webhookDeliveries(filter: { endpoint: $endpoint }, perPage: 100) { nodes { id queuedAgainBy } }
  }`;
  const graphql = await caller.browser.request('POST', '/_app/gql', {
    json: { query, variables: { id, endpoint: endpointId } },
    headers,
  });
  assert.equal(graphql.status, 200, graphql.text);
  assert.equal(graphql.body.errors, undefined, graphql.text);
  const fromGraphqlList = (graphql.body.data.webhookDeliveries.nodes as { id: string; queuedAgainBy: unknown }[]).find(
    (delivery) => delivery.id === id,
  );
  return [
    shown.body.queuedAgainBy,
    fromList?.queuedAgainBy,
    graphql.body.data.webhookDelivery.queuedAgainBy,
    fromGraphqlList?.queuedAgainBy,
  ];
}

describe('who queued a delivery again, as a tenant reads it', () => {
  it("an operator's user id is `other` to the tenant's portal session, and the id to an admin", async () => {
    const id = await deadDelivery();
    const retried = await admin.browser.request('POST', `${API}/deliveries/${id}/retry`, {
      headers: { 'x-csrf-token': admin.csrf },
    });
    assert.equal(retried.status, 202, retried.text);
    assert.ok(admin.userId);
    assert.deepEqual(await seenBy(portal, id), ['other', 'other', 'other', 'other']);
    assert.deepEqual(await seenBy(admin, id), Array(4).fill(admin.userId));
    const page = await portal.browser.request('GET', `/deliveries/${id}`, { html: true });
    assert.equal(page.status, 200);
    assert.match(page.text, /by someone else, a new run of attempts/, "the console's page says it in words");
    assert.ok(!page.text.includes(admin.userId), "the console's page does not name the operator's user");
  });

  it("a token's id is `other` to the tenant's portal session, even a token of the tenant itself", async () => {
    const id = await deadDelivery();
    const token = await createToken(webhooks, { name: 'acme member token', role: 'member', owner: 'acme' });
    const retried = await fetch(`${app.base}${API}/deliveries/${id}/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.token}` },
    });
    assert.equal(retried.status, 202, await retried.text());
    assert.deepEqual(await seenBy(portal, id), ['other', 'other', 'other', 'other']);
    assert.deepEqual(await seenBy(admin, id), Array(4).fill(token.id));
  });

  it('the portal session that queued it again sees its own id', async () => {
    const id = await deadDelivery();
    const retried = await portal.browser.request('POST', `${API}/deliveries/${id}/retry`, {
      headers: { 'x-csrf-token': portal.csrf },
    });
    assert.equal(retried.status, 202, retried.text);
    assert.equal(retried.body.queuedAgainBy, 'portal:acme');
    assert.deepEqual(await seenBy(portal, id), Array(4).fill('portal:acme'));
  });

  it('the answer to a retry by an operator names the operator to itself', async () => {
    const id = await deadDelivery();
    const retried = await admin.browser.request('POST', `${API}/deliveries/${id}/retry`, {
      headers: { 'x-csrf-token': admin.csrf },
    });
    assert.equal(retried.body.queuedAgainBy, admin.userId);
  });
});
