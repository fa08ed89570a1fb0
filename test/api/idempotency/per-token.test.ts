/**
 * An Idempotency-Key belongs to the bearer token that sent it: the same key and body from another
 * token of the same tenant runs as a request of its own, and each token's retry replays its own
 * answer (docs/http-api.md, "Idempotency keys").
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { call, closeAll, createEndpoint, startApi } from '../webhooks-api/helpers.ts';

describe('Idempotency-Key per bearer token', () => {
  after(closeAll);
  it('two tokens of one tenant with the same key each run once and replay their own answer', async () => {
    const app = await startApi();
    const first = await app.token('member', 'acme');
    const second = await app.token('member', 'acme');
    await createEndpoint(app, first, { url: 'http://127.0.0.1:9/hook', events: ['order.*'] });
    const emit = (token: string) =>
      call('POST', `${app.api}/events`, {
        token,
        body: { type: 'order.created', data: { id: 1 } },
        headers: { 'Idempotency-Key': 'same-key' },
      });
    const one = await emit(first);
    const two = await emit(second);
    assert.equal(one.status, 202, one.text);
    assert.equal(two.status, 202, two.text);
    assert.equal(two.headers.get('idempotency-replayed'), null, 'not the first token answer');
    assert.notEqual(two.body.externalId, one.body.externalId, 'a second event');
    const again = await emit(second);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.externalId, two.body.externalId);
  });
});
