/**
 * The tenant guard runs on the locked endpoint row inside the writing transaction, so an
 * endpoint that changed owner after a scope check is never written for the old tenant.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { endpointNotFound, type EndpointGuard } from '../../../shared/webhooks/endpoint-store.ts';
import { register } from '../../../shared/webhooks/register.ts';
import { update } from '../../../shared/webhooks/update.ts';
import { remove } from '../../../shared/webhooks/remove.ts';
import { rotate } from '../../../shared/webhooks/secrets.ts';
import { sendToEndpoint } from '../../../shared/webhooks/emit.ts';
import { assertInScope, tenantScope } from '../../../shared/webhooks/tenant-scope.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { clearQueue, depsOf } from './fixtures.ts';

const db = await createTestDatabase();
const deps = () => depsOf(db);

/** What tenant A's scope check would say, run by the core on the locked row. */
const tenantA = (id: string): EndpointGuard => (row) => assertInScope(tenantScope('a'), row.owner, () => endpointNotFound(id));

beforeEach(async () => {
  await db.sql`delete from app_webhooks`;
  await clearQueue(db.sql);
});

async function endpointOfB() {
  return register(deps(), { url: 'https://127.0.0.1/hook', events: ['*'], owner: 'b' });
}

const isNotFound = (error: unknown) => (error as { code?: string }).code === 'APP_WEBHOOK_NOT_FOUND';

describe('endpoint guard (tenant scope checked on the locked row)', () => {
  it('update: refused with 404 for another tenant, nothing changed', async () => {
    const endpoint = await endpointOfB();
    await assert.rejects(update(deps(), endpoint.id, { description: 'taken over' }, { guard: tenantA(endpoint.id) }), isNotFound);
    const [row] = await db.sql`select description, owner from app_webhooks where id = ${endpoint.id}`;
    assert.deepEqual({ ...row }, { description: null, owner: 'b' });
  });

  it('remove: refused with 404 for another tenant, the endpoint stays', async () => {
    const endpoint = await endpointOfB();
    await assert.rejects(remove(deps(), endpoint.id, { guard: tenantA(endpoint.id) }), isNotFound);
    const rows = await db.sql`select id from app_webhooks where id = ${endpoint.id}`;
    assert.equal(rows.length, 1);
  });

  it('rotate: refused with 404 for another tenant, the secrets unchanged', async () => {
    const endpoint = await endpointOfB();
    const before = await db.sql`select id from app_webhook_secrets where endpoint_id = ${endpoint.id}`;
    await assert.rejects(rotate(deps(), endpoint.id, { guard: tenantA(endpoint.id) }), isNotFound);
    const after = await db.sql`select id from app_webhook_secrets where endpoint_id = ${endpoint.id}`;
    assert.deepEqual(after.map((r) => r.id), before.map((r) => r.id));
  });

  it('send: refused with 404 for another tenant, nothing queued', async () => {
    const endpoint = await endpointOfB();
    await assert.rejects(sendToEndpoint(deps(), endpoint.id, 'webhook.test', {}, { guard: tenantA(endpoint.id) }), isNotFound);
    const [{ n }] = await db.sql`select count(*)::int as n from app_webhook_deliveries`;
    assert.equal(n, 0);
  });

  it('lets the tenant itself through', async () => {
    const endpoint = await register(deps(), { url: 'https://127.0.0.1/hook', events: ['*'], owner: 'a' });
    const updated = await update(deps(), endpoint.id, { description: 'mine' }, { guard: tenantA(endpoint.id) });
    assert.equal(updated.description, 'mine');
  });
});
