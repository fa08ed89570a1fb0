/**
 * An Idempotency-Key as docs/http-api.md ("Idempotency keys") describes it to an API client: it
 * belongs to the bearer token that sent it (another token of the same tenant runs the same key
 * and body as a request of its own), the body is compared as sent, and a replay is the stored
 * answer whole.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { call, closeAll, createEndpoint, startApi } from '../webhooks-api/helpers.ts';

describe('Idempotency-Key for an API client', () => {
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

  it('the body is compared byte for byte, and a replayed problem keeps the requestId of the request that made it', async () => {
    const app = await startApi();
    const token = await app.token('member', 'acme');
    const send = (body: string, requestId: string) =>
      call('POST', `${app.api}/events`, {
        token,
        body,
        headers: { 'Idempotency-Key': 'bytes', 'X-Request-Id': requestId },
      });
    const refused = await send('{"type": 5}', 'first-request');
    assert.equal(refused.status, 422);
    const replayed = await send('{"type": 5}', 'second-request');
    assert.equal(replayed.headers.get('idempotency-replayed'), 'true');
    assert.equal(replayed.headers.get('x-request-id'), 'second-request');
    assert.equal(replayed.body.requestId, 'first-request');
    const respaced = await send('{"type":5}', 'third-request');
    assert.equal(respaced.status, 422);
    assert.equal(respaced.body.code, 'APP_API_IDEMPOTENCY_KEY_REUSED', 'other spacing is another body');
  });
});
