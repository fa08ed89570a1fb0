/**
 * Idempotency keys of tenant portal sessions: a portal session has no user, and every portal
 * session of an owner shares its principal's id, so its keys are kept per session: two people
 * of one tenant (behind one office address) using the same key do not get each other's answers.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { depsOf } from '../../shared/webhooks/fixtures.ts';
import { startAccounts } from '../accounts/helpers.ts';
import { OWNER, signIn, type Caller } from '../access/faces.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };
const app = await startAccounts(FLAGS);

describe('idempotency keys of portal sessions are scoped by session', () => {
  let first: Caller;
  let second: Caller;
  before(async () => {
    await registerEndpoint(depsOf(app.db, FLAGS), OPERATOR, {
      url: 'http://127.0.0.1:9/hook',
      events: ['*'],
      owner: OWNER,
    });
    first = await signIn(app.base, app.accounts, 'portal member');
    second = await signIn(app.base, app.accounts, 'portal member');
  });

  const emit = (caller: Caller, key: string) =>
    caller.browser.request('POST', '/api/v1/events', {
      json: { type: 'order.created', data: { n: 1 } },
      headers: { 'x-csrf-token': caller.csrf, 'idempotency-key': key },
    });

  it('two portal sessions of one owner with the same key each run; the same session again is a replay', async () => {
    const a = await emit(first, 'same-key');
    const b = await emit(second, 'same-key');
    assert.equal(a.status, 202, a.text);
    assert.equal(b.status, 202, b.text);
    assert.equal(b.headers.get('idempotency-replayed'), null, 'another session is not answered from the first one');
    assert.notEqual(a.body.externalId, b.body.externalId);
    const again = await emit(first, 'same-key');
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.body.externalId, a.body.externalId);
    const [{ n }] = await app.db.sql`select count(*)::int as n from app_events where owner = ${OWNER}`;
    assert.equal(n, 2);
  });
});
