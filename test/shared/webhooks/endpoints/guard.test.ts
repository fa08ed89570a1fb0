/**
 * The tenant scope of a write is checked on the locked endpoint row inside the writing
 * transaction (a single statement for remove), so another tenant's endpoint is never written,
 * and an endpoint that changed owner is never written for the old tenant.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { createTestDatabase } from '../../../helpers/database.ts';
import { clearQueue, depsOf } from '../fixtures.ts';
import {
  registerEndpoint,
  removeEndpoint,
  rotateSecret,
  updateEndpoint,
} from '../../../../shared/webhooks/endpoints/index.ts';
import { sendToEndpoint } from '../../../../shared/webhooks/events/index.ts';
import { actorOf, OPERATOR } from '../../../../shared/access/actor.ts';

const db = await createTestDatabase();
const deps = () => depsOf(db);

/** A member of tenant A. */
const tenantA = actorOf({ id: 'member-a', roles: ['member'], owner: 'a' });

beforeEach(async () => {
  await db.sql`delete from app_webhooks`;
  await clearQueue(db.sql);
});

async function endpointOfB() {
  return registerEndpoint(deps(), OPERATOR, { url: 'https://127.0.0.1/hook', events: ['*'], owner: 'b' });
}

const isNotFound = (error: unknown) => (error as { code?: string }).code === 'APP_WEBHOOK_NOT_FOUND';

describe('tenant scope of endpoint writes (checked on the locked row)', () => {
  it('update: refused with 404 for another tenant, nothing changed', async () => {
    const endpoint = await endpointOfB();
    await assert.rejects(updateEndpoint(deps(), tenantA, endpoint.id, { description: 'taken over' }), isNotFound);
    const [row] = await db.sql`select description, owner from app_webhooks where id = ${endpoint.id}`;
    assert.deepEqual({ ...row }, { description: null, owner: 'b' });
  });

  it('remove: refused with 404 for another tenant, the endpoint stays', async () => {
    const endpoint = await endpointOfB();
    await assert.rejects(removeEndpoint(deps(), tenantA, endpoint.id), isNotFound);
    const rows = await db.sql`select id from app_webhooks where id = ${endpoint.id}`;
    assert.equal(rows.length, 1);
  });

  it('rotate: refused with 404 for another tenant, the secrets unchanged', async () => {
    const endpoint = await endpointOfB();
    const before = await db.sql`select secrets from app_webhooks where id = ${endpoint.id}`;
    await assert.rejects(rotateSecret(deps(), tenantA, endpoint.id), isNotFound);
    const after = await db.sql`select secrets from app_webhooks where id = ${endpoint.id}`;
    assert.deepEqual(after[0].secrets, before[0].secrets);
  });

  it('send: refused with 404 for another tenant, nothing queued', async () => {
    const endpoint = await endpointOfB();
    await assert.rejects(sendToEndpoint(deps(), tenantA, endpoint.id, 'webhook.test', {}), isNotFound);
    const [{ n }] = await db.sql`select count(*)::int as n from app_webhook_deliveries`;
    assert.equal(n, 0);
  });

  it('lets the tenant itself through', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, {
      url: 'https://127.0.0.1/hook',
      events: ['*'],
      owner: 'a',
    });
    const updated = await updateEndpoint(deps(), tenantA, endpoint.id, { description: 'mine' });
    assert.equal(updated.description, 'mine');
  });
});
