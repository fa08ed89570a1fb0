import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../../../helpers/database.ts';
import { emit } from '../../../../shared/webhooks/events/emit.ts';
import { appError, depsOf } from '../fixtures.ts';
import {
  disableEndpoint,
  endpointStatuses,
  listEndpoints,
  registerEndpoint,
  showEndpoint,
} from '../../../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../../../shared/access/actor.ts';

const db = await createTestDatabase();
const deps = () => depsOf(db);
const url = 'https://127.0.0.1/read';

const a1 = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'], owner: 'read-A' });
const a2 = await registerEndpoint(deps(), OPERATOR, { url, events: ['x.*'], owner: 'read-A' });
const b1 = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'], owner: 'read-B' });
const n1 = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
await disableEndpoint(deps(), OPERATOR, a2.id);

describe('list', () => {
  it('lists every endpoint in creation order without an owner filter', async () => {
    assert.deepEqual(
      (await listEndpoints(deps(), OPERATOR)).records.map((e) => e.id),
      [a1.id, a2.id, b1.id, n1.id],
    );
  });
  it("lists one owner's endpoints, or only owner-less ones with owner null", async () => {
    assert.deepEqual(
      (await listEndpoints(deps(), OPERATOR, { owner: 'read-A' })).records.map((e) => e.id),
      [a1.id, a2.id],
    );
    assert.deepEqual(
      (await listEndpoints(deps(), OPERATOR, { owner: null })).records.map((e) => e.id),
      [n1.id],
    );
    assert.deepEqual((await listEndpoints(deps(), OPERATOR, { owner: 'nobody' })).records, []);
  });
  it('filters by state', async () => {
    assert.deepEqual(
      (await listEndpoints(deps(), OPERATOR, { owner: 'read-A', enabled: true })).records.map((e) => e.id),
      [a1.id],
    );
    assert.deepEqual(
      (await listEndpoints(deps(), OPERATOR, { enabled: false })).records.map((e) => e.id),
      [a2.id],
    );
  });
  it('never includes a secret', async () => {
    const text = JSON.stringify((await listEndpoints(deps(), OPERATOR)).records);
    for (const e of [a1, a2, b1, n1]) assert.ok(!text.includes(e.secret));
    assert.ok(!text.includes('whsec_'));
  });
});

describe('show', () => {
  it('answers the endpoint and the dates of its signing secrets, without their values', async () => {
    const shown = await showEndpoint(deps(), OPERATOR, a1.id);
    assert.equal(shown.id, a1.id);
    assert.equal(shown.secrets.length, 1);
    assert.ok(!('secret' in shown.secrets[0]));
    assert.equal(shown.secrets[0].expiresAt, null);
  });
  it('refuses an unknown id with APP_WEBHOOK_NOT_FOUND', async () => {
    await assert.rejects(showEndpoint(deps(), OPERATOR, 'ep_NOPE'), appError('APP_WEBHOOK_NOT_FOUND', 404));
    await assert.rejects(showEndpoint(deps(), OPERATOR, ''), appError('APP_WEBHOOK_NOT_FOUND', 404));
  });
});

describe('status', () => {
  it('answers each endpoint with its delivery counts by state and the latest delivery time', async () => {
    await emit(deps(), 'a.b', {}, { owner: 'read-A' });
    await emit(deps(), 'a.c', {}, { owner: 'read-A' });
    await emit(deps(), 'a.b', {}, { owner: 'read-B' });
    await db.sql`update app_webhook_deliveries set status = 'dead' where id = (select id from app_webhook_deliveries where endpoint_id = ${a1.id} order by id limit 1)`;
    const rows = await endpointStatuses(deps(), OPERATOR);
    const byId = new Map(rows.map((r) => [r.id, r]));
    assert.deepEqual(byId.get(a1.id)?.deliveries, { pending: 1, running: 0, done: 0, dead: 1, total: 2 });
    assert.deepEqual(byId.get(a2.id)?.deliveries, { pending: 0, running: 0, done: 0, dead: 0, total: 0 });
    assert.equal(byId.get(a2.id)?.lastDeliveryAt, null);
    assert.deepEqual(byId.get(b1.id)?.deliveries, { pending: 1, running: 0, done: 0, dead: 0, total: 1 });
    assert.ok(byId.get(a1.id)?.lastDeliveryAt instanceof Date);
    assert.deepEqual(
      (await endpointStatuses(deps(), OPERATOR, { owner: 'read-B' })).map((r) => r.id),
      [b1.id],
    );
  });
});
