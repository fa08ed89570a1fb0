/**
 * Endpoint header values are receiver credentials. They are sealed in the
 * table, every role sees the names, members and admins see values when they ask, a viewer who
 * asks is refused, and the receiver still gets the real value.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { call, closeAll, receiver, startApi, startDeliveryWorker } from './helpers.ts';
import { eventually } from '../../helpers/poll.ts';

const CREDENTIAL = 'Bearer receiver-credential-7f3a';

describe('endpoint header values', () => {
  after(closeAll); // the worker and servers stop before the database is dropped
  it('are sealed at rest, hidden from every answer unless a member or admin reveals them, and still sent to the receiver', async () => {
    const app = await startApi({ secret: 'an application secret sealing header values too' });
    const member = await app.token('member', 'acme');
    const viewer = await app.token('viewer', 'acme');
    const hook = await receiver();
    const created = await call('POST', `${app.api}/webhooks`, {
      token: member,
      body: { url: hook.url, events: ['*'], headers: { Authorization: CREDENTIAL, 'X-Tenant': 'acme' } },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.externalId;

    const [row] = await app.db.sql<{ headers: string }[]>`select headers::text from app_webhooks where id = ${id}`;
    assert.ok(!row.headers.includes('receiver-credential'), `sealed at rest: ${row.headers}`);
    assert.match(row.headers, /"Authorization": "enc:v1:/);

    for (const token of [member, viewer]) {
      const shown = await call('GET', `${app.api}/webhooks/${id}`, { token });
      assert.deepEqual(shown.body.headers, { Authorization: null, 'X-Tenant': null }, 'names only');
      const listed = await call('GET', `${app.api}/webhooks`, { token });
      assert.ok(!listed.text.includes('receiver-credential'));
    }
    const revealed = await call('GET', `${app.api}/webhooks/${id}?reveal=headers`, { token: member });
    assert.deepEqual(revealed.body.headers, { Authorization: CREDENTIAL, 'X-Tenant': 'acme' });
    const refused = await call('GET', `${app.api}/webhooks/${id}?reveal=headers`, { token: viewer });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'APP_FORBIDDEN');
    for (const asked of ['header', 'true', 'secrets', '']) {
      // a misspelt reveal is refused, never answered as a read without the values asked for
      const misspelt = await call('GET', `${app.api}/webhooks/${id}?reveal=${asked}`, { token: member });
      assert.equal(misspelt.status, 422, `reveal=${asked}: ${misspelt.text}`);
      assert.equal(misspelt.body.code, 'APP_WEBHOOK_LIST_INVALID');
      assert.equal(misspelt.body.data.field, 'reveal');
      assert.equal(misspelt.body.data.value, asked);
    }

    const gql = (token: string, reveal: boolean) =>
      call('POST', `${app.base}/_app/gql`, {
        token,
        headers: { Accept: 'application/json' },
        body: { query: `{ webhookEndpoint(id: "${id}") { headers(reveal: ${reveal}) } }` },
      });
    assert.deepEqual((await gql(viewer, false)).body.data.webhookEndpoint.headers, {
      Authorization: null,
      'X-Tenant': null,
    });
    assert.deepEqual((await gql(member, true)).body.data.webhookEndpoint.headers, {
      Authorization: CREDENTIAL,
      'X-Tenant': 'acme',
    });
    assert.equal((await gql(viewer, true)).body.errors?.[0]?.extensions?.code, 'APP_FORBIDDEN');

    await startDeliveryWorker(app);
    assert.equal((await call('POST', `${app.api}/webhooks/${id}/test`, { token: member, body: {} })).status, 202);
    await eventually(() => hook.requests.length > 0, 15_000, 'the test delivery');
    assert.equal(hook.requests[0].headers.authorization, CREDENTIAL, 'the receiver gets the real value');
    assert.ok(!app.logs.some((line) => line.includes('receiver-credential')), 'never logged');
  });
});
